-- `luabench compare`: results side by side, paired by workload, the ratio of each label to the
-- first and a verdict on each difference.
--   luabench compare [--label=NAME INPUT... ...] [--format=text|json|csv] [--output=FILE]
--                    [--charts=PREFIX] INPUT...
-- An input is a result JSON (--output of a run), a merged result (luabench merge), a sweep
-- directory (tools/sweep), a study directory (luabench study), a directory of results, or a
-- pattern of result files. A --label names every input after it up to the next --label: several
-- runs of one configuration, judged by the spread between them. The model (compare_model.lua)
-- is also what `luabench report` shows.
local results = require("luabench.internal.results")
local metrics = require("luabench.internal.metrics")

local M = {}

M.USAGE = [[
Usage: luabench compare [options] INPUT...
       luabench compare [options] --label=A INPUT... --label=B INPUT...
       luabench compare [options] STUDY-DIR

Compares results side by side, one section per workload: throughput, every latency percentile,
errors, system metrics, the server's figures and per-type figures (tpcc, bookstore, fileio), with
the ratio of each label to the first and a verdict on each difference; first a summary of the
headline figures, then what differs between the labels (options, machine, placement, settings),
and for typed workloads which part of the event time changed.

An INPUT is a result file (luabench ... --output=run.json run), a merged result (luabench merge
--format=json), a sweep directory written by tools/sweep (compared point by point), a study
directory written by luabench study (its configurations are the labels), a directory of result
files, or a pattern such as 'runs/a-*.json'. Inputs of different workloads are paired by
workload, never compared with each other.

Several runs per label (--label=A a1.json a2.json a3.json --label=B b*.json): each figure is the
median of the label's runs with its 95 % interval, the ratio is of the medians, and the verdict
comes from the spread between the runs (Mann-Whitney U test, * at p <= 0.05, ~ otherwise; with
too few runs it says how many it takes). One run per label: the verdict comes from the runs'
own interval-to-interval noise, as the output says.

Options:
  --label=NAME       name of the inputs that follow, up to the next --label (default: each
                     input's file name; a study's configuration labels)
  --format=FORMAT    text (default), json or csv
  --output=FILE      write there instead of standard output
  --charts=PREFIX    also write overlaid SVG charts: PREFIX-throughput.svg, PREFIX-latency-*.svg, ...
  -h, --help         this text

One run per label: ]] .. metrics.RULE .. [[.

See doc/compare.md for worked examples.
]]

local model = require("luabench.internal.compare_model")
local render = require("luabench.internal.compare_text")

-- The model and its renderings (compare_model.lua, compare_text.lua), under the names the
-- report and the specs use.
function M.model(inputs, opts)
  local m, err = model.build(inputs, opts)
  if not m then error(err, 0) end
  return m
end
M.build = model.build
M.chart_groups = model.chart_groups
M.fmt = render.fmt
M.section_heading = render.section_heading
M.settings_text = render.settings_text
M.text = render.text
M.json = render.json
M.csv = render.csv
M.json_string = render.json_string

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

