-- The figures a comparison shows for one result, each with how to read it from the final report
-- and, where the result has one, from each interval of its time series (the spread that tells
-- a real difference from noise). Shared by `luabench compare` and `luabench report`.
local M = {}

local function sum_disks(sys, field)
  if not sys or not sys.disks then return nil end
  local total, any = 0, false
  local names = {}
  for name in pairs(sys.disks) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local d = sys.disks[name]
    if d.physical and d[field] then total, any = total + d[field], true end
  end
  return any and total or nil
end

-- Network interfaces added up, lo left out (a local database's traffic is not the NIC's).
local function sum_nics(sys, field)
  if not sys or not sys.net then return nil end
  local total = 0
  for name, n in pairs(sys.net) do
    if name ~= "lo" and n[field] then total = total + n[field] end
  end
  return total
end

local function cpu(sys, ...)
  local c = sys and sys.cpu_pct
  if not c then return nil end
  local total = 0
  for _, k in ipairs({ ... }) do total = total + (c[k] or 0) end
  return total
end

local function proc(sys, key)
  local p = sys and sys[key]
  if not p or not p.user_pct then return nil end
  return p.user_pct + (p.system_pct or 0)
end

local function per_s(iv, key)
  if not iv[key] or not iv.interval_s or iv.interval_s <= 0 then return nil end
  return iv[key] / iv.interval_s
end

-- Percentile keys present in a result, in numeric order ("50", "95", "99.9").
function M.percentiles(doc)
  local keys = {}
  for k in pairs((doc.latency_ms or {}).percentiles or {}) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tonumber(a) < tonumber(b) end)
  return keys
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end
M.sorted_keys = sorted_keys

