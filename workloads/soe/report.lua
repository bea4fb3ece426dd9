-- soe.report: Swingbench's figures after the engine's per-type table (text) and as
-- `workload_stats` (JSON): transactions per minute and per second in total and per type, the
-- average and percentile response times per type, the observed mix against the weights, DML
-- statements per second (selects, inserts, updates, deletes, commits, rollbacks) and logons per
-- second (database sessions opened, and LOGON rows written), over the measured window.
local common = require("soe.common")
local run = require("soe.run")

local M = {}
local fmt = string.format

M.LABEL = "Swingbench Order Entry-like (client-side transactions; see doc/workloads/soe.md)"

local DML = { "selects", "inserts", "updates", "deletes", "commits", "rollbacks" }

-- The per-thread counters, summed.
local function counters(threads)
  return require("luabench.workload").sum_slots(run.stats_array(threads), threads, run.SLOTS)
end

-- The figures that come from the per-type statistics and the counts of the window: a run's, or
-- the merged ones of several processes. r holds weights, dml (counts), sessions, logon_rows.
local function figures(r, types, secs)
  r.measured_s = secs
  local minutes = secs / 60
  local total, errors = 0, 0
  for _, t in ipairs(common.TXNS) do
    local x = types[t.name]
    if x then
      total = total + x.count
      errors = errors + x.errors
    end
  end
  local wsum = 0
  for _, t in ipairs(common.TXNS) do wsum = wsum + (r.weights[t.code] or 0) end
  r.transactions, r.errors = total, errors
  r.tpm = minutes > 0 and total / minutes or 0
  r.tps = secs > 0 and total / secs or 0
  r.by_type = {}
  r.max_mix_deviation_pct = 0
  for _, t in ipairs(common.TXNS) do
    local x = types[t.name] or { count = 0, errors = 0, rollbacks = 0 }
    local e = {
      code = t.code, name = t.name, count = x.count, errors = x.errors, rollbacks = x.rollbacks or 0,
      tpm = minutes > 0 and x.count / minutes or 0, tps = secs > 0 and x.count / secs or 0,
      mix_pct = total > 0 and 100 * x.count / total or 0,
      weight_pct = wsum > 0 and 100 * (r.weights[t.code] or 0) / wsum or 0,
    }
    if x.count > 0 then
      e.avg_ms, e.p90_ms, e.p95_ms, e.p99_ms, e.max_ms = 1000 * x.avg, 1000 * x.p90, 1000 * x.p95, 1000 * x.p99,
        1000 * x.max
    end
    if total > 0 then r.max_mix_deviation_pct = math.max(r.max_mix_deviation_pct, math.abs(e.mix_pct - e.weight_pct)) end
    r.by_type[#r.by_type + 1] = e
  end
  for _, k in ipairs(DML) do r[k .. "_per_s"] = secs > 0 and r.dml[k] / secs or 0 end
  r.logons_per_s = secs > 0 and r.sessions / secs or 0
  r.logon_rows_per_s = secs > 0 and r.logon_rows / secs or 0
end

function M.compute(stat)
  local s = common.settings()
  local sh = run.shared_config()
  local threads = sysbench.opt.threads
  local v = counters(threads)
  local r = {
    label = M.LABEL, scale = tonumber(sh[3]) / 1e6, customers = tonumber(sh[0]), warehouses = tonumber(sh[2]),
    users = s.users, logon = s.logon, weights = {}, dml = {},
    sessions = v[run.SESSIONS], logon_rows = v[run.LOGON_ROWS],
    inter_think_ms = { min = s.inter_min, max = s.inter_max, drawn = v[run.INTER_N],
      mean = v[run.INTER_N] > 0 and v[run.INTER_SUM] / v[run.INTER_N] or 0 },
    intra_think_ms = { min = s.intra_min, max = s.intra_max, drawn = v[run.INTRA_N],
      mean = v[run.INTRA_N] > 0 and v[run.INTRA_SUM] / v[run.INTRA_N] or 0 },
  }
  for i, t in ipairs(common.TXNS) do r.weights[t.code] = s.weights[i] end
  for i, k in ipairs(DML) do r.dml[k] = v[i - 1] end
  figures(r, stat.types or {}, stat.time_interval or 0)
  return r
end

function M.json(stat) return M.compute(stat) end
function M.footer(stat) return M.format(M.compute(stat)) end

-- `luabench merge` of processes that ran together against one database: users, statements and
-- logons add; the rates and the per-type table come from the merged statistics and window.
function M.merge(inputs, stat)
  local first = inputs[1]
  if not first then return nil end
  local r = { label = first.label, scale = first.scale, customers = first.customers, warehouses = first.warehouses,
    logon = first.logon, weights = first.weights, users = 0, sessions = 0, logon_rows = 0, dml = {},
    inter_think_ms = first.inter_think_ms, intra_think_ms = first.intra_think_ms, instances = #inputs }
  for _, k in ipairs(DML) do r.dml[k] = 0 end
  for _, x in ipairs(inputs) do
    r.users = r.users + (x.users or 0)
    r.sessions = r.sessions + (x.sessions or 0)
    r.logon_rows = r.logon_rows + (x.logon_rows or 0)
    for _, k in ipairs(DML) do r.dml[k] = r.dml[k] + ((x.dml or {})[k] or 0) end
  end
  figures(r, stat.types or {}, stat.time_interval or 0)
  return r, M.format(r)
end

local function ms(v) return v and fmt("%9.2f", v) or fmt("%9s", "-") end

function M.format(r)
  local out = {}
  local function add(...) out[#out + 1] = fmt(...) end
  add("Order Entry results (Swingbench SOE-like; response times in ms):")
  add("    %-30s %9s %10s %9s %9s %9s %9s %9s %7s %7s %7s", "transaction", "count", "TPM", "TPS", "avg", "p90",
    "p95", "p99", "mix %", "weight%", "errors")
  for _, e in ipairs(r.by_type) do
    if e.count > 0 or e.weight_pct > 0 then
      add("    %-30s %9d %10.1f %9.2f %s %s %s %s %7.2f %7.2f %7d", e.name .. " (" .. e.code .. ")", e.count, e.tpm,
        e.tps, ms(e.avg_ms), ms(e.p90_ms), ms(e.p95_ms), ms(e.p99_ms), e.mix_pct, e.weight_pct, e.errors)
    end
  end
  add("")
  if r.instances then add("    processes merged:                    %d, %d users in all", r.instances, r.users) end
  add("    measured window (s):                 %.1f", r.measured_s)
  add("    transactions per minute (TPM):       %.1f", r.tpm)
  add("    transactions per second (TPS):       %.2f", r.tps)
  add("    transactions, errors:                %d, %d", r.transactions, r.errors)
  add("    mix deviation from weights (max):    %.2f percentage points", r.max_mix_deviation_pct)
  add("    DML per second:                      selects %.1f, inserts %.1f, updates %.1f, deletes %.1f, commits %.1f, rollbacks %.1f",
    r.selects_per_s, r.inserts_per_s, r.updates_per_s, r.deletes_per_s, r.commits_per_s, r.rollbacks_per_s)
  add("    logons per second:                   %.2f database sessions opened (--logon=%s), %.2f LOGON rows",
    r.logons_per_s, r.logon, r.logon_rows_per_s)
  local it, ia = r.inter_think_ms, r.intra_think_ms
  add("    think time (ms):                     between transactions %s; inside them %s",
    it.max > 0 and fmt("%d-%d, mean %.1f drawn over %d", it.min, it.max, it.mean, it.drawn) or "none",
    ia.max > 0 and fmt("%d-%d, mean %.1f drawn over %d", ia.min, ia.max, ia.mean, ia.drawn) or "none")
  add("")
  return table.concat(out, "\n") .. "\n"
end

function M.header()
  local s = common.settings()
  local sh = run.shared_config()
  local opt = sysbench.opt
  local conns = (tonumber(opt.connections) or 0) > 0 and tonumber(opt.connections) or s.users
  local mix = {}
  for i, t in ipairs(common.TXNS) do
    if s.weights[i] > 0 then mix[#mix + 1] = t.code .. ":" .. s.weights[i] end
  end
  return fmt("Swingbench Order Entry (SOE-like): scale %g (%d customers, %d warehouses)\n" ..
    "%d users on %d threads, %d connections, --logon=%s; weights %s; think time %s between transactions, %s inside\n\n",
    tonumber(sh[3]) / 1e6, tonumber(sh[1]), tonumber(sh[2]), s.users, opt.threads, conns, s.logon,
    table.concat(mix, ","), s.inter_max > 0 and fmt("%d-%d ms", s.inter_min, s.inter_max) or "none",
    s.intra_max > 0 and fmt("%d-%d ms", s.intra_min, s.intra_max) or "none")
end

return M
