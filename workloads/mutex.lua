-- mutex: sysbench's mutex benchmark. Every thread runs exactly one event: --mutex-locks times,
-- spin --mutex-loops empty iterations, then lock a random one of --mutex-num mutexes and bump a
-- shared counter.
local ffi = require("ffi")
local C = ffi.C

sysbench.cmdline.options = {
  ["mutex-num"] = { "total size of mutex array", 4096, sysbench.cmdline.ARG_INT },
  ["mutex-locks"] = { "number of mutex locks to do per thread", 50000, sysbench.cmdline.ARG_INT },
  ["mutex-loops"] = { "number of empty loops to do outside mutex lock", 10000, sysbench.cmdline.ARG_INT },
}

local mutexes, done

function thread_init()
  if sysbench.opt.mutex_num < 1 then error("--mutex-num must be at least 1", 0) end
  mutexes = C.lb_shared_mutexes("mutex.array", sysbench.opt.mutex_num)
  done = false
end

function event()
  if done then return true end
  done = true
  C.lb_kernel_mutex(mutexes, sysbench.opt.mutex_locks, sysbench.opt.mutex_loops, sysbench.rand.rng)
end

-- sysbench prints this at --verbosity=4 (LOG_INFO) and above.
function sysbench.hooks.run_header()
  local opt = sysbench.opt
  if not (opt.debug or opt.verbosity >= 4) then return nil end
  return "Doing mutex performance test\n"
end
