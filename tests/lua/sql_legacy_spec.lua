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

  it("a legacy call on an unknown driver fails in one line naming the call", function()
    local path = h.write("legacy_bad.lua", "function event() db_query('SELECT 1') end\n")
    local _, err, rc = h.run(path .. " --db-driver=nosuch --events=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("invalid database driver name: 'nosuch'", 1, true), err)
  end)
end)
