-- The comparison model behind `luabench compare` and `luabench report`: the inputs grouped by
-- label (one or several runs each), paired by workload (never across workloads; across server
-- products only the figures both have), a section per workload and point, each figure's value
-- per label (the median of its runs), the ratio to the first label and a verdict:
--   between runs  (a label has several runs): the Mann-Whitney U test of the runs, as benchstat
--   within a run  (one run per label): the spread of each run's own intervals, as before
-- plus a summary of the headline figures, what differs between the labels, the change of the
-- mean event time by type and statement, and for a concurrency axis the peak and the largest
-- concurrency under a latency bound.
local results = require("luabench.internal.results")
local metrics = require("luabench.internal.metrics")
local runstats = require("luabench.internal.runstats")
local differs = require("luabench.internal.differs")

local M = {}

M.WITHIN_RULE = "within one run: " .. metrics.RULE
M.BETWEEN_RULE = string.format("between runs: a label's runs against the first label's by the "
  .. "Mann-Whitney U test, significant (*) at p <= %g, ~ = not; below the runs it needs, Welch's "
  .. "t-test on the runs' logarithms with no run of one label among the other's; value = "
  .. "the median of the runs, +-%% its 95 %% interval (the range of the runs when fewer than %d), "
  .. "ratio = of the medians, [lo hi] its interval from the runs' pairwise ratios",
  runstats.ALPHA, runstats.runs_for_interval())

-- What a section with fewer runs than the rank test needs says about its verdicts (plain text),
-- or nil.
function M.few_runs_note(m, s)
  if not s.too_few then return nil end
  local counts = {}
  for i, n in ipairs(s.runs) do counts[i] = tostring(n) end
  local runs = table.concat(counts, " against ")
  if s.small_sample then
    return string.format("%s runs: fewer than the rank test needs (%d per label); verdicts by the small-sample "
      .. "rule: * when Welch's t-test on the runs' logarithms gives p <= %g and no run of one label falls "
      .. "among the other's", runs, s.runs_needed, m.alpha)
  end
  return string.format("%s runs: too few to find a difference at p <= %g; %d runs per label are needed",
    runs, m.alpha, s.runs_needed)
end

local function ratio(a, b)
  if a == nil or b == nil then return nil end
  if a == 0 then return b == 0 and 1 or nil end
  return b / a
end

local function point_key(p)
  return p.key or p.point or (select(2, results.concurrency(p.doc)) .. "=" .. p.conc)
end

-- ---- grouping ----------------------------------------------------------------------------------

