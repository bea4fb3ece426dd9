-- `luabench report INPUT... -o report.html`: one self-contained HTML file (inline SVG charts
-- drawn by luabench itself, inline CSS, no script, nothing fetched) for a run, a sweep, a merged
-- run or a comparison of several of them: what ran and on what (command line, options, machine),
-- the summary table (with ratios and significance for a comparison), the charts, the per-type
-- tables of tpcc/bookstore/fileio, the workload's own figures and the system metrics.
local results = require("luabench.internal.results")
local compare = require("luabench.internal.compare")
local compare_model = require("luabench.internal.compare_model")
local charts = require("luabench.internal.charts")
local text = require("luabench.internal.compare_text")
local metrics = require("luabench.internal.metrics")
local svg = require("luabench.internal.svg")
local fingerprint = require("luabench.internal.fingerprint")

local M = {}

M.USAGE = [[
Usage: luabench report [options] INPUT... -o report.html
       luabench report STUDY-DIR -o report.html

Writes one self-contained HTML file (inline SVG charts, no network access, no JavaScript) that
can be mailed or attached to a ticket: the command line and options, the machine the runs ran on,
the summary table, the charts, the per-transaction-type tables and the system metrics.

One INPUT reports on it alone: a run's result file (--output=run.json), a merged result
(luabench merge --format=json) or a sweep directory (tools/sweep). Several INPUTs, or a study
directory (luabench study), are compared as by luabench compare: a summary of each workload's
headline figures first, a dot per run per label, what differs between the labels, then every
figure with the ratios to the first label and their verdicts.

Options:
  -o, --output=FILE  the HTML file to write (required)
  --label=NAME       name of the inputs that follow, up to the next --label (default: each
                     input's file name; a study's configuration labels)
  --title=TEXT       the report's title (default: what ran)
  -h, --help         this text
]]

local esc = svg.escape
local fmt = compare.fmt

