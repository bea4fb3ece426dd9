-- threads: sysbench's scheduler benchmark. Each event takes one of --thread-locks mutexes in
-- turn and, --thread-yields times, locks it, yields the CPU and unlocks it.
local ffi = require("ffi")
sysbench._cdef("luabench.cdef_kernels")
local C = ffi.C

sysbench.cmdline.options = {
  ["thread-yields"] = { "number of yields to do per request", 1000, sysbench.cmdline.ARG_INT },
  ["thread-locks"] = { "number of locks per thread", 8, sysbench.cmdline.ARG_INT },
}

local locks, nlocks, yields

-- sysbench has no check (a negative count hangs or fails to allocate): one line, as for cpu.
function init()
  local opt = sysbench.opt
  if opt.thread_yields < 0 then
    error(string.format("Invalid value of thread-yields: %d (0 or more).", opt.thread_yields), 0)
  end
  if opt.thread_locks < 1 then
    error(string.format("Invalid value of thread-locks: %d (1 or more).", opt.thread_locks), 0)
  end
  sysbench._strict_options()
end

function thread_init()
  nlocks = sysbench.opt.thread_locks
  yields = sysbench.opt.thread_yields
  locks = C.lb_shared_mutexes(sysbench.worker, "threads.locks", nlocks)
end

function event()
  local idx = tonumber(C.lb_kernel_ticket(sysbench.worker, "threads.ticket") % nlocks)
  C.lb_kernel_threads(locks, idx, yields)
end

-- sysbench prints these at --verbosity=4 (LOG_INFO) and above.
function sysbench.hooks.run_header()
  local opt = sysbench.opt
  if not (opt.debug or opt.verbosity >= 4) then return nil end
  return string.format("Doing thread subsystem performance test\nThread yields per test: %d Locks used: %d\n",
    opt.thread_yields, opt.thread_locks)
end
