-- dbt3.load: the `prepare` command. Every thread runs it (a parallel command):
--   phase 0  thread 0 creates the schema;
--   phase 1  threads claim chunks (10000 rows of a driving table: orders with their lineitems,
--            parts with their partsupp rows, customers, suppliers; nation and region are one
--            chunk) from a shared ticket counter, generate them (dbt3.gen: the rows of a chunk do
--            not depend on which thread makes them) and stream them in COPY's text format
--            (PostgreSQL COPY FROM STDIN, MySQL LOAD DATA LOCAL INFILE from memory);
--   phase 2  threads claim the post-load work per table (keys, indexes, statistics);
--   phase 3  thread 0 records the lineitem count and marks the schema ready.
-- Thread 0 prints progress, rate and ETA every 2 seconds.
local ffi = require("ffi")
local C = ffi.C
local common = require("dbt3.common")
local schema = require("dbt3.schema")
local gen = require("dbt3.gen")

local M = {}

local fmt = string.format

local s, con, ld, tid
local load_note -- how rows go in, when not streamed (load-dbgen's files read by the engine)
local use_copy

-- Sends rows[1..n] into table name, in the form the generator made them. Rows go to the driver
-- BATCH at a time, joined as the driver would join them (COPY: a newline, INSERT: a comma):
-- one call per batch instead of per row.
local BATCH = 256
local function send(name, rows)
  local n = #rows
  if n == 0 then return end
  local t = s.t[name]
  local concat = table.concat
  if use_copy then
    con:copy_init(common.dialect().load_stream(t, schema.columns(name)))
    for i = 1, n, BATCH do con:copy_next(concat(rows, "\n", i, math.min(n, i + BATCH - 1))) end
    con:copy_done()
  else
    con:bulk_insert_init(fmt("INSERT INTO %s (%s) VALUES", t, schema.columns(name)))
    for i = 1, n, BATCH do con:bulk_insert_next(concat(rows, ",", i, math.min(n, i + BATCH - 1))) end
    con:bulk_insert_done()
  end
end

-- The chunks of the load as {table, chunk}, largest tables first (they end together).
local function units(g)
  local list = {}
  for _, name in ipairs({ "orders", "part", "customer", "supplier" }) do
    for k = 0, g.chunks(name) - 1 do list[#list + 1] = { name, k } end
  end
  list[#list + 1] = { "nation", 0 }
  return list
end

local OUT_TABLES = { orders = { "orders", "lineitem" }, part = { "part", "partsupp" },
  customer = { "customer" }, supplier = { "supplier" }, nation = { "nation", "region" } }

-- Generates one chunk and hands every table's rows to sink(table, rows) (default: send them);
-- returns its rows by table.
local function load_unit(g, u, sink)
  sink = sink or send
  local name, k = u[1], u[2]
  local out = {}
  for _, t in ipairs(OUT_TABLES[name]) do out[t] = {} end
  if name == "orders" then g.orders_chunk(k, out)
  elseif name == "part" then g.part(k, out)
  elseif name == "customer" then g.customer(k, out)
  elseif name == "supplier" then g.supplier(k, out)
  else g.nation_region(out) end
  for _, t in ipairs(OUT_TABLES[name]) do sink(t, out[t]) end
  return out
end

-- The rows a load makes at scale factor sf, lineitems estimated (progress and ETA).
local function expected_rows(sf)
  local z = common.sizes(sf)
  return z.part * 5 + z.supplier + z.customer + z.orders * 5 + 30
end

-- Calls work(item) for each item of `list` this thread claims from the shared ticket counter
-- `counter` (every thread of the load draws from it); false when another thread failed.
local function claim_each(counter, list, work)
  while not ld:failed() do
    local i = tonumber(C.lb_kernel_ticket(sysbench.worker, counter)) + 1
    if i > #list then return true end
    work(list[i])
  end
  return false
end

-- Phase 0 (thread 0): refuse a schema that is there already, create the tables. `what` says
-- where the rows come from (the generator with its seed, or dbgen's files).
local function setup(sf, what, source)
  local t = s.t
  if common.table_exists(con, t.config) then
    local cfg = common.config_read(con)
    if cfg.ready == "1" then
      print(fmt("The dbt3 schema at scale factor %s is already loaded: nothing to do (run 'cleanup' first to load it again)",
        cfg.scale))
      return false
    end
    common.fail("the dbt3 schema here is half-loaded (an interrupted prepare?): run 'cleanup', then 'prepare'")
  end
  for _, name in ipairs(common.TABLES) do
    if common.table_exists(con, t[name]) then
      common.fail("table '%s' exists but was not created by dbt3 prepare (no table '%s'): drop it, or load beside it with --table-prefix",
        t[name], t.config)
    end
  end
  print(fmt("Creating the dbt3 schema for scale factor %s (%s)...", common.sf_text(sf), what))
  local d = common.dialect()
  print(load_note or use_copy and ("Rows go in streamed through " .. d.load_stream("<table>", "<columns>"))
    or "Rows go in as multi-row INSERTs (the server refuses LOAD DATA LOCAL INFILE: local_infile is off)")
  schema.create_config(con)
  common.config_set(con, "scale", common.sf_text(sf))
  common.config_set(con, "seed", s.seed)
  if source then common.config_set(con, "source", source) end
  for _, name in ipairs(common.TABLES) do schema.create_table(con, name) end
  return true
end

-- Phases 2 and 3 of a load: keys, indexes and statistics, one table at a time per thread; then
-- thread 0 records the lineitem count and marks the schema ready.
local function post_load(lines_of, t_data, sf)
  if tid < s.load_threads and not claim_each("dbt3.load.steps", schema.POST_LOAD_ORDER, function(step)
    local t0 = luabench.time()
    schema.post_load(con, step)
    print(fmt("  %s: indexed and analyzed in %.1fs", s.t[step], luabench.time() - t0))
  end) then
    return
  end
  if not ld:barrier(3) then return end

  if tid == 0 then
    local lines = 0
    for t = 0, s.threads - 1 do lines = lines + tonumber(lines_of[t]) end
    common.config_set(con, "lineitem_rows", lines)
    common.config_set(con, "ready", 1)
    local total = luabench.time() - ld.t0
    print(fmt("Prepared scale factor %s in %.1fs (data %.1fs, indexes %.1fs): %d rows, %.0f rows/s of data",
      common.sf_text(sf), total, t_data - ld.t0, total - (t_data - ld.t0), ld:rows(),
      ld:rows() / math.max(t_data - ld.t0, 1e-3)))
  end
end

local function body(info, lines_of)
  local sf = s.scale
  if tid == 0 then
    ld.t0 = luabench.time()
    info[0] = setup(sf, "seed " .. s.seed) and 1 or -1
  end
  if not ld:barrier(1) then return end
  if info[0] < 0 then return end
  local g = gen.new(s.seed, sf, use_copy)

  -- Phase 1: the data.
  if tid < s.load_threads and not claim_each("dbt3.load.units", units(g), function(u)
    local n = 0
    for t, rows in pairs(load_unit(g, u)) do
      n = n + #rows
      if t == "lineitem" then lines_of[tid] = lines_of[tid] + #rows end
    end
    ld:add(n)
  end) then
    return
  end
  if not ld:barrier(2) then return end
  local t_data = luabench.time()
  if tid == 0 then
    ld:finish()
    print(fmt("Data loaded in %.1fs (%.0f rows/s); creating keys and indexes, collecting statistics...",
      t_data - ld.t0, ld:rows() / math.max(t_data - ld.t0, 1e-3)))
  end

  post_load(lines_of, t_data, sf)
end

-- The `generate` command: the rows prepare would load, written to files in --generate-dir
-- instead (DIR/<table>.<thread>.tsv, COPY's text format: tab-separated, one row per line, which
-- LOAD DATA INFILE reads with its defaults). For loading them with the server's own tools (the
-- bulk-load ceiling of tools/bench dbt3) or elsewhere.
function M.generate()
  s = common.settings()
  tid = sysbench.tid
  local dir = s.generate_dir
  if dir == "" then common.fail("generate needs --generate-dir=DIR (a directory for the table files)") end
  ld = require("luabench.prepare").new("dbt3.generate", expected_rows(s.scale))
  local files = {}
  local function sink(name, rows)
    if #rows == 0 then return end
    local f = files[name]
    if not f then
      local path = string.format("%s/%s.%d.tsv", dir, name, tid)
      local err
      f, err = io.open(path, "w")
      if not f then common.fail("cannot write '%s': %s", path, err) end
      files[name] = f
    end
    f:write(table.concat(rows, "\n"), "\n")
  end
  local ok, err = pcall(function()
    local g = gen.new(s.seed, s.scale, true)
    if not claim_each("dbt3.generate.units", units(g), function(u)
      local n = 0
      for _, rows in pairs(load_unit(g, u, sink)) do n = n + #rows end
      ld:add(n)
    end) then
      return
    end
    for _, f in pairs(files) do f:close() end
    if not ld:barrier(1) then return end
    if tid == 0 then
      ld:finish()
      print(fmt("Generated scale factor %s (seed %d) into %s in %.1fs", common.sf_text(s.scale), s.seed, dir, ld:elapsed()))
    end
  end)
  if not ok then
    ld:fail()
    error(err, 0)
  end
end

-- Runs load() on this thread's connection (the module's con and use_copy), then closes it.
local function connected(load)
  local ok, err = pcall(function()
    con = common.driver():connect()
    local d = common.dialect()
    -- MySQL's LOAD DATA LOCAL needs local_infile on the server; without it, multi-row INSERTs.
    use_copy = d.load_stream and tostring(con:query_row(d.load_stream_enabled)) == "1" or false
    load()
  end)
  if not ok then
    if con then con:disconnect() end
    -- Only now: the threads waiting at a barrier stop with "another loader thread failed", and
    -- this thread's error, the cause, must be the first one reported.
    ld:fail()
    error(err, 0)
  end
  con:disconnect()
end

function M.prepare()
  s = common.settings()
  tid = sysbench.tid
  ld = require("luabench.prepare").new("dbt3.load", expected_rows(s.scale))
  local info = luabench.shared("dbt3.load.info", "int64_t", 1)
  local lines_of = luabench.shared("dbt3.load.lines", "uint64_t", s.threads)
  connected(function() body(info, lines_of) end)
end

-- The `load-dbgen` command: the table files of the TPC-H kit's dbgen (or tpchgen-cli, which
-- writes the same rows) in --dbgen-dir loaded into the schema, which is then marked ready like a
-- prepared one, so that `answers --qualification --answers-dir=...` checks the published answer
-- set. Files are cut into byte ranges that the threads claim; each range is streamed like
-- prepare's rows (COPY's text format, or INSERTs).

