-- sysbench.histogram: log-bucketed histograms over a fixed range (src/api/script_hist.c).
local ffi = require("ffi")
local C = ffi.C

local api = require("luabench.api_check")
local HIST = ffi.typeof("struct lb_script_hist *")

-- A method called with '.' (h.update(5)) or on something else: one clear line.
local function not_histogram(name, h)
  api.raise(string.format("h:%s(): called on %s, not on a histogram from sysbench.histogram.new() (call it with ':')",
    name, api.show(h)))
end

local methods = {}
function methods.update(h, value)
  if not ffi.istype(HIST, h) then not_histogram("update", h) end
  if type(value) ~= "number" then api.bad("h:update(value)", "value must be a number", value) end
  C.lb_script_hist_update(h, value)
end
function methods.print(h)
  if not ffi.istype(HIST, h) then not_histogram("print", h) end
  C.lb_script_hist_print(h)
end
function methods.percentile(h, p)
  if not ffi.istype(HIST, h) then not_histogram("percentile", h) end
  if type(p) ~= "number" then api.bad("h:percentile(p)", "p must be a number (a percentage)", p) end
  return C.lb_script_hist_percentile(h, p)
end
ffi.metatype("struct lb_script_hist", { __index = methods })

local histogram = {}
-- The methods of the histogram objects, for the API's own surface walk (tests/fuzz/surface.lua):
-- an FFI object's metatable is out of a script's reach.
histogram._methods = methods

-- The size is a uint32_t in C: a negative or fractional size would wrap or be cut there
-- (-1 asked for 32 GiB and ended the process), so the size is checked here first.
local MAX_SIZE = 2 ^ 24

function histogram.new(size, range_min, range_max)
  local valid = type(size) == "number" and size % 1 == 0 and size >= 2 and size <= MAX_SIZE
    and type(range_min) == "number" and type(range_max) == "number"
  local h = valid and C.lb_script_hist_new(size, range_min, range_max) or nil
  if h == nil then
    api.raise(string.format("sysbench.histogram.new(size, min, max): invalid histogram parameters (size %s, range %s..%s)",
      api.show(size), api.show(range_min), api.show(range_max)))
  end
  return ffi.gc(h, C.lb_script_hist_free)
end

return histogram
