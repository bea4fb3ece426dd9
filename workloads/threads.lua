-- threads: sysbench's scheduler benchmark. Each event takes one of --thread-locks mutexes in
-- turn and, --thread-yields times, locks it, yields the CPU and unlocks it.
local ffi = require("ffi")
local C = ffi.C

sysbench.cmdline.options = {
  ["thread-yields"] = { "number of yields to do per request", 1000, sysbench.cmdline.ARG_INT },
  ["thread-locks"] = { "number of locks per thread", 8, sysbench.cmdline.ARG_INT },
}

local locks, nlocks, yields

function thread_init()
  nlocks = sysbench.opt.thread_locks
  yields = sysbench.opt.thread_yields
  if nlocks < 1 then error("--thread-locks must be at least 1", 0) end
  locks = C.lb_shared_mutexes("threads.locks", nlocks)
end

function event()
  local idx = tonumber(C.lb_kernel_ticket("threads.ticket") % nlocks)
  C.lb_kernel_threads(locks, idx, yields)
end

-- sysbench prints these at --verbosity=4 (LOG_INFO) and above.
function sysbench.hooks.run_header()
  local opt = sysbench.opt
  if not (opt.debug or opt.verbosity >= 4) then return nil end
  return string.format("Doing thread subsystem performance test\nThread yields per test: %d Locks used: %d\n",
    opt.thread_yields, opt.thread_locks)
end
