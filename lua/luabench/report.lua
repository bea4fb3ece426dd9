-- sysbench.report_default / report_csv / report_json: the Lua reporters sysbench scripts
-- assign to sysbench.hooks.report_intermediate, in sysbench 1.0.20's layouts.
local report = {}

local function rates(stat)
  local s = stat.time_interval
  if s <= 0 then s = 1 end
  return s, stat.events / s, (stat.reads + stat.writes + stat.other) / s
end

function report.default(stat)
  local s, tps, qps = rates(stat)
  print(string.format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) "
    .. "lat (ms,%g%%): %4.2f err/s %4.2f reconn/s: %4.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s, stat.writes / s,
    stat.other / s, sysbench.opt.percentile, stat.latency_pct * 1000, stat.errors / s,
    stat.reconnects / s))
end

function report.csv(stat)
  local s, tps, qps = rates(stat)
  print(string.format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s, stat.writes / s,
    stat.other / s, stat.latency_pct * 1000, stat.errors / s, stat.reconnects / s))
end

-- Writes "[" before the first object and "]" when the Lua state closes, as sysbench does.
local closer

function report.json(stat)
  if not closer then
    io.write("[\n")
    closer = newproxy(true)
    getmetatable(closer).__gc = function() io.write("\n]\n") io.flush() end
  else
    io.write(",\n")
  end
  local s, tps, qps = rates(stat)
  io.write(string.format([[
  {
    "time": %4.0f,
    "threads": %u,
    "tps": %4.2f,
    "qps": {
      "total": %4.2f,
      "reads": %4.2f,
      "writes": %4.2f,
      "other": %4.2f
    },
    "latency": %4.2f,
    "errors": %4.2f,
    "reconnects": %4.2f
  }]], stat.time_total, stat.threads_running, tps, qps, stat.reads / s, stat.writes / s,
    stat.other / s, stat.latency_pct * 1000, stat.errors / s, stat.reconnects / s))
  io.flush()
end

return report
