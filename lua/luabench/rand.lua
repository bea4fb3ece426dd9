-- sysbench.rand: thin wrappers over the worker's generator (src/engine/rand.c). Arguments wrap to
-- uint32 as in sysbench.
local ffi = require("ffi")
local C = ffi.C

local api = sysbench._api -- (luabench.api_check, loaded on first use)

-- A range's bounds are numbers (or 64-bit cdata integers, which wrap as numbers do): anything
-- else is refused at the script's line, naming the call. Called only when a bound is not a
-- plain number, so the check costs one type test per bound.
local function check_range(name, a, b)
  local v = (type(a) ~= "number" and type(a) ~= "cdata") and a or b
  if type(v) ~= "number" and type(v) ~= "cdata" then
    api.bad("sysbench.rand." .. name .. "(a, b)", "a and b must be whole numbers (0 .. 2^32-1)", v)
  end
end

return function(worker)
  local rng = C.lb_worker_rng(worker)
  local rand = {}
  local buf, cap = nil, 0

  -- sysbench's distributions over [a, b], each one call into C.
  for _, name in ipairs({ "uniform", "gaussian", "special", "pareto", "zipfian", "default" }) do
    local draw = C["lb_rand_" .. name]
    rand[name] = function(a, b)
      if type(a) ~= "number" or type(b) ~= "number" then check_range(name, a, b) end
      return draw(rng, a, b)
    end
  end
  function rand.unique() return C.lb_rand_unique(worker) end
  function rand.uniform_uint64() return C.lb_rand_u64(rng) end
  function rand.uniform_double() return C.lb_rand_double(rng) end
  -- Exponentially distributed value with the given mean (think times, arrivals).
  function rand.exp(mean)
    if type(mean) ~= "number" then api.bad("luabench.rand.exp(mean)", "mean must be a number", mean) end
    return C.lb_rand_exp(rng, mean)
  end

  -- '#' -> digit, '@' -> lowercase letter, anything else copied.
  function rand.string(fmt)
    if type(fmt) ~= "string" then api.bad("sysbench.rand.string(template)", "template must be a string", fmt) end
    local n = #fmt
    if n > cap then
      cap = math.max(n, 256)
      buf = ffi.new("char[?]", cap)
    end
    C.lb_rand_str(rng, fmt, buf, n)
    return ffi.string(buf, n)
  end

  -- A string of random length in [min, max] over the characters '0'..'z'.
  function rand.varstring(min, max)
    -- (As sysbench's, which asserts it: a reversed range would wrap to a length of up to 4 GiB.)
    if not (type(min) == "number" and type(max) == "number" and min >= 0 and min <= max and max < 2 ^ 32) then
      api.raise(string.format("sysbench.rand.varstring(min, max): invalid length range [%s, %s] (want 0 <= min <= max < 2^32)",
        api.show(min), api.show(max)))
    end
    local n = C.lb_rand_uniform(rng, min, max)
    if n > cap then
      cap = math.max(n, 256)
      buf = ffi.new("char[?]", cap)
    end
    for i = 0, n - 1 do buf[i] = 48 + C.lb_rand_uniform(rng, 0, 74) end
    return ffi.string(buf, n)
  end

  -- Fills a caller's char buffer from a template without creating a Lua string. The template is
  -- read for n bytes, so n may not exceed it (the buffer's size is the caller's to know).
  local FILL = "luabench.rand.fill(template, buffer [, n])"
  function rand.fill(fmt, dst, n)
    if type(fmt) ~= "string" then api.bad(FILL, "template must be a string", fmt) end
    if type(dst) ~= "cdata" or dst == nil then api.bad(FILL, "buffer must be a char buffer (luabench.io.buffer())", dst) end
    n = n or #fmt
    if not (type(n) == "number" and n >= 0 and n <= #fmt) then
      api.bad(FILL, string.format("n must be a number of bytes 0..%d (the template's length)", #fmt), n)
    end
    C.lb_rand_str(rng, fmt, dst, n)
  end

  rand.rng = rng
  return rand
end
