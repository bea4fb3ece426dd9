-- sysbench.rand: thin wrappers over the worker's generator (src/engine/rand.c). Arguments wrap to
-- uint32 as in sysbench.
local ffi = require("ffi")
local C = ffi.C

return function(worker)
  local rng = C.lb_worker_rng(worker)
  local rand = {}
  local buf, cap = nil, 0

  function rand.uniform(a, b) return C.lb_rand_uniform(rng, a, b) end
  function rand.gaussian(a, b) return C.lb_rand_gaussian(rng, a, b) end
  function rand.special(a, b) return C.lb_rand_special(rng, a, b) end
  function rand.pareto(a, b) return C.lb_rand_pareto(rng, a, b) end
  function rand.zipfian(a, b) return C.lb_rand_zipfian(rng, a, b) end
  function rand.default(a, b) return C.lb_rand_default(rng, a, b) end
  function rand.unique() return C.lb_rand_unique(worker) end
  function rand.uniform_uint64() return C.lb_rand_u64(rng) end
  function rand.uniform_double() return C.lb_rand_double(rng) end
  -- Exponentially distributed value with the given mean (think times, arrivals).
  function rand.exp(mean) return C.lb_rand_exp(rng, mean) end

  -- '#' -> digit, '@' -> lowercase letter, anything else copied.
  function rand.string(fmt)
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
      error(string.format("rand.varstring: invalid length range [%s, %s]", tostring(min), tostring(max)), 2)
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
  function rand.fill(fmt, dst, n)
    if type(fmt) ~= "string" then error("rand.fill: the template must be a string", 2) end
    if dst == nil then error("rand.fill: no buffer to fill", 2) end
    n = n or #fmt
    if not (n >= 0 and n <= #fmt) then
      error(string.format("rand.fill: %s bytes asked from a template of %d", tostring(n), #fmt), 2)
    end
    C.lb_rand_str(rng, fmt, dst, n)
  end

  rand.rng = rng
  return rand
end
