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

-- Whether the configured mix meets the spec's minimums, and the shortfalls. The minimums apply
-- to the configured mix: the observed one wanders around it (a deck of cards per terminal
-- leaves partial decks at the end of a run).
local function check_weights(r, weight_of, weight_total)
  r.weights_meet_minimums = true
  r.mix_low = {}
  for _, name in ipairs(common.TYPES) do
    local w = 100 * weight_of[name] / weight_total
    if MIN_MIX[name] and w < MIN_MIX[name] then
      r.weights_meet_minimums = false
      r.mix_low[#r.mix_low + 1] = fmt("%s %.2f%% < %d%%", name, w, MIN_MIX[name])
    end
  end
end

-- The figures that come from the per-type statistics of the measured window: a run's, or the
-- merged statistics of several processes.
local function type_figures(r, types, seconds)
  local minutes = seconds / 60
  local W = r.warehouses
  r.measured_seconds = seconds
  local total = 0
  for _, name in ipairs(common.TYPES) do total = total + (types[name] and types[name].count or 0) end
  local no = types.NewOrder or { count = 0, rollbacks = 0 }
  r.new_orders = no.count
  r.tpmC = minutes > 0 and no.count / minutes or 0
  r.tpm_total = minutes > 0 and total / minutes or 0
  r.efficiency_pct = W > 0 and 100 * r.tpmC / (MAX_TPMC_PER_W * W) or 0
  r.new_order_rollbacks = no.rollbacks
  r.new_order_rollback_pct = no.count > 0 and 100 * no.rollbacks / no.count or 0
  r.limits_pass = true
  r.limits, r.mix_pct = {}, {}
  for _, name in ipairs(common.TYPES) do
    local t = types[name]
    local p90 = t and t.count > 0 and t.p90 or nil
    local pass = p90 == nil or p90 <= common.LIMITS[name]
    r.limits[name] = { p90 = p90, limit = common.LIMITS[name], pass = pass }
    if not pass then r.limits_pass = false end
    r.mix_pct[name] = total > 0 and 100 * (t and t.count or 0) / total or 0
  end
end

local function compute(stat, with_nopm)
  local s = common.settings()
  local st = run.shared()
  local r = {
    label = LABEL, warehouses = st[0], warehouses_loaded = st[4], terminals = s.terminals,
    mode = s.wait and "wait" or "closed_loop", wait_factor = s.wait and s.wait_factor or nil,
    transactions = common.use_procedures() and "procedures" or s.pipeline and "pipelined_statements" or "statements",
    isolation = s.isolation or "default",
    weights = { NewOrder = s.weights[1], Payment = s.weights[2], OrderStatus = s.weights[3],
      Delivery = s.weights[4], StockLevel = s.weights[5] },
    c_constants = { c_last_load = st[8], c_last_run = st[1], c_id = st[2], ol_i_id = st[3] },
  }
  type_figures(r, stat.types or {}, stat.time_interval)
  check_weights(r, r.weights, s.weight_total)
  local skipped = run.skipped_counter(s.threads)
  local sk = 0
  for t = 0, s.threads - 1 do sk = sk + tonumber(skipped[t]) end
  r.delivery_skipped_districts = sk
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

-- The JSON form: the text's list of shortfalls is left out.
local function without_mix_low(r)
  local j = {}
  for k, v in pairs(r) do j[k] = v end
  j.mix_low = nil
  return j
end

-- `luabench merge` of processes that ran together against one database (--instance numbers
-- their terminals): terminals add, tpmC and the rest come from the merged per-type statistics
-- over the merged window. Each process's NOPM counted the whole database's NewOrders (the sum
-- of d_next_o_id), so the merged NOPM is their mean, not their sum.
function M.merge(inputs, stat)
  local first = inputs[1]
  if not first then return nil end
  local r = {
    label = LABEL, instances = #inputs, warehouses = 0, warehouses_loaded = 0, terminals = 0,
    mode = first.mode, wait_factor = first.wait_factor, transactions = first.transactions,
    isolation = first.isolation, weights = first.weights, delivery_skipped_districts = 0,
  }
  local nopm_n, nopm, committed, nopm_secs = 0, 0, 0, 0
  for _, x in ipairs(inputs) do
    r.warehouses = math.max(r.warehouses, x.warehouses or 0)
    r.warehouses_loaded = math.max(r.warehouses_loaded, x.warehouses_loaded or 0)
    r.terminals = r.terminals + (x.terminals or 0)
    r.delivery_skipped_districts = r.delivery_skipped_districts + (x.delivery_skipped_districts or 0)
    if type(x.nopm) == "number" then
      nopm_n = nopm_n + 1
      nopm = nopm + x.nopm
      committed = committed + x.new_orders_committed
      nopm_secs = nopm_secs + x.nopm_seconds
    end
  end
  type_figures(r, stat.types or {}, stat.time_interval)
  local total = 0
  for _, name in ipairs(common.TYPES) do total = total + (r.weights[name] or 0) end
  check_weights(r, r.weights, total)
  if nopm_n > 0 then
    r.nopm_instances = nopm_n
    r.new_orders_committed = committed / nopm_n
    r.nopm_seconds = nopm_secs / nopm_n
    r.nopm = nopm / nopm_n
  end
  return without_mix_low(r), M.format(r)
end

function M.json(stat)
  final = compute(stat, true)
  return without_mix_low(final)
end

local function ms(v)
  if v == nil then return "        -" end
  return fmt("%9.2f", v * 1000)
end

function M.footer(stat)
  local r = final or compute(stat, false)
  final = nil
  return M.format(r)
end

function M.format(r)
  local out = {}
  local function add(...) out[#out + 1] = fmt(...) end
  add("TPC-C-like results (not audited; not comparable with published TPC-C results):")
  add("    warehouses:                          %d%s", r.warehouses,
    r.warehouses < r.warehouses_loaded and fmt(" (of %d loaded)", r.warehouses_loaded) or "")
  if r.instances then
    add("    processes merged:                    %d (terminals add; tpmC over the merged window)", r.instances)
  end
  if r.mode == "wait" then
    add("    terminals:                           %d, spec keying and think times%s", r.terminals,
      r.wait_factor ~= 1 and fmt(" x %g (not TPC-C timing)", r.wait_factor) or "")
  else
    add("    terminals:                           %d, closed loop without keying or think time", r.terminals)
  end
  add("    transactions:                        %s", r.transactions == "procedures"
    and "stored procedures (one call each)" or r.transactions == "pipelined_statements"
    and "client-side statements, OrderStatus and StockLevel pipelined" or "client-side statements (one per step)")
  add("    measured time:                       %.2fs", r.measured_seconds)
  add("    tpmC (NewOrders per minute):         %.2f", r.tpmC)
  add("    tpmTotal (transactions per minute):  %.2f", r.tpm_total)
  add("    efficiency (of 12.86 tpmC per W):    %.2f%%%s", r.efficiency_pct,
    r.mode == "wait" and "" or " (only meaningful with --wait)")
  if r.nopm then
    if r.nopm_instances then
      add("    NOPM (from sum of d_next_o_id):      %.2f (mean of %d processes, each counting the whole database)",
        r.nopm, r.nopm_instances)
    else
      add("    NOPM (from sum of d_next_o_id):      %.2f (%d committed NewOrders in %.2fs)", r.nopm,
        r.new_orders_committed, r.nopm_seconds)
    end
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
