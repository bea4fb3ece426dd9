-- sysbench.sql: drivers, connections, statements and result sets, with sysbench 1.0.20's
-- semantics (one live result set per connection, a NULL result for statements that return
-- none, error descriptors, RESTART_EVENT for ignorable errors), over the C driver layer.
local ffi = require("ffi")
sysbench._cdef("luabench.cdef_sql")
local C = ffi.C
local sb = sysbench
local worker = sb.worker

local OK, ESQL, ELOST, ECONNECT = C.LB_DB_OK, C.LB_DB_ESQL, C.LB_DB_ELOST, C.LB_DB_ECONNECT
local KIND_READ = C.LB_DB_KIND_READ
local RESTART_EVENT = sb.error.RESTART_EVENT

local sql = {}

sql.type = {
  NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5, DOUBLE = 6, TIME = 7,
  DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11, VARCHAR = 12,
}
sql.error = { NONE = 0, IGNORABLE = 1, FATAL = 2 }

local RESULT = ffi.typeof("struct lb_sql_result")
local PENDING = C.LB_DB_PENDING

-- Errors name the script's line that called into this module, whatever the depth of the calls
-- (and tail calls) in here: error() gets the level of the first caller that is neither this
-- module nor a C function (pcall), counted from raise() itself. Tables (RESTART_EVENT
-- descriptors) carry no position and skip the walk. The 0.5-style globals catch the error and
-- add their own position: their message then has none.
local getinfo = require("debug").getinfo -- (the global `debug` may be the --debug option)
local MODULE = getinfo(1, "S").source

local function raise(msg)
  local lvl = 2
  while true do
    local i = getinfo(lvl, "S")
    if not i then
      lvl = 0
      break
    end
    if i.what ~= "C" and i.source ~= MODULE and not i.source:find("sql_pipeline.lua", 1, true) then
      if i.source:find("sql_legacy.lua", 1, true) then lvl = 0 end
      break
    end
    lvl = lvl + 1
  end
  error(msg, lvl)
end

-- sysbench 1.0.20: "ALERT: attempt to use an already closed connection", then "SQL API error".
local CLOSED = "SQL API error: attempt to use an already closed connection"

-- A method called on something else than its object (con.query(42), drv.connect({})): one line
-- naming the script's call, instead of a nil handed to the C layer as a NULL pointer.
local api = require("luabench.api_check")
local is_a = api.is_a
local function check_self(self, class, name, on)
  if getmetatable(self) ~= class and not is_a(self, class) then
    raise(string.format("SQL API error: %s called on %s, not on %s (call it with ':')", name, type(self), on))
  end
end

