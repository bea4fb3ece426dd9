-- The comparison model (compare_model.lua) as text, JSON and CSV: the same figures in each.
local model = require("luabench.internal.compare_model")
local M = {}

-- Numbers as people read them, the same in every format of the text table.
function M.fmt(v)
  if v == nil then return "-" end
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
  if math.abs(v) >= 1e6 then return string.format("%.1f", v) end
  return string.format("%.6g", v)
end
local fmt = M.fmt

-- A section's heading: the workload when there are several, then every swept axis with its
-- value at that point ("iodepth=32, file-block-size=64 KiB") or the concurrency ("8 threads");
-- nil for the one section of single runs of one workload.
function M.section_heading(m, s)
  local where
  if s.point then
    where = s.point
  elseif s.conc and s.unit then
    where = string.format("%d %s", s.conc, s.unit)
  elseif s.conc and not s.workload then
    where = string.format("%d %s", s.conc, m.concurrency_unit)
  end
  if m.workloads and #m.workloads > 1 and s.workload then
    return where and (s.workload .. ", " .. where) or s.workload
  end
  return where
end

-- "+-3.1%": the larger distance of the interval's ends from the median, relative to it.
function M.spread_text(value, iv)
  if not iv or value == nil then return "" end
  local half = math.max(iv[2] - value, value - iv[1])
  if half == 0 then return "" end
  if value == 0 then return " (" .. fmt(iv[1]) .. ".." .. fmt(iv[2]) .. ")" end
  local pct = 100 * half / math.abs(value)
  if pct >= 1000 then return " ±>999%" end
  return string.format(pct < 10 and " ±%.1f%%" or " ±%.0f%%", pct)
end

local function mark(sig)
  return sig == true and "*" or sig == false and "~" or "?"
end

function M.value_cell(r, i)
  return fmt(r.values[i]) .. M.spread_text(r.values[i], r.intervals[i])
end

-- A ratio's bound: three decimals where ratios live, three digits beyond.
function M.ratio_num(x)
  if x == 0 then return "0" end
  if math.abs(x) >= 0.001 and math.abs(x) < 1000 then return string.format("%.3f", x) end
  return string.format("%.3g", x)
end

function M.ratio_cell(r, i)
  local x = r.ratios[i]
  if x == nil then return "-" end
  local text = string.format("%.3f %s", x, mark(r.significant[i]))
  if r.rules[i] == "between" then
    local iv = r.ratio_intervals[i]
    if iv then text = text .. " [" .. M.ratio_num(iv[1]) .. " " .. M.ratio_num(iv[2]) .. "]" end
    if r.p[i] then text = text .. string.format(" p=%.3f", r.p[i]) end
  end
  return text
end

local function pad(s, w, left)
  local n = w - #s
  if n <= 0 then return s end
  return left and s .. string.rep(" ", n) or string.rep(" ", n) .. s
end

