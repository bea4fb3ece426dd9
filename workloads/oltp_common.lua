-- oltp_common: schema, data loading and the statement set shared by the oltp_* workloads.
-- Same options, schema, statements and per-event query mix as sysbench 1.0.20's OLTP scripts,
-- so results compare; `prepare` loads tables in parallel with a progress line and builds the
-- secondary indexes after the data.

if sysbench.cmdline.command == nil then
  error("Command is required. Supported commands: prepare, warmup, run, cleanup, help", 0)
end

sysbench.cmdline.options = {
  table_size = { "Number of rows per table", 10000 },
  range_size = { "Range size for range SELECT queries", 100 },
  tables = { "Number of tables", 1 },
  point_selects = { "Number of point SELECT queries per transaction", 10 },
  simple_ranges = { "Number of simple range SELECT queries per transaction", 1 },
  sum_ranges = { "Number of SELECT SUM() queries per transaction", 1 },
  order_ranges = { "Number of SELECT ORDER BY queries per transaction", 1 },
  distinct_ranges = { "Number of SELECT DISTINCT queries per transaction", 1 },
  index_updates = { "Number of UPDATE index queries per transaction", 1 },
  non_index_updates = { "Number of UPDATE non-index queries per transaction", 1 },
  delete_inserts = { "Number of DELETE/INSERT combinations per transaction", 1 },
  range_selects = { "Enable/disable all range SELECT queries", true },
  auto_inc = { "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs", true },
  skip_trx = { "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode", false },
  secondary = { "Use a secondary index in place of the PRIMARY KEY", false },
  create_secondary = { "Create a secondary index in addition to the PRIMARY KEY", true },
  create_table_options = { "Extra CREATE TABLE options", "", luabench = true },
  mysql_storage_engine = { "Storage engine, if MySQL is used", "innodb" },
  pgsql_variant = { "Use this PostgreSQL variant when running with the PostgreSQL driver. The only currently supported variant is 'redshift'. When enabled, create_secondary is automatically disabled, and delete_inserts is set to 0" },
  reconnect = { "Reconnect after every N events. The default (0) is to not reconnect", 0, luabench = true },
  pipeline = { "PostgreSQL pipeline mode: on = the SELECTs of a transaction go as one pipeline (one round trip); all = the whole transaction (BEGIN to COMMIT) as one pipeline; off = one statement at a time, as sysbench", "off", luabench = true },
}

local function groups(n)
  local t = {}
  for i = 1, n do t[i] = "###########" end
  return table.concat(t, "-")
end
local C_TEMPLATE = groups(10)   -- 119 characters, as sysbench's c
local PAD_TEMPLATE = groups(5)  -- 59 characters, as sysbench's pad

local opt -- sysbench.opt once options exist
local drv, con
local stmt, param = {}, {}
local events_done = 0

local function redshift()
  return opt.pgsql_variant == "redshift"
end

local function apply_variant()
  opt = sysbench.opt
  if redshift() then
    opt.create_secondary = false
    opt.delete_inserts = 0
  end
end

-- The server's SQL dialect (luabench.dialect); errors in one line when there is none.
local function dialect()
  local d, why = require("luabench.dialect").of(drv:name())
  if not d then error(why, 0) end
  return d
end

local PIPELINE_MODES = { off = true, on = true, all = true }

local function check_pipeline()
  if not PIPELINE_MODES[tostring(opt.pipeline)] then
    error(string.format("invalid --pipeline value '%s' (expected off, on or all)", tostring(opt.pipeline)), 0)
  end
  drv = drv or sysbench.sql.driver()
  if opt.pipeline ~= "off" and not drv:supports("pipeline") then
    error(string.format("--pipeline=%s needs PostgreSQL (--db-driver=pgsql); the %s driver cannot pipeline statements",
      opt.pipeline, drv:name()), 0)
  end
end

local function connect()
  drv = drv or sysbench.sql.driver()
  con = drv:connect()
  local session = require("luabench.dialect").of(drv:name())
  for _, sql in ipairs(session and session.session or {}) do con:query(sql) end
  return con
end

-- Schema ---------------------------------------------------------------------------------------

-- sysbench's text on PostgreSQL and MySQL; the dialect's key column and types elsewhere.
local function create_table_sql(n)
  local d = dialect()
  local id_def
  if not opt.auto_inc then
    id_def = "INTEGER NOT NULL"
  elseif redshift() then
    id_def = "INTEGER IDENTITY(1,1)"
  else
    id_def = d.serial
  end
  local key_def
  if not opt.secondary then
    key_def = ",\n  PRIMARY KEY (id)"
  elseif d.inline_keys then
    key_def = ",\n  KEY xid (id)"
  else
    key_def = "" -- created as an index after the load
  end
  local engine = d.inline_keys and ("/*! ENGINE = " .. opt.mysql_storage_engine .. " */ ") or ""
  return string.format([[
CREATE TABLE sbtest%d(
  id %s,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL%s
) %s%s]], n, id_def, key_def, engine, opt.create_table_options)
end

