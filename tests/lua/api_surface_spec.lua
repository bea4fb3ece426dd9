-- No script can crash luabench through the objects of its Lua API: reading rs.nrows on the NULL
-- result of an UPDATE used to end the process (exit 139), even inside pcall. The regression
-- itself with its documented values, then the whole surface walked (api_surface_walk.lua) on
-- the null driver, with --threads and with --users: the process ends normally, and every error
-- a misuse raises names the script's line.
local h = require("helpers")

local function run(script, opts)
  local out, err, rc = h.run(h.q(h.write("surface.lua", script)) .. " --db-driver=null --events=1 --verbosity=1 " ..
    (opts or "") .. " run")
  assert.are.equal(0, rc, err)
  return out
end

describe("the Lua API's objects", function()
  it("answer nrows and affected_rows on the NULL result of a statement that returns no rows", function()
    local out = run([[
function event()
  local con = sysbench.sql.driver():connect()
  local rs = con:query("UPDATE t SET a = 1 WHERE id = 1")
  print("UPDATE", rs == nil, rs ~= nil, not rs, rs.nrows, rs.affected_rows, rs.nfields, tostring(rs))
  print("BEGIN", con:query("BEGIN").nrows, con:query("COMMIT").affected_rows)
  local st = con:prepare("DELETE FROM t WHERE id = ?")
  local id = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(id)
  id:set(1)
  local ex = st:execute()
  print("EXECUTE", ex == nil, ex.nrows, ex.affected_rows)
  local sel = con:query("SELECT 1")
  print("SELECT", sel == nil, sel.nrows, sel.affected_rows)
  print("FETCH", select(2, pcall(rs.fetch_row, rs)))
  sel:free()
  print("FREED", sel.nrows, sel.nfields, sel.freed)
  con:disconnect()
  print("CLOSED", rs.nrows, rs.affected_rows, sel.nrows, select(2, pcall(sel.fetch_row, sel)))
  print("NOT A RESULT", select(2, pcall(sel.fetch_row, con)))
  local kept = sysbench.sql.driver():connect():query("SELECT 1")
  collectgarbage()
  collectgarbage()
  print("COLLECTED", kept.nrows, select(2, pcall(kept.fetch_row, kept)))
end
]], "")
    out = out:gsub("[^\t\n]*/surface%.lua:", "surface.lua:")
    local script = "surface.lua:"
    assert.is_truthy(out:find("UPDATE\ttrue\tfalse\tfalse\t1\t1\t0\t<sql_result>\n", 1, true), out)
    assert.is_truthy(out:find("BEGIN\t0\t0\n", 1, true), out)
    assert.is_truthy(out:find("EXECUTE\ttrue\t1\t1\n", 1, true), out)
    assert.is_truthy(out:find("SELECT\tfalse\t0\t0\n", 1, true), out)
    assert.is_truthy(out:find("FETCH\t" .. script .. "14: SQL API error: fetch_row() on a NULL result (the statement returned no rows)\n", 1, true), out)
    assert.is_truthy(out:find("FREED\t0\t0\t1\n", 1, true), out)
    assert.is_truthy(out:find("CLOSED\t1\t1\t0\t" .. script .. "18: SQL API error: attempt to use an already closed connection\n", 1, true), out)
    assert.is_truthy(out:find("NOT A RESULT\t" .. script .. "19: SQL API error: fetch_row() called on table, not on a result set", 1, true), out)
    assert.is_truthy(out:find("COLLECTED\t0\t" .. script .. "23: SQL API error: attempt to use an already closed connection\n", 1, true), out)
  end)

  for _, mode in ipairs({ { "threads", "" }, { "users", "--users=1" } }) do
    it("can be walked field by field and method by method, in every state, with " .. mode[1], function()
      local dir = h.tmpdir() .. "/walk-" .. mode[1]
      os.execute("mkdir -p " .. h.q(dir))
      local out, err, rc = h.run(h.q(h.root .. "/tests/lua/api_surface_walk.lua") ..
        " --db-driver=null --events=1 --verbosity=1 " .. mode[2] .. " run", { env = "LB_WALK_DIR=" .. h.q(dir) .. " " })
      assert.are.equal(0, rc, err)
      local reads, calls, unnamed, objects = out:match("WALK reads=(%d+) calls=(%d+) unnamed=(%d+) objects=(%d+)")
      assert.is_truthy(reads, out)
      -- 28 objects, ~200 names, twice (in event and in thread_done)
      assert.are.equal("28", objects)
      assert.is_true(tonumber(reads) > 10000, out)
      assert.is_true(tonumber(calls) > 800, out)
      assert.are.equal("0", unnamed, out)
    end)
  end
end)
