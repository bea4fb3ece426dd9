-- A script written for luabench that also runs on sysbench 1.0.20 through luabench_shim.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = here .. "?.lua;" .. package.path
local luabench = rawget(_G, "luabench") or require("luabench_shim")

local T
function thread_init()
  T = luabench.stats.type("transfer")
  luabench.user_data.n = 0
end

function event()
  local t0 = T:start()
  luabench.user_data.n = luabench.user_data.n + 1
  T:done(t0)
  luabench.counter_add(luabench.counters.OTHER, 1)
end

function thread_done()
  local s = luabench.shared("portable.n", "uint64_t")
  luabench.atomic_add(s, luabench.user_data.n)
  print("thread_done", sysbench.tid, "events", luabench.user_data.n >= 0, "shared", tonumber(luabench.atomic_load(s)) >= luabench.user_data.n)
end

-- Every thread runs it; only thread 0 prints, since sysbench's print() mixes lines that two
-- threads print at once.
local function load()
  local L = luabench.prepare.new("portable.load", 10 * sysbench.opt.threads)
  L:add(10)
  L:tick()
  local passed, failed = L:barrier(1), L:failed()
  L:finish()
  local t0 = luabench.time()
  luabench.sleep(0.01)
  local slept = luabench.time() - t0 >= 0.009
  if sysbench.tid ~= 0 then return end
  print("loaded", passed, failed)
  print("slept", slept, luabench.stopping())
  print("facts", luabench.additions, luabench.instance, luabench.instances)
  print("measure", luabench.stats.type("load"):measure(function(a, b) return a + b end, 2, 3))
end

sysbench.cmdline.commands = { load = { load, sysbench.cmdline.PARALLEL_COMMAND } }