-- Labels in the order they first appear: { { label, inputs = {...} } }.
local function labels_of(inputs)
  local out, index = {}, {}
  for _, input in ipairs(inputs) do
    local i = index[input.label]
    if not i then
      out[#out + 1] = { label = input.label, inputs = {} }
      i = #out
      index[input.label] = i
    end
    table.insert(out[i].inputs, input)
  end
  return out
end

local function workload_of(input)
  return input.workload or results.workload_name(input.doc)
end

-- Workloads in the order they first appear, each with its inputs per label index.
local function workloads_of(labels)
  local out, index = {}, {}
  for li, l in ipairs(labels) do
    for _, input in ipairs(l.inputs) do
      local w = workload_of(input)
      if not index[w] then
        out[#out + 1] = { name = w, by_label = {} }
        index[w] = #out
      end
      local by = out[index[w]].by_label
      by[li] = by[li] or {}
      table.insert(by[li], input)
    end
  end
  return out
end

-- Whether a workload's runs are compared point by point: a sweep, a study's concurrency axis,
-- or runs of one label at different points; runs of one point each are one section (a run at 1
-- thread against one at 2 is a comparison of two configurations, not of two points).
local function by_point(w, nlabels)
  for li = 1, nlabels do
    local keys = {}
    for _, input in ipairs(w.by_label[li] or {}) do
      if input.kind == "sweep" or input.axis then return true end
      for _, p in ipairs(input.points) do keys[point_key(p)] = true end
    end
    if next(keys) and next(keys, next(keys)) then return true end
  end
  return false
end

-- The sections of one workload: { conc, point, unit, docs = { {doc...} per label }, reps =
-- { {repeat id...} per label }, missing = { labels } }.
local function workload_sections(w, labels)
  local n = #labels
  local function cell_list() local c = {}; for i = 1, n do c[i] = {} end; return c end
  if not by_point(w, n) then
    local docs, reps, missing = cell_list(), cell_list(), {}
    for li = 1, n do
      for k, input in ipairs(w.by_label[li] or {}) do
        for _, p in ipairs(input.points) do
          docs[li][#docs[li] + 1] = p.doc
          reps[li][#reps[li] + 1] = input.rep or k
        end
      end
      if #docs[li] == 0 then missing[#missing + 1] = labels[li].label end
    end
    return { { docs = docs, reps = reps, missing = missing } }
  end
  local keys, first = {}, {}
  for li = 1, n do
    for _, input in ipairs(w.by_label[li] or {}) do
      for _, p in ipairs(input.points) do
        local k = point_key(p)
        if not first[k] then first[k] = p; keys[#keys + 1] = k end
      end
    end
  end
  table.sort(keys, function(a, b)
    local pa, pb = first[a], first[b]
    local ua, ub = select(2, results.concurrency(pa.doc)), select(2, results.concurrency(pb.doc))
    if not pa.point and not pb.point and ua ~= ub then return ua < ub end
    if results.point_before(pa, pb) then return true end
    if results.point_before(pb, pa) then return false end
    return tostring(a) < tostring(b)
  end)
  local out = {}
  for _, k in ipairs(keys) do
    local docs, reps, missing = cell_list(), cell_list(), {}
    for li = 1, n do
      for idx, input in ipairs(w.by_label[li] or {}) do
        for _, p in ipairs(input.points) do
          if point_key(p) == k then
            docs[li][#docs[li] + 1] = p.doc
            -- which repeat: a study's, a sweep's own (each sweep is one), else the k-th run of
            -- the label at this point
            reps[li][#reps[li] + 1] = input.rep or (input.kind == "sweep" and idx) or #docs[li]
          end
        end
      end
      if #docs[li] == 0 then missing[#missing + 1] = labels[li].label end
    end
    local f = first[k]
    out[#out + 1] = { conc = f.conc, point = f.point, docs = docs, reps = reps, missing = missing,
                      unit = not f.point and select(2, results.concurrency(f.doc)) or nil }
  end
  return out
end

-- ---- rows ----------------------------------------------------------------------------------------

local function numbers(def, docs)
  local vals = {}
  for _, d in ipairs(docs) do
    local v = def.value(d)
    if type(v) == "number" and v == v then vals[#vals + 1] = v end
  end
  return vals
end

local function new_row(def, samples)
  return { group = def.group, name = def.name, unit = def.unit, better = def.better, headline = def.headline,
           values = {}, ratios = {}, significant = {}, se = {}, runs = {}, intervals = {}, ratio_intervals = {},
           p = {}, rules = {}, samples = samples }
end

-- A row's value per label (the median of its samples) with its interval, and the verdicts
-- against the first label: between runs when either side has several, else within the run
-- (spreads: each single run's interval spread; without them a single run has no verdict).
local function judge(row, n, alpha, spreads)
  for i = 1, n do
    local vals = row.samples[i]
    row.runs[i] = #vals
    if #vals > 0 then row.values[i] = #vals == 1 and vals[1] or runstats.median(vals) end
    if #vals > 1 then
      local lo, hi, cov = runstats.median_interval(vals)
      row.intervals[i] = { lo, hi, cov }
    end
  end
  for i = 2, n do
    local a, b = row.samples[1], row.samples[i]
    if #a <= 1 and #b <= 1 then
      row.ratios[i] = ratio(row.values[1], row.values[i])
      if spreads then
        row.rules[i] = "within"
        row.significant[i] = metrics.significant(row.values[1], row.values[i], spreads[1], spreads[i])
      end
    elseif #a > 0 and #b > 0 then
      row.rules[i] = "between"
      local c = runstats.compare(a, b, alpha)
      row.ratios[i], row.significant[i], row.p[i] = c.ratio, c.significant, c.p
      if c.ratio_lo then row.ratio_intervals[i] = { c.ratio_lo, c.ratio_hi, c.ratio_coverage } end
      row.too_few = row.too_few or c.too_few
      row.small_sample = row.small_sample or c.test == "t-log"
    end
  end
  return row
end

-- One figure of a section: its value per label and the verdicts against the first label.
local function make_row(def, docs, n, alpha)
  local samples, spreads = {}, {}
  local any, nonzero = false, false
  for i = 1, n do
    samples[i] = numbers(def, docs[i])
    for _, v in ipairs(samples[i]) do any, nonzero = true, nonzero or v ~= 0 end
    if #docs[i] == 1 then spreads[i] = metrics.spread(docs[i][1], def) end
  end
  if not any or (def.nonzero and not nonzero) then return nil end
  local row = judge(new_row(def, samples), n, alpha, spreads)
  for i = 1, n do row.se[i] = spreads[i] and spreads[i].se or nil end
  return row
end

local function section_rows(s, n, alpha, skip_group)
  local present = {}
  for i = 1, n do
    for _, d in ipairs(s.docs[i]) do present[#present + 1] = d end
  end
  local rows = {}
  for _, def in ipairs(metrics.rows(present)) do
    if def.group ~= skip_group then
      local r = make_row(def, s.docs, n, alpha)
      if r then rows[#rows + 1] = r end
    end
  end
  return rows
end

-- ---- the change of the mean event time, by type and by statement --------------------------------

-- The parts of one run's mean event time (ms per event): per type (luabench.stats) or per
-- statement (--report-statements), count / events x the part's mean latency.
local function parts_of(doc, by)
  local events = doc.counters and doc.counters.events or 0
  if events <= 0 then return nil end
  local out = {}
  if by == "type" then
    for name, t in pairs(doc.types or {}) do
      if t.count and t.latency_ms and t.latency_ms.avg then out[name] = t.count / events * t.latency_ms.avg end
    end
  else
    for _, st in ipairs(doc.statements or {}) do
      if st.count and st.latency_ms and st.latency_ms.avg then
        local label = #st.sql > 60 and (st.sql:sub(1, 59) .. "…") or st.sql
        out[label] = (out[label] or 0) + st.count / events * st.latency_ms.avg
      end
    end
  end
  return next(out) and out or nil
end

-- Per label the mean over its runs of each part and of the mean event time (means, so that the
-- parts add up to the total), and each part's share of the change against the first label.
local function breakdown(s, labels, by)
  local n = #labels
  local names, seen, per_label, totals = {}, {}, {}, {}
  for i = 1, n do
    local sums, count, tsum = {}, 0, 0
    for _, d in ipairs(s.docs[i]) do
      local parts = parts_of(d, by)
      if parts and d.latency_ms and d.latency_ms.avg then
        count = count + 1
        tsum = tsum + d.latency_ms.avg
        for k, v in pairs(parts) do
          sums[k] = (sums[k] or 0) + v
          if not seen[k] then seen[k] = true; names[#names + 1] = k end
        end
      end
    end
    if count == 0 then return nil end
    per_label[i] = {}
    for k, v in pairs(sums) do per_label[i][k] = v / count end
    totals[i] = tsum / count
  end
  if #names == 0 or n < 2 then return nil end
  -- The parts must lie inside the events: types that are not (fileio's fsyncs, which are no
  -- request of their own) or that overlap would account for more than all of the time.
  for i = 1, n do
    local sum = 0
    for _, k in ipairs(names) do sum = sum + (per_label[i][k] or 0) end
    if sum > totals[i] * 1.05 + 1e-9 then return nil end
  end
  local function part_row(name, get)
    local r = { name = name, values = {}, deltas = {}, shares = {} }
    for i = 1, n do r.values[i] = get(i) end
    for i = 2, n do
      r.deltas[i] = r.values[i] - r.values[1]
      local dt = totals[i] - totals[1]
      r.shares[i] = dt ~= 0 and 100 * r.deltas[i] / dt or nil
    end
    return r
  end
  local rows = {}
  for _, k in ipairs(names) do
    rows[#rows + 1] = part_row(k, function(i) return per_label[i][k] or 0 end)
  end
  table.sort(rows, function(a, b)
    local da, db = math.abs(a.deltas[2] or 0), math.abs(b.deltas[2] or 0)
    if da ~= db then return da > db end
    return a.name < b.name
  end)
  rows[#rows + 1] = part_row(by == "type" and "outside the types" or "outside the statements", function(i)
    local sum = 0
    for _, k in ipairs(names) do sum = sum + (per_label[i][k] or 0) end
    return totals[i] - sum
  end)
  return { by = by, rows = rows, total = part_row("mean event time", function(i) return totals[i] end) }
end

-- ---- a concurrency axis: the peak, and the most sessions under a latency bound ------------------

-- Per label and per repeat: the highest throughput over the points and the largest concurrency
-- whose percentile stays within the bound; then their medians, intervals and verdicts.
local function axis_summary(w, secs, labels, alpha)
  local n = #labels
  if #secs < 2 then return nil end
  local bound
  for li = 1, n do
    for _, input in ipairs(w.by_label[li] or {}) do bound = bound or input.bound end
  end
  local present = {}
  for _, s in ipairs(secs) do
    for i = 1, n do for _, d in ipairs(s.docs[i]) do present[#present + 1] = d end end
  end
  local tname = metrics.throughput_name(present)
  local unit = secs[1].unit or "points"
  local peaks, under = {}, {}
  for li = 1, n do
    local by_rep_peak, by_rep_under, order = {}, {}, {}
    for _, s in ipairs(secs) do
      for k, d in ipairs(s.docs[li]) do
        local rep = s.reps[li][k]
        if by_rep_peak[rep] == nil then order[#order + 1] = rep; by_rep_peak[rep] = -1; by_rep_under[rep] = 0 end
        local tps = d.rates and d.rates.events_per_s or 0
        if tps > by_rep_peak[rep] then by_rep_peak[rep] = tps end
        if bound and s.conc then
          local lat = ((d.latency_ms or {}).percentiles or {})[bound.key]
          if lat and lat <= bound.ms and s.conc > by_rep_under[rep] then by_rep_under[rep] = s.conc end
        end
      end
    end
    peaks[li], under[li] = {}, {}
    for _, rep in ipairs(order) do
      peaks[li][#peaks[li] + 1] = by_rep_peak[rep]
      under[li][#under[li] + 1] = by_rep_under[rep]
    end
  end
  local function row(name, samples, better)
    return judge(new_row({ group = "summary", name = name, unit = "", better = better, headline = true }, samples), n, alpha)
  end
  local rows = { row("peak " .. tname, peaks, "higher") }
  if bound then
    rows[#rows + 1] = row(string.format("%s with p%s <= %s ms", unit, bound.key, tostring(bound.ms)), under, "higher")
  end
  return rows
end

-- ---- the model ---------------------------------------------------------------------------------

local function product_note(w, labels)
  local products, list, distinct = {}, {}, 0
  for li = 1, #labels do
    local input = (w.by_label[li] or {})[1]
    local p = input and results.product(input.doc)
    if p and not products[p] then products[p] = true; distinct = distinct + 1 end
    if p then list[#list + 1] = labels[li].label .. " " .. p end
  end
  if distinct < 2 then return nil end
  return string.format("%s: %s: the server's own figures and settings are not compared (only the client's)",
    w.name, table.concat(list, ", "))
end

local function describe_label(l)
  local first = l.inputs[1]
  local text = results.describe(first)
  if #l.inputs > 1 then
    local workloads, seen = {}, {}
    for _, input in ipairs(l.inputs) do
      local w = workload_of(input)
      if not seen[w] then seen[w] = true; workloads[#workloads + 1] = w end
    end
    if #workloads > 1 then
      text = string.format("%d runs of %s; %s", #l.inputs, table.concat(workloads, ", "),
        first.doc.hostname and ("host " .. first.doc.hostname) or "")
    else
      -- runs at several points (an axis): the range, not the first run's concurrency
      local lo, hi, unit = math.huge, -math.huge, nil
      for _, input in ipairs(l.inputs) do
        for _, p in ipairs(input.points) do
          local c, u = results.concurrency(p.doc)
          lo, hi, unit = math.min(lo, c), math.max(hi, c), u
        end
      end
      if lo < hi then
        text = string.format("%s, %d..%d %s, host %s", results.what(first.doc), lo, hi, unit, first.doc.hostname or "?")
      end
      text = string.format("%d runs: %s", #l.inputs, text)
    end
  end
  return text
end

-- Rows of what differs that every workload shares are listed once (workload nil), the others
-- under their workload.
local function what_differs(workloads, n)
  local per = {}
  for wi, w in ipairs(workloads) do
    local docs = {}
    for li = 1, n do
      docs[li] = {}
      for _, input in ipairs(w.by_label[li] or {}) do
        for _, p in ipairs(input.points) do docs[li][#docs[li] + 1] = p.doc end
      end
    end
    per[wi] = differs.rows(docs)
  end
  local function key(r) return r.group .. "\0" .. r.name .. "\0" .. table.concat((function()
    local t = {}
    for i = 1, n do t[i] = r.values[i] or "\1" end
    return t
  end)(), "\0") end
  local count = {}
  for _, rows in ipairs(per) do
    for _, r in ipairs(rows) do count[key(r)] = (count[key(r)] or 0) + 1 end
  end
  local out, done = {}, {}
  for wi, rows in ipairs(per) do
    for _, r in ipairs(rows) do
      local k = key(r)
      if count[k] == #workloads and #workloads > 1 then
        if not done[k] then done[k] = true; out[#out + 1] = { group = r.group, name = r.name, values = r.values } end
      else
        out[#out + 1] = { group = r.group, name = r.name, values = r.values,
                          workload = #workloads > 1 and workloads[wi].name or nil }
      end
    end
  end
  -- stable: each workload's rows keep differs.rows' order (options, machine, placement, ...)
  for i, r in ipairs(out) do r.index = i end
  table.sort(out, function(a, b)
    if (a.workload or "") ~= (b.workload or "") then return (a.workload or "") < (b.workload or "") end
    return a.index < b.index
  end)
  for _, r in ipairs(out) do r.index = nil end
  return out
end

-- For charts, which draw one line per input: per workload, one input per label, the run of
-- median throughput standing for the label's runs (at each point, for a sweep or an axis).
-- Returns { { name = workload or nil when there is one, inputs = {...} } }.
function M.chart_groups(inputs)
  local labels = labels_of(inputs)
  local workloads = workloads_of(labels)
  local out = {}
  for _, w in ipairs(workloads) do
    local group = { name = #workloads > 1 and w.name or nil, inputs = {} }
    for li, l in ipairs(labels) do
      local list = w.by_label[li]
      if list and #list == 1 then
        group.inputs[#group.inputs + 1] = list[1]
      elseif list then
        local keys, by_key, sweep = {}, {}, false
        for _, input in ipairs(list) do
          sweep = sweep or input.kind == "sweep" or input.axis
          for _, p in ipairs(input.points) do
            local k = point_key(p)
            if not by_key[k] then by_key[k] = {}; keys[#keys + 1] = k end
            table.insert(by_key[k], p)
          end
        end
        local points = {}
        for _, k in ipairs(keys) do
          local ps = by_key[k]
          table.sort(ps, function(a, b) return (a.doc.rates.events_per_s or 0) < (b.doc.rates.events_per_s or 0) end)
          points[#points + 1] = ps[math.floor((#ps + 1) / 2)]
        end
        if #points > 1 or sweep then table.sort(points, results.point_before) end
        local first = list[1]
        group.inputs[#group.inputs + 1] = { label = l.label, path = first.study or first.path,
          kind = (#points > 1 or sweep) and "sweep" or first.kind, axes = first.axes, points = points,
          doc = points[1].doc }
      end
    end
    out[#out + 1] = group
  end
  return out
end

local function range_text(lo, hi, fmt)
  local a, b = string.format(fmt, lo), string.format(fmt, hi)
  return a == b and a or (a .. ".." .. b)
end

-- A note on the runs during which the host was busy (results.md §4.9.1), with the figures that
-- say how busy: "the host was busy in 30 of 32 runs (one-cpu 16, two-cpu 14): run queue
-- 16.3..30 on 2 CPUs, luabench 2..24 % of the CPU its threads could use". nil when none was.
local function busy_note(labels)
  local runs, busy, per = 0, 0, {}
  local rq_lo, rq_hi, use_lo, use_hi, steal_hi, cpus = math.huge, -math.huge, math.huge, -math.huge, nil, nil
  for _, l in ipairs(labels) do
    local k = 0
    for _, input in ipairs(l.inputs) do
      for _, p in ipairs(input.points) do
        runs = runs + 1
        local b = p.doc.host_busy
        if type(b) == "table" and (b.cpu_contention or b.steal) then
          busy, k = busy + 1, k + 1
          if type(b.run_queue_avg) == "number" then
            rq_lo, rq_hi = math.min(rq_lo, b.run_queue_avg), math.max(rq_hi, b.run_queue_avg)
          end
          if type(b.luabench_cpu_pct) == "number" and type(b.capacity_pct) == "number" and b.capacity_pct > 0 then
            local use = 100 * b.luabench_cpu_pct / b.capacity_pct
            use_lo, use_hi = math.min(use_lo, use), math.max(use_hi, use)
          end
          if b.steal and type(b.steal_pct) == "number" then steal_hi = math.max(steal_hi or 0, b.steal_pct) end
          cpus = cpus or b.cpus
        end
      end
    end
    per[#per + 1] = string.format("%s %d", l.label, k)
  end
  if busy == 0 then return nil end
  local figures = {}
  if rq_lo <= rq_hi then
    figures[#figures + 1] = string.format("run queue %s%s", range_text(rq_lo, rq_hi, "%.1f"),
      cpus and string.format(" on %d CPUs", cpus) or "")
  end
  if use_lo <= use_hi then
    figures[#figures + 1] = string.format("luabench %s %% of the CPU its threads could use", range_text(use_lo, use_hi, "%.0f"))
  end
  if steal_hi then figures[#figures + 1] = string.format("steal up to %.1f %%", steal_hi) end
  return string.format("the host was busy in %d of %d runs (%s)%s; such figures measure what else ran as much as "
    .. "the machine", busy, runs, table.concat(per, ", "), #figures > 0 and (": " .. table.concat(figures, ", ")) or "")
end

-- inputs: loaded (compare.load_inputs), each with its label; inputs sharing a label are runs of
-- one configuration. Returns the model, or nil and a message when the labels share no
-- workload.
function M.build(inputs, opts)
  opts = opts or {}
  local alpha = opts.alpha or runstats.ALPHA
  local labels = labels_of(inputs)
  local n = #labels
  local m = { inputs = {}, labels = labels, sections = {}, summary = {}, breakdowns = {}, notes = {},
              alpha = alpha, multi = false }
  for i, l in ipairs(labels) do
    local paths = {}
    for k, input in ipairs(l.inputs) do paths[k] = input.path end
    m.inputs[i] = { label = l.label, path = l.inputs[1].study or l.inputs[1].path, kind = l.inputs[1].kind,
                    description = describe_label(l), runs = #l.inputs, paths = paths }
    if #l.inputs > 1 then m.multi = true end
  end
  m.concurrency_unit = results.axis_unit(inputs[1])
  local workloads = workloads_of(labels)
  -- pairing: a workload only one label has is not compared; none shared is an error
  local shared, unpaired = {}, {}
  for _, w in ipairs(workloads) do
    local have = {}
    for li = 1, n do if w.by_label[li] then have[#have + 1] = labels[li].label end end
    if #have >= 2 or n == 1 then
      shared[#shared + 1] = w
    else
      unpaired[#unpaired + 1] = string.format("%s (only in %s: %s)", w.name, have[1],
        w.by_label[(function() for li = 1, n do if w.by_label[li] then return li end end end)()][1].path)
    end
  end
  if #shared == 0 then
    return nil, string.format("the inputs ran different workloads, which are not compared: %s; "
      .. "compare results of the same workload (a study directory pairs them by workload)",
      table.concat(unpaired, ", "))
  end
  m.notes[#m.notes + 1] = busy_note(labels)
  if #unpaired > 0 then
    m.notes[#m.notes + 1] = "not compared, no other label has it: " .. table.concat(unpaired, ", ")
  end
  m.workloads = {}
  local all_missing = true
  for _, w in ipairs(shared) do
    m.workloads[#m.workloads + 1] = w.name
    local note = product_note(w, labels)
    if note then m.notes[#m.notes + 1] = note end
    local secs = workload_sections(w, labels)
    for _, s in ipairs(secs) do
      s.workload = w.name
      s.rows = section_rows(s, n, alpha, note and "server" or nil)
      s.runs = {}
      for i = 1, n do
        s.runs[i] = #s.docs[i]
        if s.runs[i] > 1 then m.multi = true end
      end
      for _, r in ipairs(s.rows) do
        s.too_few, s.small_sample = s.too_few or r.too_few, s.small_sample or r.small_sample
      end
      if s.too_few then s.runs_needed = runstats.runs_needed(alpha) end
      all_missing = all_missing and #s.missing > n - 2
      m.sections[#m.sections + 1] = s
      if n >= 2 then
        for _, by in ipairs({ "type", "statement" }) do
          local b = breakdown(s, labels, by)
          if b then
            b.workload, b.conc, b.point, b.unit = w.name, s.conc, s.point, s.unit
            m.breakdowns[#m.breakdowns + 1] = b
          end
        end
      end
    end
    local axis = axis_summary(w, secs, labels, alpha)
    if axis then
      for _, r in ipairs(axis) do
        r.workload = w.name
        m.summary[#m.summary + 1] = r
      end
    else
      for _, r in ipairs(secs[1].rows) do
        if r.headline then
          local copy = setmetatable({ workload = w.name }, { __index = r })
          m.summary[#m.summary + 1] = copy
        end
      end
    end
  end
  if all_missing and n >= 2 then
    local parts = {}
    for i, input in ipairs(inputs) do parts[i] = input.label .. ": " .. results.concurrency_text(input) end
    m.note = "the inputs share no point, so nothing is compared (" .. table.concat(parts, "; ") .. ")"
  end
  m.rule = m.multi and M.BETWEEN_RULE or metrics.RULE
  m.rule_kind = m.multi and "between-runs" or "within-run"
  local firsts = {}
  for i, l in ipairs(labels) do firsts[i] = l.inputs[1].doc or false end
  local products_differ = false
  for _, w in ipairs(shared) do products_differ = products_differ or product_note(w, labels) ~= nil end
  m.settings = not products_differ and metrics.settings_diff(firsts) or nil
  m.differs = n >= 2 and what_differs(shared, n) or {}
  return m
end

return M
