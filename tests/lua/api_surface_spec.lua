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

  -- The walk runs in a directory of its own (a call given a name may make a file by it).
  local function walk(mode, args, env)
    local dir = h.tmpdir() .. "/walk-" .. mode
    os.execute("mkdir -p " .. h.q(dir))
    local out, err, rc = h.run(h.q(h.root .. "/tests/lua/api_surface_walk.lua") ..
      " --db-driver=null --events=1 --verbosity=1 " .. args .. " run",
      { env = "cd " .. h.q(dir) .. " && LB_WALK_DIR=" .. h.q(dir) .. " " .. (env or "") })
    assert.are.equal(0, rc, err)
    local w = {}
    for k, v in (out:match("\nWALK ([^\n]*)") or ""):gmatch("(%a+)=(%d+)") do w[k] = tonumber(v) end
    assert.is_truthy(w.reads, out)
    return w, out
  end

  for _, mode in ipairs({ { "threads", "" }, { "users", "--users=1" } }) do
    it("can be walked field by field and method by method, in every state, with " .. mode[1], function()
      local w, out = walk(mode[1], mode[2])
      -- 33 objects, ~260 names, twice (in event and in thread_done); every function of the API
      -- and every method with arguments of the wrong kind
      assert.are.equal(33, w.objects, out)
      assert.is_true(w.reads > 10000, out)
      assert.is_true(w.calls > 5000, out)
      assert.is_true(w.functions > 100, out)
      -- every error starts at the walk's own line, and an argument's names the call
      assert.are.equal(0, w.unnamed, out)
      assert.are.equal(0, w.unclear, out)
    end)
  end

  it("walks a function added to the API that nobody listed", function()
    -- the walk adds luabench.socket.walk_injected, which raises at its own level: reached, it
    -- is reported by name
    local w, out = walk("injected", "", "LB_WALK_INJECT=1 ")
    assert.is_true(w.unnamed > 0, out)
    assert.is_truthy(out:find("\nUNNAMED event luabench.socket.walk_injected%(%): an unchecked argument\n"), out)
  end)
end)
