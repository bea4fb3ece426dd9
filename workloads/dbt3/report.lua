-- dbt3.report: the DBT-3 block after the engine's per-type table (text) and `workload_stats`
-- (JSON): every query's time in the power test and its min/avg/max across the throughput
-- streams, the refresh functions' times, and Power@Size, Throughput@Size and QphH@Size as TPC-H
-- clause 5.4 defines them (not comparable to audited TPC-H results).
local common = require("dbt3.common")
local run = require("dbt3.run")

local M = {}

local fmt = string.format
local NOT_COMPARABLE = "not comparable to audited TPC-H results"
local LABEL = "TPC-H-like (DBT-3), not audited; " .. NOT_COMPARABLE

local function slot_name(i)
  return i == run.RF1 and "RF1" or i == run.RF2 and "RF2" or ("Q" .. i)
end

-- min/avg/max of the completed times, and counts.
local function spread(values)
  local r = { count = 0, timed_out = 0 }
  local sum = 0
  for _, v in ipairs(values) do
    if v[2] == run.OK then
      r.count = r.count + 1
      sum = sum + v[1]
      r.min = r.min and math.min(r.min, v[1]) or v[1]
      r.max = r.max and math.max(r.max, v[1]) or v[1]
    elseif v[2] == run.TIMED_OUT then
      r.timed_out = r.timed_out + 1
    end
  end
  if r.count > 0 then r.avg = sum / r.count end
  return r
end

-- Power@Size = 3600 x SF / (the geometric mean of the 22 query and 2 refresh times), with times
-- below 1/1000 of the longest raised to it (clause 5.4.1). nil unless every one completed.
function M.power_at_size(times, sf)
  if #times ~= 24 then return nil end
  local longest = 0
  for _, t in ipairs(times) do longest = math.max(longest, t) end
  local floor_s = longest / 1000
  local log_sum = 0
  for _, t in ipairs(times) do log_sum = log_sum + math.log(math.max(t, floor_s, 1e-6)) end
  return 3600 * sf / math.exp(log_sum / 24)
end

-- Throughput@Size = S x 22 x 3600 / Ts x SF (clause 5.4.2).
function M.throughput_at_size(streams, seconds, sf)
  if not seconds or seconds <= 0 then return nil end
  return streams * 22 * 3600 / seconds * sf
end

local function composite(r)
  if r.power_at_size and r.throughput_at_size then
    r.qphh_at_size = math.sqrt(r.power_at_size * r.throughput_at_size)
  end
end

