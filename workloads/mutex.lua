-- mutex: sysbench's mutex benchmark. Every thread runs exactly one event: --mutex-locks times,
-- spin --mutex-loops empty iterations, then lock a random one of --mutex-num mutexes and bump a
-- shared counter.
local ffi = require("ffi")
sysbench._cdef("luabench.cdef_kernels")
local C = ffi.C

sysbench.cmdline.options = {
  ["mutex-num"] = { "total size of mutex array", 4096, sysbench.cmdline.ARG_INT },
  ["mutex-locks"] = { "number of mutex locks to do per thread", 50000, sysbench.cmdline.ARG_INT },
  ["mutex-loops"] = { "number of empty loops to do outside mutex lock", 10000, sysbench.cmdline.ARG_INT },
}

local mutexes, done

-- sysbench has no check (0 or a negative count hangs): one line, as for cpu.
function init()
  local opt = sysbench.opt
  for _, c in ipairs({ { "mutex-num", opt.mutex_num, 1 }, { "mutex-locks", opt.mutex_locks, 0 },
      { "mutex-loops", opt.mutex_loops, 0 } }) do
    if c[2] < c[3] then
      error(string.format("Invalid value of %s: %d (%d or more).", c[1], c[2], c[3]), 0)
    end
  end
  sysbench._strict_options()
end

function thread_init()
  mutexes = C.lb_shared_mutexes(sysbench.worker, "mutex.array", sysbench.opt.mutex_num)
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
