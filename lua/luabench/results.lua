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

local function split_csv_line(line)
  local out = {}
  for cell in (line .. ","):gmatch("([^,]*),") do out[#out + 1] = cell end
  return out
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
      if #axes > 0 and not by_conc then
        -- charted and compared by the first axis; a grid's other axes tell its lines apart
        p.conc = tonumber(cells[1]) or (i - 1)
        local kv, others = {}, {}
        for k, name in ipairs(axes) do
          kv[#kv + 1] = name .. "=" .. (cells[k] or "")
          if k > 1 then others[#others + 1] = kv[#kv] end
        end
        p.point, p.group = table.concat(kv, ", "), table.concat(others, ", ")
      end
      points[#points + 1] = p
    end
  end
  if #points == 0 then return nil, string.format("'%s' lists no points", csv) end
  table.sort(points, function(a, b)
    if (a.group or "") ~= (b.group or "") then return (a.group or "") < (b.group or "") end
    return a.conc < b.conc
  end)
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

-- Built-in options are named with '-', scripts' own usually with '_' (table_size).
local function opt(doc, name)
  local o = doc.options
  if not o then return nil end
  if o[name] ~= nil then return o[name] end
  return o[(name:gsub("%-", "_"))]
end

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

-- The data a workload ran on: "10 tables x 1,000,000 rows", "10 warehouses", "fileio 2G rndrw".
function M.data_size(doc)
  local w = doc.workload or ""
  if opt(doc, "warehouses") then return string.format("%s warehouses", grouped(opt(doc, "warehouses"))) end
  if w:match("bookstore") and opt(doc, "items") then
    return string.format("%s items, %s EBs", grouped(opt(doc, "items")), tostring(opt(doc, "ebs") or "?"))
  end
  if opt(doc, "file-total-size") then
    return string.format("%s files, %s total, %s, %s blocks", tostring(opt(doc, "file-num") or "?"),
      tostring(opt(doc, "file-total-size")), tostring(opt(doc, "file-test-mode") or "?"),
      tostring(opt(doc, "file-block-size") or "?"))
  end
  if opt(doc, "tables") and opt(doc, "table-size") then
    return string.format("%s tables x %s rows", grouped(opt(doc, "tables")), grouped(opt(doc, "table-size")))
  end
  return nil
end

-- "oltp_read_write, pgsql, 10 tables x 1,000,000 rows"
function M.what(doc)
  local parts = { doc.workload ~= "" and doc.workload or "script" }
  parts[#parts + 1] = M.driver(doc)
  parts[#parts + 1] = M.data_size(doc)
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
    return string.format("a sweep over %s (%d points)", table.concat(input.axes, " x "), #input.points)
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
  local parts = { M.what(d), M.concurrency_text(input) }
  if d.hostname and d.hostname ~= "" then parts[#parts + 1] = "host " .. d.hostname end
  parts[#parts + 1] = M.date(d)
  if input.kind == "merged" then parts[#parts + 1] = string.format("merged from %d instances", d.instances or 0) end
  return table.concat(parts, ", ")
end

return M
