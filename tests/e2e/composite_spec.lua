-- examples/composite.lua (one SELECT DISTINCT, a batch of UPDATEs and a paged query per event)
-- on SQLite, DuckDB and on both sandbox servers through their dialects: prepare through the
-- engine's bulk path, a short run with the three statistics types, the statement counts per
-- event and the LIMIT ... OFFSET page of the workload it stands for, --users, check and cleanup.
local h = require("helpers")

local EX = h.q(h.root .. "/examples/composite.lua")

local LOCAL = {
  sqlite = function() return "--db-driver=sqlite --sqlite-db=" .. h.q(h.tmpdir() .. "/composite.db") end,
  duckdb = function() return h.duckdb("composite.duckdb") end,
}

h.each_driver("examples/composite.lua on %s", function(name, db)
  local tbl = "lbt_comp" .. tostring(os.time() % 100000) .. tostring(math.random(1000))
  local base = string.format("%s %s --table=%s --rows=3000 --categories=20 --updates=10 --page-size=7 ", EX, db, tbl)

  it("prepares, runs with threads and with users, checks and cleans up", function()
    local out, err, rc = h.run(base .. "prepare")
    assert.are.equal(0, rc, err)
    -- the engine's bulk path: DuckDB's appender and PostgreSQL's COPY take a stream, SQLite the
    -- dialect's multi-row INSERTs (MariaDB: LOAD DATA LOCAL when the server allows it)
    local how = out:match("loading 3000 rows through ([^\n]-)%.%.%.\n")
    local want = ({ duckdb = "COPY " .. tbl .. " %(id, category, status, amount, name%) FROM STDIN",
      pgsql = "COPY " .. tbl .. " %(id, category, status, amount, name%) FROM STDIN", sqlite = "multi%-row INSERTs",
      mysql = "LOAD DATA LOCAL INFILE .* INTO TABLE " .. tbl .. ".*" })[name]
    assert.is_truthy(how and (how:find("^" .. want .. "$") or name == "mysql" and how == "multi-row INSERTs"), out)
    out, err, rc = h.run(base .. "check")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("check: 3000 rows, ids 1..3000, 0 with a category outside 1..20", 1, true), out)
    for _, mode in ipairs({ "--threads=2", "--threads=2 --users=6 --connections=2" }) do
      out, err, rc = h.run(base .. mode .. " --time=2 --format=json run")
      assert.are.equal(0, rc, err)
      -- an OFFSET page of one category, as the service asked for it (not a key range)
      assert.is_truthy(err:find("SELECT id, name, amount FROM " .. tbl .. " WHERE category = ? ORDER BY id LIMIT 7 OFFSET ?\n", 1, true), err)
      local doc = h.json(out)
      local c = doc.counters
      assert.is_true(c.events > 0, out)
      -- per event: the DISTINCT and the page are reads, 10 UPDATEs writes (a random id can
      -- come twice: its second update changes the row again), BEGIN and COMMIT others;
      -- a retried event repeats them
      local attempts = c.events + c.errors
      assert.is_true(c.reads >= 2 * c.events and c.reads <= 2 * attempts, out)
      -- an UPDATE that changes nothing (delta 0, the same status) counts as "other" on
      -- MariaDB, which reports changed rows (as sysbench counts it)
      assert.is_true(c.writes + c.other >= 12 * c.events and c.writes <= 10 * attempts, out)
      local types = doc.types
      for _, n in ipairs({ "distinct", "updates", "page" }) do
        assert.is_truthy(types[n], "type " .. n .. ": " .. out)
        assert.is_true(types[n].count >= c.events, out)
      end
    end
    out, err, rc = h.run(base .. "check")
    assert.are.equal(0, rc, err .. out)
    _, err, rc = h.run(base .. "cleanup")
    assert.are.equal(0, rc, err)
    out, err, rc = h.run(base .. "check")
    assert.are_not.equal(0, rc, "the table is gone: " .. out)
  end)
end, { "sqlite", "duckdb", "pgsql", "mysql" }, function(name) return (LOCAL[name] or h.db)(name) end)
