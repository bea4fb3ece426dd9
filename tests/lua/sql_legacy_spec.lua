-- The 0.5-style database functions (db_connect, db_query, ...; luabench.sql_legacy), run as an
-- old script would.
local h = require("helpers")

describe("0.5-style database functions", function()
  it("a 0.5-style script runs its statements through the legacy functions", function()
    local path = h.write("legacy.lua", [[
      function thread_init()
        db_connect()
        stmt = db_prepare("SELECT ?")
        params = { 1 }
        db_bind_param(stmt, params)
      end
      function event()
        db_query("BEGIN")
        params[1] = sb_rand_uniform(1, 100)
        local rs = db_execute(stmt)
        db_free_results(rs)
        db_bulk_insert_init("INSERT INTO t VALUES")
        db_bulk_insert_next("(1)")
        db_bulk_insert_done()
        db_query("COMMIT")
      end
      function thread_done()
        db_close(stmt)
        db_disconnect()
      end
    ]])
    local out, err, rc = h.run(path .. " --db-driver=null --events=50 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    local j = h.json(out)
    assert.are.equal(50, j.counters.events)
    assert.is_true(j.counters.queries >= 150, "queries: " .. tostring(j.counters.queries))
  end)

  it("binds by position from the table, fills results, and fails in one line naming the call", function()
    local out, err, rc = h.run("- --verbosity=1 --db-driver=null", { stdin = [[
      local function try(f, ...)
        local args = { ... }
        local ok, e = pcall(function() f(unpack(args)) end)
        print("ERR", ok, e)
      end
      print("LAZY", package.loaded["luabench.sql_legacy"] == nil, db_driver)
      db_connect()
      print("DRIVER", db_driver)
      local st = db_prepare("SELECT ?, ?, ?")
      local vars, res = { 7, 2.5, "abc" }, {}
      db_bind_param(st, vars)
      print("TYPES", st.params[1].type, st.params[2].type, st.params[3].type)
      db_bind_result(st, res)
      vars[1], vars[3] = 8, "a longer string than the first"
      local rs = db_execute(st)
      print("EXEC", rs == nil, st.params[1].slot.i64 == 8,
        ffi.string(st.params[3].slot.str, st.params[3].slot.len), #res)
      db_store_results(rs)
      db_free_results(rs)
      try(db_free_results, rs)
      print("WRITE", db_execute(db_prepare("UPDATE t SET a = 1")) == nil)
      db_free_results(nil)
      try(db_query, nil)
      try(db_bulk_insert_next, "(1)")
      db_close(st)
      try(db_execute, st)
      local st2 = db_prepare("SELECT ?")
      db_disconnect()
      try(db_bind_param, st2, { 1 })
      db_disconnect()
      db_disconnect()
      db_query("SELECT 1") -- connects again
      print("AGAIN", db_driver)
    ]] })
    assert.are.equal(0, rc, err)
    local lines = {}
    for l in out:gmatch("[^\n]+") do if l:match("^%u+\t") then lines[#lines + 1] = l end end
    assert.are.same({
      "LAZY\ttrue\tnil",
      "DRIVER\tnull",
      "TYPES\t4\t6\t12",
      "EXEC\tfalse\ttrue\ta longer string than the first\t0",
      "ERR\tfalse\tstdin:3: db_free_results() failed",
      "WRITE\ttrue",
      "ERR\tfalse\tstdin:3: db_query() failed: SQL API error: query must be a string (got nil)",
      -- (sql.lua's own "db_bulk_insert_next() failed" is not repeated after the call's name)
      "ERR\tfalse\tstdin:3: db_bulk_insert_next() failed",
      "ERR\tfalse\tstdin:3: db_execute() failed: SQL API error: execute() on a closed statement",
      "ERR\tfalse\tstdin:3: db_bind_param() failed: SQL API error: attempt to use an already closed connection",
      "AGAIN\tnull",
    }, lines)
    assert.is_truthy(err:find("ALERT: attempt to call bulk_insert_next() before bulk_insert_init()", 1, true), err)
  end)

  it("a legacy call on an unknown driver fails in one line naming the call", function()
    local path = h.write("legacy_bad.lua", "function event() db_query('SELECT 1') end\n")
    local _, err, rc = h.run(path .. " --db-driver=nosuch --events=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("invalid database driver name: 'nosuch'", 1, true), err)
  end)
end)
