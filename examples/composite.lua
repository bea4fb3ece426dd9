#!/usr/bin/env luabench
-- composite.lua: one SELECT DISTINCT, a batch of point UPDATEs and a paged query per event.
--
-- The transaction of a team's embedded-analytics benchmark on DuckDB: per request, a SELECT
-- DISTINCT over a slice of a table, 50 UPDATEs of random rows, and one page of a listing as
-- the service asked for it, LIMIT ... OFFSET (the deeper the page, the more rows are read and
-- skipped); the table loaded through the engine's bulk path. On a 128-core ARM
-- server it ran slower than on a laptop until it was pinned to one NUMA node (about 1.5x
-- faster): memory bandwidth and placement decided it, not the cores. doc/composite.md tells how
-- to repeat that experiment with this script.
--
-- Dialect-generic (luabench.dialect): it runs on SQLite, PostgreSQL, MySQL/MariaDB, through
-- ODBC, and on any driver whose dialect luabench has.
--
--   luabench examples/composite.lua --db-driver=sqlite --rows=1000000 prepare
--   luabench examples/composite.lua --db-driver=sqlite --rows=1000000 --threads=8 --time=60 run
--   luabench examples/composite.lua --db-driver=sqlite --rows=1000000 check
--   luabench examples/composite.lua --db-driver=sqlite cleanup
--
-- Each part is a statistics type of its own (distinct, updates, page), so the report says where
-- an event's time goes; the event is the three together.
sysbench.cmdline.options = {
  rows = { "Rows in the table", 100000, sysbench.cmdline.ARG_INT },
  categories = { "Distinct values of the category column", 100, sysbench.cmdline.ARG_INT },
  distinct_rows = { "Rows the SELECT DISTINCT reads (a random id range; 0 = the whole table)", 0, sysbench.cmdline.ARG_INT },
  updates = { "UPDATEs per event", 50, sysbench.cmdline.ARG_INT },
  update_trx = { "Run an event's UPDATEs in one transaction (off: each commits on its own)", true, sysbench.cmdline.ARG_BOOL },
  page_size = { "Rows per page of the paged query (LIMIT; the page is a random one of its category: OFFSET)", 50, sysbench.cmdline.ARG_INT },
  table = { "Table name", "composite" },
}

local fmt = string.format
local uniform = sysbench.rand.uniform

local function dialect()
  local d, why = require("luabench.dialect").of(sysbench.sql.driver():name())
  if not d then error(why, 0) end
  return d
end

local function opt_check()
  local o = sysbench.opt
  if o.rows < 1 then error("--rows must be at least 1", 0) end
  if o.categories < 1 then error("--categories must be at least 1", 0) end
  if o.updates < 0 or o.page_size < 1 or o.distinct_rows < 0 then
    error("--updates, --distinct-rows must be >= 0 and --page-size >= 1", 0)
  end
  if not o.table:match("^[%a_][%w_]*$") then error("--table must be a plain name", 0) end
end

local function connect()
  local con = sysbench.sql.driver():connect()
  for _, sql in ipairs(dialect().session) do con:query(sql) end
  return con
end

local COLUMNS = "id, category, status, amount, name"