-- Progress of a parallel prepare (luabench.prepare): thread 0 prints the rows of all threads.
local progress
local prepare_lib = require("luabench.prepare")

-- A table being loaded carries this comment until its indexes are built: a prepare that was
-- interrupted leaves it, so run and the next prepare know (the comment costs nothing to set).
local LOADING = "luabench prepare: loading"

-- nil when table n does not exist, else whether its prepare did not finish.
local function half_loaded(n)
  if not prepare_lib.table_exists(con, "sbtest" .. n) then return nil end
  return con:query_row(dialect().comment("sbtest" .. n)) == LOADING
end

-- The rows of a half-loaded table. One thread loads a table in id order and each batch commits
-- whole, so it holds exactly ids 1..n, unless something changed it since.
local function loaded_rows(n)
  local t = "sbtest" .. n
  local max = tonumber(con:query_row(string.format("SELECT COALESCE(MAX(id), 0) FROM %s", t)))
  if tonumber(con:query_row("SELECT COUNT(*) FROM " .. t)) ~= max then
    error(string.format("table '%s' was changed after its prepare was interrupted (its ids are not 1..N " ..
      "any more): run 'cleanup', then 'prepare'", t), 0)
  end
  return max
end

-- Rows first .. last of table n; a resumed load gives the ids (so they continue the ones there),
-- and so does a server whose multi-row insert cannot number rows itself (Oracle's INSERT ALL).
local function insert_rows(n, first, last)
  local d = dialect()
  local explicit = not opt.auto_inc or first > 1 or not d.bulk_generates_keys
  local keys_on = explicit and opt.auto_inc and d.explicit_keys("sbtest" .. n, true)
  if keys_on then con:query(keys_on) end
  local bulk = d.bulk_insert(con, string.format("INSERT INTO sbtest%d(%sk, c, pad) VALUES", n, explicit and "id, " or ""))
  local rand = sysbench.rand
  local size = opt.table_size
  for i = first, last do
    local c, pad = rand.string(C_TEMPLATE), rand.string(PAD_TEMPLATE)
    if explicit then
      bulk:next(string.format("(%d, %d, '%s', '%s')", i, rand.default(1, size), c, pad))
    else
      bulk:next(string.format("(%d, '%s', '%s')", rand.default(1, size), c, pad))
    end
    if (i - first + 1) % 1000 == 0 then progress:add(1000) end
  end
  bulk:done()
  progress:add((last - first + 1) % 1000)
  if keys_on then con:query(d.explicit_keys("sbtest" .. n, false)) end
  if explicit and opt.auto_inc then d.restart_keys(con, "sbtest" .. n, "id") end
end

-- Creates index ix unless a resumed table has it already.
local function create_index(n, ix, cols, resumed)
  if resumed and con:query_row(dialect().index_exists("sbtest" .. n, ix)) then return end
  con:query(string.format("CREATE INDEX %s ON sbtest%d(%s)", ix, n, cols))
end

-- Loads table n with `rows` rows. A table left by an interrupted prepare is completed (rows,
-- then the indexes it lacks); a complete one is left as it is. sysbench fails on both.
local function load_table(n, rows)
  local t = "sbtest" .. n
  local half = half_loaded(n)
  if half == false then
    print(string.format("Table '%s' is already prepared: not loaded again", t))
    progress:add(rows)
    return
  end
  local have = 0
  if half then
    have = loaded_rows(n)
    print(string.format("Table '%s' holds %d of %d rows (an interrupted prepare): loading the rest", t, have, rows))
  else
    print(string.format("Creating table '%s'...", t))
    con:query(create_table_sql(n))
    con:query(dialect().set_comment(t, LOADING))
    if rows > 0 then
      print(string.format("Inserting %d records into '%s'", rows, t))
    end
  end
  progress:add(math.min(have, rows))
  if rows > have then insert_rows(n, have + 1, rows) end
  if opt.secondary and not dialect().inline_keys then
    create_index(n, "xid_" .. n, "id", half)
  end
  if opt.create_secondary then
    print(string.format("Creating a secondary index on '%s'...", t))
    create_index(n, "k_" .. n, "k", half)
  end
  con:query(dialect().set_comment(t, nil))
end

-- Before a run: a table whose prepare did not finish is named, never used silently.
local function check_tables()
  for n = 1, opt.tables do
    if half_loaded(n) then
      io.stderr:write(string.format("WARNING: table 'sbtest%d' is half loaded (its prepare was interrupted): " ..
        "run 'prepare' again, it completes the tables\n", n))
    end
  end
end

-- `prepare`: thread t loads tables t+1, t+1+threads, ... (as sysbench); rows per table may be
-- overridden by a workload (oltp_insert without auto_inc starts empty).
function cmd_prepare()
  apply_variant()
  local rows = prepare_rows and prepare_rows() or opt.table_size
  progress = require("luabench.prepare").new("oltp.prepare", rows * opt.tables)
  -- Connecting inside the pcall: a thread that cannot connect marks the load failed, so the
  -- others do not wait for it at the barrier forever.
  local ok, err = pcall(function()
    connect()
    for n = sysbench.tid + 1, opt.tables, sysbench.opt.threads do
      if progress:failed() then error("another loader thread failed", 0) end
      load_table(n, rows)
    end
  end)
  if not ok then
    progress:fail()
    -- the tables it leaves are completed by the next prepare
    if type(err) == "table" then err = err.sql_errmsg or err.message or tostring(err) end
    if err ~= "another loader thread failed" then err = err .. " (run 'prepare' again: it completes the tables)" end
    error(err, 0)
  end
  -- Thread 0 keeps reporting until every thread has finished its tables.
  if progress:barrier(1) and rows > 0 then progress:finish() end
end

-- `warmup` (alias `prewarm`): reads every table's rows and index into the buffer pool.
function cmd_warmup()
  apply_variant()
  connect()
  for n = sysbench.tid + 1, opt.tables, sysbench.opt.threads do
    local t = "sbtest" .. n
    print(string.format("Prewarming table %s", t))
    for _, sql in ipairs(dialect().warmup(t, opt.table_size)) do con:query(sql) end
  end
end

sysbench.cmdline.commands = {
  prepare = { cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND },
  warmup = { cmd_warmup, sysbench.cmdline.PARALLEL_COMMAND },
  prewarm = { cmd_warmup, sysbench.cmdline.PARALLEL_COMMAND },
}

function cleanup()
  apply_variant()
  connect()
  for n = 1, opt.tables do
    print(string.format("Dropping table 'sbtest%d'...", n))
    for _, sql in ipairs(dialect().drop_tables({ "sbtest" .. n })) do con:query(sql) end
  end
end

-- Statements -----------------------------------------------------------------------------------

local stmt_defs = {
  point_selects = { "SELECT c FROM sbtest%u WHERE id=?", "INT" },
  simple_ranges = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?", "INT", "INT" },
  sum_ranges = { "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?", "INT", "INT" },
  order_ranges = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", "INT", "INT" },
  distinct_ranges = { "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", "INT", "INT" },
  index_updates = { "UPDATE sbtest%u SET k=k+1 WHERE id=?", "INT" },
  non_index_updates = { "UPDATE sbtest%u SET c=? WHERE id=?", { "CHAR", 120 }, "INT" },
  deletes = { "DELETE FROM sbtest%u WHERE id=?", "INT" },
  inserts = { "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)", "INT", "INT", { "CHAR", 120 }, { "CHAR", 60 } },
}

local function prepare_for_table(key, t)
  local def = stmt_defs[key]
  local s = con:prepare(string.format(def[1], t))
  local ps = {}
  for i = 2, #def do
    local d = def[i]
    local name, len = type(d) == "table" and d[1] or d, type(d) == "table" and d[2] or nil
    ps[i - 1] = s:bind_create(sysbench.sql.type[name], len)
  end
  if #ps > 0 then s:bind_param(unpack(ps)) end
  stmt[t][key] = s
  param[t][key] = ps
end

function prepare_for_each_table(key)
  for t = 1, opt.tables do prepare_for_table(key, t) end
end

function prepare_begin()
  stmt.begin = con:prepare(dialect().begin)
end

function prepare_commit()
  stmt.commit = con:prepare(dialect().commit)
end

function prepare_point_selects() prepare_for_each_table("point_selects") end
function prepare_simple_ranges() prepare_for_each_table("simple_ranges") end
function prepare_sum_ranges() prepare_for_each_table("sum_ranges") end
function prepare_order_ranges() prepare_for_each_table("order_ranges") end
function prepare_distinct_ranges() prepare_for_each_table("distinct_ranges") end
function prepare_index_updates() prepare_for_each_table("index_updates") end
function prepare_non_index_updates() prepare_for_each_table("non_index_updates") end

function prepare_delete_inserts()
  -- The inserts give the id: where that needs SET IDENTITY_INSERT (one table per session).
  local keys_on = opt.auto_inc and dialect().explicit_keys("sbtest1", true)
  if keys_on and opt.delete_inserts > 0 then
    if opt.tables > 1 then
      error("the DELETE/INSERT statements give ids to an identity column, which this server allows for one table " ..
        "per session: use --tables=1 or --auto-inc=off (or --delete-inserts=0)", 0)
    end
    con:query(keys_on)
  end
  prepare_for_each_table("deletes")
  prepare_for_each_table("inserts")
end

function close_statements()
  for t = 1, opt.tables do
    for _, s in pairs(stmt[t] or {}) do s:close() end
    stmt[t] = {}
  end
  if stmt.begin then stmt.begin:close() end
  if stmt.commit then stmt.commit:close() end
end

local function reset_statement_tables()
  for t = 1, opt.tables do
    stmt[t], param[t] = {}, {}
  end
end

function thread_init()
  apply_variant()
  check_pipeline()
  connect()
  reset_statement_tables()
  -- Each workload defines prepare_statements() for the statements it runs.
  prepare_statements()
  events_done = 0
end

function thread_done()
  close_statements()
  con:disconnect()
end

function init()
  assert(event ~= nil, "this script is meant to be included by other OLTP scripts and should not be called directly.")
  -- Half-loaded tables are named before the run. A driver or server that is not there is
  -- reported by thread_init, as sysbench does.
  if sysbench.cmdline.command == "run" and sysbench.sql.driver_known() then
    apply_variant()
    if sysbench.sql._quietly(connect) then
      check_tables()
      con:disconnect()
      con = nil
    end
  end
end

-- Queries --------------------------------------------------------------------------------------

local rand = sysbench.rand

-- --pipeline: statements of the event go into `pipe` while it is open, else run at once.
local pipe

local function exec(s)
  if pipe then return pipe:execute(s) end
  return s:execute()
end

-- Opens this event's pipeline when --pipeline is `mode` ("all": before BEGIN, "on": after it).
function pipeline_open(mode)
  pipe = opt.pipeline == mode and con:pipeline() or nil
end

-- Runs the open pipeline, if any (its first failure is handled as a statement's would be).
function pipeline_run()
  local p = pipe
  if p then
    pipe = nil
    p:run()
  end
end

function get_table_num()
  return rand.uniform(1, opt.tables)
end

function get_id()
  return rand.default(1, opt.table_size)
end

-- For workloads with statements of their own.
function get_connection()
  return con
end

function get_c_value()
  return rand.string(C_TEMPLATE)
end

function get_pad_value()
  return rand.string(PAD_TEMPLATE)
end

function get_statement(t, key)
  return stmt[t][key], param[t][key]
end

function begin()
  exec(stmt.begin)
end

function commit()
  exec(stmt.commit)
end

function execute_point_selects()
  local t = get_table_num()
  local s, p = stmt[t].point_selects, param[t].point_selects[1]
  for _ = 1, opt.point_selects do
    p:set(get_id())
    exec(s)
  end
end

local function execute_range(key)
  local t = get_table_num()
  local s, ps = stmt[t][key], param[t][key]
  for _ = 1, opt[key] do
    local id = get_id()
    ps[1]:set(id)
    ps[2]:set(id + opt.range_size - 1)
    exec(s)
  end
end

function execute_simple_ranges() execute_range("simple_ranges") end
function execute_sum_ranges() execute_range("sum_ranges") end
function execute_order_ranges() execute_range("order_ranges") end
function execute_distinct_ranges() execute_range("distinct_ranges") end

function execute_index_updates()
  local t = get_table_num()
  local s, p = stmt[t].index_updates, param[t].index_updates[1]
  for _ = 1, opt.index_updates do
    p:set(get_id())
    exec(s)
  end
end

function execute_non_index_updates()
  local t = get_table_num()
  local s, ps = stmt[t].non_index_updates, param[t].non_index_updates
  for _ = 1, opt.non_index_updates do
    ps[1]:set_rand_str(C_TEMPLATE)
    ps[2]:set(get_id())
    exec(s)
  end
end

function execute_delete_inserts()
  local t = get_table_num()
  local ds, dp = stmt[t].deletes, param[t].deletes[1]
  local is, ip = stmt[t].inserts, param[t].inserts
  for _ = 1, opt.delete_inserts do
    local id = get_id()
    local k = get_id()
    dp:set(id)
    ip[1]:set(id)
    ip[2]:set(k)
    ip[3]:set_rand_str(C_TEMPLATE)
    ip[4]:set_rand_str(PAD_TEMPLATE)
    exec(ds)
    exec(is)
  end
end

-- Reconnects every --reconnect events (the statements are prepared again on the new session).
function check_reconnect()
  if opt.reconnect > 0 then
    events_done = events_done + 1
    if events_done % opt.reconnect == 0 then
      con:reconnect()
    end
  end
end

-- No before_restart_event ROLLBACK: luabench rolls a failed attempt's transaction back before
-- every retry, for every script (doc/scripting.md §4).
