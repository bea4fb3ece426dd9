-- sysbench.sql (luabench.sql): argument checks and error lines with the null driver, and the
-- values that come back from the real servers.
local h = require("helpers")

local function run(script, opts)
  local out, err, rc = h.run("- --verbosity=1 " .. opts, { stdin = script })
  assert.are.equal(0, rc, err)
  return out
end

describe("sysbench.sql", function()
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
      "ERR\tfalse\tSQL API error: query must be a string (got number)",
      "ERR\tfalse\tUnsupported argument type: 999",
      "ERR\tfalse\tSQL API error: execute() on a closed statement",
      "ERR\tfalse\tSQL API error: attempt to use an already closed connection",
      "ERR\tfalse\tfailed to initialize the DB driver: invalid database driver name: 'nosuch'",
    }, lines)
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