-- Lines of cells, each column as wide as its widest cell; a line of one cell is a group title.
local function table_lines(head, lines, out)
  local widths = {}
  for c, h in ipairs(head) do widths[c] = #h end
  for _, cells in ipairs(lines) do
    if #cells > 1 then
      for c, v in ipairs(cells) do widths[c] = math.max(widths[c] or 0, #v) end
    end
  end
  local hl = {}
  for c, h in ipairs(head) do hl[c] = pad(h, widths[c], c == 1) end
  out[#out + 1] = (table.concat(hl, "   "):gsub("%s+$", ""))
  for _, cells in ipairs(lines) do
    if #cells == 1 then
      out[#out + 1] = cells[1]
    else
      local l = {}
      for c, v in ipairs(cells) do l[c] = pad(v, widths[c], c == 1) end
      out[#out + 1] = (table.concat(l, "   "):gsub("%s+$", ""))
    end
  end
end

local function labels_of(m)
  local labels = {}
  for i, input in ipairs(m.inputs) do labels[i] = input.label end
  return labels
end

-- The same with every column left-aligned (settings and options are text).
local function left_table(head, lines, out)
  local widths = {}
  for c, h in ipairs(head) do widths[c] = #h end
  for _, cells in ipairs(lines) do
    if #cells > 1 then for c, v in ipairs(cells) do widths[c] = math.max(widths[c] or 0, #v) end end
  end
  local function line(cells)
    local l = {}
    for c, v in ipairs(cells) do l[c] = pad(v, widths[c], true) end
    return (table.concat(l, "   "):gsub("%s+$", ""))
  end
  out[#out + 1] = line(head)
  for _, cells in ipairs(lines) do out[#out + 1] = #cells == 1 and cells[1] or line(cells) end
end

-- The server settings that differ between the inputs, as a table of text (--server-stats).
function M.settings_text(m, labels, out)
  if not m.settings then return end
  out[#out + 1] = ""
  if #m.settings == 0 then
    out[#out + 1] = "server settings: the same in every input"
    return
  end
  out[#out + 1] = "server settings that differ:"
  local lines = {}
  for _, s in ipairs(m.settings) do
    local cells = { "  " .. s.name }
    for i = 1, #labels do cells[i + 1] = s.values[i] or "-" end
    lines[#lines + 1] = cells
  end
  local head = { "" }
  for i, l in ipairs(labels) do head[i + 1] = l end
  left_table(head, lines, out)
end

-- Everything else that differs (options, machine, placement, busy host, drivers' settings).
function M.differs_text(m, labels, out)
  if #labels < 2 then return end
  local rows = {}
  for _, r in ipairs(m.differs or {}) do
    if r.group ~= "server settings" then rows[#rows + 1] = r end
  end
  out[#out + 1] = ""
  if #rows == 0 then
    out[#out + 1] = "what differs: nothing in the options, machine or placement"
    return
  end
  out[#out + 1] = "what differs:"
  local head = { "" }
  for i, l in ipairs(labels) do head[i + 1] = l end
  local lines, group = {}, nil
  for _, r in ipairs(rows) do
    local g = r.group .. (r.workload and (" (" .. r.workload .. ")") or "")
    if g ~= group then group = g; lines[#lines + 1] = { "  " .. g } end
    local cells = { "    " .. r.name }
    for i = 1, #labels do cells[i + 1] = r.values[i] or "-" end
    lines[#lines + 1] = cells
  end
  left_table(head, lines, out)
end

local function ratio_head(labels)
  local head = { "" }
  for i, l in ipairs(labels) do
    head[#head + 1] = l
    if i > 1 then head[#head + 1] = l .. "/" .. labels[1] end
  end
  return head
end

-- A figure's cells: its name, then per label its value and, from the second on, the ratio.
local function figure_cells(indent, r, n)
  local cells = { indent .. r.name }
  for i = 1, n do
    cells[#cells + 1] = M.value_cell(r, i)
    if i > 1 then cells[#cells + 1] = M.ratio_cell(r, i) end
  end
  return cells
end

function M.summary_text(m, labels, out)
  if #m.summary == 0 or (#m.sections <= 1 and not m.multi) then return end
  out[#out + 1] = ""
  out[#out + 1] = "summary:"
  local head = ratio_head(labels)
  local lines, workload = {}, nil
  for _, r in ipairs(m.summary) do
    if r.workload ~= workload then workload = r.workload; lines[#lines + 1] = { "  " .. workload } end
    lines[#lines + 1] = figure_cells("    ", r, #labels)
  end
  table_lines(head, lines, out)
end

local function too_few_text(m, s)
  local note = model.few_runs_note(m, s)
  return note and "(" .. note .. ")"
end

function M.breakdown_text(m, labels, out)
  for _, b in ipairs(m.breakdowns) do
    out[#out + 1] = ""
    local where = M.section_heading(m, { workload = b.workload, conc = b.conc, point = b.point, unit = b.unit })
    out[#out + 1] = string.format("change of the mean event time by %s%s (ms per event, mean of the runs):",
      b.by, where and (", " .. where) or "")
    local head = { "" }
    for i, l in ipairs(labels) do
      head[#head + 1] = l
      if i > 1 then head[#head + 1] = l .. "-" .. labels[1]; head[#head + 1] = "share" end
    end
    local lines = {}
    for _, r in ipairs(b.rows) do
      local cells = { "  " .. r.name }
      for i = 1, #labels do
        cells[#cells + 1] = string.format("%.4g", r.values[i])
        if i > 1 then
          cells[#cells + 1] = string.format("%+.4g", r.deltas[i])
          cells[#cells + 1] = r.shares[i] and string.format("%.0f%%", r.shares[i]) or "-"
        end
      end
      lines[#lines + 1] = cells
    end
    local t = b.total
    local cells = { "  " .. t.name }
    for i = 1, #labels do
      cells[#cells + 1] = string.format("%.4g", t.values[i])
      if i > 1 then cells[#cells + 1] = string.format("%+.4g", t.deltas[i]); cells[#cells + 1] = "100%" end
    end
    lines[#lines + 1] = cells
    table_lines(head, lines, out)
  end
end

function M.text(m)
  local out = {}
  local labels = labels_of(m)
  local runs = 0
  for _, input in ipairs(m.inputs) do runs = runs + input.runs end
  if m.multi then
    out[#out + 1] = string.format("luabench compare: %d labels, %d runs, each label against the first (%s)",
      #m.inputs, runs, labels[1])
  else
    out[#out + 1] = string.format("luabench compare: %d inputs, each against the first (%s)", #m.inputs, labels[1])
  end
  local lw = 0
  for _, l in ipairs(labels) do lw = math.max(lw, #l) end
  for _, input in ipairs(m.inputs) do
    local where = input.path
    if input.runs > 1 and #input.paths > 1 and input.path == input.paths[1] then
      where = string.format("%s and %d more", input.paths[1], #input.paths - 1)
    end
    out[#out + 1] = string.format("  %s  %s (%s)", pad(input.label, lw, true), input.description, where)
  end
  if m.multi then
    out[#out + 1] = "ratio = label / " .. labels[1] .. "; verdicts " .. m.rule .. "."
  else
    out[#out + 1] = "ratio = input / " .. labels[1] .. "; " .. m.rule .. "."
  end
  if m.note then out[#out + 1] = "NOTE: " .. m.note .. "." end
  for _, n in ipairs(m.notes) do out[#out + 1] = "NOTE: " .. n .. "." end
  M.summary_text(m, labels, out)
  M.settings_text(m, labels, out)
  M.differs_text(m, labels, out)
  local head = ratio_head(labels)
  for _, s in ipairs(m.sections) do
    local lines, group = {}, nil
    for _, r in ipairs(s.rows) do
      if r.group ~= group then
        group = r.group
        lines[#lines + 1] = { group }
      end
      lines[#lines + 1] = figure_cells("  ", r, #labels)
    end
    out[#out + 1] = ""
    local heading = M.section_heading(m, s)
    if heading then
      local only = #s.missing > 0 and string.format(" (not in %s)", table.concat(s.missing, ", ")) or ""
      out[#out + 1] = string.format("== %s ==%s", heading, only)
    end
    local few = too_few_text(m, s)
    if few then out[#out + 1] = few end
    table_lines(head, lines, out)
  end
  M.breakdown_text(m, labels, out)
  return table.concat(out, "\n") .. "\n"
end

-- ---- JSON ----------------------------------------------------------------------------------------

-- A JSON encoder with a fixed key order (the results' own decoder loses it), so that the same
-- inputs give the same bytes.
local function jstr(s)
  return '"' .. tostring(s):gsub('[%c"\\]', function(c)
    local map = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t', ['\r'] = '\\r' }
    return map[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end
M.json_string = jstr

local function jnum(v)
  if v == nil then return "null" end
  if v ~= v or v == math.huge or v == -math.huge then return "null" end
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
  -- The shortest of 15..17 digits that reads back as the same double.
  for digits = 15, 17 do
    local text = string.format("%." .. digits .. "g", v)
    if tonumber(text) == v or digits == 17 then return text end
  end
end
M.json_number = jnum

local function jval(v)
  if v == nil then return "null" end
  if type(v) == "boolean" then return tostring(v) end
  if type(v) == "number" then return jnum(v) end
  if type(v) == "table" then
    local parts = {}
    for i = 1, #v do parts[i] = jval(v[i]) end
    return "[" .. table.concat(parts, ", ") .. "]"
  end
  return jstr(v)
end

local function jarray(list, n)
  local parts = {}
  for i = 1, n do parts[i] = jval(list[i]) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

-- "rules": "within" or "between" per input (null for the first)
local function row_json(r, n, extra)
  local rules = {}
  for i = 2, n do rules[i] = r.rules[i] end
  return string.format('{%s"group": %s, "metric": %s, "unit": %s, "better": %s, "headline": %s, "values": %s, '
    .. '"ratios": %s, "significant": %s, "stderr": %s, "runs": %s, "intervals": %s, "ratio_intervals": %s, '
    .. '"p_values": %s, "rules": %s}',
    extra or "", jstr(r.group), jstr(r.name), jstr(r.unit), jstr(r.better or "neutral"), tostring(r.headline == true),
    jarray(r.values, n), jarray(r.ratios, n), jarray(r.significant, n), jarray(r.se, n), jarray(r.runs, n),
    jarray(r.intervals, n), jarray(r.ratio_intervals, n), jarray(r.p, n), jarray(rules, n))
end

function M.json(m)
  local n = #m.inputs
  local out = { "{", '  "luabench_compare": 1,', '  "rule": ' .. jstr(m.rule) .. ",",
                '  "verdict_rule": ' .. jstr(m.rule_kind) .. ",", '  "alpha": ' .. jnum(m.alpha) .. ",",
                '  "concurrency_unit": ' .. jstr(m.concurrency_unit) .. "," }
  if m.note then out[#out + 1] = '  "note": ' .. jstr(m.note) .. "," end
  local notes = {}
  for i, x in ipairs(m.notes) do notes[i] = jstr(x) end
  out[#out + 1] = '  "notes": [' .. table.concat(notes, ", ") .. "],"
  local wl = {}
  for i, w in ipairs(m.workloads or {}) do wl[i] = jstr(w) end
  out[#out + 1] = '  "workloads": [' .. table.concat(wl, ", ") .. "],"
  out[#out + 1] = '  "inputs": ['
  for i, input in ipairs(m.inputs) do
    local paths = {}
    for k, p in ipairs(input.paths) do paths[k] = jstr(p) end
    out[#out + 1] = string.format('    {"label": %s, "path": %s, "kind": %s, "description": %s, "runs": %d, "paths": [%s]}%s',
      jstr(input.label), jstr(input.path), jstr(input.kind), jstr(input.description), input.runs,
      table.concat(paths, ", "), i < n and "," or "")
  end
  out[#out + 1] = "  ],"
  if m.settings then
    out[#out + 1] = '  "settings_differ": ['
    for i, s in ipairs(m.settings) do
      out[#out + 1] = string.format('    {"name": %s, "values": %s}%s', jstr(s.name), jarray(s.values, n),
        i < #m.settings and "," or "")
    end
    out[#out + 1] = "  ],"
  end
  out[#out + 1] = '  "differs": ['
  for i, r in ipairs(m.differs or {}) do
    out[#out + 1] = string.format('    {"group": %s, "name": %s, "workload": %s, "values": %s}%s', jstr(r.group),
      jstr(r.name), jval(r.workload), jarray(r.values, n), i < #m.differs and "," or "")
  end
  out[#out + 1] = "  ],"
  out[#out + 1] = '  "summary": ['
  for i, r in ipairs(m.summary) do
    out[#out + 1] = "    " .. row_json(r, n, '"workload": ' .. jstr(r.workload) .. ", ") .. (i < #m.summary and "," or "")
  end
  out[#out + 1] = "  ],"
  out[#out + 1] = '  "sections": ['
  for si, s in ipairs(m.sections) do
    local missing = {}
    for i, l in ipairs(s.missing or {}) do missing[i] = jstr(l) end
    out[#out + 1] = string.format('    {"workload": %s, "concurrency": %s,%s%s "missing": [%s], "runs": %s, '
      .. '"runs_needed": %s, "rows": [', jval(s.workload), jnum(s.conc),
      s.unit and (' "unit": ' .. jstr(s.unit) .. ",") or "",
      s.point and (' "point": ' .. jstr(s.point) .. ",") or "", table.concat(missing, ", "),
      jarray(s.runs or {}, n), jnum(s.runs_needed))
    for ri, r in ipairs(s.rows) do
      out[#out + 1] = "      " .. row_json(r, n) .. (ri < #s.rows and "," or "")
    end
    out[#out + 1] = "    ]}" .. (si < #m.sections and "," or "")
  end
  out[#out + 1] = "  ],"
  out[#out + 1] = '  "breakdowns": ['
  for bi, b in ipairs(m.breakdowns) do
    local parts = {}
    for _, r in ipairs(b.rows) do
      parts[#parts + 1] = string.format('{"name": %s, "ms_per_event": %s, "deltas": %s, "shares_pct": %s}',
        jstr(r.name), jarray(r.values, n), jarray(r.deltas, n), jarray(r.shares, n))
    end
    out[#out + 1] = string.format('    {"workload": %s, "concurrency": %s, "point": %s, "by": %s, '
      .. '"mean_event_ms": %s, "parts": [%s]}%s', jstr(b.workload), jnum(b.conc), jval(b.point), jstr(b.by),
      jarray(b.total.values, n), table.concat(parts, ", "), bi < #m.breakdowns and "," or "")
  end
  out[#out + 1] = "  ]"
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

-- ---- CSV -----------------------------------------------------------------------------------------

local function csv_cell(s)
  s = tostring(s)
  if s:find('[,"\n]') then return '"' .. s:gsub('"', '""') .. '"' end
  return s
end

local function csv_num(v)
  if v == nil then return "" end
  return jnum(v)
end

function M.csv(m)
  -- sweeps over several axes: a point column names every axis's value (the first column has
  -- only the first axis's); several workloads: a workload column; several runs: each label's
  -- interval, and each ratio's interval and p-value
  local points = false
  for _, s in ipairs(m.sections) do points = points or s.point ~= nil end
  local workloads = m.workloads and #m.workloads > 1
  local head = { m.concurrency_unit, "group", "metric", "unit" }
  if points then table.insert(head, 2, "point") end
  if workloads then table.insert(head, 1, "workload") end
  for i, input in ipairs(m.inputs) do
    head[#head + 1] = csv_cell(input.label)
    if m.multi then
      head[#head + 1] = csv_cell("runs_" .. input.label)
      head[#head + 1] = csv_cell("lo_" .. input.label)
      head[#head + 1] = csv_cell("hi_" .. input.label)
    end
    if i > 1 then
      head[#head + 1] = csv_cell("ratio_" .. input.label)
      head[#head + 1] = csv_cell("significant_" .. input.label)
      if m.multi then
        head[#head + 1] = csv_cell("ratio_lo_" .. input.label)
        head[#head + 1] = csv_cell("ratio_hi_" .. input.label)
        head[#head + 1] = csv_cell("p_" .. input.label)
      end
    end
  end
  local out = { table.concat(head, ",") }
  local function prefix(s, group, metric, unit)
    local cells = { s and s.conc and tostring(s.conc) or "", csv_cell(group), csv_cell(metric), csv_cell(unit) }
    if points then table.insert(cells, 2, csv_cell(s and s.point or "")) end
    if workloads then table.insert(cells, 1, csv_cell(s and s.workload or "")) end
    return cells
  end
  for _, s in ipairs(m.sections) do
    for _, r in ipairs(s.rows) do
      local cells = prefix(s, r.group, r.name, r.unit)
      for i = 1, #m.inputs do
        cells[#cells + 1] = csv_num(r.values[i])
        if m.multi then
          local iv = r.intervals[i]
          cells[#cells + 1] = csv_num(r.runs[i])
          cells[#cells + 1] = csv_num(iv and iv[1])
          cells[#cells + 1] = csv_num(iv and iv[2])
        end
        if i > 1 then
          cells[#cells + 1] = csv_num(r.ratios[i])
          local sig = r.significant[i]
          cells[#cells + 1] = sig == true and "yes" or sig == false and "no" or ""
          if m.multi then
            local iv = r.ratio_intervals[i]
            cells[#cells + 1] = csv_num(iv and iv[1])
            cells[#cells + 1] = csv_num(iv and iv[2])
            cells[#cells + 1] = csv_num(r.p[i])
          end
        end
      end
      out[#out + 1] = table.concat(cells, ",")
    end
  end
  local per_input = m.multi and 4 or 1
  for _, s in ipairs(m.settings or {}) do
    local cells = prefix(nil, "server settings", s.name, "")
    for i = 1, #m.inputs do
      cells[#cells + 1] = csv_cell(s.values[i] or "")
      for _ = 2, per_input do cells[#cells + 1] = "" end
      if i > 1 then for _ = 1, m.multi and 5 or 2 do cells[#cells + 1] = "" end end
    end
    out[#out + 1] = table.concat(cells, ",")
  end
  return table.concat(out, "\n") .. "\n"
end

return M