local CHUNK_BYTES = 16 * 1024 * 1024
-- Bytes per row of dbgen's files (for the progress line's total until the real count is known).
local ROW_BYTES = { lineitem = 121, orders = 111, partsupp = 145, part = 119, customer = 161,
  supplier = 138, nation = 89, region = 78 }

local function file_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local size = f:seek("end")
  f:close()
  return size
end

-- A table's files: <table>.tbl, or dbgen's parts <table>.tbl.<n> (-C), or tpchgen-cli's
-- <table>/<table>.<n>.tbl (--parts).
local function dbgen_files(dir, name)
  local single = dir .. "/" .. name .. ".tbl"
  local size = file_size(single)
  if size then return { { path = single, size = size } } end
  for _, pattern in ipairs({ "%s/%s.tbl.%d", "%s/%s/%s.%d.tbl" }) do
    local list = {}
    while true do
      local path = pattern:find("/%%s/") and fmt(pattern, dir, name, name, #list + 1) or fmt(pattern, dir, name, #list + 1)
      size = file_size(path)
      if not size then break end
      list[#list + 1] = { path = path, size = size }
    end
    if #list > 0 then return list end
  end
  common.fail("no dbgen file for table '%s' in '%s' (expected %s.tbl, %s.tbl.1 ... or %s/%s.1.tbl ...)",
    name, dir, name, name, name, name)
end

-- Every table's files cut into byte ranges {table, path, offset, length}, largest tables first;
-- whole files {table, path} when the engine reads them itself (`whole`).
local function dbgen_units(dir, whole)
  local list, bytes = {}, 0
  local expected = 0
  local tables = {}
  for _, name in ipairs(common.TABLES) do
    local files = dbgen_files(dir, name)
    local total = 0
    for _, f in ipairs(files) do total = total + f.size end
    tables[#tables + 1] = { name = name, files = files, size = total }
    expected = expected + total / ROW_BYTES[name]
  end
  table.sort(tables, function(a, b) return a.size > b.size end)
  for _, t in ipairs(tables) do
    for _, f in ipairs(t.files) do
      if whole then list[#list + 1] = { t.name, f.path } end
      for off = 0, whole and -1 or math.max(f.size - 1, 0), CHUNK_BYTES do
        list[#list + 1] = { t.name, f.path, off, math.min(CHUNK_BYTES, f.size - off) }
      end
      bytes = bytes + f.size
    end
  end
  return list, math.floor(expected), bytes
end

-- The scale factor of dbgen's files: SF x 10,000 suppliers (clause 4.2.5).
local function dbgen_scale(dir)
  local n = 0
  for _, f in ipairs(dbgen_files(dir, "supplier")) do
    for line in io.lines(f.path) do if line ~= "" then n = n + 1 end end
  end
  if n == 0 then common.fail("the dbgen supplier file in '%s' is empty", dir) end
  return n / 10000
end

-- One dbgen line ("v1|v2|...|vn|") as a row in the form send() takes: COPY's text format, or an
-- INSERT tuple quoted by column type.
local function dbgen_row(line, quoted)
  line = line:gsub("\r$", ""):gsub("|$", "")
  if use_copy then
    if line:find("\\", 1, true) then line = line:gsub("\\", "\\\\") end
    return (line:gsub("|", "\t"))
  end
  local out, i = {}, 0
  for v in (line .. "|"):gmatch("([^|]*)|") do
    i = i + 1
    out[i] = quoted[i] and ("'" .. v:gsub("'", "''") .. "'") or v
  end
  return "(" .. table.concat(out, ",") .. ")"
end

-- The lines of a file, counted in 4 MB blocks.
local function count_lines(path)
  local f, err = io.open(path, "rb")
  if not f then common.fail("cannot read '%s': %s", path, err) end
  local n, last = 0, "\n"
  while true do
    local block = f:read(4 * 1024 * 1024)
    if not block then break end
    n = n + select(2, block:gsub("\n", ""))
    last = block:sub(-1)
  end
  f:close()
  return n + (last ~= "\n" and 1 or 0)
end

-- An engine that reads dbgen's files itself (DuckDB, in-process: the dialect's load_file)
-- loads a whole file in one statement; its rows are the file's lines.
local function dbgen_file(u)
  local name, path = u[1], u[2]
  if path:find("'", 1, true) then common.fail("load-dbgen: a file name with a quote: '%s'", path) end
  con:query(common.dialect().load_file(s.t[name], schema.columns(name), path))
  local n = count_lines(path)
  ld:add(n)
  return n
end

-- Loads the lines that start in [offset, offset + length) of a file; returns how many.
local ROWS_PER_SEND = 8192
local function dbgen_range(u)
  local name, path, off, len = u[1], u[2], u[3], u[4]
  if not off then return dbgen_file(u) end
  local f, err = io.open(path, "rb")
  if not f then common.fail("cannot read '%s': %s", path, err) end
  local pos = off
  if off > 0 then
    -- The line that ends at or after offset - 1 belongs to the previous range.
    f:seek("set", off - 1)
    pos = off - 1 + #(f:read("*l") or "") + 1
  end
  local quoted = schema.quoted(name)
  local rows, n, total = {}, 0, 0
  local stop = off + len
  while pos < stop do
    local line = f:read("*l")
    if not line then break end
    pos = pos + #line + 1
    if line ~= "" then
      n = n + 1
      rows[n] = dbgen_row(line, quoted)
      if n == ROWS_PER_SEND then
        send(name, rows)
        ld:add(n)
        total = total + n
        rows, n = {}, 0
      end
    end
  end
  f:close()
  send(name, rows)
  ld:add(n)
  return total + n
end

-- Thread 0, after the data: every table holds exactly the rows its files had.
local function dbgen_verify(rows_of)
  for k, name in ipairs(common.TABLES) do
    local want = 0
    for t = 0, s.threads - 1 do want = want + tonumber(rows_of[t * #common.TABLES + k - 1]) end
    local got = tonumber(con:query_row("SELECT COUNT(*) FROM " .. s.t[name]))
    if got ~= want then
      common.fail("table '%s' holds %d rows after the load, its dbgen files have %d", s.t[name], got, want)
    end
  end
end

local function dbgen_body(info, lines_of, rows_of)
  local dir = s.dbgen_dir
  local d = common.dialect()
  local list, expected, bytes = dbgen_units(dir, d.load_file ~= nil)
  if d.load_file then load_note = "The engine reads the files itself: " .. d.load_file("<table>", "<columns>", "<file>") end
  ld.total = expected
  local sf = dbgen_scale(dir)
  if tid == 0 then
    ld.t0 = luabench.time()
    info[0] = setup(sf, fmt("dbgen's files in %s, %.0f MB", dir, bytes / 1e6), "dbgen") and 1 or -1
  end
  if not ld:barrier(1) then return end
  if info[0] < 0 then return end
  local index = {}
  for k, name in ipairs(common.TABLES) do index[name] = k - 1 end
  if tid < s.load_threads and not claim_each("dbt3.dbgen.units", list, function(u)
    local n = dbgen_range(u)
    local slot = tid * #common.TABLES + index[u[1]]
    rows_of[slot] = rows_of[slot] + n
    if u[1] == "lineitem" then lines_of[tid] = lines_of[tid] + n end
  end) then
    return
  end
  if not ld:barrier(2) then return end
  local t_data = luabench.time()
  if tid == 0 then
    ld:finish()
    dbgen_verify(rows_of)
    print(fmt("Data loaded in %.1fs (%.0f rows/s, %.1f MB/s), every file's rows in their table; creating keys and indexes, collecting statistics...",
      t_data - ld.t0, ld:rows() / math.max(t_data - ld.t0, 1e-3), bytes / 1e6 / math.max(t_data - ld.t0, 1e-3)))
  end
  post_load(lines_of, t_data, sf)
end

function M.load_dbgen()
  s = common.settings()
  tid = sysbench.tid
  if s.dbgen_dir == "" then common.fail("load-dbgen needs --dbgen-dir=DIR (the directory of dbgen's .tbl files)") end
  ld = require("luabench.prepare").new("dbt3.dbgen", 0)
  local info = luabench.shared("dbt3.dbgen.info", "int64_t", 1)
  local lines_of = luabench.shared("dbt3.dbgen.lines", "uint64_t", s.threads)
  local rows_of = luabench.shared("dbt3.dbgen.table_rows", "uint64_t", s.threads * #common.TABLES)
  connected(function() dbgen_body(info, lines_of, rows_of) end)
end

return M