local CSS = [[
body { font-family: sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; margin-top: 32px; }
h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td.k, th.k { text-align: left; }
tr.group td { background: #fafafa; font-weight: bold; text-align: left; }
td.sig { font-weight: bold; } td.better { color: #0a6b0a; font-weight: bold; }
td.worse { color: #b00000; font-weight: bold; }
td.noise { color: #888; } span.iv { color: #666; font-size: 11px; font-weight: normal; }
.dots { display: block; margin: 8px 0; border: 1px solid #eee; }
code, pre { font-size: 12px; background: #f6f6f6; } pre { padding: 8px; white-space: pre-wrap; word-break: break-all; }
.chart { display: block; margin: 12px 0; border: 1px solid #eee; }
.note { color: #666; font-size: 13px; }
]]

local function kv_table(rows)
  local out = { '<table class="facts">' }
  for _, r in ipairs(rows) do
    if r[2] ~= nil and r[2] ~= "" then
      out[#out + 1] = string.format('<tr><th class="k">%s</th><td class="k">%s</td></tr>', esc(r[1]), r.html and r[2] or esc(r[2]))
    end
  end
  out[#out + 1] = "</table>"
  return table.concat(out, "\n")
end

local machine_text = fingerprint.machine

local function server_text(d)
  local o = d.options or {}
  local drv = results.driver(d)
  if not drv then return nil end
  local function first(v) return type(v) == "table" and table.concat(v, ",") or v end
  local parts = { d.server_version or drv }
  if o[drv .. "-host"] then parts[#parts + 1] = "host " .. tostring(first(o[drv .. "-host"])) end
  if o[drv .. "-port"] then parts[#parts + 1] = "port " .. tostring(first(o[drv .. "-port"])) end
  if o[drv .. "-db"] then parts[#parts + 1] = "database " .. tostring(o[drv .. "-db"]) end
  local names = first(o["db-server-name"])
  if names and names ~= "" then parts[#parts + 1] = "server processes " .. names end
  return table.concat(parts, ", ")
end

local function options_html(d)
  local o = d.options or {}
  local rows = {}
  for _, k in ipairs(metrics.sorted_keys(o)) do
    local v = o[k]
    if k:lower():find("password", 1, true) then v = "***" end
    if type(v) == "table" then
      local parts = {}
      for i, x in ipairs(v) do parts[i] = tostring(x) end
      v = "[" .. table.concat(parts, ",") .. "]"
    end
    rows[#rows + 1] = { "--" .. k, tostring(v) }
  end
  return "<details><summary>All options (" .. #rows .. ")</summary>\n" .. kv_table(rows) .. "\n</details>"
end

local function input_section(input)
  local d = input.doc
  local out = { string.format('<h3>%s</h3>', esc(input.label)) }
  local conc = results.concurrency_text(input)
  out[#out + 1] = kv_table {
    { "input", input.path .. " (" .. input.kind .. ")" },
    { "workload", results.what(d, results.swept(input)) },
    { "concurrency", conc },
    { "host", d.hostname },
    { "machine", machine_text(d.machine) },
    { "cpu", fingerprint.cpu(d.machine) },
    { "storage", fingerprint.storage(d.machine) },
    { "database server", server_text(d) },
    { "engine settings", fingerprint.driver_settings(d) },
    { "placement", fingerprint.placement(d) },
    { "busy host", fingerprint.busy(d) },
    { "started", results.date(d) },
    { "measured", d.time_s and string.format("%.1f s per run%s", d.time_s,
        (d.warmup_s or 0) > 0 and string.format(" after %.0f s warm-up", d.warmup_s) or "") },
    { "status", d.status .. (d.error and (": " .. d.error) or "") },
    { "luabench", d.luabench and d.luabench.version },
    { "command line", d.command_line and ("<code>" .. esc(d.command_line) .. "</code>"), html = true },
  }
  if input.kind == "merged" and d.merged_from then
    local rows = { '<table><tr><th class="k">instance</th><th class="k">file</th><th class="k">host</th><th class="k">machine</th><th>threads</th><th>events</th><th>time (s)</th></tr>' }
    for _, x in ipairs(d.merged_from) do
      rows[#rows + 1] = string.format('<tr><td class="k">%s</td><td class="k">%s</td><td class="k">%s</td><td class="k">%s</td><td>%s</td><td>%s</td><td>%s</td></tr>',
        esc(fmt(x.instance)), esc(x.file or ""), esc(x.hostname or ""), esc(machine_text(x.machine) or ""),
        esc(fmt(x.threads)), esc(fmt(x.events)), esc(fmt(x.time_s)))
    end
    rows[#rows + 1] = "</table>"
    out[#out + 1] = "<p>Merged from these instances:</p>\n" .. table.concat(rows, "\n")
  end
  if input.kind == "sweep" then
    local files = {}
    for _, p in ipairs(input.points) do files[#files + 1] = string.format("%s: %s", p.point or string.format("%d", p.conc), p.file) end
    out[#out + 1] = "<p class=\"note\">Points: " .. esc(table.concat(files, "; ")) .. "</p>"
  end
  out[#out + 1] = options_html(d)
  return table.concat(out, "\n")
end

local function ratio_cell(row, i)
  local r, sig = row.ratios[i], row.significant[i]
  if r == nil then return "<td>-</td>" end
  local cls, mark = "noise", "~"
  if sig == nil then cls, mark = "", "?" end
  if sig == true then
    mark = "*"
    -- only a figure with a direction is better or worse; a neutral one is just significant
    if row.better == "higher" or row.better == "lower" then
      local better = row.better == "higher" and r > 1 or row.better == "lower" and r < 1
      cls = better and "better" or "worse"
    else
      cls = "sig"
    end
  end
  local extra = ""
  if row.rules and row.rules[i] == "between" then
    local iv = row.ratio_intervals[i]
    extra = string.format(' <span class="iv">%s%s</span>',
      iv and ("[" .. text.ratio_num(iv[1]) .. " " .. text.ratio_num(iv[2]) .. "] ") or "",
      row.p[i] and string.format("p=%.3f", row.p[i]) or "")
  end
  return string.format('<td class="%s">%.3f %s%s</td>', cls, r, mark, extra)
end

local function value_cell(r, i)
  return "<td>" .. esc(text.value_cell(r, i)) .. "</td>"
end

-- The headline figures of every workload, a row each: the labels' values and the verdicts.
local function summary_table(model)
  local out = { '<table class="summary headline"><tr><th class="k">workload</th><th class="k">figure</th>' }
  for i, input in ipairs(model.inputs) do
    out[#out] = out[#out] .. "<th>" .. esc(input.label) .. "</th>"
    if i > 1 then out[#out] = out[#out] .. "<th>" .. esc(input.label .. " / " .. model.inputs[1].label) .. "</th>" end
  end
  out[#out] = out[#out] .. "</tr>"
  for _, r in ipairs(model.summary) do
    local cells = { '<tr><td class="k">' .. esc(r.workload) .. '</td><td class="k">' .. esc(r.name) .. "</td>" }
    for i = 1, #model.inputs do
      cells[#cells + 1] = value_cell(r, i)
      if i > 1 then cells[#cells + 1] = ratio_cell(r, i) end
    end
    out[#out + 1] = table.concat(cells) .. "</tr>"
  end
  out[#out + 1] = "</table>"
  return table.concat(out, "\n")
end

-- A dot per run per label for each headline figure: every repeat visible.
local function dots_html(model)
  local out = {}
  for si, s in ipairs(model.sections) do
    for _, r in ipairs(s.rows) do
      if r.headline and r.samples then
        local rows, many = {}, false
        for i, input in ipairs(model.inputs) do
          local iv = r.intervals[i]
          rows[i] = { name = input.label, values = r.samples[i] or {}, median = r.values[i],
                      lo = iv and iv[1], hi = iv and iv[2] }
          many = many or #rows[i].values > 1
        end
        if many then
          local heading = text.section_heading(model, s)
          out[#out + 1] = svg.dot_plot {
            id = string.format("dots-%d-%s", si, r.name:gsub("[^%w]", "_")),
            title = string.format("%s%s", r.name, heading and (": " .. heading) or (s.workload and (": " .. s.workload) or "")),
            subtitle = "a dot per run; bar: the median, line: its interval",
            xlabel = r.name .. ((r.unit ~= "" and r.name:sub(-#r.unit) ~= r.unit) and (" (" .. r.unit .. ")") or ""),
            rows = rows,
          }
        end
      end
    end
  end
  return table.concat(out, "\n")
end

-- Everything that differs between the labels but the server settings (which have their own
-- table): options, machine, placement, busy host, drivers' settings.
local function differs_html(model)
  local rows = {}
  for _, r in ipairs(model.differs or {}) do
    if r.group ~= "server settings" then rows[#rows + 1] = r end
  end
  if #rows == 0 then
    return '<p class="note">Nothing differs in the options, machine or placement recorded in the results.</p>'
  end
  local out = { '<table class="differs"><tr><th class="k">what</th><th class="k">key</th>' }
  for _, input in ipairs(model.inputs) do out[#out] = out[#out] .. '<th class="k">' .. esc(input.label) .. "</th>" end
  out[#out] = out[#out] .. "</tr>"
  for _, r in ipairs(rows) do
    local cells = { '<tr><td class="k">' .. esc(r.group .. (r.workload and (" (" .. r.workload .. ")") or ""))
      .. '</td><td class="k">' .. esc(r.name) .. "</td>" }
    for i = 1, #model.inputs do cells[#cells + 1] = '<td class="k">' .. esc(r.values[i] or "-") .. "</td>" end
    out[#out + 1] = table.concat(cells) .. "</tr>"
  end
  out[#out + 1] = "</table>"
  return table.concat(out, "\n")
end

-- Which part of the event time changed: per type and per statement.
local function breakdown_html(model)
  local out = {}
  for _, b in ipairs(model.breakdowns) do
    local where = text.section_heading(model, { workload = b.workload, conc = b.conc, point = b.point, unit = b.unit })
    out[#out + 1] = string.format("<h3>By %s%s (ms per event, mean of the runs)</h3>", esc(b.by), where and (": " .. esc(where)) or "")
    local head = { '<table class="breakdown"><tr><th class="k">part</th>' }
    for i, input in ipairs(model.inputs) do
      head[#head + 1] = "<th>" .. esc(input.label) .. "</th>"
      if i > 1 then
        head[#head + 1] = "<th>" .. esc(input.label .. " - " .. model.inputs[1].label) .. "</th><th>share of the change</th>"
      end
    end
    out[#out + 1] = table.concat(head) .. "</tr>"
    local all = {}
    for _, r in ipairs(b.rows) do all[#all + 1] = r end
    all[#all + 1] = b.total
    for _, r in ipairs(all) do
      local cells = { '<tr><td class="k">' .. esc(r.name) .. "</td>" }
      for i = 1, #model.inputs do
        cells[#cells + 1] = string.format("<td>%.4g</td>", r.values[i])
        if i > 1 then
          cells[#cells + 1] = string.format("<td>%+.4g</td>", r.deltas[i])
          cells[#cells + 1] = "<td>" .. (r == b.total and "100%" or r.shares[i] and string.format("%.0f%%", r.shares[i]) or "-") .. "</td>"
        end
      end
      out[#out + 1] = table.concat(cells) .. "</tr>"
    end
    out[#out + 1] = "</table>"
  end
  return table.concat(out, "\n")
end

-- A comparison: metric rows, a value column per input and a ratio column per later input.
local function comparison_tables(model)
  local out = {}
  for _, s in ipairs(model.sections) do
    local heading = compare.section_heading(model, s)
    if heading then out[#out + 1] = "<h3>" .. esc(heading) .. "</h3>" end
    local few = compare_model.few_runs_note(model, s)
    if few then out[#out + 1] = '<p class="note">' .. esc(few) .. ".</p>" end
    if #(s.missing or {}) > 0 then
      out[#out + 1] = '<p class="note">Not in ' .. esc(table.concat(s.missing, ", ")) .. " (no such point).</p>"
    end
    local head = { '<table class="summary"><tr><th class="k">metric</th>' }
    for i, input in ipairs(model.inputs) do
      head[#head + 1] = "<th>" .. esc(input.label) .. "</th>"
      if i > 1 then head[#head + 1] = "<th>" .. esc(input.label .. " / " .. model.inputs[1].label) .. "</th>" end
    end
    out[#out + 1] = table.concat(head) .. "</tr>"
    local group
    local ncols = 2 * #model.inputs
    for _, r in ipairs(s.rows) do
      if r.group ~= group then
        group = r.group
        out[#out + 1] = string.format('<tr class="group"><td colspan="%d">%s</td></tr>', ncols, esc(group))
      end
      local cells = { '<tr><td class="k">' .. esc(r.name) .. "</td>" }
      for i = 1, #model.inputs do
        cells[#cells + 1] = value_cell(r, i)
        if i > 1 then cells[#cells + 1] = ratio_cell(r, i) end
      end
      out[#out + 1] = table.concat(cells) .. "</tr>"
    end
    out[#out + 1] = "</table>"
  end
  return table.concat(out, "\n")
end

-- One input: a column per point (a single run has one).
local function single_table(model, input)
  local out = { '<table class="summary"><tr><th class="k">metric</th>' }
  local concs = {}
  for _, s in ipairs(model.sections) do concs[#concs + 1] = s end
  for _, s in ipairs(concs) do
    out[#out] = out[#out] .. "<th>" .. esc(compare.section_heading(model, s) or input.label) .. "</th>"
  end
  out[#out] = out[#out] .. "</tr>"
  -- Rows by metric name, in the order of the section that has the most.
  local order, seen, group_of = {}, {}, {}
  for _, s in ipairs(concs) do
    for _, r in ipairs(s.rows) do
      if not seen[r.name] then seen[r.name] = true; order[#order + 1] = r.name; group_of[r.name] = r.group end
    end
  end
  local group
  for _, name in ipairs(order) do
    if group_of[name] ~= group then
      group = group_of[name]
      out[#out + 1] = string.format('<tr class="group"><td colspan="%d">%s</td></tr>', #concs + 1, esc(group))
    end
    local cells = { '<tr><td class="k">' .. esc(name) .. "</td>" }
    for _, s in ipairs(concs) do
      local v
      for _, r in ipairs(s.rows) do if r.name == name then v = r.values[1] end end
      cells[#cells + 1] = "<td>" .. esc(fmt(v)) .. "</td>"
    end
    out[#out + 1] = table.concat(cells) .. "</tr>"
  end
  out[#out + 1] = "</table>"
  return table.concat(out, "\n")
end

local function types_table(d)
  local names = metrics.sorted_keys(d.types)
  if #names == 0 then return nil end
  local pk = {}
  for _, n in ipairs(names) do
    for _, k in ipairs(metrics.sorted_keys(d.types[n].latency_ms.percentiles)) do pk[k] = true end
  end
  local pcts = metrics.sorted_keys(pk)
  table.sort(pcts, function(a, b) return tonumber(a) < tonumber(b) end)
  local head = '<table class="types"><tr><th class="k">type</th><th>count</th><th>mix %</th><th>per s</th><th>errors</th><th>rollbacks</th><th>retries</th><th>avg ms</th>'
  for _, p in ipairs(pcts) do head = head .. "<th>p" .. esc(p) .. " ms</th>" end
  local out = { head .. "<th>max ms</th></tr>" }
  for _, n in ipairs(names) do
    local t = d.types[n]
    local cells = { '<tr><td class="k">' .. esc(n) .. "</td>" }
    for _, v in ipairs({ t.count, t.mix_pct, t.per_s, t.errors, t.rollbacks, t.retries, t.latency_ms.avg }) do
      cells[#cells + 1] = "<td>" .. esc(fmt(v)) .. "</td>"
    end
    for _, p in ipairs(pcts) do cells[#cells + 1] = "<td>" .. esc(fmt(t.latency_ms.percentiles[p])) .. "</td>" end
    cells[#cells + 1] = "<td>" .. esc(fmt(t.latency_ms.max)) .. "</td></tr>"
    out[#out + 1] = table.concat(cells)
  end
  out[#out + 1] = "</table>"
  return table.concat(out, "\n")
end

-- Scalars of a nested table as "a.b = v" rows.
local function flatten(t, prefix, rows)
  for _, k in ipairs(metrics.sorted_keys(t)) do
    local v = t[k]
    local name = prefix and (prefix .. "." .. tostring(k)) or tostring(k)
    if type(v) == "table" then
      flatten(v, name, rows)
    elseif type(v) == "number" then
      rows[#rows + 1] = { name, fmt(v) }
    else
      rows[#rows + 1] = { name, tostring(v) }
    end
  end
  return rows
end

local function system_html(sys)
  if not sys then return '<p class="note">No system metrics (--system-stats=off).</p>' end
  local plain = {}
  for k, v in pairs(sys) do if k ~= "disks" then plain[k] = v end end
  local out = { kv_table(flatten(plain, nil, {})) }
  local disks = metrics.sorted_keys(sys.disks)
  if #disks > 0 then
    local cols = { "reads_per_s", "writes_per_s", "iops", "read_mib_per_s", "write_mib_per_s", "read_await_ms",
                   "write_await_ms", "avg_queue", "util_pct" }
    local head = '<table class="disks"><tr><th class="k">device</th>'
    for _, c in ipairs(cols) do head = head .. "<th>" .. esc(c) .. "</th>" end
    out[#out + 1] = head .. "</tr>"
    for _, name in ipairs(disks) do
      local dsk = sys.disks[name]
      local cells = { '<tr><td class="k">' .. esc(name) .. (dsk.physical and "" or " (virtual)") .. "</td>" }
      for _, c in ipairs(cols) do cells[#cells + 1] = "<td>" .. esc(fmt(dsk[c])) .. "</td>" end
      out[#out + 1] = table.concat(cells) .. "</tr>"
    end
    out[#out + 1] = "</table>"
  end
  return table.concat(out, "\n")
end

-- Per input and per point: the per-type table, workload figures and system metrics.
local function details(inputs, title, body_of)
  local out = {}
  for _, input in ipairs(inputs) do
    for _, p in ipairs(input.points) do
      local body = body_of(p.doc)
      if body then
        local name = input.label
        if input.kind == "sweep" then
          name = p.point and string.format("%s, %s", name, p.point)
            or string.format("%s, %d %s", name, p.conc, select(2, results.concurrency(p.doc)))
        end
        out[#out + 1] = "<h3>" .. esc(title .. ": " .. name) .. "</h3>\n" .. body
      end
    end
  end
  return table.concat(out, "\n")
end

-- The database server (--server-stats): the settings that differ between the inputs, then per
-- input its key figures, counters, sampled levels and settings.
local function server_html(inputs, model)
  local any = false
  for _, input in ipairs(inputs) do
    for _, p in ipairs(input.points) do any = any or p.doc.server ~= nil end
  end
  if not any then return "" end
  local out = { "<h2>Server statistics</h2>" }
  if #inputs > 1 and model.settings then
    if #model.settings == 0 then
      out[#out + 1] = '<p class="note">The server settings are the same in every input.</p>'
    else
      local head = { '<h3>Server settings that differ</h3><table class="summary"><tr><th class="k">setting</th>' }
      for _, input in ipairs(inputs) do head[#head + 1] = "<th>" .. esc(input.label) .. "</th>" end
      out[#out + 1] = table.concat(head) .. "</tr>"
      for _, s in ipairs(model.settings) do
        local cells = { '<tr><td class="k">' .. esc(s.name) .. "</td>" }
        for i = 1, #inputs do cells[#cells + 1] = "<td>" .. esc(s.values[i] or "-") .. "</td>" end
        out[#out + 1] = table.concat(cells) .. "</tr>"
      end
      out[#out + 1] = "</table>"
    end
  end
  local function block(d)
    local s = d.server
    if not s then return nil end
    local parts = {}
    if s.missing then parts[#parts + 1] = '<p class="note">Not readable: ' .. esc(s.missing) .. "</p>" end
    parts[#parts + 1] = "<h4>Key figures</h4>" .. kv_table(flatten(s.key or {}, nil, {}))
    parts[#parts + 1] = "<h4>Counters (increase over the run)</h4>" .. kv_table(flatten(s.counters or {}, nil, {}))
    parts[#parts + 1] = "<h4>Sampled levels (mean)</h4>" .. kv_table(flatten(s.gauges or {}, nil, {}))
    parts[#parts + 1] = "<h4>Settings</h4>" .. kv_table(flatten(s.settings or {}, nil, {}))
    return table.concat(parts, "\n")
  end
  out[#out + 1] = details(inputs, "Server", block)
  return table.concat(out, "\n")
end

-- A label's runs: the first one's facts, then a row per run.
local function label_section(label, list)
  if #list == 1 then return input_section(list[1]) end
  local first = list[1]
  local out = { input_section(setmetatable({ label = label .. string.format(" (%d runs)", #list) }, { __index = first })) }
  out[#out + 1] = '<details><summary>The runs (' .. #list .. ')</summary><table class="runs"><tr><th class="k">file</th>'
    .. '<th class="k">workload</th><th>point</th><th>repeat</th><th class="k">host</th><th class="k">started</th><th>throughput</th></tr>'
  for _, input in ipairs(list) do
    for _, p in ipairs(input.points) do
      local d = p.doc
      out[#out + 1] = string.format('<tr><td class="k">%s</td><td class="k">%s</td><td>%s</td><td>%s</td><td class="k">%s</td><td class="k">%s</td><td>%s</td></tr>',
        esc(p.file or input.path), esc(input.workload or results.workload_name(d)), esc(p.point or fmt(p.conc)),
        esc(input.rep and fmt(input.rep) or "-"), esc(d.hostname or ""), esc(results.date(d)), esc(fmt(d.rates.events_per_s)))
    end
  end
  out[#out + 1] = "</table></details>"
  return table.concat(out, "\n")
end

function M.render(inputs, title)
  local model = compare.model(inputs)
  local labels = compare.labels(inputs)
  local groups = compare.chart_groups(inputs)
  -- per label and workload the run of median throughput stands for the others in the charts
  -- and the per-run details (the tables above have every run)
  local reps = {}
  for _, g in ipairs(groups) do for _, x in ipairs(g.inputs) do reps[#reps + 1] = x end end
  local what = results.what(inputs[1].doc, results.swept(inputs[1]))
  local study = inputs[1].study
  for _, x in ipairs(inputs) do if x.study ~= study then study = nil end end
  local compared = #labels > 1 or model.multi
  if not title then
    if #labels > 1 then
      title = (study and ("Study " .. results.basename(study) .. ": ") or "Comparison: ") .. table.concat(labels, " vs ")
    elseif model.multi then
      title = (study and ("Study " .. results.basename(study) .. ": ") or "luabench runs: ") .. labels[1]
    else
      title = "luabench " .. inputs[1].kind .. ": " .. what
    end
  end
  local out = {
    "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
    "<title>" .. esc(title) .. "</title>", "<style>" .. CSS .. "</style>", "</head>", "<body>",
    "<h1>" .. esc(title) .. "</h1>",
  }
  local function add(x) out[#out + 1] = x end
  add('<p class="note">Written by luabench report from ' .. (#inputs == 1 and "1 input" or (#inputs .. " inputs")) .. ". "
    .. (compared and esc((#labels > 1 and ("Ratios are to " .. labels[1] .. "; ") or "") .. "verdicts " .. model.rule .. ".") or "") .. "</p>")
  if model.note then add('<p class="note"><b>Note:</b> ' .. esc(model.note) .. ".</p>") end
  for _, n in ipairs(model.notes) do add('<p class="note"><b>Note:</b> ' .. esc(n) .. ".</p>") end
  if compared then
    add("<h2>Summary</h2>")
    add(summary_table(model))
    if model.multi then
      add("<h2>Every run</h2>")
      add(dots_html(model))
    end
    if #labels > 1 then
      add("<h2>What differs</h2>")
      add(differs_html(model))
    end
    if #model.breakdowns > 0 then
      add("<h2>Where the event time went</h2>")
      add(breakdown_html(model))
    end
  end
  add("<h2>What ran</h2>")
  for _, l in ipairs(labels) do
    local list = {}
    for _, x in ipairs(inputs) do if x.label == l then list[#list + 1] = x end end
    add(label_section(l, list))
  end
  if compared then
    add("<h2>Every figure</h2>")
    add(comparison_tables(model))
  else
    add("<h2>Summary</h2>")
    add(single_table(model, inputs[1]))
  end
  add("<h2>Charts</h2>")
  local any = false
  for _, g in ipairs(groups) do
    local list = charts.build(g.inputs)
    if #list > 0 and g.name then add("<h3>" .. esc(g.name) .. "</h3>") end
    if #list > 0 and #g.inputs < #reps and #groups == 1 then
      add('<p class="note">Each line is the run of median throughput of its label.</p>')
    end
    for _, c in ipairs(list) do add(c.svg); any = true end
  end
  if not any then
    add('<p class="note">No charts: the results have no time series (run with --report-interval=N).</p>')
  end
  local types = details(reps, "Per transaction type", types_table)
  if types ~= "" then add("<h2>Per transaction type</h2>"); add(types) end
  local ws = details(reps, "Workload figures", function(d)
    return d.workload_stats and kv_table(flatten(d.workload_stats, nil, {})) or nil
  end)
  if ws ~= "" then add("<h2>Workload figures</h2>"); add(ws) end
  add("<h2>System metrics</h2>")
  add(details(reps, "System", function(d) return system_html(d.system) end))
  add(server_html(reps, model))
  add("</body>")
  add("</html>")
  return table.concat(out, "\n") .. "\n"
end

local function fail(msg) return require("luabench.internal.cli").fail("report", msg) end

-- `luabench report`, given its parsed command line (luabench.internal.cli): { inputs, output,
-- title }.
function M.run(a)
  local inputs, err = compare.load_inputs(a.inputs)
  if not inputs then return fail(err) end
  local ok, page = pcall(M.render, inputs, a.title)
  if not ok then return fail(tostring(page)) end
  ok, err = compare.write_output(a.output, page)
  if not ok then return fail(err) end
  io.stderr:write("report: wrote ", a.output, "\n")
  return 0
end

return M
