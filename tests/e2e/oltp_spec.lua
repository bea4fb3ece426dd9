-- The OLTP workloads against both sandbox servers: prepare creates exactly the rows and
-- indexes, a run performs exactly sysbench's query mix, cleanup leaves nothing behind.
local h = require("helpers")

local function counts(out)
  return tonumber(out:match("read:%s+(%d+)")), tonumber(out:match("write:%s+(%d+)")),
    tonumber(out:match("other:%s+(%d+)")), tonumber(out:match("transactions:%s+(%d+)"))
end

-- workload, tables, expected reads/writes/other for 100 events (nil = not fixed)
local workloads = {
  { "oltp_read_write", 2, 1400, 400, 200 },
  { "oltp_read_only", 2, 1400, 0, 200 },
  { "oltp_write_only", 2, 0, 400, 200 },
  { "oltp_point_select", 2, 100, 0, 0 },
  { "oltp_insert", 2, 0, 100, 0 },
  { "oltp_delete", 2, 0, nil, nil },
  { "oltp_update_index", 2, 0, 100, 0 },
  { "oltp_update_non_index", 2, 0, 100, 0 },
  { "select_random_points", 1, 100, 0, 0 },
  { "select_random_ranges", 1, 100, 0, 0 },
}

local function tables_left(db, pg)
  local q = pg and "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'"
    or "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'sbtest%'"
  return tonumber(h.sql(db, q)[1])
end

h.each_driver("OLTP workloads on %s", function(driver, db)
  local pg = driver == "pgsql"

  for _, w in ipairs(workloads) do
    it(w[1], function()
      local args = string.format("%s %s --tables=%d --table-size=500", w[1], db, w[2])
      h.run(args .. " cleanup")
      local out, err, rc = h.run(args .. " --threads=2 prepare")
      assert.are.equal(0, rc, err)
      for t = 1, w[2] do
        assert.are.equal("500", h.sql(db, "SELECT count(*) FROM sbtest" .. t)[1])
        local idx = pg and ("SELECT count(*) FROM pg_indexes WHERE tablename = 'sbtest" .. t .. "' AND indexname = 'k_" .. t .. "'")
          or ("SELECT count(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'sbtest" .. t .. "' AND index_name = 'k_" .. t .. "'")
        assert.are.equal("1", h.sql(db, idx)[1], "secondary index k_" .. t)
      end
      -- one thread: with several, concurrent deletes of the same hot rows vary the mix (as in sysbench)
      out, err, rc = h.run(args .. " --threads=1 --events=100 run")
      assert.are.equal(0, rc, err)
      local r, wr, o, trx = counts(out)
      assert.are.equal(100, trx)
      assert.are.equal(w[3], r)
      if w[4] then
        assert.are.equal(w[4], wr)
        assert.are.equal(w[5], o)
      else
        assert.are.equal(100, wr + o) -- a DELETE of a row already gone counts as other
      end
      assert.is_truthy(out:find("ignored errors:                      0 ", 1, true))
      out, err, rc = h.run(args .. " cleanup")
      assert.are.equal(0, rc, err)
      assert.are.equal(0, tables_left(db, pg))
    end)
  end

  it("a parallel prepare failing the same way in every thread says so once", function()
    local bad = db:gsub("(%-password=)%S+", "%1Wr0ng-Pa55")
    local out, err, rc = h.run("oltp_read_write " .. bad .. " --threads=4 prepare")
    assert.are.equal(1, rc, out .. err)
    assert.is_truthy(err:find("FATAL: `prepare' command failed in threads 0-3: oltp_common.lua:", 1, true), err)
    assert.is_truthy(err:find("connection creation failed: " .. driver .. ": ", 1, true), err)
    assert.are.equal(1, h.count(err, "FATAL:"), err)
  end)

  it("oltp_insert without auto_inc starts from empty tables with client ids", function()
    local args = "oltp_insert " .. db .. " --tables=1 --table-size=500 --auto-inc=off"
    local out, err, rc = h.run(args .. " prepare")
    assert.are.equal(0, rc, err)
    assert.are.equal("0", h.sql(db, "SELECT count(*) FROM sbtest1")[1])
    out, err, rc = h.run(args .. " --events=100 run")
    assert.are.equal(0, rc, err)
    assert.are.equal("100", h.sql(db, "SELECT count(*) FROM sbtest1")[1])
    h.run(args .. " cleanup")
  end)

  it("bulk_insert writes every event's row", function()
    local args = "bulk_insert " .. db .. " --threads=2"
    h.run(args .. " cleanup")
    local out, err, rc = h.run(args .. " prepare")
    assert.are.equal(0, rc, err)
    out, err, rc = h.run(args .. " --events=5000 run")
    assert.are.equal(0, rc, err)
    local n = tonumber(h.sql(db, "SELECT count(*) FROM sbtest1")[1]) + tonumber(h.sql(db, "SELECT count(*) FROM sbtest2")[1])
    assert.are.equal(5000, n)
    h.run(args .. " cleanup")
    assert.are.equal(0, tables_left(db, pg))
  end)

  it("prints sysbench's SQL report and intermediate lines", function()
    local args = "oltp_read_only " .. db .. " --tables=1 --table-size=500"
    h.run(args .. " prepare")
    local out, err, rc = h.run(args .. " --time=2 --report-interval=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:match("%[ 1s %] thds: 1 tps: [%d.]+ qps: [%d.]+ %(r/w/o: [%d.]+/0.00/[%d.]+%) lat %(ms,95%%%): [%d.]+ err/s: 0.00 reconn/s: 0.00\n"), out)
    -- the column a `cut -c` pipeline expects
    local q = out:match("\n(    queries:%s+%d+)")
    assert.are.equal(41, #q:match("^(    queries:%s+)"))
    h.run(args .. " cleanup")
  end)
end)
