-- tpcc.report: the TPC-C block after the engine's per-type table (text) and `workload_stats`
-- (JSON): tpmC over the measured window, tpmTotal, efficiency against 12.86 tpmC per warehouse,
-- NOPM from Σ d_next_o_id, the 90th-percentile limits, the mix against the spec's minimums.
local common = require("tpcc.common")
local run = require("tpcc.run")

local M = {}

local fmt = string.format
local LABEL = "TPC-C-like, not audited"
local MAX_TPMC_PER_W = 12.86  -- clause 5.2.5.7's keying and think times cap each warehouse here
local MIN_MIX = { Payment = 43, OrderStatus = 4, Delivery = 4, StockLevel = 4 }

local final -- the figures of the final report, computed by report_json (called first)

local function compute(stat, with_nopm)
  local s = common.settings()
  local st = run.shared()
  local W = st[0]
  local types = stat.types or {}
  local minutes = stat.time_interval / 60
  local r = {
    label = LABEL, warehouses = W, warehouses_loaded = st[4], terminals = s.terminals,
    mode = s.wait and "wait" or "closed_loop", wait_factor = s.wait and s.wait_factor or nil,
    transactions = s.procedures and "procedures" or "statements",
    isolation = s.isolation or "default", measured_seconds = stat.time_interval,
    weights = { NewOrder = s.weights[1], Payment = s.weights[2], OrderStatus = s.weights[3],
      Delivery = s.weights[4], StockLevel = s.weights[5] },
    c_constants = { c_last_load = st[8], c_last_run = st[1], c_id = st[2], ol_i_id = st[3] },
    limits = {}, mix_pct = {},
  }
  local total = 0
  for _, name in ipairs(common.TYPES) do total = total + (types[name] and types[name].count or 0) end
  local no = types.NewOrder or { count = 0, rollbacks = 0 }
  r.new_orders = no.count
  r.tpmC = minutes > 0 and no.count / minutes or 0
  r.tpm_total = minutes > 0 and total / minutes or 0
  r.efficiency_pct = W > 0 and 100 * r.tpmC / (MAX_TPMC_PER_W * W) or 0
  r.new_order_rollbacks = no.rollbacks
  r.new_order_rollback_pct = no.count > 0 and 100 * no.rollbacks / no.count or 0
  local skipped = run.skipped_counter(s.threads)
  local sk = 0
  for t = 0, s.threads - 1 do sk = sk + tonumber(skipped[t]) end
  r.delivery_skipped_districts = sk
  r.limits_pass = true
  -- The minimums apply to the configured mix: the observed one wanders around it (a deck of
  -- cards per terminal leaves partial decks at the end of a run).
  r.weights_meet_minimums = true
  r.mix_low = {}
  for i, name in ipairs(common.TYPES) do
    local w = 100 * s.weights[i] / s.weight_total
    if MIN_MIX[name] and w < MIN_MIX[name] then
      r.weights_meet_minimums = false
      r.mix_low[#r.mix_low + 1] = fmt("%s %.2f%% < %d%%", name, w, MIN_MIX[name])
    end
  end
  for _, name in ipairs(common.TYPES) do
    local t = types[name]
    local p90 = t and t.count > 0 and t.p90 or nil
    local pass = p90 == nil or p90 <= common.LIMITS[name]
    r.limits[name] = { p90 = p90, limit = common.LIMITS[name], pass = pass }
    if not pass then r.limits_pass = false end
    r.mix_pct[name] = total > 0 and 100 * (t and t.count or 0) / total or 0
  end
  if with_nopm and st[7] == 1 then
    local sum_end, t_end = run.nopm_end()
    if sum_end then
      local secs = t_end - st[6]
      r.new_orders_committed = sum_end - st[5]
      r.nopm_seconds = secs
      r.nopm = secs > 0 and r.new_orders_committed / (secs / 60) or 0
    end
  end
  return r
end

function M.json(stat)
  final = compute(stat, true)
  local j = {}
  for k, v in pairs(final) do j[k] = v end
  j.mix_low = nil
  return j
end

local function ms(v)
  if v == nil then return "        -" end
  return fmt("%9.2f", v * 1000)
end

function M.footer(stat)
  local r = final or compute(stat, false)
  final = nil
  local out = {}
  local function add(...) out[#out + 1] = fmt(...) end
  add("TPC-C-like results (not audited; not comparable with published TPC-C results):")
  add("    warehouses:                          %d%s", r.warehouses,
    r.warehouses < r.warehouses_loaded and fmt(" (of %d loaded)", r.warehouses_loaded) or "")
  if r.mode == "wait" then
    add("    terminals:                           %d, spec keying and think times%s", r.terminals,
      r.wait_factor ~= 1 and fmt(" x %g (not TPC-C timing)", r.wait_factor) or "")
  else
    add("    terminals:                           %d, closed loop without keying or think time", r.terminals)
  end
  add("    transactions:                        %s", r.transactions == "procedures"
    and "stored procedures (one call each)" or "client-side statements (one per step)")
  add("    measured time:                       %.2fs", r.measured_seconds)
  add("    tpmC (NewOrders per minute):         %.2f", r.tpmC)
  add("    tpmTotal (transactions per minute):  %.2f", r.tpm_total)
  add("    efficiency (of 12.86 tpmC per W):    %.2f%%%s", r.efficiency_pct,
    r.mode == "wait" and "" or " (only meaningful with --wait)")
  if r.nopm then
    add("    NOPM (from sum of d_next_o_id):      %.2f (%d committed NewOrders in %.2fs)", r.nopm,
      r.new_orders_committed, r.nopm_seconds)
  end
  add("    NewOrder rollbacks:                  %d (%.2f%%)", r.new_order_rollbacks, r.new_order_rollback_pct)
  add("    Delivery districts skipped:          %d", r.delivery_skipped_districts)
  add("    90th percentile response times (ms) against the limits:")
  for _, name in ipairs(common.TYPES) do
    local l = r.limits[name]
    add("        %-12s %s   limit %6.0f   %s", name, ms(l.p90), l.limit * 1000,
      l.p90 == nil and "-" or (l.pass and "pass" or "FAIL"))
  end
  local mix = {}
  for _, name in ipairs(common.TYPES) do mix[#mix + 1] = fmt("%s %.2f%%", name, r.mix_pct[name]) end
  add("    mix:                                 %s", table.concat(mix, ", "))
  if r.weights_meet_minimums then
    add("    weights:                             meet the spec's minimums (Payment 43%%, OrderStatus, Delivery, StockLevel 4%% each)")
  else
    add("    weights:                             below the spec's minimums: %s", table.concat(r.mix_low, ", "))
  end
  return table.concat(out, "\n") .. "\n\n"
end

return M
