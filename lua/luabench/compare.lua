-- `luabench compare A B [C ...]`: results side by side, the ratio of each to the first, and
-- whether each difference is larger than the runs' own interval-to-interval spread.
--   luabench compare [--label=NAME ...] [--format=text|json|csv] [--output=FILE]
--                    [--charts=PREFIX] INPUT INPUT...
-- Inputs are result JSONs (--output of a run), merged results (luabench merge) or sweep
-- directories (tools/sweep). Runs are compared as they are; sweeps point by point, matched by
-- concurrency. The model built here is also what `luabench report` shows.
local results = require("luabench.results")
local metrics = require("luabench.metrics")

local M = {}

M.USAGE = [[
Usage: luabench compare [options] INPUT INPUT [INPUT ...]

Compares results side by side: throughput, every latency percentile, errors, system metrics and
per-type figures (tpcc, bookstore, fileio), with the ratio of each input to the first and whether
each difference is larger than the runs' own interval-to-interval noise.

An INPUT is a result file (luabench ... --output=run.json run), a merged result (luabench merge
--format=json) or a sweep directory written by tools/sweep (sweeps are compared point by point,
matched by thread count).

Options:
  --label=NAME       name of the next input in tables and charts (default: its file name);
                     give one per input, in order
  --format=FORMAT    text (default), json or csv
  --output=FILE      write there instead of standard output
  --charts=PREFIX    also write overlaid SVG charts: PREFIX-throughput.svg, PREFIX-latency-*.svg, ...
  -h, --help         this text

Significance: ]] .. metrics.RULE .. [[.

See doc/compare.md for a worked example.
]]

-- ---- the model -------------------------------------------------------------------------------

local function ratio(a, b)
  if a == nil or b == nil then return nil end
  if a == 0 then return b == 0 and 1 or nil end
  return b / a
end

