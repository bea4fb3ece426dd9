-- sysbench.sql against the real sandbox servers: every API call scripts use, error handling,
-- ignore lists, reconnects, and bad connection options.
local h = require("helpers")

local function script(body)
  return h.write("sql_" .. tostring(math.random(1e9)) .. ".lua", body)
end

h.each_driver("sysbench.sql on %s", function(driver, db)
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

  it("loads rows through COPY on PostgreSQL and LOAD DATA LOCAL INFILE from memory on MySQL", function()
    local p = script([[
local con = sysbench.sql.driver():connect()
local my = sysbench.sql.driver():name() == "mysql"
local stream = my and "LOAD DATA LOCAL INFILE 'rows' INTO TABLE lbt_copy (id, s, n)" or "COPY lbt_copy (id, s, n) FROM STDIN"
con:query("DROP TABLE IF EXISTS lbt_copy")
con:query("CREATE TABLE lbt_copy (id INT PRIMARY KEY, s TEXT, n INT)")
con:copy_init(stream)
local pad = string.rep("x", 3000)
for i = 1, 50000 do
  con:copy_next(string.format("%d\trow %d %s\t%s", i, i, i % 1000 == 0 and pad or "", i % 2 == 0 and "\\N" or tostring(i)))
end
con:copy_done()
print("ROWS", con:query_row("SELECT count(*), count(n), sum(id), max(length(s)) FROM lbt_copy"))
if my then
  -- the server asking for a file outside a copy gets none
  local ok = pcall(con.query, con, "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE lbt_copy (s)")
  print("FILE", ok, con.sql_errmsg, con:query_row("SELECT count(*) FROM lbt_copy"))
  con:query("DROP TABLE lbt_copy")
  return
end
-- a bad row fails the COPY it is in; the session stays usable, nothing of that COPY stays
con:copy_init("COPY lbt_copy (id, s, n) FROM STDIN")
con:copy_next("50001\tok\t1")
con:copy_next("50002\tmissing a field")
local ok = pcall(con.copy_done, con)
print("BAD", ok, con.sql_state, con:query_row("SELECT count(*) FROM lbt_copy"))
-- ~7 MB of rows (more than one 4 MiB statement's worth) go through ONE streaming COPY: one
-- transaction writes them all, so a bad row deep in the stream undoes the pieces sent before it;
-- the error (with its SQLSTATE) is copy_done()'s, other statements wait for it, and the session
-- stays usable
local wide = string.rep("r", 60)
con:copy_init("COPY lbt_copy (id, s, n) FROM STDIN")
for i = 200001, 300000 do con:copy_next(string.format("%d\t%s\t%d", i, wide, i)) end
con:copy_done()
print("ONE", con:query_row("SELECT count(*), count(DISTINCT xmin::text) FROM lbt_copy WHERE id > 200000"))
con:query("DELETE FROM lbt_copy WHERE id > 200000")
con:copy_init("COPY lbt_copy (id, s, n) FROM STDIN")
for i = 60001, 160000 do con:copy_next(i == 150000 and "x\ty\t1" or string.format("%d\t%s\t%d", i, wide, i)) end
ok = pcall(con.query, con, "SELECT 1")
print("BUSY", ok, con.sql_errmsg)
ok = pcall(con.copy_done, con)
print("DEEP", ok, con.sql_state, con:query_row("SELECT count(*) FROM lbt_copy"))
con:query("DROP TABLE lbt_copy")
]])
    local out, err, rc = h.run(h.q(p) .. " " .. db .. " --verbosity=1")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("ROWS\t50000\t25000\t1250025000\t3010", 1, true), out)
    if driver == "mysql" then
      assert.is_truthy(out:find("FILE\tfalse\tmysql: LOAD DATA LOCAL INFILE outside copy_init()/copy_done(): no file is sent\t50000", 1, true), out)
    else
      assert.is_truthy(out:find("BAD\tfalse\t22P04\t50000", 1, true), out)
      assert.is_truthy(out:find("ONE\t100000\t1\n", 1, true), out)
      assert.is_truthy(out:find("BUSY\tfalse\tpgsql: a COPY is streaming on this connection (call copy_done() before other statements)", 1, true), out)
      assert.is_truthy(out:find("DEEP\tfalse\t22P02\t50000", 1, true), out)
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
    -- with the line of the loader's call that failed (the bulk insert's last flush)
    assert.is_truthy(err:lower():find("failed in thread 1: %S*parallel_load%.lua:%d+: sql error.*constraint"), err)
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
    local kill = pg and "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'sbtest' AND datname = current_database() AND pid <> pg_backend_pid()"
      or nil
    local outf = h.tmpdir() .. "/kill_" .. driver .. ".out"
    local bg = string.format("%s %s --threads=2 --time=4 %s run > %s 2>&1 & pid=$!; %s sleep 1.5; ", h.bin, h.q(p), db, outf,
      h.wait_started(outf))
    local killer
    if pg then
      killer = string.format("echo %s | %s - --verbosity=1 %s; ", h.q("sysbench.sql.driver():connect():query([[" .. kill .. "]])"), h.bin, db)
    else
      killer = string.format("echo %s | %s - --verbosity=1 %s; ", h.q([[
local c = sysbench.sql.driver():connect()
local rs = c:query("SELECT id FROM information_schema.processlist WHERE user = 'sbtest' AND db = DATABASE() AND id <> CONNECTION_ID()")
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

  it("refuses every use of a connection after disconnect() with an error, never a crash", function()
    local p = script([[
local drv = sysbench.sql.driver()
local c = drv:connect()
local st = c:prepare("SELECT 1")
local sp = c:prepare("SELECT CAST(? AS CHAR(8))")
local param = sp:bind_create(sysbench.sql.type.INT)
local rs = c:query("SELECT 1")
c:disconnect()
local function try(name, f, ...)
  local ok, e = pcall(f, ...)
  print(name, ok, e)
end
try("QUERY", c.query, c, "SELECT 1")
try("QROW", c.query_row, c, "SELECT 1")
try("PREPARE", c.prepare, c, "SELECT 1")
try("EXECUTE", st.execute, st)
try("BIND", sp.bind_param, sp, param)
try("FETCH", rs.fetch_row, rs)
try("FREE", rs.free, rs)
try("BULK", c.bulk_insert_init, c, "INSERT INTO lbt_h2_closed VALUES")
try("BULKNEXT", c.bulk_insert_next, c, "(1)")
try("COPY", c.copy_init, c, "COPY lbt_h2_closed FROM STDIN")
try("RECONNECT", c.reconnect, c)
c:disconnect()
st:close()
print("ALIVE", drv:connect():query_row("SELECT 7"))
]])
    local out, err, rc = h.run(h.q(p) .. " " .. db)
    assert.are.equal(0, rc, "exit code " .. tostring(rc) .. ": " .. err)
    for _, name in ipairs({ "QUERY", "QROW", "PREPARE", "EXECUTE", "BIND", "FETCH", "FREE", "BULK", "COPY", "RECONNECT" }) do
      assert.is_truthy(out:find(name .. "\tfalse\t[^\n]-sql_%d+%.lua:%d+: SQL API error: attempt to use an already closed connection\n"), name .. ": " .. out)
    end
    -- bulk_insert_next before a (refused) init is the usual misuse message
    assert.is_truthy(out:find("BULKNEXT\tfalse\t[^\n]-db_bulk_insert_next%(%) failed"), out)
    assert.is_truthy(out:find("ALIVE\t7", 1, true), out)
    -- a pooled connection (--users) ignores disconnect(): it belongs to the pool
    local u = script([[
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query("SELECT 1")
  con:disconnect()
end
]])
    out, err, rc = h.run(h.q(u) .. " " .. db .. " --users=2 --events=6 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("transactions:                        6 ", 1, true), out)
  end)

  it("gives a parameter bound to several statements to all of them, and survives re-binding", function()
    local text = pg and "VARCHAR" or "CHAR"
    local p = script([[
local t = sysbench.sql.type
local con = sysbench.sql.driver():connect()
local s1 = con:prepare("SELECT CAST(? AS ]] .. text .. [[(20)), 1")
local s2 = con:prepare("SELECT CAST(? AS ]] .. text .. [[(20)), 2")
local sv = con:prepare("SELECT CAST(? AS ]] .. text .. [[(100)), CAST(? AS ]] .. text .. [[(20))")
local p = s1:bind_create(t.INT)
s1:bind_param(p)
s2:bind_param(p)
p:set(5)
local function get(s) return s:execute():fetch_row()[1] end
print("BOTH", get(s1), get(s2))
p:set(6)
print("AGAIN", get(s2), get(s1))
-- s1 gets its own parameter: p still feeds s2, and nothing writes into s1's old array
local q = s1:bind_create(t.INT)
s1:bind_param(q)
q:set(7)
p:set(8)
for _ = 1, 3 do collectgarbage() end
print("REBIND", get(s1), get(s2))
-- strings shared by two statements, and a grown buffer after a collection
local v = sv:bind_create(t.VARCHAR, 4)
local w = sv:bind_create(t.VARCHAR, 4)
sv:bind_param(v, w)
s2:bind_param(w)
v:set(string.rep("v", 60))
w:set("www")
for _ = 1, 3 do collectgarbage() end
local r = sv:execute():fetch_row()
print("STR", #r[1], r[2], get(s2))
]])
    local out, err, rc = h.run(h.q(p) .. " " .. db)
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("BOTH\t5\t5", 1, true), out)
    assert.is_truthy(out:find("AGAIN\t6\t6", 1, true), out)
    assert.is_truthy(out:find("REBIND\t7\t8", 1, true), out)
    assert.is_truthy(out:find("STR\t60\twww\twww", 1, true), out)
    -- the same through pooled connections (--users): each user's private copy sees the values
    local u = script([[
local t = sysbench.sql.type
local con, s1, s2, p
local bad = 0
function thread_init()
  con = sysbench.sql.driver():connect()
  s1 = con:prepare("SELECT CAST(? AS ]] .. text .. [[(20))")
  s2 = con:prepare("SELECT CAST(? AS ]] .. text .. [[(20))")
  p = s1:bind_create(t.INT)
  s1:bind_param(p)
  s2:bind_param(p)
end
function event()
  local n = luabench.user * 1000 + sysbench.rand.uniform(1, 999)
  p:set(n)
  local a = s1:execute():fetch_row()[1]
  p:set(n)
  local b = s2:execute():fetch_row()[1]
  if a ~= tostring(n) or b ~= tostring(n) then bad = bad + 1 end
end
function thread_done() print("BAD", bad) end
]])
    out, err, rc = h.run(h.q(u) .. " " .. db .. " --users=4 --events=40 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("BAD\t0", 1, true), out)
  end)

  it("names the script's line of the failing call in SQL errors, for every entry point", function()
    local p = script([[
local con = sysbench.sql.driver():connect()
local closed = sysbench.sql.driver():connect()
local function helper(q)
  local rs = con:query(q) -- line 4
  return rs
end
local function case(name, f)
  local ok, e = pcall(f)
  print("CASE", name, tostring(e))
end
con:query("DROP TABLE IF EXISTS lbt_h2_loc")
con:query("CREATE TABLE lbt_h2_loc (id INT NOT NULL)")
local ins = con:prepare("INSERT INTO lbt_h2_loc VALUES (?)")
local p = ins:bind_create(sysbench.sql.type.INT)
ins:bind_param(p)
closed:disconnect()
case("helper", function()
  helper("SELEC 1") -- line 18
end)
case("query_row", function()
  local x = con:query_row("SELEC 2") -- line 21
end)
case("execute", function()
  p:set(nil)
  local rs = ins:execute() -- line 25
end)
case("bulk_done", function()
  con:bulk_insert_init("INSERT INTO lbt_h2_nosuch VALUES")
  con:bulk_insert_next("(1)")
  con:bulk_insert_done() -- line 30
end)
case("bulk_next", function()
  con:bulk_insert_next("(1)") -- line 33
end)
case("copy", function()
  local my = sysbench.sql.driver():name() == "mysql"
  local sql = my and "LOAD DATA LOCAL INFILE 'x' INTO TABLE lbt_h2_nosuch" or "COPY lbt_h2_loc FROM STDIN"
  -- the statement runs when the rows are sent: the error is copy_done()'s
    con:copy_init(sql)
    con:copy_next("x")
    con:copy_done() -- line 41
  -- (both servers)
end)
case("prepare", function()
  local s = closed:prepare("SELECT 1") -- line 45
end)
case("closed", function()
  local r = closed:query("SELECT 1") -- line 48
end)
case("mysql_prepare", function()
  if sysbench.sql.driver():name() == "mysql" then
    local s = con:prepare("SELEC ?") -- line 52
  else
    error("skip", 0)
  end
end)
con:query("DROP TABLE lbt_h2_loc")
function thread_init()
  local c = sysbench.sql.driver():connect()
  c:query("SELEC 3") -- line 60
end
function event() end
]])
    local out, err, rc = h.run(h.q(p) .. " " .. db .. " --events=1 run")
    assert.are.equal(1, rc, err)
    local lines = { helper = 4, query_row = 21, execute = 25, bulk_done = 30, bulk_next = 33,
      copy = 41, prepare = 45, closed = 48, mysql_prepare = not pg and 52 }
    for name, line in pairs(lines) do
      if line then
        assert.is_truthy(out:find("CASE\t" .. name .. "\t[^\n]-sql_%d+%.lua:" .. line .. ": "), name .. " at line " .. line .. ":\n" .. out)
      end
    end
    assert.is_truthy(err:find("`thread_init' function failed: [^\n]-sql_%d+%.lua:60: SQL error"), err)
  end)
end)
