-- The charts of `luabench compare --charts` and `luabench report`, one line per input:
--   sweeps:      throughput, queries, latency (per percentile, average, maximum), CPU and disk
--                IOPS against concurrency
--   single runs: the same quantities over time, every input on one time axis (s since start)
--   both:        per transaction type (luabench.stats), its rate and highest percentile
-- A sweep over another axis (tools/sweep --axis) is charted against its first axis, a grid's
-- other axes giving a line each.
-- One quantity per chart and per y axis. Latency axes turn logarithmic when the values plotted
-- together spread over more than 20x; the maximum has a chart of its own, so it never squashes
-- the percentiles. Titles and legends come from the results (workload, driver, data size,
-- concurrency, host, date) and the inputs' labels.
local results = require("luabench.internal.results")
local metrics = require("luabench.internal.metrics")
local svg = require("luabench.internal.svg")

local M = {}

local function all_same(inputs, f)
  local first = f(inputs[1])
  for i = 2, #inputs do
    if f(inputs[i]) ~= first then return nil end
  end
  return first
end

-- Title suffix and subtitle: what every input shares, else what tells them apart.
local function context(inputs)
  local what = all_same(inputs, function(x) return results.what(x.doc, results.swept(x)) end)
  local host = all_same(inputs, function(x) return x.doc.hostname end)
  local parts = {}
  if #inputs == 1 then
    parts[#parts + 1] = results.concurrency_text(inputs[1])
    if host and host ~= "" then parts[#parts + 1] = "host " .. host end
    parts[#parts + 1] = results.date(inputs[1].doc)
  else
    if host and host ~= "" then parts[#parts + 1] = "host " .. host end
    local labels = {}
    for i, x in ipairs(inputs) do
      labels[i] = x.label
      if not what then labels[i] = labels[i] .. " (" .. results.what(x.doc, results.swept(x)) .. ")" end
    end
    parts[#parts + 1] = table.concat(labels, " vs ")
  end
  return what or "comparison", table.concat(parts, "; ")
end

local function sys_busy(s)
  local c = s and s.cpu_pct
  if not c then return nil end
  return 100 - (c.idle or 0) - (c.iowait or 0)
end

-- The server's key figures charted (doc/results.md, server.key): key, title, y axis.
local SERVER_CHARTS = {
  { "commits_per_s", "Server commits per second", "commits/s" },
  { "cache_hit_pct", "Server cache hit ratio (%)", "hit %" },
  { "log_bytes_per_s", "Server WAL/redo bytes per second", "bytes/s" },
  { "fsyncs_per_s", "Server fsyncs per second", "fsyncs/s" },
  { "row_lock_waits_per_s", "Server row lock waits per second", "waits/s" },
  { "active_sessions", "Server sessions running a statement (sampled)", "sessions" },
}

-- Quantities charted: { id, name, ylabel, latency = bool, value(doc), series(interval) }.
local function quantities(inputs)
  local sql, sys, iops, bytes = false, false, false, false
  local pcts, seen = {}, {}
  for _, input in ipairs(inputs) do
    for _, p in ipairs(input.points) do
      local d = p.doc
      sql = sql or d.sql
      sys = sys or d.system ~= nil
      iops = iops or (d.system and (d.system.disk_iops or 0) > 0)
      bytes = bytes or ((d.counters.bytes_read or 0) + (d.counters.bytes_written or 0)) > 0
      for _, k in ipairs(metrics.percentiles(d)) do
        if not seen[k] then seen[k] = true; pcts[#pcts + 1] = k end
      end
    end
  end
  table.sort(pcts, function(a, b) return tonumber(a) < tonumber(b) end)
  local q = {}
  q[#q + 1] = { id = "throughput", name = sql and "Transactions per second" or "Events per second",
                ylabel = sql and "transactions/s" or "events/s",
                value = function(d) return d.rates.events_per_s end,
                series = function(iv) return iv.events_per_s end }
  if bytes then
    -- what the client itself moved (fileio, luabench.io): a block-size sweep is read in MiB/s
    local function mib(n, t) return t and t > 0 and n and n / 1048576 / t or nil end
    q[#q + 1] = { id = "mib", name = "MiB per second read and written by the client", ylabel = "MiB/s",
                  value = function(d) return mib((d.counters.bytes_read or 0) + (d.counters.bytes_written or 0), d.time_s) end,
                  series = function(iv) return mib((iv.bytes_read or 0) + (iv.bytes_written or 0), iv.interval_s) end }
  end
  if sql then
    q[#q + 1] = { id = "queries", name = "Queries per second", ylabel = "queries/s",
                  value = function(d) return d.rates.queries_per_s end,
                  series = function(iv) return iv.queries_per_s end }
  end
  local lat = {}
  for _, p in ipairs(pcts) do
    lat[#lat + 1] = { id = "latency-p" .. p, name = p .. "th percentile latency", short = "p" .. p,
                      ylabel = "latency (ms)", latency = true,
                      value = function(d) return (d.latency_ms.percentiles or {})[p] end,
                      series = function(iv) return iv.latency_ms and iv.latency_ms[p] end }
  end
  local avg = { id = "latency-avg", name = "Average latency", short = "average", ylabel = "latency (ms)", latency = true,
                value = function(d) return d.latency_ms.avg end }
  local max = { id = "latency-max", name = "Maximum latency", short = "maximum", ylabel = "latency (ms)", latency = true,
                value = function(d) return d.latency_ms.max end,
                series = function(iv) return iv.latency_ms and iv.latency_ms.max end }
  if sys then
    q.cpu = { id = "cpu", name = "Machine CPU busy (user + system + irq, % of all CPUs)", ylabel = "CPU busy %",
              value = function(d) return sys_busy(d.system) end,
              series = function(iv) return sys_busy(iv.system) end }
  end
  if iops then
    q.iops = { id = "disk-iops", name = "Disk IOPS (physical devices)", ylabel = "IOPS",
               value = function(d) return d.system and d.system.disk_iops end,
               series = function(iv) return iv.system and iv.system.disk_iops end }
  end
  return q, lat, avg, max
end

-- Series of one quantity, one per input.
-- A grid sweep (several axes) gives a line per value of its other axes.
local function sweep_series(inputs, qty)
  local list = {}
  for _, input in ipairs(inputs) do
    local lines, order = {}, {}
    for _, p in ipairs(input.points) do
      local g = p.group or ""
      if not lines[g] then lines[g] = {}; order[#order + 1] = g end
      local pts = lines[g]
      pts[#pts + 1] = { p.conc, qty.value(p.doc) }
    end
    for _, g in ipairs(order) do
      list[#list + 1] = { name = g == "" and input.label or (input.label .. " (" .. g .. ")"),
                          points = lines[g], color = #list, group = g ~= "" and g or nil }
    end
  end
  return list
end

local function time_series(inputs, qty)
  local list = {}
  for i, input in ipairs(inputs) do
    local pts = {}
    if qty.series then
      for _, iv in ipairs(input.doc.intervals or {}) do pts[#pts + 1] = { iv.time_s, qty.series(iv) } end
    end
    list[#list + 1] = { name = input.label, points = pts, color = i - 1 }
  end
  return list
end

local function has_points(series)
  for _, s in ipairs(series) do
    for _, p in ipairs(s.points) do if p[2] ~= nil then return true end end
  end
  return false
end

-- Per transaction type (luabench.stats): the rate of each type, and its highest percentile of
-- the run's list (time series: from the intervals' type_latency_ms).
local function type_names(inputs)
  local names, seen = {}, {}
  for _, input in ipairs(inputs) do
    for _, p in ipairs(input.points) do
      for name in pairs(p.doc.types or {}) do
        if not seen[name] then seen[name] = true; names[#names + 1] = name end
      end
    end
  end
  table.sort(names)
  return names
end

local function types_charts(inputs, sweep, series_of, chart)
  local names = type_names(inputs)
  if #names == 0 then return end
  local pcts = metrics.percentiles(inputs[1].doc)
  local p = pcts[#pcts]
  local rate, lat = {}, {}
  for _, name in ipairs(names) do
    local function with_type(s)
      s.name = #inputs == 1 and (name .. (s.group and (" (" .. s.group .. ")") or "")) or (s.name .. ": " .. name)
      return s
    end
    local r = { value = function(d) local t = (d.types or {})[name]; return t and t.per_s end,
                series = function(iv)
                  local n = iv.types and iv.types[name]
                  return n and iv.interval_s and iv.interval_s > 0 and n / iv.interval_s or nil
                end }
    local l = { value = function(d)
                  local t = (d.types or {})[name]
                  return t and t.latency_ms and t.latency_ms.percentiles and t.latency_ms.percentiles[p]
                end,
                series = function(iv)
                  local t = iv.type_latency_ms and iv.type_latency_ms[name]
                  return t and t[p]
                end }
    for _, s in ipairs(series_of(inputs, r)) do s = with_type(s); s.color = #rate; rate[#rate + 1] = s end
    if p then
      for _, s in ipairs(series_of(inputs, l)) do s = with_type(s); s.color = #lat; lat[#lat + 1] = s end
    end
  end
  chart("types-throughput", "Transactions per second by type", "transactions/s", rate)
  if p then chart("types-latency", p .. "th percentile latency by type", "latency (ms)", lat, true) end
end

-- Returns { { id, title, svg }, ... }.
function M.build(inputs)
  local sweep = false
  for _, input in ipairs(inputs) do sweep = sweep or #input.points > 1 or input.kind == "sweep" end
  local what, sub = context(inputs)
  local unit = results.axis_unit(inputs[1])
  local xlabel = sweep and (inputs[1].axes and unit or ("Concurrency (" .. unit .. ")")) or "Time since start (s)"
  local xticks, xlog2
  if sweep then
    local seen, lo, hi = {}, math.huge, 0
    xticks = {}
    for _, input in ipairs(inputs) do
      for _, p in ipairs(input.points) do
        if not seen[p.conc] then seen[p.conc] = true; xticks[#xticks + 1] = p.conc end
        lo, hi = math.min(lo, p.conc), math.max(hi, p.conc)
      end
    end
    table.sort(xticks)
    xlog2 = lo > 0 and hi / lo >= 8
  end
  local series_of = sweep and sweep_series or time_series
  local charts = {}
  local function chart(id, title, ylabel, series, latency)
    if not has_points(series) then return end
    local ylog = latency and svg.wants_log(series, 20)
    -- what ran follows the quantity in the title, or heads the subtitle when both would not fit
    local full, subtitle = title .. " — " .. what, sub
    if svg.text_width(full, 15, true) > svg.TITLE_PX then
      full, subtitle = title, what .. (sub ~= "" and ("; " .. sub) or "")
    end
    charts[#charts + 1] = {
      id = id, title = title,
      svg = svg.line_chart { id = id, title = full, subtitle = subtitle, xlabel = xlabel,
                             ylabel = ylabel, series = series, xlog2 = xlog2, xticks = xticks, ylog = ylog,
                             xmin = not sweep and 0 or nil },
    }
  end
  local q, lat, avg, max = quantities(inputs)
  for _, x in ipairs(q) do chart(x.id, x.name, x.ylabel, series_of(inputs, x)) end
  if #inputs == 1 then
    -- One input: its percentiles (and average, for sweeps) on one chart, a line each.
    local list = {}
    local group = sweep and { avg } or {}
    for _, x in ipairs(lat) do group[#group + 1] = x end
    for _, x in ipairs(group) do
      for _, s in ipairs(series_of(inputs, x)) do
        s.name, s.color = x.short .. (s.group and (" (" .. s.group .. ")") or ""), #list
        list[#list + 1] = s
      end
    end
    chart("latency", "Latency percentiles", "latency (ms)", list, true)
  else
    if sweep then chart(avg.id, avg.name, avg.ylabel, series_of(inputs, avg), true) end
    for _, x in ipairs(lat) do chart(x.id, x.name, x.ylabel, series_of(inputs, x), true) end
  end
  chart(max.id, max.name, max.ylabel, series_of(inputs, max), true)
  types_charts(inputs, sweep, series_of, chart)
  if q.cpu then chart(q.cpu.id, q.cpu.name, q.cpu.ylabel, series_of(inputs, q.cpu)) end
  if q.iops then chart(q.iops.id, q.iops.name, q.iops.ylabel, series_of(inputs, q.iops)) end
  -- The server's own figures (--server-stats), charted where the results have them.
  for _, c in ipairs(SERVER_CHARTS) do
    local key = c[1]
    local x = { value = function(d) return d.server and d.server.key and d.server.key[key] end,
                series = function(iv) return iv.server and iv.server.key and iv.server.key[key] end }
    -- A PostgreSQL backend publishes its counts about once a second, so a short interval may
    -- have no cache figure at all: a line of one point says nothing, leave the chart out.
    local series = series_of(inputs, x)
    local lines = true
    for _, s in ipairs(series) do
      local n = 0
      for _, p in ipairs(s.points) do if p[2] ~= nil then n = n + 1 end end
      lines = lines and n >= 2
    end
    if lines then chart("server-" .. key:gsub("_", "-"), c[2], c[3], series) end
  end
  return charts
end

return M
