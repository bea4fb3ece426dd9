-- sysbench.sql against the real sandbox servers: every API call scripts use, error handling,
-- ignore lists, reconnects, and bad connection options.
local h = require("helpers")

local function script(body)
  return h.write("sql_" .. tostring(math.random(1e9)) .. ".lua", body)
end

for _, driver in ipairs(h.drivers) do
  describe("sysbench.sql on " .. driver, function()
    local db = h.db(driver)
    if not db then
      pending("the " .. driver .. " sandbox is not running (tools/sandbox-db start)")
      return
    end
    local pg = driver == "pgsql"

    it("runs queries, returns rows with NULLs, and a NULL result for other statements", function()
      local p = script([[
local con = sysbench.sql.driver():connect()
con:query("DROP TABLE IF EXISTS lbt_api")
print("CREATE", con:query("CREATE TABLE lbt_api (id INT PRIMARY KEY, v VARCHAR(20), d DOUBLE PRECISION)") == nil)
local rs = con:query("INSERT INTO lbt_api VALUES (1, 'one', 1.5), (2, NULL, NULL)")
print("INSERT", rs == nil, rs and "truthy" or "falsy", tostring(rs))
rs = con:query("SELECT id, v, d FROM lbt_api ORDER BY id")
print("NROWS", rs.nrows, rs.nfields)
local r1, r2 = rs:fetch_row(), rs:fetch_row()
print("R1", r1[1], r1[2], r1[3])
print("R2", r2[1], r2[2] == nil, r2[3] == nil, #r2)
print("END", rs:fetch_row() == nil)
print("QROW", con:query_row("SELECT v FROM lbt_api WHERE id = 1"))
print("QNONE", con:query_row("SELECT v FROM lbt_api WHERE id = 99") == nil)
con:query("DROP TABLE lbt_api")
]])
      local out, err, rc = h.run(h.q(p) .. " " .. db)
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("CREATE\ttrue", 1, true))
      assert.is_truthy(out:find("INSERT\ttrue\ttruthy\t<sql_result>", 1, true))
      assert.is_truthy(out:find("NROWS\t2\t3", 1, true))
      assert.is_truthy(out:find("R1\t1\tone\t1.5", 1, true))
      assert.is_truthy(out:find("R2\t2\ttrue\ttrue\t1", 1, true))
      assert.is_truthy(out:find("END\ttrue", 1, true))
      assert.is_truthy(out:find("QROW\tone", 1, true))
      assert.is_truthy(out:find("QNONE\ttrue", 1, true))
    end)

    it("binds every parameter type and NULL, and reads rows of prepared statements", function()
      local cast = pg and "CAST(? AS BIGINT), CAST(? AS INT), CAST(? AS DOUBLE PRECISION), CAST(? AS TEXT), CAST(? AS TEXT), '?' || 'x'"
        or "?, ?, ?, ?, ?, CONCAT('?', 'x')"
      local p = script([[
local t = sysbench.sql.type
local con = sysbench.sql.driver():connect()
local st = con:prepare("SELECT ]] .. cast .. [[")
local ps = { st:bind_create(t.BIGINT), st:bind_create(t.INT), st:bind_create(t.DOUBLE),
  st:bind_create(t.VARCHAR, 16), st:bind_create(t.CHAR, 8) }
st:bind_param(unpack(ps))
ps[1]:set(4611686018427387904)
ps[2]:set(-42)
ps[3]:set(0.125)
ps[4]:set(string.rep("x", 10240))
ps[5]:set(nil)
local row = st:execute():fetch_row()
print("TYPES", row[1], row[2], row[3], #row[4], row[5] == nil, row[6])
ps[2]:set(7) ps[5]:set("it's")
row = st:execute():fetch_row()
print("AGAIN", row[2], row[5])
]])
      local out, err, rc = h.run(h.q(p) .. " " .. db)
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("TYPES\t4611686018427387904\t-42\t0.125\t10240\ttrue\t?x", 1, true), out)
      assert.is_truthy(out:find("AGAIN\t7\tit's", 1, true), out)
      -- client-side emulation escapes the quote
      out, err, rc = h.run(h.q(p) .. " --db-ps-mode=disable " .. db)
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("AGAIN\t7\tit's", 1, true), out)
    end)

    it("bulk-inserts 20,000 rows and keeps two connections apart in one thread", function()
      local p = script([[
local drv = sysbench.sql.driver()
local a, b = drv:connect(), drv:connect()
a:query("DROP TABLE IF EXISTS lbt_bulk")
a:query("CREATE TABLE lbt_bulk (id INT PRIMARY KEY, s VARCHAR(40))")
a:bulk_insert_init("INSERT INTO lbt_bulk VALUES")
for i = 1, 20000 do a:bulk_insert_next(string.format("(%d, 'row %d')", i, i)) end
a:bulk_insert_done()
print("COUNT", b:query_row("SELECT count(*) FROM lbt_bulk"))
local ra = a:query("SELECT id FROM lbt_bulk WHERE id <= 3 ORDER BY id")
local rb = b:query("SELECT id FROM lbt_bulk WHERE id > 19997 ORDER BY id")
print("INTERLEAVED", ra:fetch_row()[1], rb:fetch_row()[1], ra:fetch_row()[1], rb:fetch_row()[1])
a:query("DROP TABLE lbt_bulk")
]])
      local out, err, rc = h.run(h.q(p) .. " " .. db)
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("COUNT\t20000", 1, true))
      assert.is_truthy(out:find("INTERLEAVED\t1\t19998\t2\t19999", 1, true))
    end)

    it("loads rows through COPY on PostgreSQL, and says plainly that MySQL has no COPY", function()
      local p = script([[
local con = sysbench.sql.driver():connect()
if sysbench.sql.driver():name() == "mysql" then
  local ok, e = pcall(con.copy_init, con, "COPY t FROM STDIN")
  print("MYSQL", ok, con.sql_errmsg)
  return
end
con:query("DROP TABLE IF EXISTS lbt_copy")
con:query("CREATE TABLE lbt_copy (id INT PRIMARY KEY, s TEXT, n INT)")
con:copy_init("COPY lbt_copy (id, s, n) FROM STDIN")
local pad = string.rep("x", 3000)
for i = 1, 50000 do
  con:copy_next(string.format("%d\trow %d %s\t%s", i, i, i % 1000 == 0 and pad or "", i % 2 == 0 and "\\N" or tostring(i)))
end
con:copy_done()
print("ROWS", con:query_row("SELECT count(*), count(n), sum(id), max(length(s)) FROM lbt_copy"))
-- a bad row fails the COPY it is in; the session stays usable, nothing of that COPY stays
con:copy_init("COPY lbt_copy (id, s, n) FROM STDIN")
con:copy_next("50001\tok\t1")
con:copy_next("50002\tmissing a field")
local ok = pcall(con.copy_done, con)
print("BAD", ok, con.sql_state, con:query_row("SELECT count(*) FROM lbt_copy"))
con:query("DROP TABLE lbt_copy")
]])
      local out, err, rc = h.run(h.q(p) .. " " .. db .. " --verbosity=1")
      assert.are.equal(0, rc, err)
      if driver == "mysql" then
        assert.is_truthy(out:find("MYSQL\tfalse\tmysql: COPY FROM STDIN is PostgreSQL's; use bulk_insert_init()", 1, true), out)
      else
        assert.is_truthy(out:find("ROWS\t50000\t25000\t1250025000\t3010", 1, true), out)
        assert.is_truthy(out:find("BAD\tfalse\t22P04\t50000", 1, true), out)
      end
    end)

    it("examples/parallel_load.lua loads in parallel with progress, and one failing thread stops all", function()
      local ex = h.q(h.root .. "/examples/parallel_load.lua") .. " " .. db
      local ask = script([[
local con = sysbench.sql.driver():connect()
print("ROWS", con:query_row("SELECT count(*), count(DISTINCT k), min(k), max(k) FROM kv"))
print("INDEX", con:query_row(sysbench.sql.driver():name() == "pgsql"
  and "SELECT count(*) FROM pg_indexes WHERE tablename = 'kv' AND indexname = 'kv_k'"
  or "SELECT count(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'kv' AND index_name = 'kv_k'"))
]])
      h.run(ex .. " cleanup")
      local out, err, rc = h.run(ex .. " --rows=60000 --threads=3 prepare")
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("Progress: 60000/60000 rows (100%)", 1, true), out)
      assert.is_truthy(out:find("Loaded 60000 rows in", 1, true), out)
      out = h.run(h.q(ask) .. " " .. db)
      assert.is_truthy(out:find("ROWS\t60000\t60000\t1\t60000", 1, true), out)
      assert.is_truthy(out:find("INDEX\t1", 1, true), out)
      assert.are.equal(0, select(3, h.run(ex .. " cleanup")))
      -- thread 1 loads k = 2, 5, 8, ...: a CHECK refuses them; threads 0 and 2 stop at the next phase
      local pre = script([[
sysbench.sql.driver():connect():query("CREATE TABLE kv (k INTEGER NOT NULL CHECK (MOD(k, 3) <> 2), v VARCHAR(32) NOT NULL)")
]])
      assert.are.equal(0, select(3, h.run(h.q(pre) .. " " .. db)))
      out, err, rc = h.run(ex .. " --rows=3000 --threads=3 prepare")
      assert.are.equal(1, rc, out .. err)
      -- PostgreSQL: "violates check constraint"; MariaDB: "CONSTRAINT `kv.k` failed"
      assert.is_truthy(err:lower():find("failed in thread 1: sql error.*constraint"), err)
      assert.are.equal(2, h.count(err, "another loader thread failed"), err)
      assert.is_falsy(out:find("Loaded", 1, true), out)
      assert.are.equal(0, select(3, h.run(ex .. " cleanup")))
    end)

    it("reports errors with their descriptor and applies the ignore lists", function()
      local p = script([[
local con = sysbench.sql.driver():connect()
con:query("DROP TABLE IF EXISTS lbt_err")
con:query("CREATE TABLE lbt_err (id INT PRIMARY KEY)")
con:query("INSERT INTO lbt_err VALUES (1)")
local ok, e = pcall(con.query, con, "INSERT INTO lbt_err VALUES (1)")
if type(e) == "table" then
  print("DUP", "restart=" .. tostring(e.errcode), e.sql_errno, e.sql_state)
else
  print("DUP", "fatal", e)
end
ok, e = pcall(con.query, con, "SELEC 1")
print("SYNTAX", ok, e)
print("DESC", con.sql_state, con.error)
print("AFTER", con:query_row("SELECT count(*) FROM lbt_err"))
con:query("DROP TABLE lbt_err")
]])
      local out, err, rc = h.run(h.q(p) .. " " .. db)
      assert.are.equal(0, rc, err)
      if pg then
        -- 23505 is ignorable by default on PostgreSQL (sysbench's list)
        assert.is_truthy(out:find("DUP\trestart=1\t0\t23505", 1, true), out)
        assert.is_truthy(out:find("SYNTAX\tfalse\t[^\n]*SQL error, errno = 0, state = '42601': syntax error at or near \"SELEC\"") , out)
      else
        assert.is_truthy(out:find("DUP\tfatal\t[^\n]*SQL error, errno = 1062, state = '23000': Duplicate entry '1'"), out)
        assert.is_truthy(out:find("SYNTAX\tfalse\t[^\n]*SQL error, errno = 1064, state = '42000'"), out)
      end
      assert.is_truthy(out:find("AFTER\t1", 1, true))
      -- ignore lists: driver-specific and generic
      local flag = pg and "--pgsql-ignore-errors=" or "--mysql-ignore-errors=1062"
      out, err, rc = h.run(h.q(p) .. " " .. db .. " " .. flag)
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find(pg and "DUP\tfatal" or "DUP\trestart=1\t1062\t23000", 1, true), out)
      out, err, rc = h.run(h.q(p) .. " " .. db .. " --db-ignore-errors=23000,23505")
      assert.is_truthy(out:find("DUP\trestart=1", 1, true), out)
      out, err, rc = h.run(h.q(p) .. " " .. db .. " --db-ignore-errors=all")
      assert.is_truthy(out:find("SYNTAX\tfalse\ttable", 1, true), "all makes even syntax errors ignorable: " .. out)
    end)

    it("lets sql_error_ignorable turn a fatal error into a retried event, counted as an error", function()
      local p = script([[
local con
local n = 0
sysbench.hooks.sql_error_ignorable = function(e) return e.query:find("lbt_nosuch", 1, true) ~= nil end
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  n = n + 1
  if n <= 3 then con:query("SELECT * FROM lbt_nosuch") end
  con:query("SELECT 1")
end
]])
      local out, err, rc = h.run(h.q(p) .. " --events=5 " .. db .. " run")
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("ignored errors:                      3 ", 1, true), out)
      assert.is_truthy(out:find("transactions:                        5 ", 1, true), out)
    end)

    it("recovers a transaction that failed inside BEGIN", function()
      local p = script([[
local con = sysbench.sql.driver():connect()
con:query("DROP TABLE IF EXISTS lbt_tx")
con:query("CREATE TABLE lbt_tx (id INT PRIMARY KEY)")
con:query("BEGIN")
con:query("INSERT INTO lbt_tx VALUES (1)")
print("ERR", pcall(con.query, con, "SELECT * FROM lbt_missing_table"))
con:query("ROLLBACK")
print("NEXT", con:query_row("SELECT count(*) FROM lbt_tx"))
con:query("DROP TABLE lbt_tx")
]])
      local out, err, rc = h.run(h.q(p) .. " " .. db)
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("NEXT\t0", 1, true), out)
    end)

    it("reconnects after the server kills its connections, and the run continues", function()
      local p = script([[
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
]])
      local kill = pg and "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'sbtest' AND pid <> pg_backend_pid()"
        or nil
      local outf = h.tmpdir() .. "/kill_" .. driver .. ".out"
      local bg = string.format("%s %s --threads=2 --time=4 %s run > %s 2>&1 & pid=$!; sleep 1.5; ", h.bin, h.q(p), db, outf)
      local killer
      if pg then
        killer = string.format("echo %s | %s - --verbosity=1 %s; ", h.q("sysbench.sql.driver():connect():query([[" .. kill .. "]])"), h.bin, db)
      else
        killer = string.format("echo %s | %s - --verbosity=1 %s; ", h.q([[
local c = sysbench.sql.driver():connect()
local rs = c:query("SELECT id FROM information_schema.processlist WHERE user = 'sbtest' AND id <> CONNECTION_ID()")
local ids = {}
local r = rs:fetch_row()
while r do ids[#ids + 1] = r[1] r = rs:fetch_row() end
for _, id in ipairs(ids) do pcall(c.query, c, "KILL " .. id) end
]]), h.bin, db)
      end
      local pp = io.popen(bg .. killer .. "wait $pid; echo rc=$?")
      local res = pp:read("*a")
      pp:close()
      local out = h.read(outf)
      assert.is_truthy(res:find("rc=0", 1, true), res .. out)
      local reconn = tonumber(out:match("reconnects:%s+(%d+)"))
      assert.is_true(reconn and reconn >= 2, "both threads reconnected: " .. tostring(reconn) .. "\n" .. out)
      assert.is_true(tonumber(out:match("transactions:%s+(%d+)")) > 100)
    end)

    it("reconnects after a server restart", function()
      local p = script([[
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
]])
      local outf = h.tmpdir() .. "/restart_" .. driver .. ".out"
      local cmd = string.format("%s %s --time=8 --report-interval=1 %s run > %s 2>&1 & pid=$!; sleep 1.5; %s/tools/sandbox-db restart %s >/dev/null 2>&1; wait $pid; echo rc=$?",
        h.bin, h.q(p), db, outf, h.root, driver)
      local pp = io.popen(cmd)
      local res = pp:read("*a")
      pp:close()
      local out = h.read(outf)
      assert.is_truthy(res:find("rc=0", 1, true), res .. out)
      assert.is_true(tonumber(out:match("reconnects:%s+(%d+)")) >= 1, out)
      -- queries ran again after the restart: the last intermediate lines show throughput
      local last = out:match(".*%[ 7s %] thds: %d+ tps: ([%d.]+)")
      assert.is_true(last and tonumber(last) > 0, out)
    end)

    it("gives one clear line for bad connection options, without the password", function()
      local base = db:gsub("%-%-" .. driver .. "%-%w+=%S+", "")
      local good = {}
      for k, v in db:gmatch("%-%-" .. driver .. "%-(%w+)=(%S+)") do good[k] = v end
      local pre = "--" .. driver .. "-"
      local function with(over)
        local t = {}
        for k, v in pairs(good) do t[k] = over[k] or v end
        local s = base
        for k, v in pairs(t) do s = s .. " " .. pre .. k .. "=" .. v end
        return s
      end
      local p = script("function thread_init() sysbench.sql.driver():connect() end\nfunction event() end\n")
      local cases = {
        { { host = "127.0.0.2" }, nil },
        { { port = "1" }, "refused" },
        { { password = "wrong-secret" }, pg and "password authentication failed" or "Access denied" },
        { { db = "nosuchdb" }, pg and "nosuchdb" or "nosuchdb" },
      }
      for _, c in ipairs(cases) do
        local t0 = h.now()
        local out, err, rc = h.run(h.q(p) .. " --db-connect-timeout=3 --events=1 " .. with(c[1]) .. " run")
        local dt = h.now() - t0
        assert.are.equal(1, rc, err)
        assert.is_true(dt < 8, "within the connect timeout: " .. dt)
        assert.is_truthy(err:find("connection creation failed: " .. driver, 1, true), err)
        if c[2] then assert.is_truthy(err:find(c[2], 1, true), err) end
        assert.is_falsy((out .. err):find("sbtest-secret", 1, true))
        assert.is_falsy((out .. err):find("wrong-secret", 1, true))
        assert.is_true(h.count(err, "\n") <= 2, err)
      end
    end)
  end)
end