-- Studies whose configurations share a label: when they ran different workloads they are one
-- configuration's studies (machine-a and app-a, both labelled a) and make one label; when they
-- ran a workload in common they are two configurations that happen to share a name (one plan run
-- on two hosts of one name, or twice on one host) and are told apart by their directories, as
-- distinct_labels tells files apart: machine-a and machine-b (machine-a:on when a study has
-- several configurations).
local function distinct_studies(inputs)
  local by_label = {}
  for _, input in ipairs(inputs) do
    if input.study_path then
      local l = by_label[input.label] or { paths = {}, list = {}, workloads = {} }
      by_label[input.label] = l
      if not l.paths[input.study_path] then
        l.paths[input.study_path] = true
        l.list[#l.list + 1] = { path = input.study_path, label = input.label }
      end
      l.workloads[input.workload] = l.workloads[input.workload] or {}
      l.workloads[input.workload][input.study_path] = true
    end
  end
  local rename, merged = {}, {}
  for label, l in pairs(by_label) do
    if #l.list > 1 then
      local shared = false
      for _, paths in pairs(l.workloads) do
        if next(paths, next(paths)) then shared = true end
      end
      if shared then
        distinct_labels(l.list, {})
        for _, x in ipairs(l.list) do rename[x.path .. "\0" .. label] = x.label end
      else
        merged[label] = true
      end
    end
  end
  for _, input in ipairs(inputs) do
    if input.study_path then
      local new = rename[input.study_path .. "\0" .. input.label]
      if new then
        input.label = input.several and (new .. ":" .. input.label) or new
      elseif merged[input.label] then
        input.origin = "studies:" .. input.label
      end
    end
  end
end

-- One listed input as loaded inputs: a study directory gives its runs (labelled by
-- configuration), a directory of results its result files, a pattern the files it matches, a
-- file or sweep directory itself. `origin` tells two labels that happen to share a name apart.
local function expand_input(x, index)
  local paths, err = results.expand(x.path)
  if not paths then return nil, err end
  local out = {}
  for _, path in ipairs(paths) do
    if results.is_dir(path) and results.is_study(path) then
      local runs, serr = results.load_study(path)
      if not runs then return nil, serr end
      local configs = {}
      for _, r in ipairs(runs) do configs[r.configuration] = true end
      local several = next(configs) and next(configs, next(configs))
      for _, r in ipairs(runs) do
        if x.label then
          r.label = several and (x.label .. ":" .. r.configuration) or x.label
          r.origin = "given:" .. x.group .. ":" .. (several and r.configuration or "")
        else
          r.label = r.configuration
          r.origin = "study:" .. index .. ":" .. path .. ":" .. r.configuration
          r.study_path, r.several = path, several
        end
        r.given = true
        out[#out + 1] = r
      end
    elseif results.is_dir(path) and not results.is_sweep(path) then
      local files = {}
      for _, name in ipairs(results.list_dir(path)) do
        if name:match("%.json$") then files[#files + 1] = path:gsub("/+$", "") .. "/" .. name end
      end
      if #files == 0 then
        return nil, string.format("'%s' is a directory without results (no sweep.csv, manifest.json or *.json)", path)
      end
      for _, f in ipairs(files) do
        local input, lerr = results.load(f, x.label or results.basename(path))
        if not input then return nil, lerr end
        input.origin = x.label and ("given:" .. x.group) or ("dir:" .. index .. ":" .. path)
        input.given = true
        out[#out + 1] = input
      end
    else
      local input, lerr = results.load(path, x.label)
      if not input then return nil, lerr end
      input.given = x.label ~= nil or #paths > 1
      input.origin = x.label and ("given:" .. x.group) or ("input:" .. index .. ":" .. path)
      if #paths > 1 and not x.label then
        -- a pattern the shell did not expand: its files are runs of one label
        input.label, input.origin = x.path, "glob:" .. x.path
      end
      out[#out + 1] = input
    end
  end
  return out
end

-- Loads the listed inputs ({ path, label, group }). Returns them, each with its label (inputs
-- sharing a label are runs of one configuration), or nil and a message.
function M.load_inputs(list)
  local inputs, given = {}, {}
  for index, x in ipairs(list) do
    local loaded, err = expand_input(x, index)
    if not loaded then return nil, err end
    for _, input in ipairs(loaded) do
      inputs[#inputs + 1] = input
      given[#inputs] = input.given
    end
  end
  distinct_labels(inputs, given)
  distinct_studies(inputs)
  local origin = {}
  for _, input in ipairs(inputs) do
    local o = origin[input.label]
    if o and o ~= input.origin then
      return nil, string.format("two inputs are labelled '%s': give each a --label", input.label)
    end
    origin[input.label] = input.origin
  end
  return inputs
end

-- The labels of loaded inputs, in order.
function M.labels(inputs)
  local out, seen = {}, {}
  for _, input in ipairs(inputs) do
    if not seen[input.label] then seen[input.label] = true; out[#out + 1] = input.label end
  end
  return out
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

local function fail(msg) return require("luabench.internal.cli").fail("compare", msg) end

-- `luabench compare`, given its parsed command line (luabench.internal.cli): { inputs, format,
-- output, charts }.
function M.run(a)
  local renderer = ({ text = M.text, json = M.json, csv = M.csv })[a.format]
  local inputs, err = M.load_inputs(a.inputs)
  if not inputs then return fail(err) end
  if #M.labels(inputs) < 2 then
    return fail("give at least two inputs to compare: two labels, or a study directory with two "
      .. "configurations (see luabench compare --help)")
  end
  local m
  m, err = M.build(inputs)
  if not m then return fail(err) end
  local ok
  ok, err = M.write_output(a.output, renderer(m))
  if not ok then return fail(err) end
  if a.charts then
    local charts = require("luabench.internal.charts")
    for _, group in ipairs(M.chart_groups(inputs)) do
      for _, c in ipairs(charts.build(group.inputs)) do
        local path = a.charts .. (group.name and ("-" .. group.name) or "") .. "-" .. c.id .. ".svg"
        ok, err = M.write_output(path, c.svg)
        if not ok then return fail(err) end
        io.stderr:write("compare: wrote ", path, "\n")
      end
    end
  end
  return 0
end

return M
