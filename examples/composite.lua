#!/usr/bin/env luabench
-- composite.lua: one SELECT DISTINCT, a batch of point UPDATEs and a paged query per event.
--
-- The transaction of a team's embedded-analytics benchmark: per request, a SELECT DISTINCT over
-- a slice of a table, 50 UPDATEs of random rows, and one page of a listing. On a 128-core ARM
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
  page_size = { "Rows per page of the paged query", 50, sysbench.cmdline.ARG_INT },
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

function prepare()
  opt_check()
  local o, d = sysbench.opt, dialect()
  local con = connect()
  print(fmt("Creating table '%s' and loading %d rows...", o.table, o.rows))
  con:query(fmt("CREATE TABLE %s (%s)%s", o.table, d.column_types(
    "id INTEGER NOT NULL, category INTEGER NOT NULL, status INTEGER NOT NULL, " ..
    "amount NUMERIC(12,2) NOT NULL, name VARCHAR(40) NOT NULL, PRIMARY KEY (id)"), d.table_options))
  local bulk = d.bulk_insert(con, fmt("INSERT INTO %s (id, category, status, amount, name) VALUES", o.table))
  local step = math.max(1, math.floor(o.rows / 10))
  for i = 1, o.rows do
    bulk:next(fmt("(%d, %d, %d, %d.%02d, '%s')", i, uniform(1, o.categories), uniform(0, 9),
      uniform(0, 99999), uniform(0, 99), sysbench.rand.string("item-@@@@@@@@-##########")))
    if i % step == 0 then print(fmt("  %d%%", math.floor(100 * i / o.rows + 0.5))) end
  end
  bulk:done()
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

function thread_init()
  opt_check()
  d = dialect()
  con = connect()
  local o, T = sysbench.opt, sysbench.sql.type
  st.distinct = con:prepare(fmt("SELECT DISTINCT category FROM %s WHERE id BETWEEN ? AND ?", o.table))
  b.lo, b.hi = st.distinct:bind_create(T.INT), st.distinct:bind_create(T.INT)
  st.distinct:bind_param(b.lo, b.hi)
  st.update = con:prepare(fmt("UPDATE %s SET amount = amount + ?, status = ? WHERE id = ?", o.table))
  b.delta, b.status, b.id = st.update:bind_create(T.INT), st.update:bind_create(T.INT), st.update:bind_create(T.INT)
  st.update:bind_param(b.delta, b.status, b.id)
  st.page = con:prepare(d.limit(fmt("SELECT id, name, amount FROM %s WHERE category = ? AND id >= ? ORDER BY id",
    o.table), o.page_size))
  b.cat, b.from = st.page:bind_create(T.INT), st.page:bind_create(T.INT)
  st.page:bind_param(b.cat, b.from)
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

local function page(o)
  b.cat:set(uniform(1, o.categories))
  b.from:set(uniform(1, o.rows))
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
