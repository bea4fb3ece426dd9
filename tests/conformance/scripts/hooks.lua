-- Every hook in its order, with the values that do not depend on timing.
-- Lines printed from several threads at once go out in one write each: sysbench's print()
-- writes every argument on its own, so two threads' lines can mix (deliberate:print-lines).
local function say(...) local t = {...} for i = 1, select('#', ...) do t[i] = tostring(t[i]) end io.write(table.concat(t, "\t", 1, select('#', ...)) .. "\n") end
function init() print("init", sysbench.tid) end
function thread_init(tid) say("thread_init", tid) end
function event(tid) end
function thread_done(tid) say("thread_done", tid) end
function done() print("done") end
function sysbench.hooks.report_cumulative(stat)
  print("report_cumulative", stat.events, stat.threads_running, stat.reads, stat.writes, stat.other,
    stat.errors, stat.reconnects, type(stat.time_total), type(stat.latency_pct))
end