-- The rows go in through the engine's bulk path where it has one: a stream of tab-separated
-- rows (DuckDB's appender, PostgreSQL's COPY, MySQL's LOAD DATA LOCAL when the server allows
-- it: the dialect's load_stream), else the dialect's multi-row INSERTs (SQLite, ODBC). Rows are
-- handed over BATCH at a time, joined as the path wants them.
local BATCH = 500

local function loader(con, d, t)
  if d.load_stream and tostring(con:query_row(d.load_stream_enabled)) == "1" then
    local sql = d.load_stream(t, COLUMNS)
    con:copy_init(sql)
    return { how = sql, sep = "\n", next = function(rows) con:copy_next(rows) end,
      row = function(i, cat, st, amount, name) return fmt("%d\t%d\t%d\t%s\t%s", i, cat, st, amount, name) end,
      done = function() con:copy_done() end }
  end
  local bulk = d.bulk_insert(con, fmt("INSERT INTO %s (%s) VALUES", t, COLUMNS))
  return { how = "multi-row INSERTs", sep = nil, next = function(rows) for _, r in ipairs(rows) do bulk:next(r) end end,
    row = function(i, cat, st, amount, name) return fmt("(%d, %d, %d, %s, '%s')", i, cat, st, amount, name) end,
    done = function() bulk:done() end }
end

function prepare()
  opt_check()
  local o, d = sysbench.opt, dialect()
  local con = connect()
  con:query(fmt("CREATE TABLE %s (%s)%s", o.table, d.column_types(
    "id INTEGER NOT NULL, category INTEGER NOT NULL, status INTEGER NOT NULL, " ..
    "amount NUMERIC(12,2) NOT NULL, name VARCHAR(40) NOT NULL, PRIMARY KEY (id)"), d.table_options))
  local load = loader(con, d, o.table)
  print(fmt("Creating table '%s' and loading %d rows through %s...", o.table, o.rows, load.how))
  local step = math.max(1, math.floor(o.rows / 10))
  local rows = {}
  for i = 1, o.rows do
    rows[#rows + 1] = load.row(i, uniform(1, o.categories), uniform(0, 9),
      fmt("%d.%02d", uniform(0, 99999), uniform(0, 99)), sysbench.rand.string("item-@@@@@@@@-##########"))
    if #rows == BATCH or i == o.rows then
      load.next(load.sep and table.concat(rows, load.sep) or rows)
      rows = {}
    end
    if i % step == 0 then print(fmt("  %d%%", math.floor(100 * i / o.rows + 0.5))) end
  end
  load.done()
  -- the paged query reads one category in id order
  con:query(d.create_index(o.table .. "_cat", o.table, "category, id"))
  con:query(d.analyze_after_load(o.table))
end

function cleanup()
  opt_check()
  local con = connect()
  for _, sql in ipairs(dialect().drop_tables({ sysbench.opt.table })) do con:query(sql) end
end

-- check: the table holds --rows rows, ids 1..rows, categories in range.
local function check()
  opt_check()
  local o = sysbench.opt
  local con = connect()
  local n = tonumber(con:query_row(fmt("SELECT COUNT(*) FROM %s", o.table)))
  local lo = tonumber(con:query_row(fmt("SELECT MIN(id) FROM %s", o.table)))
  local hi = tonumber(con:query_row(fmt("SELECT MAX(id) FROM %s", o.table)))
  local bad = tonumber(con:query_row(fmt("SELECT COUNT(*) FROM %s WHERE category < 1 OR category > %d",
    o.table, o.categories)))
  print(fmt("check: %d rows, ids %s..%s, %d with a category outside 1..%d", n, tostring(lo), tostring(hi), bad,
    o.categories))
  if n ~= o.rows or lo ~= 1 or hi ~= o.rows or bad ~= 0 then
    print("check: FAILED (prepare with the same --rows and --categories)")
    return false
  end
  print("check: ok")
end

sysbench.cmdline.commands = { check = { check } }

local DISTINCT = luabench.stats.type("distinct")
local UPDATES = luabench.stats.type("updates")
local PAGE = luabench.stats.type("page")

local con, d
local st, b = {}, {}

-- The three statements of an event, in the server's dialect.
local function statements(dia, o)
  return {
    distinct = fmt("SELECT DISTINCT category FROM %s WHERE id BETWEEN ? AND ?", o.table),
    update = fmt("UPDATE %s SET amount = amount + ?, status = ? WHERE id = ?", o.table),
    page = dia.limit_offset(fmt("SELECT id, name, amount FROM %s WHERE category = ? ORDER BY id", o.table), o.page_size),
  }
end

-- Said before the run: what an event sends.
function sysbench.hooks.run_header()
  opt_check()
  local s = statements(dialect(), sysbench.opt)
  return fmt("composite: each event runs\n  %s\n  %s (x%d%s)\n  %s\n\n", s.distinct, s.update, sysbench.opt.updates,
    sysbench.opt.update_trx and ", in one transaction" or "", s.page)
end

function thread_init()
  opt_check()
  d = dialect()
  con = connect()
  local o, T = sysbench.opt, sysbench.sql.type
  local sql = statements(d, o)
  st.distinct = con:prepare(sql.distinct)
  b.lo, b.hi = st.distinct:bind_create(T.INT), st.distinct:bind_create(T.INT)
  st.distinct:bind_param(b.lo, b.hi)
  st.update = con:prepare(sql.update)
  b.delta, b.status, b.id = st.update:bind_create(T.INT), st.update:bind_create(T.INT), st.update:bind_create(T.INT)
  st.update:bind_param(b.delta, b.status, b.id)
  st.page = con:prepare(sql.page)
  b.cat, b.offset = st.page:bind_create(T.INT), st.page:bind_create(T.INT)
  st.page:bind_param(b.cat, b.offset)
end

function thread_done()
  for _, s in pairs(st) do s:close() end
  con:disconnect()
end

local function select_distinct(o)
  local span = (o.distinct_rows == 0 or o.distinct_rows > o.rows) and o.rows or o.distinct_rows
  local lo = uniform(1, o.rows - span + 1)
  b.lo:set(lo)
  b.hi:set(lo + span - 1)
  local t0 = DISTINCT:start()
  st.distinct:execute()
  DISTINCT:done(t0)
end

local function update_batch(o)
  if o.updates == 0 then return end
  -- In key order: two events locking rows in opposite orders would deadlock on a server
  local ids = {}
  for i = 1, o.updates do ids[i] = uniform(1, o.rows) end
  table.sort(ids)
  local t0 = UPDATES:start()
  if o.update_trx then con:query(d.begin) end
  for i = 1, o.updates do
    b.delta:set(uniform(0, 200) - 100)
    b.status:set(uniform(0, 9))
    b.id:set(ids[i])
    st.update:execute()
  end
  if o.update_trx then con:query(d.commit) end
  UPDATES:done(t0)
end

-- A random page of a random category: a category holds about rows / categories rows, so
-- pages 0 .. that / page_size - 1 have rows; OFFSET reads and skips the pages before.
local function page(o)
  local pages = math.max(1, math.floor(o.rows / o.categories / o.page_size))
  b.cat:set(uniform(1, o.categories))
  b.offset:set((uniform(1, pages) - 1) * o.page_size)
  local t0 = PAGE:start()
  st.page:execute()
  PAGE:done(t0)
end

function event()
  local o = sysbench.opt
  select_distinct(o)
  update_batch(o)
  page(o)
end
