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

-- Phase 0 (thread 0): refuse a schema that is there already, create the tables.
local function setup(sf)
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
  print(fmt("Creating the dbt3 schema for scale factor %s (seed %d)...", common.sf_text(sf), s.seed))
  local d = common.dialect()
  print(use_copy and ("Rows go in streamed through " .. d.load_stream("<table>", "<columns>"))
    or "Rows go in as multi-row INSERTs (the server refuses LOAD DATA LOCAL INFILE: local_infile is off)")
  schema.create_config(con)
  common.config_set(con, "scale", common.sf_text(sf))
  common.config_set(con, "seed", s.seed)
  for _, name in ipairs(common.TABLES) do schema.create_table(con, name) end
  return true
end

local function body(info, lines_of)
  local sf = s.scale
  if tid == 0 then
    ld.t0 = luabench.time()
    info[0] = setup(sf) and 1 or -1
  end
  if not ld:barrier(1) then return end
  if info[0] < 0 then return end
  local g = gen.new(s.seed, sf, use_copy)

  -- Phase 1: the data.
  if tid < s.load_threads then
    local list = units(g)
    while true do
      if ld:failed() then return end
      local i = tonumber(C.lb_kernel_ticket(sysbench.worker, "dbt3.load.units")) + 1
      if i > #list then break end
      local out = load_unit(g, list[i])
      local n = 0
      for t, rows in pairs(out) do
        n = n + #rows
        if t == "lineitem" then lines_of[tid] = lines_of[tid] + #rows end
      end
      ld:add(n)
    end
  end
  if not ld:barrier(2) then return end
  local t_data = luabench.time()
  if tid == 0 then
    ld:finish()
    print(fmt("Data loaded in %.1fs (%.0f rows/s); creating keys and indexes, collecting statistics...",
      t_data - ld.t0, ld:rows() / math.max(t_data - ld.t0, 1e-3)))
  end

  -- Phase 2: keys, indexes and statistics, one table at a time per thread.
  if tid < s.load_threads then
    local steps = schema.POST_LOAD_ORDER
    while true do
      if ld:failed() then return end
      local i = tonumber(C.lb_kernel_ticket(sysbench.worker, "dbt3.load.steps")) + 1
      if i > #steps then break end
      local t0 = luabench.time()
      schema.post_load(con, steps[i])
      print(fmt("  %s: indexed and analyzed in %.1fs", s.t[steps[i]], luabench.time() - t0))
    end
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

-- The `generate` command: the rows prepare would load, written to files in --generate-dir
-- instead (DIR/<table>.<thread>.tsv, COPY's text format: tab-separated, one row per line, which
-- LOAD DATA INFILE reads with its defaults). For loading them with the server's own tools (the
-- bulk-load ceiling of tools/bench dbt3) or elsewhere.
function M.generate()
  s = common.settings()
  tid = sysbench.tid
  local dir = s.generate_dir
  if dir == "" then common.fail("generate needs --generate-dir=DIR (a directory for the table files)") end
  local z = common.sizes(s.scale)
  ld = require("luabench.prepare").new("dbt3.generate", z.part * 5 + z.supplier + z.customer + z.orders * 5 + 30)
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
    local list = units(g)
    while true do
      if ld:failed() then return end
      local i = tonumber(C.lb_kernel_ticket(sysbench.worker, "dbt3.generate.units")) + 1
      if i > #list then break end
      local out = load_unit(g, list[i], sink)
      local n = 0
      for _, rows in pairs(out) do n = n + #rows end
      ld:add(n)
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

function M.prepare()
  s = common.settings()
  tid = sysbench.tid
  local z = common.sizes(s.scale)
  local expected = z.part * 5 + z.supplier + z.customer + z.orders * 5 + 30
  ld = require("luabench.prepare").new("dbt3.load", expected)
  local info = luabench.shared("dbt3.load.info", "int64_t", 1)
  local lines_of = luabench.shared("dbt3.load.lines", "uint64_t", s.threads)
  local ok, err = pcall(function()
    con = common.driver():connect()
    local d = common.dialect()
    -- MySQL's LOAD DATA LOCAL needs local_infile on the server; without it, multi-row INSERTs.
    use_copy = d.load_stream and tostring(con:query_row(d.load_stream_enabled)) == "1" or false
    body(info, lines_of)
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

return M
