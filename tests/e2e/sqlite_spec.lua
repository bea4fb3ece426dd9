-- The sqlite driver end to end, on database files in the spec's own temporary directory (no
-- server): the SQL API from Lua (rows, NULLs, affected rows, prepared statements, errors with
-- SQLite's codes), oltp_read_write prepare/run/cleanup with --threads and with --users (the
-- tables' contents read back by the sqlite3 shell), concurrent writers with deferred and
-- immediate transactions, the version and pragmas in the JSON result, bad options, and tpcc
-- and bookstore prepare, run and check.
local h = require("helpers")

local function sqlite3(db, sql)
  local p = io.popen(string.format("sqlite3 %s %s 2>&1", h.q(db), h.q(sql)))
  local out = p:read("*a")
  p:close()
  return (out:gsub("%s+$", ""))
end

local function have_driver()
  local out = h.run("--db-driver=help oltp_read_write help")
  return out:find("\n  sqlite ", 1, true) ~= nil
end

describe("the sqlite driver", function()
  if not have_driver() then
    if os.getenv("CI") == "true" then error("the sqlite driver is not built (CI=true)") end
    pending("the sqlite driver is not built")
    return
  end
  local dir = h.tmpdir()

  it("runs queries and prepared statements with every parameter type, NULLs and errors", function()
    local db = dir .. "/api.db"
    local out, err, rc = h.run("- --verbosity=1 --db-driver=sqlite --sqlite-db=" .. h.q(db), { stdin = [[
local c = sysbench.sql.driver():connect()
c:query("CREATE TABLE lbt (id INTEGER PRIMARY KEY, k BIGINT, c VARCHAR(300), f DOUBLE PRECISION)")
local st = c:prepare("INSERT INTO lbt VALUES (?, ?, ?, ?)")
local T = sysbench.sql.type
local b = { st:bind_create(T.INT), st:bind_create(T.BIGINT), st:bind_create(T.VARCHAR, 300), st:bind_create(T.DOUBLE) }
st:bind_param(unpack(b))
for i = 1, 3 do
  b[1]:set(i); b[2]:set(i * 10000000000); b[3]:set(string.rep("q'", i)); b[4]:set(i / 4); st:execute()
end
b[1]:set(4); b[2]:set(nil); b[3]:set(nil); b[4]:set(nil); st:execute()
local rs = c:query("SELECT id, k, c, f FROM lbt ORDER BY id")
print("NROWS", rs.nrows, rs.nfields)
for i = 1, rs.nrows do
  local r = rs:fetch_row()
  print("ROW", r[1], r[2] or "NULL", r[3] or "NULL", r[4] or "NULL")
end
c:query("UPDATE lbt SET k = 1 WHERE id > 2")
print("NOCHANGE", c:query("UPDATE lbt SET k = 1 WHERE id > 100") == nil)
print("LIT", c:query_row("SELECT 'it''s'"))
print("FAILED", not pcall(c.query, c, "INSERT INTO lbt (id) VALUES (1)"))
print("ERR", c.sql_errno, c.sql_state, c.sql_errmsg)
print("DIALECT", require("luabench.dialect").of("sqlite").name)
rs = c:query("SELECT id, k, c FROM lbt WHERE id >= 3 ORDER BY id")
while rs:next() do print("NEXT", type(rs:get(1)), rs:get(1), rs:get(2), rs:get(3)) end
local v = c:query("SELECT 7, NULL"):fetch_values()
print("VALUES", type(v[1]), v[1], v[2])
]] })
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("NROWS\t4\t4", 1, true), out)
    assert.is_truthy(out:find("ROW\t1\t10000000000\tq'\t0.25", 1, true), out)
    assert.is_truthy(out:find("ROW\t3\t30000000000\tq'q'q'\t0.75", 1, true), out)
    assert.is_truthy(out:find("ROW\t4\tNULL\tNULL\tNULL", 1, true), out)
    assert.is_truthy(out:find("NOCHANGE\ttrue", 1, true), out)
    -- typed access on a driver without types: the strings fetch_row gives
    assert.is_truthy(out:find("NEXT\tstring\t3\t1\tq'q'q'\nNEXT\tstring\t4\t1\tnil\n", 1, true), out)
    assert.is_truthy(out:find("VALUES\tstring\t7\tnil\n", 1, true), out)
    assert.is_truthy(out:find("LIT\tit's", 1, true), out)
    assert.is_truthy(out:find("FAILED\ttrue", 1, true), out)
    assert.is_truthy(out:find("ERR\t19\t23505\tUNIQUE constraint failed: lbt.id", 1, true), out)
    assert.is_truthy(out:find("DIALECT\tsqlite", 1, true), out)
    assert.are.equal("2", sqlite3(db, "SELECT COUNT(*) FROM lbt WHERE k = 1"))
  end)

  for _, mode in ipairs({ "--threads=2", "--threads=2 --users=8 --connections=3" }) do
    it("prepares, runs and cleans up oltp_read_write with " .. mode, function()
      local db = dir .. "/oltp" .. #mode .. ".db"
      local base = "oltp_read_write --db-driver=sqlite --sqlite-db=" .. h.q(db) .. " --tables=2 --table-size=500 "
      local out, err, rc = h.run(base .. "--threads=2 prepare")
      assert.are.equal(0, rc, err)
      assert.are.equal("500", sqlite3(db, "SELECT COUNT(*) FROM sbtest2"))
      assert.are.equal("500", sqlite3(db, "SELECT MAX(id) FROM sbtest1"))
      assert.are.equal("k_1", sqlite3(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sbtest1'"))
      assert.are.equal("0", sqlite3(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'"))
      out, err, rc = h.run(base .. mode .. " --time=2 --format=json run")
      assert.are.equal(0, rc, err)
      local doc = h.json(out)
      assert.is_true(doc.counters.events > 0, out)
      assert.is_true(doc.counters.writes > 0, out)
      assert.is_truthy(doc.server_version:find("^SQLite 3%.%d+%.%d+ %(journal_mode=wal, synchronous=full, cache_size=%-2000, busy_timeout=60000 ms, begin=deferred%)$"), doc.server_version)
      -- the pragmas in force, as SQLite itself answers them on the file, and the storage under it
      local ds = doc.driver_settings
      for _, pragma in ipairs({ "journal_mode", "page_size", "mmap_size", "temp_store", "locking_mode", "wal_autocheckpoint" }) do
        assert.are.equal(sqlite3(db, "PRAGMA " .. pragma), ds[pragma], pragma)
      end
      assert.are.equal("full", ds.synchronous)
      assert.are.equal("-2000", ds.cache_size)
      assert.are.equal("60000", ds.busy_timeout_ms)
      assert.are.equal("deferred", ds.begin)
      assert.are.equal(dir, doc.machine.storage_dir)
      -- each DELETE is followed by the INSERT of the same id: the row count stays
      assert.are.equal("500", sqlite3(db, "SELECT COUNT(*) FROM sbtest1"))
      out, err, rc = h.run(base .. "cleanup")
      assert.are.equal(0, rc, err)
      assert.are.equal("0", sqlite3(db, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'sbtest%'"))
    end)
  end

  it("retries writers that lose the lock race, and queues them with --sqlite-begin=immediate", function()
    local db = dir .. "/busy.db"
    local base = "oltp_write_only --db-driver=sqlite --sqlite-db=" .. h.q(db) .. " --tables=1 --table-size=200 "
    local _, err, rc = h.run(base .. "prepare")
    assert.are.equal(0, rc, err)
    for _, begin in ipairs({ "deferred", "immediate" }) do
      local out
      out, err, rc = h.run(base .. "--threads=4 --time=2 --sqlite-synchronous=off --sqlite-begin=" .. begin .. " --format=json run")
      assert.are.equal(0, rc, err)
      local doc = h.json(out)
      assert.is_true(doc.counters.events > 0, out)
      if begin == "immediate" then
        assert.are.equal(0, doc.counters.errors, "writers queue on BEGIN IMMEDIATE: " .. out)
      end
      assert.is_truthy(doc.server_version:find("begin=" .. begin, 1, true), doc.server_version)
      assert.are.equal("200", sqlite3(db, "SELECT COUNT(*) FROM sbtest1"))
    end
  end)

  it("says which option is wrong, in one line before anything runs", function()
    local out, err, rc = h.run("oltp_read_write --db-driver=sqlite --sqlite-db=" .. h.q(dir .. "/x.db") .. " --sqlite-journal-mode=fast prepare")
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: invalid --sqlite-journal-mode 'fast' (expected delete, truncate, persist, memory, wal or off)\n", err)
    assert.are.equal("", out)
    -- a script's thread_init is not blamed for it
    local script = h.write("sqlite_connect.lua", "local c\nfunction thread_init() c = sysbench.sql.driver():connect() end\n" ..
      "function event() c:query('SELECT 1') end\n")
    for opt, line in pairs({
      ["--sqlite-synchronous=x"] = "FATAL: invalid --sqlite-synchronous 'x' (expected off, normal, full or extra)\n",
      ["--sqlite-begin=late"] = "FATAL: invalid --sqlite-begin 'late' (expected deferred, immediate or exclusive)\n",
      ["--sqlite-busy-timeout=-1"] = "FATAL: invalid --sqlite-busy-timeout -1 (expected milliseconds >= 0)\n",
    }) do
      out, err, rc = h.run(h.q(script) .. " --db-driver=sqlite --sqlite-db=" .. h.q(dir .. "/x.db") .. " " .. opt .. " --events=1 run")
      assert.are.equal(1, rc, out .. err)
      assert.are.equal(line, err)
    end
    _, err, rc = h.run("oltp_read_write --db-driver=sqlite --sqlite-db=" .. h.q(dir .. "/no/such/dir/x.db") .. " prepare")
    assert.are_not.equal(0, rc)
    assert.is_truthy(err:find("sqlite: cannot open database '" .. dir .. "/no/such/dir/x.db': open: unable to open database file", 1, true), err)
  end)

  it("runs bookstore: prepare, the ordering mix with users, check", function()
    local db = dir .. "/bookstore.db"
    local base = "bookstore --db-driver=sqlite --sqlite-db=" .. h.q(db) .. " --sqlite-synchronous=off --items=1000 --ebs=1 "
    local out, err, rc = h.run(base .. "--threads=2 prepare")
    assert.are.equal(0, rc, err)
    assert.are.equal("1000", sqlite3(db, "SELECT COUNT(*) FROM item"))
    assert.are.equal("2880", sqlite3(db, "SELECT COUNT(*) FROM customer"))
    local orders = tonumber(sqlite3(db, "SELECT COUNT(*) FROM orders"))
    out, err, rc = h.run(base .. "--threads=2 --users=6 --think-time=0 --mix=ordering --sqlite-begin=immediate --time=3 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("total errors:                        0", 1, true), out)
    assert.is_true(tonumber(sqlite3(db, "SELECT COUNT(*) FROM orders")) > orders, "Buy Confirms added orders")
    out, err, rc = h.run(base .. "check")
    assert.are.equal(0, rc, err .. out)
    assert.is_truthy(out:find("check: all 15 invariants hold", 1, true), out)
    _, err, rc = h.run(base .. "cleanup")
    assert.are.equal(0, rc, err)
    -- ANALYZE's sqlite_stat1 stays
    assert.are.equal("0", sqlite3(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"))
  end)

  it("runs tpcc: prepare, a short run with client-side statements (the default there), check", function()
    local db = dir .. "/tpcc.db"
    local base = "tpcc --db-driver=sqlite --sqlite-db=" .. h.q(db) .. " --sqlite-synchronous=off --warehouses=1 "
    local out, err, rc = h.run(base .. "--threads=1 prepare")
    assert.are.equal(0, rc, err)
    assert.are.equal("30000", sqlite3(db, "SELECT COUNT(*) FROM customer"))
    assert.are.equal("100000", sqlite3(db, "SELECT COUNT(*) FROM stock"))
    -- SQLite has no stored procedures: the default runs client-side statements and says why
    out, err, rc = h.run(base .. "--threads=2 --time=3 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("tpmC (NewOrders per minute):", 1, true), out)
    assert.is_truthy(out:find("; transactions as client-side statements (the sqlite dialect has no stored procedures " ..
      "tpcc can use: --procedures=off by default)\n", 1, true), out)
    assert.is_truthy(out:find("transactions:                        client-side statements", 1, true), out)
    out, err, rc = h.run(base .. "--threads=2 check")
    assert.are.equal(0, rc, err .. out)
    assert.is_falsy(out:find("FAIL", 1, true), out)
    -- an explicit --procedures=on stays an error, saying what to do instead
    _, err, rc = h.run("tpcc --db-driver=sqlite --sqlite-db=" .. h.q(db) .. " --procedures=on --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("tpcc has no stored procedures for the sqlite dialect (it has no stored routines): " ..
      "run with --procedures=off (client-side transactions, the default there)", 1, true), err)
  end)
end)
