-- rs.nrows and rs.affected_rows of every kind of statement (INSERT, UPDATE, DELETE, BEGIN,
-- COMMIT, SELECT; plain, prepared, emulated prepared, pipelined), on both sandbox servers
-- through their native drivers and through ODBC, with --threads and with --users (a pooled
-- connection). Reading them used to end the process (exit 139) for statements that return no
-- rows. Keeps to a table of its own (lbt_affected), so it runs beside the other specs.
local h = require("helpers")

local SCRIPT = [[
local function show(what, rs)
  print(string.format("AFF %s %d %d %s", what, rs.nrows, rs.affected_rows, tostring(rs == nil)))
end

function event()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS lbt_affected")
  con:query("CREATE TABLE lbt_affected (id INTEGER PRIMARY KEY, status CHAR(1))")
  show("insert", con:query("INSERT INTO lbt_affected VALUES (1, 'F'), (2, 'F'), (3, 'F'), (4, 'S')"))
  show("begin", con:query("BEGIN"))
  -- the optimistic update of doc/lua-api.md §1.3: did exactly one row change?
  local hold = con:prepare("UPDATE lbt_affected SET status = 'H' WHERE id = ? AND status = 'F'")
  local id = hold:bind_create(sysbench.sql.type.INT)
  hold:bind_param(id)
  id:set(1)
  show("hold", hold:execute())
  show("hold-again", hold:execute())
  show("commit", con:query("COMMIT"))
  show("update", con:query("UPDATE lbt_affected SET status = 'X' WHERE status = 'F'"))
  show("no-match", con:query("UPDATE lbt_affected SET status = 'Y' WHERE id = 99"))
  show("select", con:query("SELECT id FROM lbt_affected"))
  local ins = con:prepare("INSERT INTO lbt_affected VALUES (?, 'N')")
  local nid = ins:bind_create(sysbench.sql.type.INT)
  ins:bind_param(nid)
  nid:set(5)
  show("prepared-insert", ins:execute())
  show("delete", con:query("DELETE FROM lbt_affected WHERE id >= 3"))
  if sysbench.opt.pipeline then
    local p = con:pipeline()
    p:query("UPDATE lbt_affected SET status = 'P'")
    p:query("SELECT id FROM lbt_affected")
    p:query("DELETE FROM lbt_affected WHERE id = 1")
    local res = p:run()
    for i = 1, 3 do print(string.format("PIPE %d %d %d", i, res[i].nrows, res[i].affected_rows)) end
  end
  con:query("DROP TABLE lbt_affected")
end

sysbench.cmdline.options = { pipeline = { "pipeline statements too", false } }
]]

-- what, nrows, affected_rows, rs == nil
local WANT = {
  { "insert", 4, 4, true }, { "begin", 0, 0, true }, { "hold", 1, 1, true }, { "hold-again", 0, 0, true },
  { "commit", 0, 0, true }, { "update", 2, 2, true }, { "no-match", 0, 0, true }, { "select", 4, 0, false },
  { "prepared-insert", 1, 1, true }, { "delete", 3, 3, true },
}

local path = h.write("affected_rows.lua", SCRIPT)

h.each_driver("affected rows on %s", function(driver, db)
  local modes = { { "threads", "--threads=1" }, { "users", "--users=1 --threads=1" } }
  if driver == "pgsql" or driver == "mysql" then modes[#modes + 1] = { "emulated prepared statements", "--db-ps-mode=disable" } end
  for _, mode in ipairs(modes) do
    it("counts the rows of every statement with " .. mode[1], function()
      local extra = driver == "pgsql" and " --pipeline=on" or ""
      local out, err, rc = h.run(h.q(path) .. " " .. db .. " " .. mode[2] .. extra .. " --events=1 --verbosity=1 run")
      assert.are.equal(0, rc, err)
      for _, w in ipairs(WANT) do
        local line = string.format("AFF %s %d %d %s", w[1], w[2], w[3], tostring(w[4]))
        assert.is_truthy(out:find(line .. "\n", 1, true), "want '" .. line .. "' in:\n" .. out)
      end
      if driver == "pgsql" then
        -- the pipeline's UPDATE changed the 2 rows left, its SELECT read 2, its DELETE removed 1
        assert.is_truthy(out:find("PIPE 1 2 2\nPIPE 2 2 0\nPIPE 3 1 1\n", 1, true), out)
      end
    end)
  end
end, { "pgsql", "mysql", "odbc-pgsql", "odbc-mysql" })