local function compute()
  local p = run.plan()
  local s = common.settings()
  local sh = run.shared()
  local sf = sh.state[0]
  local r = {
    label = LABEL, scale_factor = sf, streams = p.throughput and p.streams or 0,
    tests = s.test, qualification = s.qualification or nil,
    query_timeout_s = s.query_timeout > 0 and s.query_timeout or nil,
    refresh_stream = p.throughput and (p.refresh_thread and "concurrent" or "after query stream 1") or nil,
    queries = {},
  }
  local power_times, power_complete = {}, p.power
  for slot = 1, run.SLOTS do
    local e = { name = slot_name(slot) }
    if p.power then
      local st = sh.status[slot - 1]
      e.power_status = st == run.OK and "ok" or st == run.TIMED_OUT and "timed out" or "not run"
      if st ~= 0 then e.power_s = sh.times[slot - 1] end
      if st == run.OK then power_times[#power_times + 1] = e.power_s else power_complete = false end
    end
    if p.throughput then
      local vals = {}
      if slot < run.RF1 then
        for k = 1, p.streams do
          local i = k * run.SLOTS + slot - 1
          vals[#vals + 1] = { sh.times[i], sh.status[i] }
        end
      else
        for k = 1, p.streams do
          local i = (k - 1) * 2 + slot - run.RF1
          vals[#vals + 1] = { sh.rf[i], sh.rf_status[i] }
        end
      end
      e.throughput = spread(vals)
    end
    r.queries[slot] = e
  end
  if p.power then
    r.power_seconds = sh.state[4] > 0 and sh.state[4] - sh.state[3] or nil
    r.power_complete = power_complete
    if power_complete then r.power_at_size = M.power_at_size(power_times, sf) end
  end
  if p.throughput then
    local t0, t1, complete = nil, nil, true
    for t = 0, s.threads - 1 do
      local a, b = sh.span[2 * t], sh.span[2 * t + 1]
      if a > 0 then
        t0 = t0 and math.min(t0, a) or a
        if b > 0 then t1 = t1 and math.max(t1, b) or b else complete = false end
      end
    end
    for slot = 1, run.SLOTS do
      local x = r.queries[slot].throughput
      if x.count + x.timed_out < p.streams or x.timed_out > 0 then complete = false end
    end
    r.throughput_complete = complete
    if t0 and t1 then r.throughput_seconds = t1 - t0 end
    if complete then r.throughput_at_size = M.throughput_at_size(p.streams, r.throughput_seconds, sf) end
  end
  composite(r)
  return r
end

local final

function M.json(_)
  final = compute()
  return final
end

function M.footer(_)
  local r = final or compute()
  final = nil
  return M.format(r)
end

-- `luabench merge` of processes that ran their streams together against one database: the
-- power test of the first process that ran one, the throughput streams of all of them over the
-- longest throughput test.
function M.merge(inputs, _)
  local r
  local streams, longest = 0, 0
  for _, x in ipairs(inputs) do
    if not r then
      r = {}
      for k, v in pairs(x) do r[k] = v end
      r.queries = {}
      for i, e in ipairs(x.queries or {}) do
        local c = {}
        for k, v in pairs(e) do c[k] = v end
        if e.throughput then
          c.throughput = {}
          for k, v in pairs(e.throughput) do c.throughput[k] = v end
        end
        r.queries[i] = c
      end
    else
      if x.power_at_size and not r.power_at_size then
        r.power_at_size, r.power_seconds, r.power_complete = x.power_at_size, x.power_seconds, true
        for i, e in ipairs(x.queries or {}) do
          if r.queries[i] then r.queries[i].power_s, r.queries[i].power_status = e.power_s, e.power_status end
        end
      end
      -- every query's throughput figures over the streams of all processes
      for i, e in ipairs(x.queries or {}) do
        local a, b = r.queries[i] and r.queries[i].throughput, e.throughput
        if a and b then
          local n = a.count + b.count
          if n > 0 then a.avg = ((a.avg or 0) * a.count + (b.avg or 0) * b.count) / n end
          a.min = (a.min and b.min) and math.min(a.min, b.min) or a.min or b.min
          a.max = (a.max and b.max) and math.max(a.max, b.max) or a.max or b.max
          a.count, a.timed_out = n, a.timed_out + b.timed_out
        elseif b and r.queries[i] then
          r.queries[i].throughput = b
        end
      end
    end
    streams = streams + (x.streams or 0)
    longest = math.max(longest, x.throughput_seconds or 0)
    if x.throughput_complete == false then r.throughput_complete = false end
  end
  if not r then return nil end
  r.instances = #inputs
  r.streams = streams
  r.throughput_seconds = longest > 0 and longest or nil
  r.throughput_at_size = r.throughput_complete and M.throughput_at_size(streams, r.throughput_seconds, r.scale_factor) or nil
  r.qphh_at_size = nil
  composite(r)
  return r, M.format(r)
end

local function sec(v) return v and fmt("%9.3f", v) or "        -" end

function M.format(r)
  local out = {}
  local function add(...) out[#out + 1] = fmt(...) end
  add("DBT-3 results (TPC-H-like, not audited; not comparable to audited TPC-H results):")
  add("    scale factor:            %s", common.sf_text(r.scale_factor))
  if r.instances then add("    processes merged:        %d (query streams add)", r.instances) end
  if r.streams > 0 then
    add("    throughput test:         %d query stream%s, refresh stream %s", r.streams, r.streams > 1 and "s" or "",
      r.refresh_stream or "concurrent")
  end
  if r.qualification then add("    parameters:              the specification's validation (qualification) values") end
  if r.query_timeout_s then add("    query timeout:           %gs", r.query_timeout_s) end
  add("    times in seconds      power   throughput: min       avg       max  (done/timed out)")
  for _, e in ipairs(r.queries) do
    local t = e.throughput
    local p = e.power_s and (e.power_status == "timed out" and "timed out" or sec(e.power_s)) or sec(nil)
    if t then
      add("        %-5s %9s        %s %s %s  (%d/%d)", e.name, p, sec(t.min), sec(t.avg), sec(t.max), t.count, t.timed_out)
    else
      add("        %-5s %9s", e.name, p)
    end
  end
  if r.power_complete ~= nil then
    add("    power test:              %s", r.power_seconds and fmt("%.3fs", r.power_seconds) or "not finished")
    add("    Power@Size:              %s", r.power_at_size and fmt("%.2f  (%s)", r.power_at_size, NOT_COMPARABLE)
      or "- (needs every query and refresh function of the power test completed)")
  end
  if r.throughput_complete ~= nil then
    add("    throughput test:         %s", r.throughput_seconds and fmt("%.3fs", r.throughput_seconds) or "not finished")
    add("    Throughput@Size:         %s", r.throughput_at_size and fmt("%.2f  (%s)", r.throughput_at_size, NOT_COMPARABLE)
      or "- (needs every stream completed without timeouts)")
  end
  if r.qphh_at_size then
    add("    QphH@Size (composite):   %.2f  (%s)", r.qphh_at_size, NOT_COMPARABLE)
  end
  return table.concat(out, "\n") .. "\n\n"
end

return M
