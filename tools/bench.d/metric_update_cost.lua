-- The cost of one update of a named metric (luabench.counter, .rate, .gauge) against
-- luabench.atomic_add on luabench.shared memory (BENCHMARKS.md, "Named metrics"). Each event runs
-- --n updates of --what in a JIT-compiled loop, each with a value that changes (so that no check
-- is hoisted out of the loop); `none` is the loop alone. Each thread prints the time per update
-- of its last event: with --threads=2 the atomic_add cases contend for one cache line, the named
-- metrics do not (each thread writes its own slot).
--
--   luabench tools/bench.d/metric_update_cost.lua --what=counter --n=20000000 --threads=2 --events=2 run
--   valgrind --tool=callgrind luabench tools/bench.d/metric_update_cost.lua --what=counter --n=1000000 --events=1 run
sysbench.cmdline.options = {
  what = { "none, counter, rate, gauge, atomic_add (luabench.atomic_add) or atomic_add_ffi (ffi.C.lb_atomic_add)", "counter" },
  n = { "updates in each event", 1000000 },
}
local band = bit.band
local C = luabench.counter("c")
local R = luabench.rate("r")
local G = luabench.gauge("g")
local P = luabench.shared("update_cost", "uint64_t", 1)
local add = ffi.C.lb_atomic_add
local sink = 0
local OUTCOMES = { [0] = true, false, false, false } -- one true in four
local loops = {
  none = function(n) local x = 0 for i = 1, n do x = x + band(i, 3) end sink = x end,
  counter = function(n) for i = 1, n do C:add(band(i, 3)) end end,
  rate = function(n) for i = 1, n do R:add(OUTCOMES[band(i, 3)]) end end,
  gauge = function(n) for i = 1, n do G:set(band(i, 3)) end end,
  atomic_add = function(n) for i = 1, n do luabench.atomic_add(P, band(i, 3)) end end,
  atomic_add_ffi = function(n) for i = 1, n do add(P, band(i, 3)) end end,
}
local ns_per_update
function event()
  local n = sysbench.opt.n
  local t0 = luabench.time()
  loops[sysbench.opt.what](n)
  ns_per_update = (luabench.time() - t0) * 1e9 / n
end
function thread_done()
  if ns_per_update then
    print(string.format("UPDATE %s thread %d: %.2f ns per update", sysbench.opt.what, sysbench.tid, ns_per_update))
  end
end
