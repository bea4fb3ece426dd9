-- The 0.5-style database globals of sysbench 1.0.20 (db_connect, db_query, ...), on top of
-- sysbench.sql. One implicit connection per thread, created on first use.
local sb = sysbench
local RESTART_EVENT = sb.error.RESTART_EVENT
local legacy = {}
local con
local api = require("luabench.api_check")

-- A statement handle from db_prepare(), else one line at the script's call.
local function stmt_of(call, st)
  if type(st) ~= "table" or type(st.stmt) ~= "table" then
    api.bad(call, "st must be a statement from db_prepare()", st)
  end
  return st
end

local function connection()
  if not con then
    local drv = sb.sql.driver()
    con = drv:connect()
    db_driver = drv:name()
  end
  return con
end

-- Ignorable errors restart the event; anything else fails with sysbench's message.
local function call(what, f, ...)
  local ok, res = pcall(f, ...)
  if ok then return res end
  if type(res) == "table" and res.errcode == RESTART_EVENT then
    error({ errcode = RESTART_EVENT }, 3)
  end
  local msg = type(res) == "table" and tostring(res.sql_errmsg) or tostring(res)
  -- sql.lua's own "<call>() failed" (bulk rows before the init) is not said twice
  if msg == what .. " failed" then error(msg, 3) end
  error(string.format("%s failed: %s", what, msg), 3)
end

function legacy.db_connect() connection() end

function legacy.db_disconnect()
  if con then con:disconnect() con = nil end
end

function legacy.db_query(q)
  local c = connection()
  local rs = call("db_query()", c.query, c, q)
  if rs ~= nil then rs:free() end
end

function legacy.db_bulk_insert_init(q) local c = connection() call("db_bulk_insert_init()", c.bulk_insert_init, c, q) end
function legacy.db_bulk_insert_next(r) local c = connection() call("db_bulk_insert_next()", c.bulk_insert_next, c, r) end
function legacy.db_bulk_insert_done() local c = connection() call("db_bulk_insert_done()", c.bulk_insert_done, c) end

function legacy.db_prepare(q)
  local c = connection()
  return { stmt = call("db_prepare()", c.prepare, c, q) }
end

-- The table's values are read again at every db_execute(), by position.
function legacy.db_bind_param(st, vars)
  stmt_of("db_bind_param(st, vars)", st)
  if type(vars) ~= "table" then api.bad("db_bind_param(st, vars)", "vars must be a table of values", vars) end
  st.vars = vars
  local params = {}
  for i = 1, #vars do
    local v = vars[i]
    local t = type(v) == "number" and (v == math.floor(v) and sb.sql.type.BIGINT or sb.sql.type.DOUBLE)
      or sb.sql.type.VARCHAR
    params[i] = st.stmt:bind_create(t, type(v) == "string" and #v or nil)
  end
  st.params = params
  call("db_bind_param()", st.stmt.bind_param, st.stmt, unpack(params))
end

function legacy.db_bind_result(st, vars)
  stmt_of("db_bind_result(st, vars)", st)
  if type(vars) ~= "table" then api.bad("db_bind_result(st, vars)", "vars must be a table", vars) end
  st.results = vars
end

function legacy.db_execute(st)
  stmt_of("db_execute(st)", st)
  for i, p in ipairs(st.params or {}) do p:set(st.vars[i]) end
  local rs = call("db_execute()", st.stmt.execute, st.stmt)
  if rs ~= nil and st.results then
    local row = rs:fetch_row()
    if row then for i = 1, #st.results do st.results[i] = row[i] end end
  end
  return rs
end

function legacy.db_store_results(rs) end
-- Through call() like the others: sql.lua leaves the position of its errors to this file.
function legacy.db_free_results(rs)
  if rs == nil then return end
  if type(rs) ~= "cdata" then api.bad("db_free_results(rs)", "rs must be a result from db_query() or db_execute()", rs) end
  call("db_free_results()", rs.free, rs)
end
function legacy.db_close(st) stmt_of("db_close(st)", st).stmt:close() end

return legacy
