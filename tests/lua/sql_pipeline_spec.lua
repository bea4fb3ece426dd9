-- luabench.sql_pipeline (con:pipeline()) on the null driver: the results, their reuse, misuse
-- lines, counting. The PostgreSQL behaviour (order, failures, reconnects) is in
-- tests/e2e/pipeline_spec.lua.
local h = require("helpers")

local function run(script, opts)
  local out, err, rc = h.run("- --verbosity=1 " .. (opts or "--db-driver=null"), { stdin = script })
  assert.are.equal(0, rc, err)
  return out
end

describe("con:pipeline()", function()
  it("returns one result per statement, in order, classified as for con:query", function()
    local out = run([[
      local con = sysbench.sql.driver():connect()
      local st = con:prepare("UPDATE t SET a = ? WHERE id = 1")
      local a = st:bind_create(sysbench.sql.type.INT)
      st:bind_param(a)
      local p = con:pipeline()
      print("POS", p:query("SELECT 1"), p:execute(st), p:query("CREATE TABLE x(a int)"))
      local res = p:run()
      print("N", #res)
      for i, r in ipairs(res) do
        print("R", i, r.status, r.kind, r.nrows, r.sql, r:fetch_row())
      end
    ]])
    assert.is_truthy(out:find("POS\t1\t2\t3\n", 1, true), out)
    assert.is_truthy(out:find("N\t3\n", 1, true), out)
    assert.is_truthy(out:find("R\t1\tdone\tread\t0\tSELECT 1\tnil\n", 1, true), out)
    assert.is_truthy(out:find("R\t2\tdone\twrite\t1\tUPDATE t SET a = ? WHERE id = 1\tnil\n", 1, true), out)
    assert.is_truthy(out:find("R\t3\tdone\tother\t0\tCREATE TABLE x(a int)\tnil\n", 1, true), out)
  end)

  it("reuses the results table and its entries for the connection's next pipeline", function()
    local out = run([[
      local con = sysbench.sql.driver():connect()
      local p = con:pipeline()
      p:query("SELECT 1") p:query("SELECT 2")
      local first = p:run()
      local r1 = first[1]
      local p2 = con:pipeline()
      p2:query("UPDATE t SET a = 1")
      local second = p2:run()
      print("SAME", p == p2, first == second, r1 == second[1], #second, second[1].kind, second[1].sql)
    ]])
    assert.is_truthy(out:find("SAME\ttrue\ttrue\ttrue\t1\twrite\tUPDATE t SET a = 1\n", 1, true), out)
  end)

  it("misuse gets one clear line naming the script's line (here the pcall's)", function()
    local out = run([[
      local con = sysbench.sql.driver():connect()
      local other = sysbench.sql.driver():connect()
      local st = other:prepare("SELECT ?")
      local function try(f, ...) local ok, e = pcall(f, ...) print("ERR", ok, tostring(e)) end
      local p = con:pipeline()
      try(p.query, p, 42)
      try(p.execute, p, st)
      try(con.query, con, "SELECT 1")
      p:query("SELECT 1")
      p:run()
      try(p.run, p)
      try(p.query, p, "SELECT 1")
      con:disconnect()
      try(con.pipeline, con)
    ]])
    local errs = {}
    for e in out:gmatch("ERR\tfalse\t([^\n]*)") do errs[#errs + 1] = e end
    assert.are.same({
      "stdin:4: SQL API error: query must be a string (got number)",
      "stdin:4: SQL API error: pipeline:execute() with a statement of another connection",
      "stdin:4: SQL API error: null: a pipeline is open on this connection (run it before other statements)",
      "stdin:4: SQL API error: this pipeline was already run (call con:pipeline() again)",
      "stdin:4: SQL API error: this pipeline was already run (call con:pipeline() again)",
      "stdin:4: SQL API error: attempt to use an already closed connection",
    }, errs)
  end)

  it("counts each statement once in the run's counters", function()
    local p = h.write("pl_count.lua", [[
function event()
  local p = sysbench.sql.driver():connect():pipeline()
  p:query("SELECT 1") p:query("SELECT 2") p:query("DELETE FROM t") p:query("BEGIN")
  p:run()
end
]])
    local out, err, rc = h.run(h.q(p) .. " --db-driver=null --events=10 --format=json run")
    assert.are.equal(0, rc, err)
    local doc = h.json(out)
    assert.are.same({ 20, 10, 10, 0 }, { doc.counters.reads, doc.counters.writes, doc.counters.other, doc.counters.errors })
  end)
end)
