-- sysbench.histogram: log-bucketed histograms over a fixed range (src/api/script_hist.c).
local ffi = require("ffi")
local C = ffi.C

local methods = {}
function methods.update(h, value) C.lb_script_hist_update(h, value) end
function methods.print(h) C.lb_script_hist_print(h) end
function methods.percentile(h, p) return C.lb_script_hist_percentile(h, p) end
ffi.metatype("struct lb_script_hist", { __index = methods })

local histogram = {}

-- The size is a uint32_t in C: a negative or fractional size would wrap or be cut there
-- (-1 asked for 32 GiB and ended the process), so the size is checked here first.
local MAX_SIZE = 2 ^ 24

function histogram.new(size, range_min, range_max)
  local valid = type(size) == "number" and size % 1 == 0 and size >= 2 and size <= MAX_SIZE
    and type(range_min) == "number" and type(range_max) == "number"
  local h = valid and C.lb_script_hist_new(size, range_min, range_max) or nil
  if h == nil then
    error(string.format("invalid histogram parameters (size %s, range %s..%s)",
      tostring(size), tostring(range_min), tostring(range_max)), 2)
  end
  return ffi.gc(h, C.lb_script_hist_free)
end

return histogram