-- Union of the percentiles, transaction types and workload figures of several results, in a
-- stable order.
local function union(docs, list_of)
  local seen, out = {}, {}
  for _, d in ipairs(docs) do
    for _, k in ipairs(list_of(d)) do
      if not seen[k] then seen[k] = true; out[#out + 1] = k end
    end
  end
  return out
end

-- The server's key figures (doc/results.md, server.key): key, row name, unit, which way is
-- better (nil: neutral), and whether the row is left out when every input has zero.
M.SERVER_KEYS = {
  { "commits_per_s", "commits/s", "/s", "higher" },
  { "rollbacks_per_s", "rollbacks/s", "/s", "lower", true },
  { "cache_hit_pct", "cache hit %", "%", "higher" },
  { "disk_reads_per_s", "disk reads/s", "/s", "lower", true },
  { "rows_read_per_s", "rows read/s", "/s" },
  { "rows_inserted_per_s", "rows inserted/s", "/s", nil, true },
  { "rows_updated_per_s", "rows updated/s", "/s", nil, true },
  { "rows_deleted_per_s", "rows deleted/s", "/s", nil, true },
  { "log_bytes_per_s", "WAL/redo bytes/s", "B/s", nil, true },
  { "log_bytes_per_transaction", "WAL/redo bytes per transaction", "B", "lower", true },
  { "fsyncs_per_s", "fsyncs/s", "/s", nil, true },
  { "row_lock_waits_per_s", "row lock waits/s", "/s", "lower", true },
  { "row_lock_wait_ms_per_transaction", "row lock wait ms per transaction", "ms", "lower", true },
  { "lock_waiting_sessions", "sessions waiting on locks", "", "lower", true },
  { "active_sessions", "active sessions", "" },
  { "deadlocks_per_s", "deadlocks/s", "/s", "lower", true },
  { "temp_bytes_per_s", "temp bytes/s", "B/s", "lower", true },
  { "checkpoints", "checkpoints", "", nil, true },
}

-- The server settings (server.settings) that differ between results: { { name = ..., values =
-- { text or nil per result } } }, by name; a setting one result lacks differs too. nil when no
-- result has settings.
function M.settings_diff(docs)
  local names, seen, any = {}, {}, false
  for _, d in ipairs(docs) do
    local s = d and d.server and d.server.settings
    if s then
      any = true
      for k in pairs(s) do
        if not seen[k] then seen[k] = true; names[#names + 1] = k end
      end
    end
  end
  if not any then return nil end
  table.sort(names)
  local out = {}
  for _, k in ipairs(names) do
    local values, differ = {}, false
    for i, d in ipairs(docs) do
      local s = d and d.server and d.server.settings
      values[i] = s and s[k]
      if i > 1 and values[i] ~= values[1] then differ = true end
    end
    if differ then out[#out + 1] = { name = k, values = values } end
  end
  return out
end


-- The percentiles of what pick(doc) returns (a type's, a statement's figures) in any result, in
-- numeric order.
local function percentile_keys(docs, pick)
  return union(docs, function(d)
    local x = pick(d)
    local keys = sorted_keys(x and x.latency_ms.percentiles)
    table.sort(keys, function(a, b) return tonumber(a) < tonumber(b) end)
    return keys
  end)
end

-- The name of the throughput figure, the same in every table, chart and format: transactions/s
-- when any of the results ran SQL (sysbench's "transactions"), events/s otherwise.
function M.throughput_name(docs)
  for _, d in ipairs(docs) do
    if d.sql then return "transactions/s" end
  end
  return "events/s"
end

-- The workloads' own figures that head a summary (and are better higher): tpcc's tpmC,
-- bookstore's bogotransactions, memory's MiB/s (mbw's copy rate with --memory-method).
M.WORKLOAD_HEADLINES = { tpmC = true, bt_per_s = true, mib_per_second = true, copy_mib_per_second = true }

-- Row definitions: { group, name, unit, value(doc), series(interval, doc) or nil,
-- better = "higher" | "lower" | "neutral", count = true for totals over the run (errors): their
-- series is the per-interval count, headline = true for the figures of a comparison's summary
-- (throughput, MiB/s, p95 and p99) }. A new kind of figure is one more add{}.
-- Every row declares its direction: only "higher" and
-- "lower" rows are coloured better or worse. Rows that no result has a value for are left out
-- by the caller.
function M.rows(docs)
  local rows = {}
  local function add(r) rows[#rows + 1] = r end
  local sql = M.throughput_name(docs) == "transactions/s"
  add { group = "throughput", name = M.throughput_name(docs), unit = "/s", better = "higher", headline = true,
        value = function(d) return d.rates.events_per_s end,
        series = function(iv) return iv.events_per_s end }
  if sql then
    add { group = "throughput", name = "queries/s", unit = "/s", better = "higher",
          value = function(d) return d.rates.queries_per_s end,
          series = function(iv) return iv.queries_per_s end }
  end
  add { group = "throughput", name = "read MiB/s", unit = "MiB/s", better = "higher", nonzero = true, headline = true,
        value = function(d) return d.counters.bytes_read / 1048576 / (d.time_s > 0 and d.time_s or 1) end,
        series = function(iv) local v = per_s(iv, "bytes_read"); return v and v / 1048576 end }
  add { group = "throughput", name = "written MiB/s", unit = "MiB/s", better = "higher", nonzero = true, headline = true,
        value = function(d) return d.counters.bytes_written / 1048576 / (d.time_s > 0 and d.time_s or 1) end,
        series = function(iv) local v = per_s(iv, "bytes_written"); return v and v / 1048576 end }

  add { group = "latency (ms)", name = "min", unit = "ms", better = "lower",
        value = function(d) return d.latency_ms.min end }
  add { group = "latency (ms)", name = "avg", unit = "ms", better = "lower",
        value = function(d) return d.latency_ms.avg end }
  local pcts = union(docs, M.percentiles)
  local headline_pct = {}
  for _, p in ipairs(pcts) do
    if tonumber(p) == 95 or tonumber(p) == 99 then headline_pct[p] = true end
  end
  if next(headline_pct) == nil and #pcts > 0 then headline_pct[pcts[#pcts]] = true end
  for _, p in ipairs(pcts) do
    add { group = "latency (ms)", name = "p" .. p, unit = "ms", better = "lower", percentile = p, headline = headline_pct[p],
          value = function(d) return (d.latency_ms.percentiles or {})[p] end,
          series = function(iv) return iv.latency_ms and iv.latency_ms[p] end }
  end
  add { group = "latency (ms)", name = "max", unit = "ms", better = "lower",
        value = function(d) return d.latency_ms.max end,
        series = function(iv) return iv.latency_ms and iv.latency_ms.max end }

  add { group = "errors", name = "errors", unit = "", better = "lower", count = true,
        value = function(d) return d.counters.errors end,
        series = function(iv) return iv.errors end }
  add { group = "errors", name = "errors/s", unit = "/s", better = "lower",
        value = function(d) return d.rates.errors_per_s end,
        series = function(iv) return iv.errors_per_s end }
  add { group = "errors", name = "reconnects", unit = "", better = "lower", count = true,
        value = function(d) return d.counters.reconnects end,
        series = function(iv) return iv.reconnects end }

  local sysrows = {
    { "CPU user %", function(s) return cpu(s, "user", "nice") end },
    { "CPU system %", function(s) return cpu(s, "system", "irq", "softirq") end },
    { "CPU iowait %", function(s) return cpu(s, "iowait") end },
    { "CPU steal %", function(s) return cpu(s, "steal") end },
    { "luabench CPU % of one", function(s) return proc(s, "process") end },
    { "DB server CPU % of one", function(s) return proc(s, "db_server") end },
    { "context switches/s", function(s) return s and s.context_switches_per_s end },
    { "disk IOPS", function(s) return s and s.disk_iops end },
    { "disk read MiB/s", function(s) return sum_disks(s, "read_mib_per_s") end },
    { "disk write MiB/s", function(s) return sum_disks(s, "write_mib_per_s") end },
    { "net rx MiB/s", function(s) return sum_nics(s, "rx_mib_per_s") end },
    { "net tx MiB/s", function(s) return sum_nics(s, "tx_mib_per_s") end },
    { "TCP retransmits/s", function(s) return s and s.tcp and s.tcp.retrans_per_s end },
  }
  for _, r in ipairs(sysrows) do
    local f = r[2]
    -- more or less of these is neither good nor bad in itself: shown, never coloured
    add { group = "system", name = r[1], unit = "", better = "neutral",
          value = function(d) return f(d.system) end,
          series = function(iv) return f(iv.system) end }
  end

  -- The database server's own figures (--server-stats): the key figures of its counters.
  for _, r in ipairs(M.SERVER_KEYS) do
    local key = r[1]
    add { group = "server", name = r[2], unit = r[3], better = r[4] or "neutral", nonzero = r[5],
          value = function(d) return d.server and d.server.key and d.server.key[key] end,
          series = function(iv) return iv.server and iv.server.key and iv.server.key[key] end }
  end

  for _, t in ipairs(union(docs, function(d) return sorted_keys(d.types) end)) do
    local function ty(d) return (d.types or {})[t] end
    -- Each interval's figures for this type: its count in `types`, its latency in
    -- `type_latency_ms`, its outcomes in `type_outcomes`.
    local function ilat(iv, key) local l = iv.type_latency_ms and iv.type_latency_ms[t]; return l and l[key] end
    local function icount(iv, key)
      -- (a result written before intervals had outcomes has no series for them)
      if not iv.type_outcomes then return nil end
      local o = iv.type_outcomes[t]
      return o and o[key] or 0
    end
    add { group = "per type", name = t .. " /s", unit = "/s", better = "higher",
          value = function(d) return ty(d) and ty(d).per_s end,
          series = function(iv)
            if not iv.interval_s or iv.interval_s <= 0 then return nil end
            return (iv.types and iv.types[t] or 0) / iv.interval_s
          end }
    add { group = "per type", name = t .. " mix %", unit = "%", better = "neutral",
          value = function(d) return ty(d) and ty(d).mix_pct end,
          series = function(iv)
            local total = 0
            for _, n in pairs(iv.types or {}) do total = total + n end
            if total == 0 then return nil end
            return 100 * (iv.types[t] or 0) / total
          end }
    add { group = "per type", name = t .. " avg ms", unit = "ms", better = "lower",
          value = function(d) return ty(d) and ty(d).latency_ms.avg end,
          series = function(iv) return ilat(iv, "avg") end }
    for _, p in ipairs(percentile_keys(docs, ty)) do
      add { group = "per type", name = t .. " p" .. p .. " ms", unit = "ms", better = "lower",
            value = function(d) return ty(d) and ty(d).latency_ms.percentiles[p] end,
            series = function(iv) return ilat(iv, p) end }
    end
    add { group = "per type", name = t .. " max ms", unit = "ms", better = "lower",
          value = function(d) return ty(d) and ty(d).latency_ms.max end,
          series = function(iv) return ilat(iv, "max") end }
    for _, outcome in ipairs({ "errors", "rollbacks", "retries" }) do
      add { group = "per type", name = t .. " " .. outcome, unit = "", better = "lower", count = true,
            value = function(d) return ty(d) and ty(d)[outcome] end,
            series = function(iv) return icount(iv, outcome) end }
    end
  end

  -- --report-statements: each statement (matched by its text), its series from the intervals'
  -- "statements" (each names its statement by position in the result's own list).
  local function stmt_of(d, sql)
    for i, x in ipairs(d.statements or {}) do
      if x.sql == sql then return x, i - 1 end
    end
  end
  for _, sql in ipairs(union(docs, function(d)
    local list = {}
    for _, x in ipairs(d.statements or {}) do list[#list + 1] = x.sql end
    return list
  end)) do
    local label = #sql > 48 and (sql:sub(1, 47) .. "…") or sql
    local cache = setmetatable({}, { __mode = "k" })
    local function st(d)
      if cache[d] == nil then cache[d] = { stmt_of(d, sql) } end
      return cache[d][1], cache[d][2]
    end
    local function ivs(iv, pos)
      for _, x in ipairs(iv.statements or {}) do
        if x.statement == pos then return x end
      end
    end
    local function per_doc(f)
      return function(d) local x = st(d); return x and f(x, d) end
    end
    -- a statement's series needs its position in that result's list: series(iv, doc)
    local function series_of(f)
      return function(iv, d)
        if not iv.statements then return nil end
        local _, pos = st(d)
        if not pos then return nil end
        return f(ivs(iv, pos) or false, iv)
      end
    end
    local function lat(key)
      return series_of(function(x) return x and x[key] or nil end)
    end
    add { group = "per statement", name = label .. " /s", unit = "/s", better = "higher",
          value = per_doc(function(x, d) return d.time_s and d.time_s > 0 and x.count / d.time_s or nil end),
          series = series_of(function(x, iv) return iv.interval_s > 0 and (x and x.count or 0) / iv.interval_s or nil end) }
    add { group = "per statement", name = label .. " avg ms", unit = "ms", better = "lower",
          value = per_doc(function(x) return x.latency_ms.avg end), series = lat("avg") }
    for _, p in ipairs(percentile_keys(docs, st)) do
      add { group = "per statement", name = label .. " p" .. p .. " ms", unit = "ms", better = "lower",
            value = per_doc(function(x) return x.latency_ms.percentiles[p] end), series = lat(p) }
    end
    add { group = "per statement", name = label .. " max ms", unit = "ms", better = "lower",
          value = per_doc(function(x) return x.latency_ms.max end), series = lat("max") }
    add { group = "per statement", name = label .. " errors", unit = "", better = "lower", count = true,
          value = per_doc(function(x) return x.errors end),
          series = series_of(function(x) return x and x.errors or 0 end) }
  end

  -- The script's named metrics (luabench.counter, .rate, .gauge), each with the direction it
  -- was declared with: a counter's sum and rate, a rate's share of true outcomes, a gauge's last
  -- value (its series: the value at each interval's end) and its extremes over the window.
  for _, name in ipairs(union(docs, function(d) return sorted_keys(d.metrics) end)) do
    local function m(d) return (d.metrics or {})[name] end
    local function iv_value(iv) local x = iv.metrics and iv.metrics[name]; return x and x.value end
    local kind, better
    for _, d in ipairs(docs) do
      if m(d) then kind, better = m(d).kind, m(d).better; break end
    end
    better = (better == "higher" or better == "lower") and better or "neutral"
    local function field(key) return function(d) return m(d) and m(d)[key] end end
    if kind == "counter" then
      add { group = "metrics", name = name, unit = "", better = better, count = true,
            value = field("value"), series = iv_value }
      add { group = "metrics", name = name .. " /s", unit = "/s", better = better, value = field("per_s"),
            series = function(iv)
              local v = iv_value(iv)
              return v and iv.interval_s and iv.interval_s > 0 and v / iv.interval_s or nil
            end }
    elseif kind == "rate" then
      add { group = "metrics", name = name, unit = "", better = better, value = field("value"), series = iv_value }
    elseif kind == "gauge" then
      add { group = "metrics", name = name, unit = "", better = better, value = field("value"), series = iv_value }
      add { group = "metrics", name = name .. " min", unit = "", better = better, value = field("min") }
      add { group = "metrics", name = name .. " max", unit = "", better = better, value = field("max") }
    end
  end

  local bytes_moved = false
  for _, d in ipairs(docs) do
    bytes_moved = bytes_moved or ((d.counters.bytes_read or 0) + (d.counters.bytes_written or 0)) > 0
  end
  -- The workload's own headline figures (tpmC, BT/s, ...): its top-level numbers.
  for _, k in ipairs(union(docs, function(d)
    local keys = {}
    for _, key in ipairs(sorted_keys(d.workload_stats)) do
      if type(d.workload_stats[key]) == "number" then keys[#keys + 1] = key end
    end
    return keys
  end)) do
    -- (MiB/s the client's byte counters already give is not a headline twice)
    local top = M.WORKLOAD_HEADLINES[k] and not (k == "mib_per_second" and bytes_moved) or nil
    add { group = "workload", name = k, unit = "", better = top and "higher" or "neutral", headline = top,
          value = function(d) local v = (d.workload_stats or {})[k]; return type(v) == "number" and v or nil end }
  end
  return rows
end

-- Mean, standard deviation and standard error of a row's per-interval figures in a result;
-- nil when the result has fewer than two intervals with the figure. For a count over the whole
-- run (a sum of n intervals) the standard error is that of the sum: sd x sqrt(n).
function M.spread(doc, row)
  if not row.series then return nil end
  local xs = {}
  for _, iv in ipairs(doc.intervals or {}) do
    local v = row.series(iv, doc)
    if type(v) == "number" and v == v then xs[#xs + 1] = v end
  end
  local n = #xs
  if n < 2 then return nil end
  local sum = 0
  for _, x in ipairs(xs) do sum = sum + x end
  local mean = sum / n
  local ss = 0
  for _, x in ipairs(xs) do ss = ss + (x - mean) ^ 2 end
  local sd = math.sqrt(ss / (n - 1))
  return { n = n, mean = mean, sd = sd, se = row.count and sd * math.sqrt(n) or sd / math.sqrt(n) }
end

-- The rule: a difference is significant when it is larger than twice the combined standard
-- error of the two results' per-interval figures (about a 95% bound for independent intervals;
-- intervals of one run are correlated, so treat it as a noise floor, not a test).
M.SIGMAS = 2
M.RULE = "a difference is significant (*) when it exceeds 2 x sqrt(se_a^2 + se_b^2), se = standard "
  .. "deviation / sqrt(n) of each run's n per-interval figures (x sqrt(n) for a count over the whole "
  .. "run); ~ = within that noise; ? = a run's per-interval series of the figure has fewer than 2 "
  .. "points (run with --report-interval; the overall min and avg have no series)"

-- true, false, or nil (cannot tell).
function M.significant(a, b, sa, sb)
  if a == nil or b == nil or not sa or not sb then return nil end
  return math.abs(b - a) > M.SIGMAS * math.sqrt(sa.se ^ 2 + sb.se ^ 2)
end

return M
