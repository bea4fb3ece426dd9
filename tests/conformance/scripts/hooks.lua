-- Every hook in its order, with the values that do not depend on timing.
function init() print("init", sysbench.tid) end
function thread_init(tid) print("thread_init", tid) end
function event(tid) end
function thread_done(tid) print("thread_done", tid) end
function done() print("done") end
function sysbench.hooks.report_cumulative(stat)
  print("report_cumulative", stat.events, stat.threads_running, stat.reads, stat.writes, stat.other,
    stat.errors, stat.reconnects, type(stat.time_total), type(stat.latency_pct))
end
