-- bookstore.report: the DBT-1 style results after the engine's per-type table (text) and as
-- `workload_stats` (JSON): per interaction the count, mix % against the target, average, 90th
-- percentile and maximum response time against the 90th-percentile limit, errors; then
-- bogotransactions per second over the measured window, totals, and the think times and
-- sessions actually seen.
local common = require("bookstore.common")
local run = require("bookstore.run")

local M = {}
local fmt = string.format

M.LABEL = "bogotransactions per second, not comparable to TPC-W WIPS"

local function users_stats(threads)
  return require("luabench.workload").sum_slots(run.stats_array(threads), threads, run.SLOTS)
end

-- The per-interaction figures of the measured window, from the per-type statistics: a run's, or
-- the merged statistics of several processes.
local function interaction_figures(r, types, secs, mix)
  r.measured_s = secs
  r.interactions = {}
  local total, errors, retries = 0, 0, 0
  for _, it in ipairs(common.INTERACTIONS) do
    local t = types[it.name]
    if t then
      total = total + t.count
      errors = errors + t.errors
      retries = retries + (t.retries or 0)
    end
  end
  r.total_interactions, r.total_errors, r.total_retries = total, errors, retries
  r.bt_per_s = secs > 0 and total / secs or 0
  r.all_limits_pass = true
  r.max_mix_deviation_pct = 0
  for _, it in ipairs(common.INTERACTIONS) do
    local t = types[it.name] or { count = 0, errors = 0 }
    local target = it.target[mix]
    local e = {
      name = it.name, code = it.code, count = t.count, errors = t.errors,
      mix_pct = total > 0 and 100 * t.count / total or 0, target_pct = target,
      limit_s = it.limit,
    }
    if t.count > 0 then
      e.avg_s, e.p90_s, e.max_s = t.avg, t.p90, t.max
      e.pass = t.p90 <= it.limit
      if not e.pass then r.all_limits_pass = false end
    end
    if total > 0 then
      r.max_mix_deviation_pct = math.max(r.max_mix_deviation_pct, math.abs(e.mix_pct - target))
    end
    r.interactions[#r.interactions + 1] = e
  end
end

function M.compute(stat)
  local s = common.settings()
  local cfg = run.shared_config()
  local threads = sysbench.opt.threads
  local v = users_stats(threads)
  local r = {
    label = "bookstore: TPC-W-like online bookstore, DBT-1 style; " .. M.LABEL,
    mix = s.mix_name, items = tonumber(cfg[0]), ebs = tonumber(cfg[1]),
    customers = tonumber(cfg[2]),
    users = (tonumber(sysbench.opt.users) or 0) > 0 and tonumber(sysbench.opt.users) or threads,
    think_time_mean_s = s.think, closed_loop = s.think == 0, usmd_mean_s = s.usmd,
  }
  interaction_figures(r, stat.types or {}, stat.time_interval or 0, s.mix)
  r.think_samples = v[run.THINK_N]
  r.mean_think_s = v[run.THINK_N] > 0 and v[run.THINK_SUM] / v[run.THINK_N] or 0
  r.think_completed = v[run.THINK_ACT_N]
  r.mean_think_actual_s = v[run.THINK_ACT_N] > 0 and v[run.THINK_ACT_SUM] / v[run.THINK_ACT_N] or 0
  r.sessions_started = v[run.SESS_STARTED]
  r.sessions_completed = v[run.SESS_DONE]
  r.mean_usmd_s = v[run.SESS_STARTED] > 0 and v[run.USMD_SUM] / v[run.SESS_STARTED] or 0
  r.mean_session_s = v[run.SESS_DONE] > 0 and v[run.SESS_LEN_SUM] / v[run.SESS_DONE] or 0
  r.buy_confirms_committed = v[run.BC_COMMITTED]
  r.new_customers = v[run.NEW_CUSTOMERS]
  r.searches = {}
  for k, name in ipairs({ "author", "title", "subject" }) do
    r.searches[name] = { count = v[10 + k], empty = v[7 + k] }
  end
  return r
end

-- Sums of the processes' counts, and their means weighted by the counts they are means of.
local SUMS = { "users", "think_samples", "think_completed", "sessions_started", "sessions_completed",
  "buy_confirms_committed", "new_customers" }
local MEANS = { mean_think_s = "think_samples", mean_think_actual_s = "think_completed",
  mean_usmd_s = "sessions_started", mean_session_s = "sessions_completed" }

-- `luabench merge` of processes that ran together against one database: users and session
-- figures add, BT/s and the interaction table come from the merged per-type statistics over
-- the merged window.
function M.merge(inputs, stat)
  local first = inputs[1]
  if not first then return nil end
  local r = { label = first.label, mix = first.mix, items = first.items, ebs = first.ebs,
    customers = first.customers, think_time_mean_s = first.think_time_mean_s,
    closed_loop = first.closed_loop, usmd_mean_s = first.usmd_mean_s, instances = #inputs,
    searches = { author = { count = 0, empty = 0 }, title = { count = 0, empty = 0 },
      subject = { count = 0, empty = 0 } } }
  for _, k in ipairs(SUMS) do r[k] = 0 end
  for k in pairs(MEANS) do r[k] = 0 end
  for _, x in ipairs(inputs) do
    for _, k in ipairs(SUMS) do r[k] = r[k] + (x[k] or 0) end
    for k, n in pairs(MEANS) do r[k] = r[k] + (x[k] or 0) * (x[n] or 0) end
    for name, sr in pairs(r.searches) do
      local xs = x.searches and x.searches[name] or {}
      sr.count, sr.empty = sr.count + (xs.count or 0), sr.empty + (xs.empty or 0)
    end
  end
  for k, n in pairs(MEANS) do r[k] = r[n] > 0 and r[k] / r[n] or 0 end
  interaction_figures(r, stat.types or {}, stat.time_interval or 0, common.MIXES[r.mix])
  return r, M.format(r)
end

function M.json(stat)
  return M.compute(stat)
end

local function sec(v)
  return v and fmt("%9.3f", v) or fmt("%9s", "-")
end

function M.footer(stat)
  return M.format(M.compute(stat))
end

function M.format(r)
  local out = {}
  local function add(...) out[#out + 1] = fmt(...) end
  add("Bookstore interactions (TPC-W-like, DBT-1 style; %s mix; response times in s):", r.mix)
  add("    %-22s %9s %7s %8s %9s %9s %9s %6s %5s %8s", "interaction", "count", "mix %", "target %",
    "avg", "p90", "max", "limit", "90%", "errors")
  for _, e in ipairs(r.interactions) do
    add("    %-22s %9d %7.2f %8.2f %s %s %s %6d %5s %8d", e.name, e.count, e.mix_pct, e.target_pct,
      sec(e.avg_s), sec(e.p90_s), sec(e.max_s), e.limit_s, e.pass == nil and "-" or (e.pass and "pass" or "FAIL"),
      e.errors)
  end
  add("")
  add("    bogotransactions per second:         %.2f (not comparable to TPC-W WIPS)", r.bt_per_s)
  if r.instances then
    add("    processes merged:                    %d, %d users in all", r.instances, r.users)
  end
  add("    measured window (s):                 %.1f", r.measured_s)
  add("    total interactions:                  %d", r.total_interactions)
  add("    total errors:                        %d%s", r.total_errors,
    r.total_retries > 0 and fmt(" (and %d retried deadlocks or reconnects)", r.total_retries) or "")
  add("    mix deviation from target (max):     %.2f percentage points", r.max_mix_deviation_pct)
  add("    90th-percentile limits:              %s", r.total_interactions == 0 and "-" or (r.all_limits_pass and "all met" or "NOT all met"))
  if r.closed_loop then
    add("    think time:                          none: CLOSED LOOP (--think-time=0), a stress figure, not TPC-W timing")
  else
    add("    think time (s):                      mean %.3f drawn over %d (negative exponential, mean %g, cap %g); %.3f actual over %d completed",
      r.mean_think_s, r.think_samples, r.think_time_mean_s, 10 * r.think_time_mean_s, r.mean_think_actual_s, r.think_completed)
  end
  add("    sessions started / completed:        %d / %d", r.sessions_started, r.sessions_completed)
  add("    session length (s):                  mean %s completed; mean USMD drawn %.1f (mean %g, cap %g)",
    r.sessions_completed > 0 and fmt("%.1f", r.mean_session_s) or "-", r.mean_usmd_s, r.usmd_mean_s, 4 * r.usmd_mean_s)
  local sr = r.searches
  add("    searches author/title/subject:       %d/%d/%d (with no result: %d/%d/%d)", sr.author.count,
    sr.title.count, sr.subject.count, sr.author.empty, sr.title.empty, sr.subject.empty)
  add("")
  return table.concat(out, "\n") .. "\n"
end

function M.header()
  local s = common.settings()
  local cfg = run.shared_config()
  local opt = sysbench.opt
  local users = (tonumber(opt.users) or 0) > 0 and tonumber(opt.users) or opt.threads
  local conns = (tonumber(opt.connections) or 0) > 0 and tonumber(opt.connections) or users
  local think = s.think > 0 and fmt("think time negative exponential, mean %g s, cap %g s", s.think, 10 * s.think)
    or "CLOSED LOOP: no think time (--think-time=0), not TPC-W timing"
  return fmt("Bookstore (TPC-W-like, DBT-1 style; %s): %s mix, %d items, %d EBs (%d customers)\n" ..
    "%d emulated users on %d threads, %d connections; %s; USMD mean %g s\n\n",
    M.LABEL, s.mix_name, tonumber(cfg[0]), tonumber(cfg[1]), tonumber(cfg[2]), users, opt.threads,
    conns, think, s.usmd)
end

return M
