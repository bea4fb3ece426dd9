-- luabench: pipelined statements (PostgreSQL's pipeline mode) on sysbench.sql connections.
--   local p = con:pipeline()      open a pipeline on the connection
--   p:query(sql)  p:execute(stmt) queue statements (a statement's parameter values are taken now)
--   local res = p:run()           send the sync point, wait, and get one result per statement
-- See doc/lua-api.md §1.7 ("Pipelines"). sql.lua hands this module the pieces it needs.
local ffi = require("ffi")
local C = ffi.C

return function(env)
  local worker, raise, user_context, sync = env.worker, env.raise, env.user_context, env.sync
  local CLOSED, check_self, Connection = env.CLOSED, env.check_self, env.Connection
  local OK, ESQL, ELOST, PENDING = C.LB_DB_OK, C.LB_DB_ESQL, C.LB_DB_ELOST, C.LB_DB_PENDING
  local ENOTSUP = C.LB_DB_ENOTSUP

  local KINDS = { [0] = "none", "read", "write", "other", "error" }
  local STATUS = { [0] = "queued", "done", "failed", "aborted", "lost" }

  -- One result. Like a result set (one per connection, reused by every statement), the results
  -- table and its entries belong to the connection and are reused by its next pipeline, so a
  -- pipeline allocates nothing once the connection has run one as long. Rows are read from the
  -- connection on demand (valid until its next statement).
  local Result = {}
  Result.__index = Result

  function Result:fetch_row()
    check_self(self, Result, "fetch_row()", "a pipeline result")
    local con = self.connection
    if con.conn == nil then raise(CLOSED) end
    if self.kind ~= "read" or con.pipe_serial ~= self.serial then return nil end
    local row = con.rs.row
    if C.lb_db_pipeline_fetch_row(con.conn, self.index - 1, self.next_row, row) <= 0 then
      return nil
    end
    self.next_row = self.next_row + 1
    local t = {}
    local values, lengths = row.values, row.lengths
    for i = 0, row.nfields - 1 do
      local v = values[i]
      if v ~= nil then t[i + 1] = ffi.string(v, lengths[i]) end
    end
    return t
  end

  local Pipeline = {}
  Pipeline.__index = Pipeline

  local function check_open(p)
    check_self(p, Pipeline, "a pipeline method", "a pipeline from con:pipeline()")
    local con = p.connection
    if con.conn == nil then raise(CLOSED) end
    if not p.open then raise("SQL API error: this pipeline was already run (call con:pipeline() again)") end
    return con
  end

  local function queue_failed(con, rc, what)
    local e = C.lb_db_conn_error(con.conn)
    raise("SQL API error: " .. ffi.string(e.message) .. " (pipeline: " .. what .. ")")
  end

  function Pipeline:query(q)
    local con = check_open(self)
    if type(q) ~= "string" then raise("SQL API error: query must be a string (got " .. type(q) .. ")") end
    local rc = C.lb_db_pipeline_query(con.conn, q, #q)
    if rc ~= OK then queue_failed(con, rc, q) end
    local n = self.n + 1
    self.n, self.sqls[n] = n, q
    return n
  end

  -- stmt: from con:prepare() on this pipeline's connection, or from a pooled connection (it is
  -- prepared on the physical connection the pipeline runs on when needed).
  function Pipeline:execute(stmt)
    local con = check_open(self)
    if type(stmt) ~= "table" or (stmt.stmt == nil and stmt.per == nil) then
      raise("SQL API error: execute(stmt) needs a statement from con:prepare() (got " ..
        require("luabench.api_check").show(stmt) .. ")")
    end
    local handle = stmt.stmt
    if stmt.per then -- a pooled statement: its statement on this physical connection
      sync(stmt)
      local st = stmt.per[con]
      if not st then
        st = con:prepare(stmt.sql)
        stmt.per[con] = st
      end
      if stmt.params then
        local rc = C.lb_db_stmt_bind(st.stmt, stmt.params, stmt.nparams)
        if rc ~= OK then return con:check_error(rc, stmt.sql) end
      end
      handle = st.stmt
    else
      if stmt.connection ~= con then
        raise("SQL API error: pipeline:execute() with a statement of another connection")
      end
      if handle == nil then raise("SQL API error: execute() on a closed statement") end
      sync(stmt)
    end
    local rc = C.lb_db_pipeline_execute(handle)
    if rc ~= OK then queue_failed(con, rc, stmt.sql) end
    local n = self.n + 1
    self.n, self.sqls[n] = n, stmt.sql
    return n
  end

  -- Leaves the pipeline without running it (what was already sent is discarded).
  function Pipeline:abort()
    check_self(self, Pipeline, "abort()", "a pipeline from con:pipeline()")
    if self.open then
      self.open = false
      if self.connection.conn ~= nil then C.lb_db_pipeline_abort(self.connection.conn) end
    end
  end

  local function run_rc(rs)
    local U = user_context()
    if not U then return C.lb_sql_pipeline_run(worker, rs) end
    local rc = C.lb_sql_pipeline_start(worker, rs)
    return rc == PENDING and env.await(U, rs, rc, "(pipeline)", C.lb_sql_pipeline_step) or rc
  end

  local new_table = require("table.new")

  -- Describes the failed, aborted or lost statement r (cold path).
  local function explain(r, it, conn, failed)
    if it.status == 4 then
      r.sql_errmsg = "not answered: the connection was lost (" .. ffi.string(C.lb_db_conn_error(conn).message) .. ")"
    elseif r.index == failed then
      local e = C.lb_db_conn_error(conn)
      r.error, r.sql_state, r.sql_errmsg = e.error_class, ffi.string(e.sqlstate), ffi.string(e.message)
    elseif it.status == 3 then
      r.sql_errmsg = string.format("aborted by the pipeline: statement %d failed", failed)
    end
  end

  local function results(p, con)
    local conn = con.conn
    local serial = (con.pipe_serial or 0) + 1
    con.pipe_serial = serial
    local n, sqls = p.n, p.sqls
    local failed = C.lb_db_pipeline_failed(conn) + 1
    local out = con.pipe_results
    if not out then
      out = new_table(n, 0)
      con.pipe_results = out
    end
    for i = 1, n do
      local it = C.lb_db_pipeline_result(conn, i - 1)
      local k = it.r.kind
      local r = out[i]
      if not r then
        r = setmetatable({ connection = con, index = i }, Result)
        out[i] = r
      end
      r.serial, r.next_row, r.sql = serial, 0, sqls[i]
      r.status, r.kind, r.nfields = STATUS[it.status], KINDS[k], it.r.nfields
      if k == 1 then
        r.nrows, r.affected_rows = tonumber(it.r.nrows), 0
      else
        local a = tonumber(it.r.affected_rows)
        r.nrows, r.affected_rows = a, a
      end
      if r.sql_errmsg then r.error, r.sql_state, r.sql_errmsg = nil, nil, nil end
      if it.status ~= 1 then explain(r, it, conn, failed) end
    end
    for i = n + 1, #out do out[i] = nil end
    return out
  end

  -- opts.errors = "return": failures are only reported in the results (a lost connection is
  -- reconnected first). Otherwise the first failure is handled as con:query() handles one:
  -- ignorable errors restart the event, others end the run with the statement's text.
  function Pipeline:run(opts)
    local con = check_open(self)
    self.open = false
    local rc = run_rc(con.rs)
    if rc == OK then return results(self, con) end
    if rc ~= ESQL and rc ~= ELOST then
      return con:check_error(rc, "(pipeline)")
    end
    local give_back = opts and opts.errors == "return"
    if give_back then
      local res = results(self, con)
      if rc == ELOST then
        local again = env.reconnect_lost(con)
        if again ~= OK and C.lb_worker_stopping(worker) == 0 then
          raise("lost the connection and could not reconnect: " ..
            ffi.string(C.lb_db_conn_error(con.conn).message))
        end
      end
      return res
    end
    local failed = C.lb_db_pipeline_failed(con.conn) + 1
    local what = failed > 0 and string.format("%s [pipeline statement %d of %d]",
      self.sqls[failed], failed, self.n) or string.format("(pipeline of %d statements)", self.n)
    return con:check_error(rc, what)
  end

  -- con:pipeline() on a physical connection: its one pipeline object, reset (a pipeline left
  -- open by an error is dropped).
  local function open(con)
    check_self(con, Connection, "pipeline()", "a connection")
    if con.conn == nil then raise(CLOSED) end
    local p = con.pipeline_obj
    if p and p.open then p:abort() end
    local rc = C.lb_db_pipeline_begin(con.conn)
    if rc ~= OK then
      if rc == ENOTSUP then
        raise("SQL API error: " .. ffi.string(C.lb_db_conn_error(con.conn).message))
      end
      return con:check_error(rc, "(pipeline)")
    end
    if not p then
      p = setmetatable({ connection = con, sqls = {} }, Pipeline)
      con.pipeline_obj = p
    end
    p.open, p.n = true, 0
    return p
  end

  return { open = open, Pipeline = Pipeline }
end
