-- sysbench.report_default / report_csv / report_json: the Lua reporters sysbench scripts
-- assign to sysbench.hooks.report_intermediate, in sysbench 1.0.20's layouts.
local report = {}
local api = require("luabench.api_check")

-- What a report hook receives: the statistics of an interval (a script calling a reporter
-- itself must pass that on).
local FIELDS = { "time_interval", "time_total", "events", "reads", "writes", "other", "threads_running",
  "latency_pct", "errors", "reconnects" }
local function check_stat(name, stat)
  local t = type(stat)
  if t ~= "table" and t ~= "cdata" then
    api.bad("sysbench.report_" .. name .. "(stat)", "stat must be the statistics a report hook receives", stat)
  end
  for _, k in ipairs(FIELDS) do
    local v = stat[k]
    if type(v) ~= "number" and type(v) ~= "cdata" then
      api.bad("sysbench.report_" .. name .. "(stat)", "stat." .. k .. " must be a number", v)
    end
  end
end

local function rates(stat)
  local s = stat.time_interval
  if s <= 0 then s = 1 end
  return s, stat.events / s, (stat.reads + stat.writes + stat.other) / s
end

function report.default(stat)
  check_stat("default", stat)
  local s, tps, qps = rates(stat)
  print(string.format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) "
    .. "lat (ms,%g%%): %4.2f err/s %4.2f reconn/s: %4.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s, stat.writes / s,
    stat.other / s, sysbench.opt.percentile, stat.latency_pct * 1000, stat.errors / s,
    stat.reconnects / s))
end

function report.csv(stat)
  check_stat("csv", stat)
  local s, tps, qps = rates(stat)
  print(string.format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f",
    stat.time_total, stat.threads_running, tps, qps, stat.reads / s, stat.writes / s,
    stat.other / s, stat.latency_pct * 1000, stat.errors / s, stat.reconnects / s))
end

-- Writes "[" before the first object and "]" when the Lua state closes, as sysbench does.
local closer

function report.json(stat)
  check_stat("json", stat)
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
