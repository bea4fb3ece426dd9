-- cpu: sysbench's CPU benchmark. Each event finds the primes below --cpu-max-prime by trial
-- division (the same 64-bit arithmetic as sysbench's C test).
local ffi = require("ffi")
sysbench._cdef("luabench.cdef_kernels")
local C = ffi.C

sysbench.cmdline.options = {
  ["cpu-max-prime"] = { "upper limit for primes generator", 10000, sysbench.cmdline.ARG_INT },
}

local max_prime

-- sysbench's check and message (a negative limit would spin through 2^32 candidates).
function init()
  local n = sysbench.opt.cpu_max_prime
  if n <= 0 then error(string.format("Invalid value of cpu-max-prime: %d.", n), 0) end
  sysbench._strict_options()
end

function thread_init()
  max_prime = sysbench.opt.cpu_max_prime
end

function event()
  C.lb_kernel_cpu(max_prime)
end

-- sysbench prints its test's name at --verbosity=4 (LOG_INFO) and above.
local function info()
  return sysbench.opt.debug or sysbench.opt.verbosity >= 4
end

function sysbench.hooks.run_header()
  return (info() and "Doing CPU performance benchmark\n\n" or "") ..
    string.format("Prime numbers limit: %d\n\n", sysbench.opt.cpu_max_prime)
end

local function eps(stat)
  return stat.time_interval > 0 and stat.events / stat.time_interval or 0
end

function sysbench.hooks.report_text(stat)
  return string.format("CPU speed:\n    events per second: %8.2f\n\n", eps(stat))
end

function sysbench.hooks.report_json(stat)
  return { cpu_max_prime = sysbench.opt.cpu_max_prime, events_per_second = eps(stat) }
end