-- Which results each section compares: { conc = N or nil, unit, point, docs = { doc or false
-- per input }, missing = { labels of the inputs without this point } }.
local function sections_of(inputs)
  local single = true
  for _, input in ipairs(inputs) do
    if input.kind == "sweep" then single = false end
  end
  if single then
    local docs = {}
    for i, input in ipairs(inputs) do docs[i] = input.doc end
    return { { docs = docs, missing = {} } }
  end
  -- Points match by concurrency and its unit (4 threads is not 4 users), or in a sweep over
  -- other axes by all of its axes' values.
  local keys, seen, first = {}, {}, {}
  local function key(p) return p.key or p.point or (select(2, results.concurrency(p.doc)) .. "=" .. p.conc) end
  for _, input in ipairs(inputs) do
    for _, p in ipairs(input.points) do
      local k = key(p)
      if not seen[k] then seen[k] = true; keys[#keys + 1] = k; first[k] = p end
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
    local docs, missing = {}, {}
    for i, input in ipairs(inputs) do
      docs[i] = false
      for _, p in ipairs(input.points) do
        if key(p) == k then docs[i] = p.doc end
      end
      if not docs[i] then missing[#missing + 1] = input.label end
    end
    out[#out + 1] = { conc = first[k].conc, point = first[k].point, docs = docs, missing = missing,
                      unit = not first[k].point and select(2, results.concurrency(first[k].doc)) or nil }
  end
  return out
end

local function section_rows(docs)
  local present = {}
  for _, d in ipairs(docs) do if d then present[#present + 1] = d end end
  local rows = {}
  for _, def in ipairs(metrics.rows(present)) do
    local row = { group = def.group, name = def.name, unit = def.unit, better = def.better,
                  values = {}, ratios = {}, significant = {}, se = {} }
    local any, nonzero = false, false
    local spreads = {}
    for i, d in ipairs(docs) do
      local v = d and def.value(d) or nil
      if type(v) ~= "number" or v ~= v then v = nil end
      row.values[i] = v
      any = any or v ~= nil
      nonzero = nonzero or (v ~= nil and v ~= 0)
      spreads[i] = d and metrics.spread(d, def) or nil
      row.se[i] = spreads[i] and spreads[i].se or nil
    end
    for i = 2, #docs do
      row.ratios[i] = ratio(row.values[1], row.values[i])
      row.significant[i] = metrics.significant(row.values[1], row.values[i], spreads[1], spreads[i])
    end
    if any and (nonzero or not def.nonzero) then rows[#rows + 1] = row end
  end
  return rows
end

-- inputs: loaded with results.load. Returns the comparison model.
function M.model(inputs)
  local m = { inputs = {}, rule = metrics.RULE, sections = {} }
  local unit = results.axis_unit(inputs[1])
  m.concurrency_unit = unit
  for i, input in ipairs(inputs) do
    m.inputs[i] = { label = input.label, path = input.path, kind = input.kind,
                    description = results.describe(input) }
  end
  local shared = false
  for _, s in ipairs(sections_of(inputs)) do
    m.sections[#m.sections + 1] = { conc = s.conc, point = s.point, unit = s.unit, missing = s.missing,
                                    rows = section_rows(s.docs) }
    shared = shared or #s.missing <= #inputs - 2
  end
  if not shared then
    -- a --threads sweep against a --users sweep, or sweeps over different values: every row
    -- would be '-', so say why
    local parts = {}
    for i, input in ipairs(inputs) do parts[i] = input.label .. ": " .. results.concurrency_text(input) end
    m.note = "the inputs share no point, so nothing is compared (" .. table.concat(parts, "; ") .. ")"
  end
  local firsts = {}
  for i, input in ipairs(inputs) do firsts[i] = input.doc or false end
  m.settings = metrics.settings_diff(firsts)
  return m
end

-- ---- rendering -------------------------------------------------------------------------------

-- Numbers as people read them, the same in every format of the text table.
function M.fmt(v)
  if v == nil then return "-" end
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
  if math.abs(v) >= 1e6 then return string.format("%.1f", v) end
  return string.format("%.6g", v)
end

-- A section's heading: every swept axis with its value at that point ("iodepth=32,
-- file-block-size=64 KiB"), or the concurrency ("8 threads"); nil for single runs.
function M.section_heading(m, s)
  if s.point then return s.point end
  if s.conc then return string.format("%d %s", s.conc, s.unit or m.concurrency_unit) end
  return nil
end

local function fmt_ratio(r, sig)
  if r == nil then return "-" end
  local mark = sig == true and "*" or sig == false and "~" or "?"
  return string.format("%.3f %s", r, mark)
end

local function pad(s, w, left)
  local n = w - #s
  if n <= 0 then return s end
  return left and s .. string.rep(" ", n) or string.rep(" ", n) .. s
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
  local widths = { 0 }
  for i, l in ipairs(labels) do widths[i + 1] = #l end
  for _, s in ipairs(m.settings) do
    widths[1] = math.max(widths[1], #s.name + 2)
    for i = 1, #labels do widths[i + 1] = math.max(widths[i + 1], #(s.values[i] or "-")) end
  end
  local head = { pad("", widths[1], true) }
  for i, l in ipairs(labels) do head[i + 1] = pad(l, widths[i + 1], true) end
  out[#out + 1] = (table.concat(head, "   "):gsub("%s+$", ""))
  for _, s in ipairs(m.settings) do
    local cells = { pad("  " .. s.name, widths[1], true) }
    for i = 1, #labels do cells[i + 1] = pad(s.values[i] or "-", widths[i + 1], true) end
    out[#out + 1] = (table.concat(cells, "   "):gsub("%s+$", ""))
  end
end

function M.text(m)
  local out = {}
  local labels = {}
  for i, input in ipairs(m.inputs) do labels[i] = input.label end
  out[#out + 1] = string.format("luabench compare: %d inputs, each against the first (%s)", #m.inputs, labels[1])
  local lw = 0
  for _, l in ipairs(labels) do lw = math.max(lw, #l) end
  for _, input in ipairs(m.inputs) do
    out[#out + 1] = string.format("  %s  %s (%s)", pad(input.label, lw, true), input.description, input.path)
  end
  out[#out + 1] = "ratio = input / " .. labels[1] .. "; " .. m.rule .. "."
  if m.note then out[#out + 1] = "NOTE: " .. m.note .. "." end
  M.settings_text(m, labels, out)
  -- Columns: metric, then per input its value, and from the second on its ratio.
  local head = { "" }
  for i, l in ipairs(labels) do
    head[#head + 1] = l
    if i > 1 then head[#head + 1] = l .. "/" .. labels[1] end
  end
  for _, s in ipairs(m.sections) do
    local lines = {}
    local group
    for _, r in ipairs(s.rows) do
      if r.group ~= group then
        group = r.group
        lines[#lines + 1] = { group }
      end
      local cells = { "  " .. r.name }
      for i = 1, #labels do
        cells[#cells + 1] = M.fmt(r.values[i])
        if i > 1 then cells[#cells + 1] = fmt_ratio(r.ratios[i], r.significant[i]) end
      end
      lines[#lines + 1] = cells
    end
    local widths = {}
    for c, h in ipairs(head) do widths[c] = #h end
    for _, cells in ipairs(lines) do
      if #cells > 1 then
        for c, v in ipairs(cells) do widths[c] = math.max(widths[c] or 0, #v) end
      end
    end
    out[#out + 1] = ""
    local heading = M.section_heading(m, s)
    if heading then
      local only = #s.missing > 0 and string.format(" (not in %s)", table.concat(s.missing, ", ")) or ""
      out[#out + 1] = string.format("== %s ==%s", heading, only)
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
  return table.concat(out, "\n") .. "\n"
end

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
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
  -- The shortest of 15..17 digits that reads back as the same double.
  for digits = 15, 17 do
    local text = string.format("%." .. digits .. "g", v)
    if tonumber(text) == v or digits == 17 then return text end
  end
end

local function jval(v)
  if v == nil then return "null" end
  if type(v) == "boolean" then return tostring(v) end
  if type(v) == "number" then return jnum(v) end
  return jstr(v)
end

local function jarray(list, n)
  local parts = {}
  for i = 1, n do parts[i] = jval(list[i]) end
  return "[" .. table.concat(parts, ", ") .. "]"
end

function M.json(m)
  local n = #m.inputs
  local out = { "{", '  "luabench_compare": 1,', '  "rule": ' .. jstr(m.rule) .. ",",
                '  "concurrency_unit": ' .. jstr(m.concurrency_unit) .. "," }
  if m.note then out[#out + 1] = '  "note": ' .. jstr(m.note) .. "," end
  out[#out + 1] = '  "inputs": ['
  for i, input in ipairs(m.inputs) do
    out[#out + 1] = string.format('    {"label": %s, "path": %s, "kind": %s, "description": %s}%s',
      jstr(input.label), jstr(input.path), jstr(input.kind), jstr(input.description), i < n and "," or "")
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
  out[#out + 1] = '  "sections": ['
  for si, s in ipairs(m.sections) do
    local missing = {}
    for i, l in ipairs(s.missing or {}) do missing[i] = jstr(l) end
    out[#out + 1] = string.format('    {"concurrency": %s,%s%s "missing": [%s], "rows": [', jnum(s.conc),
      s.unit and (' "unit": ' .. jstr(s.unit) .. ",") or "",
      s.point and (' "point": ' .. jstr(s.point) .. ",") or "", table.concat(missing, ", "))
    for ri, r in ipairs(s.rows) do
      out[#out + 1] = string.format(
        '      {"group": %s, "metric": %s, "unit": %s, "values": %s, "ratios": %s, "significant": %s, "stderr": %s}%s',
        jstr(r.group), jstr(r.name), jstr(r.unit), jarray(r.values, n), jarray(r.ratios, n),
        jarray(r.significant, n), jarray(r.se, n), ri < #s.rows and "," or "")
    end
    out[#out + 1] = "    ]}" .. (si < #m.sections and "," or "")
  end
  out[#out + 1] = "  ]"
  out[#out + 1] = "}"
  return table.concat(out, "\n") .. "\n"
end

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
  -- only the first axis's)
  local points = false
  for _, s in ipairs(m.sections) do points = points or s.point ~= nil end
  local head = { m.concurrency_unit, "group", "metric", "unit" }
  if points then table.insert(head, 2, "point") end
  for i, input in ipairs(m.inputs) do
    head[#head + 1] = csv_cell(input.label)
    if i > 1 then
      head[#head + 1] = csv_cell("ratio_" .. input.label)
      head[#head + 1] = csv_cell("significant_" .. input.label)
    end
  end
  local out = { table.concat(head, ",") }
  for _, s in ipairs(m.sections) do
    for _, r in ipairs(s.rows) do
      local cells = { s.conc and tostring(s.conc) or "", csv_cell(r.group), csv_cell(r.name), csv_cell(r.unit) }
      if points then table.insert(cells, 2, csv_cell(s.point or "")) end
      for i = 1, #m.inputs do
        cells[#cells + 1] = csv_num(r.values[i])
        if i > 1 then
          cells[#cells + 1] = csv_num(r.ratios[i])
          local sig = r.significant[i]
          cells[#cells + 1] = sig == true and "yes" or sig == false and "no" or ""
        end
      end
      out[#out + 1] = table.concat(cells, ",")
    end
  end
  for _, s in ipairs(m.settings or {}) do
    local cells = { "", "server settings", csv_cell(s.name), "" }
    for i = 1, #m.inputs do
      cells[#cells + 1] = csv_cell(s.values[i] or "")
      if i > 1 then cells[#cells + 1] = ""; cells[#cells + 1] = "" end
    end
    out[#out + 1] = table.concat(cells, ",")
  end
  return table.concat(out, "\n") .. "\n"
end

-- ---- command line ----------------------------------------------------------------------------

-- Parses the arguments shared by compare and report. Returns { inputs = {{path, label}}, ... }
-- or nil and a message. `known` maps option names to "value" or "flag".
function M.parse_args(args, known)
  local a = { inputs = {} }
  local pending_label
  local i = 1
  while i <= #args do
    local arg = args[i]
    local name, value = arg:match("^%-%-([%w%-]+)=(.*)$")
    if not name then name = arg:match("^%-%-([%w%-]+)$") end
    if arg == "-h" then name = "help" end
    if arg == "-o" then name = "output" end
    if name then
      local kind = known[name]
      if not kind then return nil, string.format("unknown option '%s'", arg) end
      if kind == "value" and not value then
        i = i + 1
        value = args[i]
        if not value then return nil, string.format("option '%s' needs a value", arg) end
      elseif kind == "flag" and value then
        return nil, string.format("option '--%s' takes no value", name)
      end
      if name == "label" then
        pending_label = value
      else
        a[name] = value or true
      end
    else
      a.inputs[#a.inputs + 1] = { path = arg, label = pending_label }
      pending_label = nil
    end
    i = i + 1
  end
  if pending_label then return nil, "--label must come before the input it names" end
  return a
end

-- A path's components, absolute and without "." and "..", the ".json" of a result file dropped.
local function components(path)
  if path:sub(1, 1) ~= "/" then path = (os.getenv("PWD") or ".") .. "/" .. path end
  local out = {}
  for c in path:gmatch("[^/]+") do
    if c == ".." then
      out[#out] = nil
    elseif c ~= "." then
      out[#out + 1] = c
    end
  end
  if #out > 0 then out[#out] = out[#out]:gsub("%.json$", "") end
  return out
end

-- Default labels that collide ("sweep" for a/sweep and b/sweep) become the part of each path
-- that tells it from the others: what is left once the components all of them share at the
-- start and at the end are dropped ("a" and "b"; "2024" and "2025" for runs/2024/s.json and
-- runs/2025/s.json).
local function distinct_labels(inputs, given)
  local by_label = {}
  for i, input in ipairs(inputs) do
    if not given[i] then
      by_label[input.label] = by_label[input.label] or {}
      table.insert(by_label[input.label], i)
    end
  end
  for _, group in pairs(by_label) do
    if #group > 1 then
      local parts = {}
      for k, i in ipairs(group) do parts[k] = components(inputs[i].path) end
      local function common(at)
        local v = at(parts[1])
        if v == nil then return false end
        for k = 2, #parts do if at(parts[k]) ~= v then return false end end
        return true
      end
      local head, tail = 0, 0
      while common(function(c) return c[head + 1] end) do head = head + 1 end
      while common(function(c) local n = #c - tail; return n > head and c[n] or nil end) do tail = tail + 1 end
      for k, i in ipairs(group) do
        local c = parts[k]
        local label = table.concat(c, "/", head + 1, #c - tail)
        if label ~= "" then inputs[i].label = label end
      end
    end
  end
end

function M.load_inputs(list)
  local inputs, given = {}, {}
  for i, x in ipairs(list) do
    local input, err = results.load(x.path, x.label)
    if not input then return nil, err end
    inputs[i], given[i] = input, x.label ~= nil
  end
  distinct_labels(inputs, given)
  local seen = {}
  for _, input in ipairs(inputs) do
    if seen[input.label] then
      return nil, string.format("two inputs are labelled '%s': give each a --label", input.label)
    end
    seen[input.label] = true
  end
  return inputs
end

function M.write_output(path, text)
  if not path then
    io.stdout:write(text)
    return true
  end
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "w")
  if not f then return nil, string.format("cannot write '%s': %s", path, err) end
  f:write(text)
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if not ok then return nil, string.format("cannot write '%s': %s", path, rerr) end
  return true
end

local function fail(msg)
  io.stderr:write("FATAL: compare: ", require("luabench.api_check").escape(msg), "\n")
  return 1
end

function M.main(args)
  local a, err = M.parse_args(args, { label = "value", format = "value", output = "value",
                                      charts = "value", help = "flag" })
  if not a then return fail(err .. " (see luabench compare --help)") end
  if a.help then io.stdout:write(M.USAGE); return 0 end
  if #a.inputs < 2 then return fail("give at least two inputs to compare (see luabench compare --help)") end
  local format = a.format or "text"
  local render = ({ text = M.text, json = M.json, csv = M.csv })[format]
  if not render then return fail(string.format("unknown format '%s' (text, json or csv)", format)) end
  local inputs
  inputs, err = M.load_inputs(a.inputs)
  if not inputs then return fail(err) end
  local model = M.model(inputs)
  local ok
  ok, err = M.write_output(a.output, render(model))
  if not ok then return fail(err) end
  if a.charts then
    local charts = require("luabench.charts")
    for _, c in ipairs(charts.build(inputs)) do
      local path = a.charts .. "-" .. c.id .. ".svg"
      ok, err = M.write_output(path, c.svg)
      if not ok then return fail(err) end
      io.stderr:write("compare: wrote ", path, "\n")
    end
  end
  return 0
end

return M