-- Inside an emulated user's coroutine, statements run without blocking the worker: start,
-- park the user on the socket, and step when the scheduler wakes it. (U.current is -1 whenever
-- no user's coroutine runs, runner.lua: no coroutine.running(), which the JIT cannot compile.)
local function user_context()
  local U = sb._users
  if U and U.current >= 0 then return U end
end

-- One wait of the running user for its statement, and the step after it.
local function wait_step(U, rs, step)
  local i = U.current
  if C.lb_user_sched_wait_db(U.sched, i, rs.conn) ~= 0 then
    return step(worker, rs, 0)
  end
  -- The worker's loop steps the statement when the socket is ready and resumes the user with
  -- the answer (runner.lua): it runs compiled, where what follows a yield in here runs in the
  -- interpreter, which makes a C call cost hundreds of instructions.
  U.step_rs[i], U.step_fn[i] = rs, step
  local rc = coroutine.yield()
  return rc
end

-- sql: the statement's text, kept in U.waiting while the user waits for it, so a statement the
-- end of the run cuts off can be named (runner.lua). step: how to go on (lb_sql_step;
-- lb_sql_pipeline_step for a pipeline).
local function await(U, rs, rc, sql, step)
  step = step or C.lb_sql_step
  local i = U.current
  U.waiting[i] = sql
  -- Most statements take one wait: the loop is entered only for more (a loop the JIT enters
  -- in every statement, around a yield, keeps the statement's path from being compiled).
  rc = wait_step(U, rs, step)
  while rc == PENDING do rc = wait_step(U, rs, step) end
  U.waiting[i] = nil
  return rc
end

-- The same for an operation of the connection itself (connect, the driver's ROLLBACK): rc is
-- its start's answer; the user is parked until it is over.
local function park(U, conn, rc)
  while rc == PENDING do
    if C.lb_user_sched_wait_db(U.sched, U.current, conn) ~= 0 then
      rc = C.lb_db_step(conn, 0, nil)
    else
      rc = C.lb_db_step(conn, coroutine.yield(), nil)
    end
  end
  return rc
end

-- Waits `s` seconds inside an event: a user is parked, a thread sleeps.
local function backoff(s)
  local U = user_context()
  if U then
    C.lb_user_sched_sleep(U.sched, U.current, C.lb_clock_ns(worker) + s * 1e9)
    coroutine.yield()
  else
    C.lb_sleep_ns(s * 1e9)
  end
end

-- Calls attempt() until it returns true, waiting 1 ms doubling up to 1 s between the tries, for
-- --db-reconnect-timeout seconds and never past the end of the run; returns its last answer.
local function with_backoff(attempt)
  local deadline = C.lb_clock_ns(worker) + (tonumber(sb.opt.db_reconnect_timeout) or 60) * 1e9
  local delay = 0.001
  local ok, res = attempt()
  while not ok and C.lb_worker_stopping(worker) == 0 and C.lb_clock_ns(worker) + delay * 1e9 < deadline do
    backoff(delay)
    delay = math.min(delay * 2, 1)
    ok, res = attempt()
  end
  return ok, res
end

local function query_plain(rs, q)
  local U = user_context()
  if U then
    local rc = C.lb_sql_query_start(worker, rs, q, #q)
    return rc == PENDING and await(U, rs, rc, q) or rc
  end
  return C.lb_sql_query(worker, rs, q, #q)
end

local function execute_plain(rs, stmt, sql)
  local U = user_context()
  if U then
    local rc = C.lb_sql_execute_start(worker, rs, stmt)
    return rc == PENDING and await(U, rs, rc, sql) or rc
  end
  return C.lb_sql_execute(worker, rs, stmt)
end

-- --report-statements (like pgbench -r): every statement timed under its text, literals shown
-- as ? so that "... WHERE id = 42" and "... WHERE id = 7" are one statement. Decided once, here:
-- when off, run_query and run_execute are the plain functions (constant upvalues to the JIT),
-- and a run pays nothing for the option.
local function statement_text(q)
  -- 'it''s' is two quoted runs side by side: one ? once joined
  q = (" " .. q):gsub("'[^']*'", "?"):gsub("%?%?+", "?"):gsub("([^%w_.$])%-?%d+%.?%d*", "%1?"):gsub("%s+", " ")
  return (q:gsub("^ ", ""):gsub(" $", ""))
end

local function statement_timers()
  local ids = {}        -- normalized text -> id
  local raw, nraw = {}, 0 -- text as run -> id: prepared statements and texts without literals
  local clock, record = C.lb_clock_ns, C.lb_stmt_record
  local function id_of(q)
    local id = raw[q]
    if id then return id end
    local text = statement_text(q)
    id = ids[text]
    if not id then
      id = C.lb_stmt_define(worker, text, #text)
      ids[text] = id
    end
    -- texts with literals differ each time: the first few thousand are kept, then no more
    if nraw < 4096 then
      raw[q], nraw = id, nraw + 1
    end
    return id
  end
  local function timed_query(rs, q)
    local t0 = clock(worker)
    local rc = query_plain(rs, q)
    record(worker, id_of(q), t0, rc == OK and 1 or 0)
    return rc
  end
  local function timed_execute(rs, stmt, q)
    local t0 = clock(worker)
    local rc = execute_plain(rs, stmt, q)
    record(worker, id_of(q or "(prepared statement)"), t0, rc == OK and 1 or 0)
    return rc
  end
  return timed_query, timed_execute
end

local report_statements = worker ~= nil and C.lb_stmt_report_on(worker) ~= 0
local timed_query, timed_execute
if report_statements then timed_query, timed_execute = statement_timers() end
local run_query = report_statements and timed_query or query_plain
local run_execute = report_statements and timed_execute or execute_plain
sql._statement_text = statement_text -- (for its spec)

-- Result sets -----------------------------------------------------------------------------------

local result = {}

-- What a result method was called on: this module's results only (rs.fetch_row(other) would
-- otherwise hand the C layer whatever `other` holds).
local function result_self(rs, what)
  if not ffi.istype(RESULT, rs) then
    raise("SQL API error: " .. what .. "() called on " .. type(rs) .. ", not on a result set (use rs:" .. what .. "())")
  end
  if rs == nil then raise("SQL API error: " .. what .. "() on a NULL result (the statement returned no rows)") end
end

function result.fetch_row(rs)
  result_self(rs, "fetch_row")
  local c = rs.conn
  if c == nil then raise(CLOSED) end
  local row = rs.row
  if C.lb_db_fetch_row(c, row) <= 0 then return nil end
  local t = {}
  local values, lengths = row.values, row.lengths
  for i = 0, row.nfields - 1 do
    local v = values[i]
    if v ~= nil then t[i + 1] = ffi.string(v, lengths[i]) end
  end
  return t
end

-- Typed access (luabench): rs:next() moves to the next row without making a Lua string of
-- anything; rs:get(i) is the i-th value of that row as a Lua value: a number for integer,
-- decimal and floating-point columns, a boolean for BOOLEAN, a string for the rest, nil for
-- NULL, on a driver that knows its columns' types (duckdb); the others give every value as
-- the string fetch_row gives. rs:fetch_values() is fetch_row with typed values.
local cell = ffi.new("struct lb_db_value")
local V_INT, V_DOUBLE, V_BOOL, V_TEXT = C.LB_DB_VALUE_INT, C.LB_DB_VALUE_DOUBLE, C.LB_DB_VALUE_BOOL, C.LB_DB_VALUE_TEXT

-- The value lb_db_row_value() put in cell.
local function cell_value()
  local t = cell.type
  if t == V_INT then return tonumber(cell.i64) end
  if t == V_DOUBLE then return cell.f64 end
  if t == V_TEXT then return ffi.string(cell.str, cell.len) end
  if t == V_BOOL then return cell.i64 ~= 0 end
  return nil
end

function result.next(rs)
  result_self(rs, "next")
  local c = rs.conn
  if c == nil then raise(CLOSED) end
  return C.lb_db_next_row(c) > 0
end

function result.get(rs, i)
  result_self(rs, "get")
  local c = rs.conn
  if c == nil then raise(CLOSED) end
  if type(i) ~= "number" or i < 1 or i > rs.nfields or i % 1 ~= 0 then
    raise(string.format("SQL API error: get(%s): no such column (the result set has %d)", tostring(i), rs.nfields))
  end
  if C.lb_db_row_value(c, i - 1, cell) ~= OK then
    raise("SQL API error: get() without a current row (call next() first; after the last row there is none)")
  end
  return cell_value()
end

function result.fetch_values(rs)
  result_self(rs, "fetch_values")
  local c = rs.conn
  if c == nil then raise(CLOSED) end
  if C.lb_db_next_row(c) <= 0 then return nil end
  local t = {}
  for i = 0, rs.nfields - 1 do
    C.lb_db_row_value(c, i, cell)
    t[i + 1] = cell_value()
  end
  return t
end

function result.free(rs)
  result_self(rs, "free")
  if rs.conn == nil then raise(CLOSED) end
  if rs.freed ~= 0 then
    io.stderr:write("ALERT: attempt to free an invalid result set\n")
    raise("db_free_results() failed")
  end
  rs.freed = 1
  C.lb_db_free_result(rs.conn)
end

-- sysbench returns a NULL pointer for a statement that returns no rows (so `rs == nil`), and
-- reading rs.nrows from it ends the process. Here it is a result object of its own (no_rows = 1)
-- that compares equal to nil, and to a NULL pointer, while its fields answer: nrows and
-- affected_rows are the rows the statement changed. A pointer is compared as a pointer (no
-- metamethod), so only result objects are asked for no_rows.
local function nullish(v)
  if type(v) == "cdata" and ffi.typeof(v) == RESULT then return v.no_rows ~= 0 end
  return v == nil
end

ffi.metatype("struct lb_sql_result", {
  __index = result,
  __eq = function(a, b) return rawequal(a, b) or (nullish(a) and nullish(b)) end,
  __tostring = function() return "<sql_result>" end,
})
-- (for the API's own surface walk, tests/fuzz/surface.lua: an FFI object's methods)
sql._methods = result

-- The result of the statement that just ran on connection con (whose rs the C layer filled):
-- rs itself for a result set, else the connection's NULL result with the same counts.
local function outcome(con, rs)
  if rs.r.kind == KIND_READ then return rs end
  local none = con.none
  none.nrows, none.affected_rows, none.counter = rs.nrows, rs.affected_rows, rs.counter
  return none
end

-- Connections -----------------------------------------------------------------------------------

local Connection = {}
Connection.__index = Connection

local function last_error(con)
  local e = C.lb_db_conn_error(con.conn)
  con.error = e.error_class
  con.sql_errno = e.sql_errno
  con.sql_state = ffi.string(e.sqlstate)
  con.sql_errmsg = ffi.string(e.message)
  return e
end

local function short(q)
  q = tostring(q or "")
  return #q > 200 and q:sub(1, 200) .. "..." or q
end

-- The connection hook: on every new physical connection (thread mode, each connection of a
-- --users pool, pool growth) and after every reconnect, the driver's session settings (a
-- workload's, luabench.workload) and then the script's global connection_init(con) run on it,
-- so session state (isolation, search_path, sql_mode, lock timeouts) holds on every connection.
-- A statement of the hook that loses the connection again does not run the hook a second time.
local function connection_init(con)
  if con.initing then return end
  local setup = con.driver and con.driver._session
  local hook = rawget(_G, "connection_init")
  if not setup and type(hook) ~= "function" then return end
  con.initing = true
  local ok, err = pcall(function()
    if setup then setup(con) end
    if type(hook) == "function" then hook(con) end
  end)
  con.initing = false
  if not ok then error(err, 0) end
end

-- A connection lost under a user's statement, connected again with the user parked on each
-- attempt and between them (lb_sql_reconnect would block the worker's thread: its other users
-- would wait for the server's whole absence, their own connects in progress left half-open,
-- and a PostgreSQL shutting down waits for those, so a restart would last until the reconnect
-- gave up). Once the run is over a lost connection stays lost, as with lb_sql_reconnect.
local function reconnect_parked(U, conn)
  local rc = ECONNECT
  with_backoff(function()
    C.lb_db_disconnect(conn)
    if C.lb_worker_stopping(worker) ~= 0 then return true end
    rc = park(U, conn, C.lb_db_connect_start(conn))
    if rc == OK then rc = C.lb_sql_reconnected(worker, conn) end
    return rc == OK
  end)
  if rc ~= OK then C.lb_db_disconnect(conn) end
  return rc
end

-- A connection lost under a statement, connected again (its statements prepared again, the
-- reconnect counted, the connection hook run): the driver's answer.
local function reconnect_lost(con)
  local U = user_context()
  local rc
  if U then
    rc = reconnect_parked(U, con.conn)
  else
    rc = C.lb_sql_reconnect(worker, con.conn, 0)
  end
  if rc == OK then connection_init(con) end
  return rc
end

-- sysbench's check_error: ignorable errors (ignore lists, sql_error_ignorable hook, lost
-- connections after a successful reconnect) restart the event; anything else is fatal.
function Connection:check_error(rc, query)
  check_self(self, Connection, "check_error()", "a connection")
  if self.conn == nil then raise(CLOSED) end
  if type(rc) ~= "number" then
    raise("SQL API error: check_error(rc, query) needs the failed call's return code (got " .. api.show(rc) .. ")")
  end
  local e = last_error(self)
  local desc = { connection = self, query = query, sql_errno = self.sql_errno,
    sql_state = self.sql_state, sql_errmsg = self.sql_errmsg }
  if rc == ELOST then
    local again = reconnect_lost(self)
    if again ~= OK and C.lb_worker_stopping(worker) == 0 then
      last_error(self)
      raise(string.format("lost the connection and could not reconnect: %s", self.sql_errmsg))
    end
    desc.errcode = RESTART_EVENT
    error(desc)
  end
  if rc ~= ESQL then
    raise("SQL API error: " .. (self.sql_errmsg ~= "" and self.sql_errmsg or
      string.format("check_error(rc, query): return code %s is not an error", api.show(rc))))
  end
  local hook = sb.hooks.sql_error_ignorable
  if e.error_class == sql.error.IGNORABLE or (hook and hook(desc)) then
    desc.errcode = RESTART_EVENT
    error(desc)
  end
  -- a table that is not there (PostgreSQL 42P01, MySQL 1146): most often a missing prepare
  local hint = (self.sql_state == "42P01" or self.sql_errno == 1146) and sb.additions and
    " (does the table exist? did 'prepare' run with these options?)" or ""
  raise(string.format("SQL error, errno = %d, state = '%s': %s (query: %s)%s", self.sql_errno,
    self.sql_state, self.sql_errmsg, short(query), hint))
end

function Connection:query(q)
  check_self(self, Connection, "query()", "a connection")
  if self.conn == nil then raise(CLOSED) end
  if type(q) ~= "string" then raise("SQL API error: query must be a string (got " .. type(q) .. ")") end
  local rs = self.rs
  self.last_sql = q
  local rc = run_query(rs, q)
  if rc ~= OK then return self:check_error(rc, q) end
  return outcome(self, rs)
end

function Connection:query_row(q)
  check_self(self, Connection, "query_row()", "a connection")
  if self.conn ~= nil and type(q) ~= "string" then
    raise("SQL API error: query_row(query): query must be a string (got " .. type(q) .. ")")
  end
  local rs = self:query(q)
  if rs == nil then return nil end
  local row = rs:fetch_row()
  if row == nil then return nil end
  return unpack(row, 1, rs.nfields)
end

function Connection:bulk_insert_init(prefix)
  check_self(self, Connection, "bulk_insert_init()", "a connection")
  if self.conn == nil then raise(CLOSED) end
  if type(prefix) ~= "string" then raise("SQL API error: bulk_insert_init() needs the INSERT text (got " .. type(prefix) .. ")") end
  local rc = C.lb_db_bulk_insert_init(self.conn, prefix, #prefix)
  if rc ~= OK then return self:check_error(rc, prefix) end
  self.bulk = true
end

-- Rows of a bulk insert or a COPY go to the same buffer (lb_db_bulk_insert_next).
local function bulk_next(self, row, init, what)
  check_self(self, Connection, init .. "_next()", "a connection")
  if not self.bulk then
    io.stderr:write(string.format("ALERT: attempt to call %s_next() before %s_init()\n", init, init))
    raise((init == "bulk_insert" and "db_bulk_insert" or init) .. "_next() failed")
  end
  if self.conn == nil then raise(CLOSED) end
  if type(row) ~= "string" then
    raise("SQL API error: " .. init .. "_next() needs the row's text (got " .. api.show(row) .. ")")
  end
  local rc = C.lb_sql_bulk_next(worker, self.rs, row, #row)
  if rc ~= OK then return self:check_error(rc, what) end
end

local function bulk_done(self, what)
  check_self(self, Connection, what == "(copy)" and "copy_done()" or "bulk_insert_done()", "a connection")
  if not self.bulk then return end
  if self.conn == nil then raise(CLOSED) end
  self.bulk = false
  local rc = C.lb_sql_bulk_done(worker, self.rs)
  if rc ~= OK then return self:check_error(rc, what) end
end

function Connection:bulk_insert_next(row) return bulk_next(self, row, "bulk_insert", "(bulk insert)") end
function Connection:bulk_insert_done() return bulk_done(self, "(bulk insert)") end

-- luabench: COPY ... FROM STDIN (PostgreSQL), fed like a bulk insert with one row per call in
-- the statement's format. PostgreSQL streams them through one COPY ended by copy_done() (its
-- result and any row's error come there); LOAD DATA (MySQL) is one statement per full buffer.
function Connection:copy_init(sql)
  check_self(self, Connection, "copy_init()", "a connection")
  if self.conn == nil then raise(CLOSED) end
  if type(sql) ~= "string" then raise("SQL API error: copy_init() needs the COPY statement (got " .. type(sql) .. ")") end
  local rc = C.lb_db_copy_init(self.conn, sql, #sql)
  if rc ~= OK then return self:check_error(rc, sql) end
  self.bulk = true
end

function Connection:copy_next(row) return bulk_next(self, row, "copy", "(copy)") end
function Connection:copy_done() return bulk_done(self, "(copy)") end

function Connection:reconnect()
  check_self(self, Connection, "reconnect()", "a connection")
  if self.conn == nil then raise(CLOSED) end
  local rc = C.lb_sql_reconnect(worker, self.conn, 1)
  if rc ~= OK then
    last_error(self)
    raise("reconnect failed: " .. self.sql_errmsg)
  end
  connection_init(self)
end

-- Every later use of the connection, its statements or its result set raises CLOSED.
local forget -- defined with the transaction checks below

function Connection:disconnect()
  check_self(self, Connection, "disconnect()", "a connection")
  if self.conn ~= nil then
    forget(self)
    C.lb_db_conn_free(ffi.gc(self.conn, nil))
    self.conn = nil
    self.rs.conn, self.none.conn = nil, nil
    self.bulk = false
  end
end

-- Statements ------------------------------------------------------------------------------------

local Param = {}
Param.__index = Param

local INT_MAX_TYPE, DOUBLE_MAX_TYPE = sql.type.BIGINT, sql.type.DOUBLE

local function grow(p, n)
  if n > p.cap then
    p.cap = math.max(n, p.cap * 2)
    p.buf = ffi.new("char[?]", p.cap)
  end
end

function Param:set(v)
  check_self(self, Param, "set()", "a parameter from bind_create()")
  local s = self.slot
  if v == nil then
    s.is_null = 1
    return
  end
  s.is_null = 0
  local t = self.type
  if t <= DOUBLE_MAX_TYPE and type(v) ~= "number" and type(v) ~= "cdata" then
    raise("SQL API error: set() of a numeric parameter needs a number or nil (got " .. api.show(v) .. ")")
  end
  if t <= INT_MAX_TYPE then
    s.i64 = v
  elseif t <= DOUBLE_MAX_TYPE then
    s.f64 = v
  else
    -- Strings of any length: the buffer grows instead of truncating (sysbench cuts at max_len).
    v = tostring(v)
    local n = #v
    grow(self, n)
    ffi.copy(self.buf, v, n)
    s.str = self.buf
    s.len = n
  end
end

function Param:set_rand_str(fmt)
  check_self(self, Param, "set_rand_str()", "a parameter from bind_create()")
  if type(fmt) ~= "string" then raise("SQL API error: set_rand_str() needs a template string (got " .. type(fmt) .. ")") end
  local s = self.slot
  local n = #fmt
  grow(self, n)
  sb.rand.fill(fmt, self.buf, n)
  s.is_null = 0
  s.str = self.buf
  s.len = n
end

local Statement = {}
Statement.__index = Statement

local supported = { [1] = true, [2] = true, [3] = true, [4] = true, [5] = true, [6] = true,
  [11] = true, [12] = true }

-- A parameter owns its value (own[0], and buf for strings); every statement it is bound to
-- copies it into its own array right before each execution (see sync), so one parameter can feed
-- any number of statements and re-binding never leaves a parameter writing into a freed array.
function Statement:bind_create(t, max_len)
  if not supported[t] then raise("Unsupported argument type: " .. tostring(t)) end
  if max_len ~= nil and not (type(max_len) == "number" and max_len >= 0) then
    raise("SQL API error: bind_create(type [, max_len]): max_len must be a number of bytes (got " .. api.show(max_len) .. ")")
  end
  local own = ffi.new("struct lb_db_param[1]")
  own[0].type = t
  own[0].is_null = 1
  local cap = math.max(tonumber(max_len) or 0, 16)
  return setmetatable({ type = t, own = own, slot = own[0], cap = cap, buf = ffi.new("char[?]", cap) },
    Param)
end

-- The array the driver reads the values from (it keeps the pointer: the statement object keeps
-- the array), and the parameters that fill it.
local function param_array(...)
  local n = select("#", ...)
  local bound = { ... }
  for i = 1, n do
    if getmetatable(bound[i]) ~= Param then
      raise("SQL API error: bind_param() argument #" .. i .. " is not a parameter from bind_create()")
    end
  end
  local arr = ffi.new("struct lb_db_param[?]", n)
  for i = 1, n do arr[i - 1] = bound[i].slot end
  return arr, bound, n
end

-- The parameters' current values into the statement's array (a struct copy each; string bytes
-- stay in the parameter's buffer, which the parameter, kept by st.bound, keeps alive).
local function sync(st)
  local b = st.bound
  if b then
    local arr = st.params
    for i = 1, st.nparams do arr[i - 1] = b[i].slot end
  end
end

-- The driver keeps a pointer to the array it was last bound with; a bind that fails may leave it
-- on either the new array or the previous one, so both stay referenced until one succeeds.
local function keep_arrays(st, arr, bound, n)
  st.old_params, st.params, st.bound, st.nparams = st.params, arr, bound, n
end

function Statement:bind_param(...)
  check_self(self, Statement, "bind_param()", "a statement")
  if select("#", ...) == 0 then return nil end
  local con = self.connection
  if con.conn == nil then raise(CLOSED) end
  if self.stmt == nil then raise("SQL API error: bind_param() on a closed statement") end
  local arr, bound, n = param_array(...)
  keep_arrays(self, arr, bound, n)
  local rc = C.lb_db_stmt_bind(self.stmt, arr, n)
  if rc ~= OK then return con:check_error(rc, self.sql) end
  self.old_params = nil
end

function Statement:execute()
  check_self(self, Statement, "execute()", "a statement")
  local con = self.connection
  local stmt = self.stmt
  if con.conn == nil then raise(CLOSED) end
  if stmt == nil then raise("SQL API error: execute() on a closed statement") end
  sync(self)
  local rs = con.rs
  con.last_sql = self.sql
  local rc = run_execute(rs, stmt, self.sql)
  if rc ~= OK then return con:check_error(rc, self.sql) end
  return outcome(con, rs)
end

function Statement:close()
  check_self(self, Statement, "close()", "a statement")
  if self.stmt ~= nil then
    C.lb_db_stmt_free(ffi.gc(self.stmt, nil))
    self.stmt = nil
  end
end

function Connection:prepare(q)
  check_self(self, Connection, "prepare()", "a connection")
  if self.conn == nil then raise(CLOSED) end
  if type(q) ~= "string" then raise("SQL API error: prepare(query): query must be a string (got " .. type(q) .. ")") end
  local out = ffi.new("struct lb_db_stmt *[1]")
  local rc = C.lb_db_prepare(self.conn, q, #q, out)
  if rc ~= OK then return self:check_error(rc, q) end
  return setmetatable({ stmt = ffi.gc(out[0], C.lb_db_stmt_free), connection = self, sql = q },
    Statement)
end

-- Pipelines (sql_pipeline.lua) ------------------------------------------------------------------

local pipelines = require("luabench.sql_pipeline")({ worker = worker, raise = raise,
  user_context = user_context, await = await, sync = sync, CLOSED = CLOSED, check_self = check_self,
  Connection = Connection, reconnect_lost = reconnect_lost })
Connection.pipeline = pipelines.open

-- Drivers ---------------------------------------------------------------------------------------

local Driver = {}
Driver.__index = Driver

function Driver:name()
  check_self(self, Driver, "name()", "a driver from sysbench.sql.driver()")
  return self.driver_name
end

-- Whether the driver can do `feature` ("prepare", "copy", "copy_stream", "pipeline"): ask this
-- rather than the driver's name. An unknown feature name is an error, so a typo cannot read as
-- "not supported".
function Driver:supports(feature)
  check_self(self, Driver, "supports()", "a driver from sysbench.sql.driver()")
  local v = C.lb_sql_driver_supports(self.cfg, tostring(feature))
  if v < 0 then
    error(string.format("driver:supports(): unknown feature '%s' (known: prepare, copy, copy_stream, pipeline)",
      tostring(feature)), 2)
  end
  return v == 1
end

-- What the server calls itself when a driver reaches many kinds (odbc): --odbc-dialect when
-- given, else SQL_DBMS_NAME and version ("PostgreSQL 15.10") from a connection made to ask,
-- once per thread. The native drivers answer their own name. luabench.dialect maps it.
local dbms_seen = {}

function Driver:server_name()
  check_self(self, Driver, "server_name()", "a driver from sysbench.sql.driver()")
  if self.driver_name ~= "odbc" then return self.driver_name end
  local forced = ffi.string(C.lb_db_config_dialect(self.cfg))
  if forced ~= "" then return forced end
  if not dbms_seen[self.driver_name] then
    local con = self:connect_physical()
    local buf = ffi.new("char[128]")
    C.lb_db_conn_server_version(con.conn, buf, 128)
    dbms_seen[self.driver_name] = ffi.string(buf)
    con:disconnect()
  end
  return dbms_seen[self.driver_name]
end

local pooled_connect -- defined below
local remember -- defined with the transaction checks below

-- --logon=per-transaction, in a run's workers: every connection the script opens is pooled (also
-- without --users), and its session lasts one event (see the pool below).
local per_event
local function logon_per_event()
  if per_event == nil then
    per_event = sb.role == "worker" and type(sb.opt) == "table" and sb.opt.logon == "per-transaction"
  end
  return per_event
end

-- The sessions run workers opened, per thread (shared by every state): sql.logons().
local logons
local function count_logon()
  if sb.role ~= "worker" then return end
  logons = logons or sb.shared("luabench.sql.logons", "uint64_t", sb.threads)
  logons[sb.tid] = logons[sb.tid] + 1
end

function sql.logons(tid)
  if tid ~= nil and (type(tid) ~= "number" or tid % 1 ~= 0 or tid < 0 or tid >= sb.threads) then
    raise(string.format("sql.logons(): expected a thread number 0..%d (got %s)", sb.threads - 1, tostring(tid)))
  end
  local all = sb.shared("luabench.sql.logons", "uint64_t", sb.threads)
  if tid then return tonumber(all[tid]) end
  local n = 0
  for t = 0, sb.threads - 1 do n = n + tonumber(all[t]) end
  return n
end

function Driver:connect()
  check_self(self, Driver, "connect()", "a driver from sysbench.sql.driver()")
  if C.lb_users_here(worker) > 0 or logon_per_event() then return pooled_connect(self) end
  return self:connect_physical()
end

-- sysbench logs why a connection failed (sql._quietly: not for a probe whose failure is
-- reported later by the hook that connects for real).
local quiet = 0

function sql._quietly(fn, ...)
  quiet = quiet + 1
  local res = { pcall(fn, ...) }
  quiet = quiet - 1
  return unpack(res, 1, table.maxn(res))
end

function Driver:connect_physical()
  check_self(self, Driver, "connect_physical()", "a driver from sysbench.sql.driver()")
  local c = ffi.gc(C.lb_db_conn_new(self.cfg), C.lb_db_conn_free)
  local rc
  local U = user_context()
  if U then
    -- Connect without blocking the worker's other users (a blocking client library, odbc,
    -- runs its calls on a helper thread for that).
    C.lb_db_conn_set_offload(c, 1)
    rc = park(U, c, C.lb_db_connect_start(c))
  else
    rc = C.lb_sql_connect(worker, c)
  end
  if rc ~= OK then
    if quiet == 0 and C.lb_sql_connect_failure_logged(worker, c) ~= 0 then raise("connection creation failed") end
    local msg = ffi.string(C.lb_db_conn_error(c).message)
    raise("connection creation failed: " .. msg)
  end
  C.lb_sql_connected(worker, c)
  -- The result objects are cdata of their own (not pointers into the connection table), so a
  -- result the script keeps stays valid memory after its connection is collected; the
  -- connection's finalizer then marks them closed.
  local rs, none = RESULT(), RESULT()
  rs.conn, none.conn, none.no_rows = c, c, 1
  ffi.gc(c, function(p)
    rs.conn, none.conn = nil, nil
    C.lb_db_conn_free(p)
  end)
  local con = setmetatable({ conn = c, driver = self, rs = rs, none = none, error = 0,
    sql_errno = 0 }, Connection)
  remember(con)
  count_logon()
  connection_init(con)
  return con
end

-- Transactions left open ------------------------------------------------------------------------
-- A retried event must not commit what its failed attempt wrote: on MySQL the retry's BEGIN
-- would commit it, on PostgreSQL the retry would go on inside it. So before every retry the
-- worker's connections (with --users, the user's) roll back an open transaction: pgsql's
-- driver already did after a failed statement, this covers MySQL, errors made retryable by
-- sql_error_ignorable, and a script's own RESTART_EVENT. The ROLLBACK is the driver's, as
-- pgsql's: not counted as a query, its failure ignored (a lost session has no transaction).

local function rollback_open(c)
  local conn = c.conn
  if conn == nil or C.lb_db_conn_in_transaction(conn) == 0 then return end
  local U = user_context()
  if not U then
    C.lb_db_query(conn, "ROLLBACK", 8, nil)
    return
  end
  park(U, conn, C.lb_db_query_start(conn, "ROLLBACK", 8, nil))
end

-- One WARNING per worker: a script that does this does it in every event. Not when running as
-- sysbench, which prints nothing of the kind.
local warned = false
local function warn_open(c, what, outcome)
  if warned or not sb.additions then return end
  warned = true
  io.stderr:write(string.format("WARNING: %s inside an open transaction (last statement: %s); %s "
    .. "(further cases in this thread are not reported)\n", what, sb.escape(short(c.last_sql)), outcome))
end

-- The physical connections of this worker, for the checks around its events (an array with
-- holes, weak so that a connection the script drops is still collected and closed).
local live = setmetatable({}, { __mode = "v" })
local nlive = 0

remember = function(con)
  C.lb_worker_note_sessions(worker)
  for k = 1, nlive do
    if live[k] == nil then
      live[k] = con
      return
    end
  end
  nlive = nlive + 1
  live[nlive] = con
end

forget = function(con)
  for k = 1, nlive do
    if live[k] == con then live[k] = nil end
  end
end

-- The server monitor's request to publish (ffi_engine.h): every idle session of this worker
-- publishes its counters (PostgreSQL: pg_stat_force_next_flush), then the worker answers. false
-- when a session is in a transaction or a statement: it may hold locks another thread waits
-- for, so at the end of the loop the worker must not wait before closing it (run_threads.c).
local function publish_all()
  local all_idle = true
  for k = 1, nlive do
    local c = live[k]
    if c and c.conn ~= nil then
      if C.lb_sql_publish_stats(worker, c.conn) == 0 and C.lb_db_conn_in_transaction(c.conn) ~= 0 then
        all_idle = false
      end
    end
  end
  return all_idle
end

-- uncounted: 1 after a thread's event (its end is recorded after this), else nil
local function publish_if_asked(uncounted)
  local request = C.lb_worker_publish_due(worker)
  if request ~= 0 then
    publish_all()
    C.lb_worker_published(worker, request, uncounted or 0)
  end
end

-- Called by the event loop (runner.lua) in sysbench's mode; with --users the pool does both when
-- the user gives its connection back.
local log_off_thread -- (--logon=per-transaction, thread mode: defined with the pool below)

sb._sql_loop = {
  publish = publish_all,
  before_retry = function()
    for k = 1, nlive do
      local c = live[k]
      if c then rollback_open(c) end
    end
    log_off_thread()
  end,
  -- Left open, not rolled back: a script may batch several events into one transaction.
  after_event = function()
    for k = 1, nlive do
      local c = live[k]
      if c and c.conn ~= nil and C.lb_db_conn_in_transaction(c.conn) ~= 0 then
        warn_open(c, "an event ended", per_event and "it is rolled back as its session closes (--logon=per-transaction)"
          or "it stays open into the next event")
      end
    end
    publish_if_asked(1)
    log_off_thread()
  end,
}

-- Connection pool for emulated users ------------------------------------------------------------
-- With --users, drv:connect() returns a pooled connection: each statement runs on a physical
-- connection the current user borrows for the rest of its event (a transaction stays on one
-- session) and gives back when the event ends. Users beyond the pool's size wait their turn in
-- FIFO order; the wait is part of the event's latency. Statements prepared on a pooled
-- connection are prepared on each physical connection the first time they run there.

local pools = {} -- one per driver name in this worker

-- --logon=per-transaction: a connection's session is closed when its event ends (or thinks),
-- and the next event opens another; so the pool also serves threads (one connection each).
-- Closing drops the session's statements too: each is prepared again on the next session the
-- first time it runs there.
local function log_off(pool, c)
  for _, list in ipairs({ pool.all, pool.free }) do
    for k = #list, 1, -1 do
      if list[k] == c then table.remove(list, k) end
    end
  end
  c:disconnect()
  for ps in pairs(pool.stmts) do
    local st = ps.per[c]
    if st then
      ps.per[c] = nil
      st:close()
    end
  end
end

local thread_pools = {}
log_off_thread = function()
  for _, pool in ipairs(thread_pools) do
    for k = #pool.all, 1, -1 do
      local c = pool.all[k]
      rollback_open(c)
      log_off(pool, c)
    end
    pool.opened = 0
  end
end

-- The next waiting user (FIFO), or nil.
local function next_waiter(pool)
  if pool.whead > pool.wtail then return nil end
  local nexti = pool.waiters[pool.whead]
  pool.waiters[pool.whead] = nil
  pool.whead = pool.whead + 1
  return nexti
end

-- A connection slot freed by a closed session: to the next waiting user (held = false: it
-- opens a session of its own in the slot), else back to the pool's count.
local function pass_slot(pool)
  local nexti = next_waiter(pool)
  if nexti then
    pool.held[nexti] = false
    C.lb_user_sched_ready(sb._users.sched, nexti)
  else
    pool.opened = pool.opened - 1
  end
end

local function pool_for(drv)
  local name = drv.driver_name
  local pool = pools[name]
  if pool then return pool end
  local U = sb._users
  -- opened counts connections open or being opened (a connect parks its user: the slot is
  -- taken before, so concurrent users can't overshoot the pool's size)
  pool = { driver = drv, size = U and C.lb_users_pool_size(worker) or 1, opened = 0, all = {}, free = {},
    held = {}, waiters = {}, whead = 1, wtail = 0, logoff = logon_per_event(),
    stmts = setmetatable({}, { __mode = "k" }) }
  pools[name] = pool
  if not U then
    thread_pools[#thread_pools + 1] = pool
    return pool
  end
  -- why: "failed" (the attempt failed, or will be retried), "think" or nil (the event ended)
  U.release[#U.release + 1] = function(i, why)
    local c = pool.held[i]
    if not c or c.bulk then return end
    -- No connection goes back with a transaction open: the next user would write into it (and
    -- lose its work with the eventual rollback, or commit this user's).
    if why ~= "failed" and c.conn ~= nil and C.lb_db_conn_in_transaction(c.conn) ~= 0 then
      warn_open(c, why == "think" and "luabench.think() called" or "an event ended",
        "rolled back before the connection went back to the pool")
    end
    rollback_open(c)
    pool.held[i] = nil
    if not why then publish_if_asked() end
    if pool.logoff then
      log_off(pool, c)
      pass_slot(pool)
      return
    end
    local nexti = next_waiter(pool)
    if nexti then
      pool.held[nexti] = c
      C.lb_user_sched_ready(U.sched, nexti)
    else
      pool.free[#pool.free + 1] = c
    end
  end
  return pool
end

-- The running user's connection when it has one or one is free: no wait (nil otherwise).
local function acquire_now(pool, i)
  local c = pool.held[i]
  if c then return c end
  local n = #pool.free
  c = pool.free[n]
  if c then
    pool.free[n] = nil
    pool.held[i] = c
  end
  return c
end

-- A session opened inside an event (a user's, or --logon=per-transaction's): when the server
-- does not take it (restarting), it is tried again as a lost connection is reconnected, with
-- backoff (1 ms doubling up to 1 s) for --db-reconnect-timeout seconds, never past the end of
-- the run. A connect outside an event (thread_init) fails at once.
local function connect_in_event(drv)
  local function attempt() return pcall(drv.connect_physical, drv) end
  if user_context() or C.lb_event_start_ns(worker) >= 0 then return with_backoff(attempt) end
  return attempt()
end

-- A new session in a slot already counted in pool.opened.
local function open_in_slot(pool)
  local ok, res = connect_in_event(pool.driver)
  if not ok then
    if sb._users then pass_slot(pool) else pool.opened = pool.opened - 1 end
    -- refused until the end of the run (a server restarting then): the event is cut off, as
    -- one whose statement the end cut off, not failed
    if C.lb_worker_stopping(worker) ~= 0 then
      error({ errcode = RESTART_EVENT, query = "(connect)", sql_errmsg = tostring(res) })
    end
    error(res, 0)
  end
  pool.all[#pool.all + 1] = res
  return res
end

-- The physical connection for the running user (borrowing, or waiting for, one); outside a
-- user (thread_init, thread_done, a thread's event) any idle connection, used synchronously.
local function acquire(pool)
  local U = user_context()
  if not U then
    local c = pool.free[#pool.free] or pool.all[1]
    if not c then
      pool.opened = pool.opened + 1
      c = open_in_slot(pool)
      pool.free[1] = c
    end
    return c
  end
  local i = U.current
  local c = acquire_now(pool, i)
  if c then return c end
  if pool.opened < pool.size then
    pool.opened = pool.opened + 1
    c = open_in_slot(pool)
  end
  if not c then
    pool.wtail = pool.wtail + 1
    pool.waiters[pool.wtail] = i
    C.lb_user_sched_park(U.sched, i)
    coroutine.yield()
    c = pool.held[i]
    if c == false then
      pool.held[i] = nil
      c = open_in_slot(pool)
    end
  end
  pool.held[i] = c
  return c
end

local Pooled = {}
local POOLED_DEFAULTS = { error = 0, sql_errno = 0 }

Pooled.__index = function(t, k)
  local m = Pooled[k]
  if m ~= nil and k ~= "__index" then return m end
  -- rs, sql_errno, sql_state, ...: of the physical connection the running user holds (other
  -- users of this worker run statements while this one waits for the server), else of the one
  -- used last
  local U = user_context()
  local c = U and t.pool.held[U.current] or rawget(t, "last")
  if c then return c[k] end
  return POOLED_DEFAULTS[k]
end

local function on(pc)
  check_self(pc, Pooled, "a method of a pooled connection", "a connection")
  local c = acquire(pc.pool)
  rawset(pc, "last", c)
  return c
end

-- Session state set on a pooled connection outside an event (thread_init, user_init) reaches
-- the one physical connection the pool lent for it, not the others the users' events run on:
-- warned once per run (by the first thread), naming the statement and the hook that does it.
local session_warned = not sb.additions or sb.tid ~= 0
local function check_session_statement(q)
  if session_warned or type(q) ~= "string" then return end
  local U = user_context()
  if U and not U.in_user_init then return end -- inside an event: the script's own business
  local head = q:sub(1, 64):upper()
  if not (head:match("^%s*SET[%s@]") or head:match("^%s*ALTER%s+SESSION%s")) then return end
  session_warned = true
  io.stderr:write(string.format("WARNING: %s ran '%s' on a pooled connection: with --users it "
    .. "reaches one of the pool's connections only; set session state in connection_init(con), "
    .. "which runs on every new connection and after every reconnect\n",
    U and "user_init" or "thread_init", sb.escape(short(q))))
end

function Pooled:query(q)
  check_session_statement(q)
  return on(self):query(q)
end
function Pooled:query_row(q) return on(self):query_row(q) end
function Pooled:bulk_insert_init(p) return on(self):bulk_insert_init(p) end
function Pooled:bulk_insert_next(r) return on(self):bulk_insert_next(r) end
function Pooled:bulk_insert_done() return on(self):bulk_insert_done() end
function Pooled:copy_init(q) return on(self):copy_init(q) end
function Pooled:copy_next(r) return on(self):copy_next(r) end
function Pooled:copy_done() return on(self):copy_done() end
function Pooled:reconnect() return on(self):reconnect() end
function Pooled:disconnect() end
function Pooled:check_error(rc, q) return on(self):check_error(rc, q) end
-- The pipeline runs on the physical connection the user holds for the rest of its event.
function Pooled:pipeline() return pipelines.open(on(self)) end

local PooledStatement = {}
PooledStatement.__index = PooledStatement

function Pooled:prepare(q)
  check_self(self, Pooled, "prepare()", "a connection")
  local ps = setmetatable({ con = self, sql = q, per = {}, bind_create = Statement.bind_create }, PooledStatement)
  self.pool.stmts[ps] = true
  return ps
end

function PooledStatement:bind_param(...)
  check_self(self, PooledStatement, "bind_param()", "a statement")
  if select("#", ...) == 0 then return nil end
  keep_arrays(self, param_array(...))
  for c, st in pairs(self.per) do
    local rc = C.lb_db_stmt_bind(st.stmt, self.params, self.nparams)
    if rc ~= OK then return c:check_error(rc, self.sql) end
  end
  self.old_params = nil
end

local PARAM_SIZE = ffi.sizeof("struct lb_db_param")

-- The parameter objects belong to the worker's Lua state, shared by all its users: another user
-- may set them while this one waits (for a pool connection, or for the server while the driver
-- still needs the values). So a user executes with a private copy of the values it had set.
-- Before a wait for a connection it is a new one (kept until the statement is done);
local function early_params(arr, n)
  local priv = ffi.new("struct lb_db_param[?]", n)
  ffi.copy(priv, arr, PARAM_SIZE * n)
  local keep = {}
  for i = 0, n - 1 do
    local p = priv[i]
    if p.str ~= nil and p.is_null == 0 then
      keep[i] = ffi.string(p.str, p.len)
      p.str = keep[i]
    end
  end
  return priv, keep
end

-- else it goes into the array (and string buffers) of the statement prepared on the connection
-- the user holds: nobody else uses them until the user gives the connection back, so an
-- execution allocates nothing.
local function own_params(st, bound, n)
  local priv = st.priv
  if st.npriv ~= n then
    priv = ffi.new("struct lb_db_param[?]", n)
    st.priv, st.npriv, st.bufs = priv, n, {}
  end
  for k = 0, n - 1 do
    priv[k] = bound[k + 1].slot
    local p = priv[k]
    if p.str ~= nil and p.is_null == 0 then
      local len, buf = tonumber(p.len), st.bufs[k]
      if not buf or ffi.sizeof(buf) < len then
        buf = ffi.new("char[?]", math.max(len, 16))
        st.bufs[k] = buf
      end
      ffi.copy(buf, p.str, len)
      p.str = buf
    end
  end
  return priv
end

function PooledStatement:execute()
  check_self(self, PooledStatement, "execute()", "a statement")
  local U = user_context()
  local pc = self.con
  local c = U and acquire_now(pc.pool, U.current)
  local early, keep
  if c then
    rawset(pc, "last", c)
  else
    if self.bound then
      sync(self)
      if U then early, keep = early_params(self.params, self.nparams) end
    end
    c = on(pc)
  end
  local st = self.per[c]
  if not st then
    st = c:prepare(self.sql)
    self.per[c] = st
  end
  if self.bound then
    -- early and keep stay referenced until the statement is done: the driver may read them late
    local arr = early or (U and own_params(st, self.bound, self.nparams)) or self.params
    local rc = C.lb_db_stmt_bind(st.stmt, arr, self.nparams)
    if rc ~= OK then return c:check_error(rc, self.sql) end
  end
  local rs = c.rs
  c.last_sql = self.sql
  local rc = run_execute(rs, st.stmt, self.sql)
  early, keep = nil, nil
  if rc ~= OK then return c:check_error(rc, self.sql) end
  return outcome(c, rs)
end

function PooledStatement:close()
  check_self(self, PooledStatement, "close()", "a statement")
  for _, st in pairs(self.per) do st:close() end
  self.per = {}
end

-- Outside a user (thread_init) the pool's first connection opens at once: a wrong password or
-- database fails thread_init as it does in thread mode, instead of every user's first event.
-- With --logon=per-transaction it closes again: every event has a session of its own.
pooled_connect = function(drv)
  local pool = pool_for(drv)
  if not user_context() then
    local c = acquire(pool)
    if pool.logoff then
      log_off(pool, c)
      pool.opened = pool.opened - 1
    end
  end
  return setmetatable({ pool = pool, driver = drv }, Pooled)
end

local errbuf = ffi.new("char[512]")

-- Whether sql.driver(name) would succeed (no message either way).
function sql.driver_known(name)
  if name ~= nil and type(name) ~= "string" then
    raise("SQL API error: sysbench.sql.driver_known(name): name must be a driver's name (got " .. api.show(name) .. ")")
  end
  return C.lb_sql_driver_known(worker, name) ~= 0
end

function sql.driver(name)
  if name ~= nil and type(name) ~= "string" then
    raise("SQL API error: sysbench.sql.driver([name]): name must be a driver's name (got " .. api.show(name) .. ")")
  end
  local cfg = C.lb_sql_config(worker, name, errbuf, 512)
  if cfg == nil then
    local why = ffi.string(errbuf)
    raise("failed to initialize the DB driver" .. (why ~= "" and ": " .. why or ""))
  end
  return setmetatable({ cfg = cfg, driver_name = ffi.string(C.lb_sql_driver_name(cfg)) }, Driver)
end

return sql
