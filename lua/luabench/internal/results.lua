-- Reading result files for `luabench compare` and `luabench report`: a run's JSON (--output),
-- a merged result (`luabench merge --format=json`) or a sweep directory (tools/sweep: sweep.csv
-- and one JSON per point). Every input becomes the same shape:
--   { label, path, kind = "run" | "merged" | "sweep",
--     points = { { conc = N, doc = <result>, file = path }, ... }  (by concurrency; one for a run)
--     doc = the first point's result (what ran, on what) }
-- Concurrency is --threads, or --users for runs of emulated users.
local M = {}

local function strip_nulls(v, null)
  if v == null then return nil end
  if type(v) ~= "table" then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = strip_nulls(x, null) end
  return out
end

local function read_file(path)
  local f, err = io.open(path, "r")
  if not f then return nil, err end
  local s = f:read("*a")
  f:close()
  return s
end

local function basename(path)
  return (path:gsub("/+$", ""):match("([^/]+)$")) or path
end
M.basename = basename

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

-- Sizes as sysbench reads them ("8K", "1G", 4096: powers of 1024): bytes, or nil.
function M.parse_size(v)
  if type(v) == "number" then return v end
  if type(v) ~= "string" then return nil end
  local n, suffix = v:match("^%s*([%d.]+)%s*([KkMmGgTtPp]?)[Bb]?%s*$")
  n = tonumber(n)
  if not n then return nil end
  local scale = ({ [""] = 1, K = 2 ^ 10, M = 2 ^ 20, G = 2 ^ 30, T = 2 ^ 40, P = 2 ^ 50 })[suffix:upper()]
  return n * scale
end

-- 4096 -> "4 KiB", 536870912 -> "512 MiB", 1610612736 -> "1.5 GiB", 512 -> "512 B".
function M.human_bytes(n)
  local units = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" }
  local u = 1
  while n >= 1024 and u < #units do n, u = n / 1024, u + 1 end
  if n == math.floor(n) then return string.format("%d %s", n, units[u]) end
  return (string.format("%.2f", n):gsub("0+$", ""):gsub("%.$", "")) .. " " .. units[u]
end

-- An option's value as people read it: sizes (options named *size*) in KiB/MiB/GiB.
function M.option_text(name, v)
  if v == nil then return nil end
  if type(v) == "table" then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = tostring(x) end
    return table.concat(parts, ",")
  end
  if name:find("size", 1, true) then
    local bytes = M.parse_size(v)
    if bytes then return M.human_bytes(bytes) end
  end
  return tostring(v)
end

function M.read_json(path)
  local text, err = read_file(path)
  if not text then return nil, string.format("cannot read '%s': %s", path, err) end
  local ok, doc = pcall(luabench.json.decode, text)
  if not ok or type(doc) ~= "table" then
    return nil, string.format("'%s' is not JSON", path)
  end
  doc = strip_nulls(doc, luabench.json.null)
  if type(doc.luabench) ~= "table" or type(doc.rates) ~= "table" then
    return nil, string.format("'%s' is not a luabench result (no rates; was the run's status %s?)",
      path, tostring(doc.status))
  end
  return doc
end

-- Concurrency of a run: emulated users when it had them, else threads.
function M.concurrency(doc)
  if doc.users and (doc.users.users or 0) > 0 then return doc.users.users, "users" end
  return doc.threads or 0, "threads"
end

-- Built-in options are named with '-', scripts' own usually with '_' (table_size).
local function opt(doc, name)
  local o = doc.options
  if not o then return nil end
  if o[name] ~= nil then return o[name] end
  return o[(name:gsub("%-", "_"))]
end
M.opt = opt

local function split_csv_line(line)
  local out = {}
  for cell in (line .. ","):gmatch("([^,]*),") do out[#out + 1] = cell end
  return out
end

-- Point order: by the grid's other axes (numbers and sizes by value: 4 KiB before 16 KiB),
-- then by the first axis.
local function value_before(x, y)
  local nx, ny = M.parse_size((x or ""):gsub(" ?i?B$", "")), M.parse_size((y or ""):gsub(" ?i?B$", ""))
  if nx and ny and nx ~= ny then return nx < ny end
  return (x or "") < (y or "")
end

function M.point_before(a, b)
  local va, vb = a.values or {}, b.values or {}
  for k = 2, math.max(#va, #vb) do
    if va[k] ~= vb[k] then return value_before(va[k], vb[k]) end
  end
  if (a.group or "") ~= (b.group or "") then return (a.group or "") < (b.group or "") end
  return a.conc < b.conc
end

-- A sweep directory (or its sweep.csv): the points it lists in the `result` column.
local function read_sweep(dir)
  local csv = dir .. "/sweep.csv"
  local text = read_file(csv)
  if not text then
    return nil, string.format("'%s' is a directory without sweep.csv (not a tools/sweep output)", dir)
  end
  local lines = {}
  for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
  local head = split_csv_line(lines[1] or "")
  local col
  for i, name in ipairs(head) do if name == "result" then col = i end end
  if not col then return nil, string.format("'%s' has no result column", csv) end
  -- The axes are the columns before tps (threads alone in a sweep of thread counts).
  local axes = {}
  for i, name in ipairs(head) do
    if name == "tps" then break end
    axes[i] = name
  end
  local by_conc = #axes == 1 and (axes[1] == "threads" or axes[1] == "users")
  local points = {}
  for i = 2, #lines do
    local cells = split_csv_line(lines[i])
    local file = cells[col]
    if file and file ~= "" then
      local path = dir .. "/" .. file
      local doc, err = M.read_json(path)
      if not doc then return nil, err end
      local p = { conc = M.concurrency(doc), doc = doc, file = path }
      p.key = select(2, M.concurrency(doc)) .. "=" .. p.conc
      if #axes > 0 and not by_conc then
        -- charted and compared by the first axis; a grid's other axes tell its lines apart.
        -- Each axis is named with the value the run really had (its result's option), sizes
        -- in KiB/MiB, so that "4K" and "4096" are the same point.
        p.conc = tonumber(cells[1]) or M.parse_size(cells[1]) or (i - 1)
        local kv, others = {}, {}
        p.values = {}
        for k, name in ipairs(axes) do
          local real = M.opt(doc, name)
          p.values[k] = M.option_text(name, real ~= nil and real or cells[k]) or ""
          kv[#kv + 1] = name .. "=" .. p.values[k]
          if k > 1 then others[#others + 1] = kv[#kv] end
        end
        p.point, p.group = table.concat(kv, ", "), table.concat(others, ", ")
        p.key = p.point
      end
      points[#points + 1] = p
    end
  end
  if #points == 0 then return nil, string.format("'%s' lists no points", csv) end
  table.sort(points, M.point_before)
  return points, (#axes > 0 and not by_conc) and axes or nil
end

local function is_dir(path)
  -- io.open succeeds on a directory, reading it fails.
  local f = io.open(path, "r")
  if not f then return false end
  local ok, _, code = f:read(1)
  f:close()
  return ok == nil and code == 21
end

-- The names in a directory, sorted (dot files left out).
function M.list_dir(dir)
  local p = io.popen("ls -1 -- '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null")
  local names = {}
  if p then
    for line in p:lines() do names[#names + 1] = line end
    p:close()
  end
  table.sort(names)
  return names
end

M.is_dir = is_dir

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

-- A shell pattern's last component as a Lua pattern: * ? [...] as the shell reads them.
local function glob_pattern(glob)
  local out, i = { "^" }, 1
  while i <= #glob do
    local c = glob:sub(i, i)
    if c == "*" then
      out[#out + 1] = ".*"
    elseif c == "?" then
      out[#out + 1] = "."
    elseif c == "[" and glob:find("]", i + 2, true) then
      local j = glob:find("]", i + 2, true)
      local class = glob:sub(i + 1, j - 1):gsub("^!", "^"):gsub("%%", "%%%%")
      out[#out + 1] = "[" .. class .. "]"
      i = j
    else
      out[#out + 1] = c:match("%w") and c or "%" .. c
    end
    i = i + 1
  end
  out[#out + 1] = "$"
  return table.concat(out)
end

-- The files a path names: itself, or for a pattern the shell did not expand (quoted, or no
-- shell at all) the files it matches in its directory, sorted. nil and a message when nothing
-- matches.
function M.expand(path)
  if exists(path) or not path:find("[*?[]") then return { path } end
  local dir, glob = path:match("^(.*)/([^/]*)$")
  if not dir then dir, glob = ".", path end
  if dir:find("[*?[]") then return nil, string.format("'%s': a pattern only in the file name is supported", path) end
  local pat, out = glob_pattern(glob), {}
  for _, name in ipairs(M.list_dir(dir == "" and "/" or dir)) do
    if name:match(pat) then out[#out + 1] = (dir == "." and not path:find("^%./")) and name or dir .. "/" .. name end
  end
  if #out == 0 then return nil, string.format("no file matches '%s'", path) end
  return out
end

function M.is_sweep(dir)
  return exists(dir .. "/sweep.csv")
end

function M.is_study(dir)
  return exists(dir .. "/manifest.json")
end

-- A study directory's manifest (luabench study), or nil and a message.
function M.read_manifest(dir)
  local path = dir .. "/manifest.json"
  local text, err = read_file(path)
  if not text then return nil, string.format("cannot read '%s': %s", path, err) end
  local ok, doc = pcall(luabench.json.decode, text)
  if not ok or type(doc) ~= "table" or not doc.luabench_study then
    return nil, string.format("'%s' is not a luabench study manifest", path)
  end
  return strip_nulls(doc, luabench.json.null)
end

-- The measured runs of a study directory that ended well, as inputs: { label = configuration,
-- configuration, workload (the plan's name), rep (its repeat), axis (the workload has a
-- concurrency axis), bound = { key = "99", ms = 50 } or nil, study = dir, ... }. Warm-up runs
-- and runs that failed or did not run are left out.
function M.load_study(dir)
  dir = dir:gsub("/+$", "")
  local man, err = M.read_manifest(dir)
  if not man then return nil, err end
  local workloads = {}
  for _, w in ipairs(man.workloads or {}) do workloads[w.name] = w end
  local out = {}
  for _, run in ipairs(man.runs or {}) do
    if run.status == "ok" and not run.warmup then
      local input, lerr = M.load(dir .. "/" .. run.file, run.configuration)
      if not input then return nil, lerr end
      local w = workloads[run.workload] or {}
      input.configuration, input.workload, input.rep = run.configuration, run.workload, run["repeat"]
      input.study, input.axis = dir, w.axis ~= nil
      if w.bound_ms then
        input.bound = { key = M.percentile_key(w.bound_percentile or 99), ms = w.bound_ms }
      end
      out[#out + 1] = input
    end
  end
  if #out == 0 then
    return nil, string.format("the study '%s' has no run that ended well yet (see its manifest.json)", dir)
  end
  return out
end

-- A percentile as the results' keys spell it: 99 -> "99", 99.9 -> "99.9".
function M.percentile_key(p)
  p = tonumber(p)
  if p == math.floor(p) then return string.format("%d", p) end
  return (string.format("%.6f", p):gsub("0+$", ""))
end

-- Loads one input. Returns the input, or nil and a message naming the file.
function M.load(path, label)
  local input = { path = path, label = label }
  if is_dir(path) or basename(path) == "sweep.csv" then
    local dir = is_dir(path) and path:gsub("/+$", "") or dirname(path)
    local points, axes = read_sweep(dir)
    if not points then return nil, axes end
    input.kind, input.points, input.axes = "sweep", points, axes
    input.label = label or basename(dir)
  else
    local doc, err = M.read_json(path)
    if not doc then return nil, err end
    input.kind = (doc.merged_from and "merged") or "run"
    input.points = { { conc = M.concurrency(doc), doc = doc, file = path } }
    input.label = label or basename(path):gsub("%.json$", "")
  end
  input.doc = input.points[1].doc
  return input
end

-- ---- what ran, in words ------------------------------------------------------------------------

local function grouped(n)
  local s = tostring(math.floor(n))
  local out = s:reverse():gsub("(%d%d%d)", "%1,"):reverse()
  return (out:gsub("^,", ""))
end
M.grouped = grouped

-- "pgsql" for SQL runs, nil otherwise.
function M.driver(doc)
  if not doc.sql then return nil end
  return opt(doc, "db-driver")
end

-- The data a workload ran on: "10 tables x 1,000,000 rows", "10 warehouses", "2 files, 4 MiB
-- total, rndrw, 16 KiB blocks". swept: the options a sweep varies (a set of names), left out:
-- one point's value would describe the whole sweep wrongly.
function M.data_size(doc, swept)
  swept = swept or {}
  local function has(name) return not swept[name] and opt(doc, name) ~= nil end
  local w = doc.workload or ""
  if has("warehouses") then return string.format("%s warehouses", grouped(opt(doc, "warehouses"))) end
  if w:match("bookstore") and has("items") then
    return string.format("%s items, %s EBs", grouped(opt(doc, "items")), tostring(opt(doc, "ebs") or "?"))
  end
  if opt(doc, "file-total-size") then
    local parts = {}
    if has("file-num") then
      local n = opt(doc, "file-num")
      parts[#parts + 1] = string.format("%s file%s", tostring(n), n == 1 and "" or "s")
    end
    if has("file-total-size") then parts[#parts + 1] = M.option_text("file-total-size", opt(doc, "file-total-size")) .. " total" end
    if has("file-test-mode") then parts[#parts + 1] = tostring(opt(doc, "file-test-mode")) end
    if has("file-block-size") then parts[#parts + 1] = M.option_text("file-block-size", opt(doc, "file-block-size")) .. " blocks" end
    return #parts > 0 and table.concat(parts, ", ") or nil
  end
  if has("tables") and has("table-size") then
    return string.format("%s tables x %s rows", grouped(opt(doc, "tables")), grouped(opt(doc, "table-size")))
  end
  return nil
end

-- The options an input's sweep varies, as a set of names (empty for a run).
function M.swept(input)
  local set = {}
  for _, name in ipairs(input and input.axes or {}) do set[name] = true end
  return set
end

-- A workload's name as tables, charts and studies show it: a built-in workload's name, a
-- script's base name without ".lua" ("orders" for scripts/orders.lua; the path as typed stays in
-- the result's `workload`).
function M.workload_name(doc)
  local w = doc.workload or ""
  if w == "" then return "script" end
  return (basename(w):gsub("%.lua$", ""))
end

-- The database server product a result ran against ("PostgreSQL", "MariaDB", "MySQL", or the
-- driver for embedded ones: "sqlite", "duckdb"); nil for runs without SQL.
function M.product(doc)
  local v = doc.server_version
  if type(v) == "string" and v ~= "" then
    for _, name in ipairs({ "PostgreSQL", "MariaDB", "MySQL", "SQLite", "DuckDB" }) do
      if v:lower():find(name:lower(), 1, true) then return name end
    end
    return (v:match("^(%a+)")) or v
  end
  return M.driver(doc)
end

-- "oltp_read_write, pgsql, 10 tables x 1,000,000 rows" (swept: see data_size)
function M.what(doc, swept)
  local parts = { M.workload_name(doc) }
  parts[#parts + 1] = M.driver(doc)
  parts[#parts + 1] = M.data_size(doc, swept)
  return table.concat(parts, ", ")
end

function M.date(doc)
  return (doc.start_time or ""):gsub("T", " "):gsub("%.%d+Z$", " UTC")
end

-- "8 threads" / "1000 users on 32 connections" / "1..64 threads" for a sweep.
-- What a sweep's x axis is: "threads", "users", or "--NAME" for any other option swept.
function M.axis_unit(input)
  if input.axes then return "--" .. input.axes[1] end
  return select(2, M.concurrency(input.doc))
end

function M.concurrency_text(input)
  local first, last = input.points[1], input.points[#input.points]
  if input.axes then
    -- each axis with the values it took: "--iodepth 1, 32 x --file-block-size 4 KiB, 64 KiB"
    local parts = {}
    for k, name in ipairs(input.axes) do
      local vals, seen = {}, {}
      for _, p in ipairs(input.points) do
        local v = p.values and p.values[k]
        if v and not seen[v] then seen[v] = true; vals[#vals + 1] = v end
      end
      parts[k] = string.format("--%s %s", name, table.concat(vals, ", "))
    end
    return string.format("a sweep over %s (%d points)", table.concat(parts, " x "), #input.points)
  end
  local _, unit = M.concurrency(first.doc)
  if first.conc ~= last.conc then
    return string.format("%d..%d %s (%d points)", first.conc, last.conc, unit, #input.points)
  end
  local n = first.conc
  local text = string.format("%d %s", n, n == 1 and unit:gsub("s$", "") or unit)
  local u = first.doc.users
  if unit == "users" and u and (u.connections or 0) > 0 then
    text = text .. string.format(" on %d connections", u.connections)
  end
  return text
end

-- One line that tells an input apart: what, how many, where, when.
function M.describe(input)
  local d = input.doc
  local parts = { M.what(d, M.swept(input)), M.concurrency_text(input) }
  if d.hostname and d.hostname ~= "" then parts[#parts + 1] = "host " .. d.hostname end
  parts[#parts + 1] = M.date(d)
  -- a run that did not end well says so beside its figures (failed: it completed no event)
  if d.status and d.status ~= "ok" then parts[#parts + 1] = "status " .. d.status end
  if input.kind == "merged" then parts[#parts + 1] = string.format("merged from %d instances", d.instances or 0) end
  return table.concat(parts, ", ")
end

return M
