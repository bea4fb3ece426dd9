-- sysbench.sql (luabench.sql): argument checks and error lines with the null driver, and the
-- values that come back from the real servers.
local h = require("helpers")

local function run(script, opts)
  local out, err, rc = h.run("- --verbosity=1 " .. opts, { stdin = script })
  assert.are.equal(0, rc, err)
  return out
end

describe("sysbench.sql", function()
  it("names a statement for --report-statements by its text with literals as ?", function()
    local out = run([[
      local t = sysbench.sql._statement_text
      for _, q in ipairs({ "SELECT c FROM sbtest1 WHERE id=42", "UPDATE t SET a = 'it''s', b = -1.5 WHERE k IN (1, 2)",
                           "  SELECT  x1, t2.c3 FROM t2\n WHERE $1 = 7 ", "INSERT INTO h VALUES (1,'x'),(2,'y')" }) do
        print("TEXT", t(q))
      end
    ]], "--db-driver=null")
    local got = {}
    for l in out:gmatch("TEXT\t([^\n]*)") do got[#got + 1] = l end
    assert.are.same({ "SELECT c FROM sbtest1 WHERE id=?", "UPDATE t SET a = ?, b = ? WHERE k IN (?, ?)",
                      "SELECT x1, t2.c3 FROM t2 WHERE $1 = ?", "INSERT INTO h VALUES (?,?),(?,?)" }, got)
  end)

  it("driver_known says whether a driver answers to a name, without a message", function()
    local out, err, rc = h.run("- --verbosity=1 --db-driver=null", { stdin = [[
      print("KNOWN", sysbench.sql.driver_known(), sysbench.sql.driver_known("null"),
        sysbench.sql.driver_known("bogus"), sysbench.sql.driver_known(""))
    ]] })
    assert.are.equal(0, rc, err)
    assert.are.equal("KNOWN\ttrue\ttrue\tfalse\ttrue", out:match("KNOWN[^\n]*"))
    assert.are.equal("", err)
  end)

  it("the null driver answers everything, and misuse gets one clear line", function()
    local out = run([[
      local drv = sysbench.sql.driver()
      local con = drv:connect()
      local function try(f, ...) local ok, e = pcall(f, ...) print("ERR", ok, (tostring(e):gsub("^[^:]*:%d+: ", ""))) end
      print("NAME", drv:name())
      local rs = con:query("SELECT 1")
      print("RS", rs.nrows, rs.nfields, con:query_row("SELECT 1"))
      try(con.query, con, nil)
      try(con.prepare, con, 42)
      local st = con:prepare("SELECT ?")
      try(st.bind_create, st, 999)
      local p = st:bind_create(sysbench.sql.type.VARCHAR, 10)
      st:bind_param(p)
      p:set(string.rep("x", 100))
      st:execute()
      st:close()
      try(st.execute, st)
      con:disconnect()
      con:disconnect()
      try(con.query, con, "SELECT 1")
      try(sysbench.sql.driver, "nosuch")
    ]], "--db-driver=null")
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.are.same({
      "NAME\tnull",
      "RS\t0\t0\tnil",
      "ERR\tfalse\tSQL API error: query must be a string (got nil)",
      "ERR\tfalse\tSQL API error: prepare(query): query must be a string (got number)",
      "ERR\tfalse\tUnsupported argument type: 999",
      "ERR\tfalse\tSQL API error: execute() on a closed statement",
      "ERR\tfalse\tSQL API error: attempt to use an already closed connection",
      "ERR\tfalse\tfailed to initialize the DB driver: invalid database driver name: 'nosuch'",
    }, lines)
  end)

  describe("with the null driver, in this state", function()
    local sql = sysbench.sql
    local con
    before_each(function() con = sql.driver("null"):connect() end)
    after_each(function() con:disconnect() end)

    -- The error message of f(...) called from a Lua line of this file, without "path:line: ".
    local function err_of(f, ...)
      local args = { ... }
      local ok, e = pcall(function() local r = f(unpack(args)) return r end)
      assert.is_false(ok, "no error")
      assert.is_truthy(tostring(e):match("^[^:]*sql_spec%.lua:%d+: "), "not positioned at the caller: " .. tostring(e))
      return (tostring(e):gsub("^[^:]*:%d+: ", ""))
    end

    it("has sysbench's type and error constants", function()
      assert.are.same({ NONE = 0, TINYINT = 1, SMALLINT = 2, INT = 3, BIGINT = 4, FLOAT = 5, DOUBLE = 6,
        TIME = 7, DATE = 8, DATETIME = 9, TIMESTAMP = 10, CHAR = 11, VARCHAR = 12 }, sql.type)
      assert.are.same({ NONE = 0, IGNORABLE = 1, FATAL = 2 }, sql.error)
      assert.are.equal("null", con.driver:name())
    end)

    it("a statement that reads gives a result set, others the NULL result", function()
      for _, q in ipairs({ "SELECT 1", "select 1", "(SELECT 1) UNION (SELECT 2)", "  WITH x AS (SELECT 1) SELECT 1",
        "SHOW TABLES", "EXPLAIN SELECT 1", "VALUES (1)" }) do
        local rs = con:query(q)
        assert.is_false(rs == nil, q)
        assert.is_nil(rs:fetch_row(), q)
        rs:free()
      end
      for _, q in ipairs({ "BEGIN", "INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "COMMIT", "SELECTED" }) do
        assert.is_true(con:query(q) == nil, q)
      end
      assert.is_nil(con:query_row("SELECT 1"))
      assert.is_nil(con:query_row("DELETE FROM t"))
    end)

    it("misusing a result set fails in one line at the caller", function()
      local none = con:query("COMMIT")
      assert.are.equal("SQL API error: fetch_row() on a NULL result (the statement returned no rows)",
        err_of(none.fetch_row, none))
      assert.are.equal("SQL API error: free() on a NULL result (the statement returned no rows)",
        err_of(none.free, none))
      local rs = con:query("SELECT 1")
      rs:free()
      assert.are.equal("db_free_results() failed", err_of(rs.free, rs)) -- (after an ALERT line)
      rs = con:query("SELECT 1") -- the next statement's result can be freed again
      rs:free()
    end)

    it("rows of a bulk insert or a COPY need their init first; done without one does nothing", function()
      assert.are.equal("db_bulk_insert_next() failed", err_of(con.bulk_insert_next, con, "(1)"))
      assert.are.equal("copy_next() failed", err_of(con.copy_next, con, "1"))
      con:bulk_insert_done()
      con:copy_done()
      con:bulk_insert_init("INSERT INTO t VALUES ")
      con:bulk_insert_next("(1)")
      con:bulk_insert_next("(2)")
      con:bulk_insert_done()
      assert.are.equal("db_bulk_insert_next() failed", err_of(con.bulk_insert_next, con, "(3)"))
    end)

    it("parameters: only bind_create()'s, of the supported types", function()
      local st = con:prepare("SELECT ?, ?")
      for _, t in ipairs({ sql.type.NONE, sql.type.TIME, sql.type.DATE, sql.type.DATETIME, sql.type.TIMESTAMP, 13, "INT" }) do
        assert.are.equal("Unsupported argument type: " .. tostring(t), err_of(st.bind_create, st, t))
      end
      local p = st:bind_create(sql.type.BIGINT)
      assert.are.equal("SQL API error: bind_param() argument #2 is not a parameter from bind_create()",
        err_of(st.bind_param, st, p, 7))
      assert.are.equal("SQL API error: bind_param() argument #1 is not a parameter from bind_create()",
        err_of(st.bind_param, st, {}))
      assert.is_nil(st:bind_param())
      -- every supported type takes a value, nil, and strings any longer than max_len
      for _, t in ipairs({ 1, 2, 3, 4, 5, 6, 11, 12 }) do
        local q = st:bind_create(t, 2)
        st:bind_param(p, q)
        q:set(t <= 6 and 42 or string.rep("y", 1000))
        assert.is_false(st:execute() == nil)
        q:set(nil)
        assert.is_false(st:execute() == nil)
      end
      local s = st:bind_create(sql.type.CHAR, 4)
      s:set_rand_str("###-@@@-######")
      assert.are.equal(14, tonumber(s.slot.len))
      assert.is_truthy(ffi.string(s.slot.str, s.slot.len):match("^%d%d%d%-%l%l%l%-%d%d%d%d%d%d$"))
      s:set("abc")
      assert.are.equal("abc", ffi.string(s.slot.str, s.slot.len))
      assert.are.equal(0, s.slot.is_null)
      s:set(nil)
      assert.are.equal(1, s.slot.is_null)
      st:close()
      st:close()
      assert.are.equal("SQL API error: execute() on a closed statement", err_of(st.execute, st))
      assert.are.equal("SQL API error: bind_param() on a closed statement", err_of(st.bind_param, st, p))
    end)

    it("a closed connection refuses everything, its statements and result sets too", function()
      local st = con:prepare("SELECT 1")
      local rs = con:query("SELECT 1")
      con:reconnect() -- the null driver reconnects
      con:disconnect()
      local CLOSED = "SQL API error: attempt to use an already closed connection"
      assert.are.equal(CLOSED, err_of(con.query, con, "SELECT 1"))
      assert.are.equal(CLOSED, err_of(con.query_row, con, "SELECT 1"))
      assert.are.equal(CLOSED, err_of(con.prepare, con, "SELECT 1"))
      assert.are.equal(CLOSED, err_of(con.bulk_insert_init, con, "INSERT INTO t VALUES"))
      assert.are.equal(CLOSED, err_of(con.copy_init, con, "COPY t FROM STDIN"))
      assert.are.equal(CLOSED, err_of(con.reconnect, con))
      assert.are.equal(CLOSED, err_of(st.execute, st))
      assert.are.equal(CLOSED, err_of(st.bind_param, st, st:bind_create(sql.type.INT)))
      assert.are.equal(CLOSED, err_of(rs.fetch_row, rs))
      assert.are.equal(CLOSED, err_of(rs.free, rs))
    end)
  end)

  for _, name in ipairs(h.drivers) do
    it(name .. ": values, NULLs and prepared rows come back as strings and nil", function()
      local opts = h.db(name)
      if not opts then pending(name .. " sandbox server not running") return end
      local out = run([[
        local T = sysbench.sql.type
        local con = sysbench.sql.driver():connect()
        print("ROW", con:query_row("SELECT 42, 'a''b', NULL, 1.5"))
        local st = con:prepare("SELECT ? + 1, ?")
        local a, b = st:bind_create(T.INT), st:bind_create(T.VARCHAR, 4)
        st:bind_param(a, b)
        a:set(41)
        b:set("longer than four")
        local r = st:execute():fetch_row()
        print("PREP", r[1], r[2])
        b:set(nil)
        r = st:execute():fetch_row()
        print("NULL", r[2] == nil)
        local ok, e = pcall(con.query, con, "SELECT * FROM lbt_no_such_table")
        print("ERR", con.sql_state, con.error == sysbench.sql.error.FATAL)
        con:disconnect()
      ]], opts)
      assert.are.equal("ROW\t42\ta'b\tnil\t1.5", out:match("ROW[^\n]*"))
      assert.are.equal("PREP\t42\tlonger than four", out:match("PREP[^\n]*"))
      assert.are.equal("NULL\ttrue", out:match("NULL[^\n]*"))
      assert.are.equal(name == "pgsql" and "ERR\t42P01\ttrue" or "ERR\t42S02\ttrue", out:match("ERR[^\n]*"))
    end)
  end
end)
