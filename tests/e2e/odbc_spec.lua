-- The odbc driver on both sandbox servers, through psqlODBC and MariaDB Connector/ODBC with
-- connection strings naming the driver libraries by path (tools/sandbox-db env odbc-pgsql|
-- odbc-mysql: no odbc.ini): the SQL API (rows, NULLs, quotes, prepared statements of every
-- type, errors as SQLSTATE and native code, --db-ignore-errors, bulk insert), the dialect
-- chosen from the server's name or --odbc-dialect, the password kept out of the outputs,
-- oltp_read_write and oltp_point_select with --threads and --users, tpcc and bookstore with
-- check. Reconnecting after a restart is in faults_spec (servers of its own).
local h = require("helpers")

local SERVERS = { ["odbc-pgsql"] = "pgsql", ["odbc-mysql"] = "mysql" }

local function script(db, src, extra)
  return h.run("- --verbosity=1 " .. db .. " " .. (extra or ""), { stdin = src })
end

h.each_driver("odbc on %s", function(driver, db)
  local family = SERVERS[driver]

  it("runs queries and prepared statements with every parameter type", function()
    local out, err, rc = script(db, [[
local c = sysbench.sql.driver():connect()
c:query("DROP TABLE IF EXISTS lbt_odbc")
c:query("CREATE TABLE lbt_odbc (id INTEGER PRIMARY KEY, k BIGINT, c VARCHAR(300), f DOUBLE PRECISION)")
local st = c:prepare("INSERT INTO lbt_odbc VALUES (?, ?, ?, ?)")
local T = sysbench.sql.type
local b = { st:bind_create(T.INT), st:bind_create(T.BIGINT), st:bind_create(T.VARCHAR, 300),
  st:bind_create(T.DOUBLE) }
st:bind_param(unpack(b))
for i = 1, 3 do
  b[1]:set(i); b[2]:set(i * 10000000000); b[3]:set(string.rep("q'\\", i) .. string.rep("z", 250))
  b[4]:set(i / 4); st:execute()
end
b[1]:set(4); b[2]:set(nil); b[3]:set(nil); b[4]:set(nil); st:execute()
local rs = c:query("SELECT id, k, c, f FROM lbt_odbc ORDER BY id")
print("NROWS", rs.nrows, rs.nfields)
for i = 1, rs.nrows do
  local r = rs:fetch_row()
  print("ROW", r[1], r[2] or "NULL", r[3] and #r[3] or "NULL", r[3] and r[3]:sub(1, 4) or "NULL", r[4] and tonumber(r[4]) or "NULL")
end
local sel = c:prepare("SELECT c FROM lbt_odbc WHERE id = ?")
local id = sel:bind_create(T.INT)
sel:bind_param(id)
id:set(2)
local r = sel:execute():fetch_row()
print("SEL", #r[1])
local u = c:query("UPDATE lbt_odbc SET k = 1 WHERE id > 2")
print("DML", c:query("UPDATE lbt_odbc SET k = 1 WHERE id > 100") == nil)
print("LIT", c:query_row("SELECT 'it''s'"))
print("VERSION", sysbench.sql.driver():server_name())
local d = require("luabench.dialect").of("odbc")
print("DIALECT", d.name, tostring(d.copy))
c:query("DROP TABLE lbt_odbc")
]])
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("NROWS\t4\t4", 1, true), out)
    assert.is_truthy(out:find("ROW\t1\t10000000000\t253\tq'\\z\t0.25", 1, true), out)
    assert.is_truthy(out:find("ROW\t3\t30000000000\t259\tq'\\q\t0.75", 1, true), out)
    assert.is_truthy(out:find("ROW\t4\tNULL\tNULL\tNULL\tNULL", 1, true), out)
    assert.is_truthy(out:find("SEL\t256", 1, true), out)
    assert.is_truthy(out:find("LIT\tit's", 1, true), out)
    local want = family == "pgsql" and "VERSION\tPostgreSQL" or "VERSION\tMariaDB"
    assert.is_truthy(out:find(want, 1, true), out)
    assert.is_truthy(out:find("DIALECT\t" .. family .. "\tfalse", 1, true), out)
    -- --odbc-dialect overrides what the server says
    out, err, rc = h.run("oltp_read_write " .. db .. " --odbc-dialect=nonesuch --tables=1 --table-size=10 prepare")
    assert.are_not.equal(0, rc)
    assert.is_truthy(err:find("no SQL dialect for the server 'nonesuch' reached through odbc", 1, true), err)
  end)

  it("counts reads, writes and others as the native drivers do", function()
    local out, err, rc = h.run(h.write("odbc_counts.lua", [[
function event()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS lbt_odbc2")
  c:query("CREATE TABLE lbt_odbc2 (id INTEGER)")
  c:query("INSERT INTO lbt_odbc2 VALUES (1), (2)")
  c:query("SELECT * FROM lbt_odbc2")
  c:query("UPDATE lbt_odbc2 SET id = 3 WHERE id = 9")
  c:bulk_insert_init("INSERT INTO lbt_odbc2 VALUES")
  for i = 1, 100 do c:bulk_insert_next("(" .. i .. ")") end
  c:bulk_insert_done()
  print("COUNT", c:query_row("SELECT COUNT(*) FROM lbt_odbc2"))
  c:query("DROP TABLE lbt_odbc2")
end]]) .. " --events=1 " .. db .. " run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("COUNT\t102", 1, true), out)
    -- reads: the two SELECTs; writes: the INSERT and the one bulk statement; others: DDL and
    -- the UPDATE that matched nothing
    assert.are.equal("2", out:match("read:%s+(%d+)"), out)
    assert.are.equal("2", out:match("write:%s+(%d+)"), out)
    assert.are.equal("4", out:match("other:%s+(%d+)"), out)
  end)

  it("reports errors with SQLSTATE and native code, and ignores them by either", function()
    local missing = family == "pgsql" and "42P01" or "42S02"
    local out, err, rc = script(db, "sysbench.sql.driver():connect():query('SELECT * FROM lbt_nosuch')")
    assert.are_not.equal(0, rc)
    assert.is_truthy(err:find("state = '" .. missing .. "'", 1, true), err)
    assert.is_falsy(err:find("[unixODBC]", 1, true), err)
    local ev = h.write("odbc_missing.lua",
      "function event() sysbench.sql.driver():connect():query('SELECT * FROM lbt_nosuch') end")
    -- ignored: the event is retried until the end of the run, never fails with the error; the
    -- run completes no event, so it ends as failed, counting them (results.md 6.5)
    local function ignored(list)
      out, err, rc = h.run(ev .. " --time=1 " .. db .. " --db-ignore-errors=" .. list .. " run")
      local n = tonumber(out:match("ignored errors:%s+(%d+)"))
      assert.is_truthy(n and n > 0, out)
      assert.are.equal(1, rc, err)
      assert.is_truthy(err:find("FATAL: no event completed in the measured window %(%d+%.%d+ s%) while " .. n ..
        " errors were counted; the first: "), err)
    end
    ignored(missing)
    if family == "mysql" then ignored("1146") end -- by MariaDB's native error number
  end)

  it("keeps the password out of the result file and messages", function()
    local cs = db:match("'%-%-odbc%-connection%-string=([^']+)'")
    local opts = db:gsub("%-%-odbc%-password=%S+", ""):gsub("'%-%-odbc%-connection%-string=[^']+'", "")
    local with_pwd = "--odbc-connection-string=" .. h.q(cs .. ";PWD=sbtest-secret")
    local ev = h.write("odbc_select.lua", "function event() sysbench.sql.driver():connect():query('SELECT 1') end")
    local out, err, rc = h.run(ev .. " --events=1 --format=json " .. opts .. " " .. with_pwd .. " run")
    assert.are.equal(0, rc, err)
    assert.is_falsy((out .. err):find("sbtest-secret", 1, true), out .. err)
    assert.is_truthy(out:find("PWD=***", 1, true), out)
    out, err, rc = h.run("- --verbosity=1 " .. opts .. " --odbc-connection-string=" ..
      h.q(cs .. ";PWD=wrong-secret"), { stdin = "sysbench.sql.driver():connect()" })
    assert.are_not.equal(0, rc)
    assert.is_truthy(err:find("odbc: connection to", 1, true), err)
    assert.is_falsy(err:find("wrong-secret", 1, true), err)
  end)

  it("runs oltp_read_write and oltp_point_select with --threads and with --users", function()
    local oltp = db .. " --tables=1 --table-size=500"
    local out, err, rc = h.run("oltp_read_write " .. oltp .. " cleanup")
    out, err, rc = h.run("oltp_read_write " .. oltp .. " prepare")
    assert.are.equal(0, rc, err)
    assert.are.equal("500", h.sql(db, "SELECT COUNT(*) FROM sbtest1")[1])
    for _, w in ipairs({ "oltp_read_write", "oltp_point_select" }) do
      out, err, rc = h.run(w .. " " .. oltp .. " --threads=2 --time=1 run")
      assert.are.equal(0, rc, w .. ": " .. err)
      assert.is_truthy(out:match("transactions:%s+(%d+)") + 0 > 0, out)
    end
    out, err, rc = h.run("oltp_read_write " .. oltp .. " --threads=1 --users=4 --connections=2 --time=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:match("transactions:%s+(%d+)") + 0 > 0, out)
    out, err, rc = h.run("oltp_read_write " .. oltp .. " cleanup")
    assert.are.equal(0, rc, err)
  end)

  local prefix = "todbc" .. tostring(os.time() % 100000) .. "_"
  for _, wl in ipairs({ { "tpcc", "--warehouses=1" }, { "bookstore", "--items=1000 --ebs=1 --think-time=0" } }) do
    it("runs " .. wl[1] .. " (prepare, run with --threads and --users, check)", function()
      local base = wl[1] .. " " .. db .. " --table-prefix=" .. prefix .. " " .. wl[2]
      local out, err, rc = h.run(base .. " --threads=2 prepare")
      assert.are.equal(0, rc, err)
      out, err, rc = h.run(base .. " --threads=2 --time=1 run")
      assert.are.equal(0, rc, err)
      assert.is_truthy(tonumber(out:match("transactions:%s+(%d+)")) > 0, out)
      out, err, rc = h.run(base .. " --threads=1 --users=3 --connections=2 --time=1 run")
      assert.are.equal(0, rc, err)
      assert.is_truthy(tonumber(out:match("transactions:%s+(%d+)")) > 0, out)
      out, err, rc = h.run(base .. " check")
      assert.are.equal(0, rc, out .. err)
      h.run(base .. " cleanup")
    end)
  end
end, { "odbc-pgsql", "odbc-mysql" })
