-- Fabricated luabench results for the specs of the compare/report modules: the fields those
-- modules read, with figures chosen so that every expected number is known.
local M = {}

-- tps: the final events/s; per_interval: the intervals' events/s (their spread is the noise).
function M.doc(o)
  o = o or {}
  local tps = o.tps or 1000
  local intervals = {}
  for i, v in ipairs(o.per_interval or { tps, tps }) do
    intervals[i] = { time_s = i, interval_s = 1, events_per_s = v, queries_per_s = v * 10, errors_per_s = 0,
                     bytes_read = 0, bytes_written = 0,
                     latency_ms = { ["50"] = 1, ["95"] = 2 * (o.lat or 1), max = 40 },
                     system = { cpu_pct = { user = 50, nice = 0, system = 10, irq = 0, softirq = 0, idle = 40, iowait = 0, steal = 0 },
                                disk_iops = 100 } }
  end
  local pct = { ["50"] = 1 * (o.lat or 1), ["95"] = 2 * (o.lat or 1) }
  if o.p99 then pct["99"] = o.p99 end
  return {
    luabench = { version = "0.1.0" }, hostname = o.host or "db1", status = "ok", workload = o.workload or "oltp_read_write",
    server_version = o.server_version, server = o.server, statements = o.statements,
    start_time = "2026-01-02T03:04:05.678Z", threads = o.threads or 8, sql = o.sql ~= false, time_s = 10,
    machine = { cpu_model = "Test CPU", cpus = 4, memory_mib = 8192, kernel = "Linux 6.1", arch = "x86_64", os = "Test OS" },
    command_line = "luabench oltp_read_write --pgsql-password=*** run",
    options = { ["db-driver"] = "pgsql", tables = 10, table_size = 100000, ["pgsql-host"] = "db1" },
    counters = { events = tps * 10, errors = o.errors or 0, reconnects = 0, bytes_read = 0, bytes_written = 0 },
    rates = { events_per_s = tps, queries_per_s = tps * 10, errors_per_s = (o.errors or 0) / 10 },
    latency_ms = { min = 0.5, avg = o.avg or 1.5 * (o.lat or 1), max = 40, percentiles = pct },
    types = o.types or {},
    system = { cpu_pct = { user = 50, nice = 0, system = 10, irq = 0, softirq = 0, idle = 40, iowait = 0, steal = 0 }, disk_iops = 100 },
    intervals = intervals,
  }
end

-- One input per doc, all labelled `label`: the runs of one configuration.
function M.runs(label, docs, extra)
  local out = {}
  for i, d in ipairs(docs) do
    local input = M.input(label, { d })
    input.path = label .. i .. ".json"
    for k, v in pairs(extra or {}) do input[k] = v end
    out[i] = input
  end
  return out
end

function M.input(label, docs, kind)
  local points = {}
  for i, d in ipairs(docs) do points[i] = { conc = d.threads, doc = d, file = label .. i .. ".json" } end
  return { label = label, path = label .. ".json", kind = kind or (#docs > 1 and "sweep" or "run"), points = points, doc = docs[1] }
end

return M
