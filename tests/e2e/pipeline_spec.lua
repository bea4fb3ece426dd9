-- Pipelines (con:pipeline(), PostgreSQL's pipeline mode) against the sandbox servers: results in
-- order, a failure mid-pipeline, reconnects, counters, --users, the OLTP option, refusal on
-- MySQL. A server restart under pipelines is in faults_spec (servers of its own).
local h = require("helpers")

local pg = h.db("pgsql")

local function run_script(name, text, args)
  local p = h.write(name, text)
  return h.run(h.q(p) .. " " .. pg .. " " .. (args or "--events=1") .. " run")
end

describe("pipelines on pgsql", function()
  if not pg then
    pending("the pgsql sandbox is not running")
    return
  end

  it("returns each statement's result in order, with rows and affected counts, counted once each", function()
    local out, err, rc = run_script("pl_order.lua", [[
function event()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS lbt_pl1")
  con:query("CREATE TABLE lbt_pl1(id int primary key, v varchar(10))")
  local ins = con:prepare("INSERT INTO lbt_pl1 VALUES (?, ?)")
  local a, b = ins:bind_create(sysbench.sql.type.INT), ins:bind_create(sysbench.sql.type.VARCHAR, 10)
  ins:bind_param(a, b)
  local sel = con:prepare("SELECT v FROM lbt_pl1 WHERE id = ?")
  local x = sel:bind_create(sysbench.sql.type.INT)
  sel:bind_param(x)
  local p = con:pipeline()
  for i = 1, 3 do a:set(i) b:set("v" .. i) p:execute(ins) end
  for i = 3, 1, -1 do x:set(i) p:execute(sel) end
  p:query("UPDATE lbt_pl1 SET v = 'u' WHERE id > 1")
  p:query("SELECT id FROM lbt_pl1 ORDER BY id")
  local res = p:run()
  for i, r in ipairs(res) do
    local vals = {}
    local row = r:fetch_row()
    while row do vals[#vals + 1] = row[1] row = r:fetch_row() end
    print(string.format("R %d %s %s %d %s", i, r.status, r.kind, r.nrows, table.concat(vals, ",")))
  end
  con:query("DROP TABLE lbt_pl1")
end
]], "--events=1 --format=json --verbosity=3")
    assert.are.equal(0, rc, err)
    local want = {
      "R 1 done write 1 ", "R 2 done write 1 ", "R 3 done write 1 ",
      "R 4 done read 1 v3", "R 5 done read 1 v2", "R 6 done read 1 v1",
      "R 7 done write 2 ", "R 8 done read 3 1,2,3",
    }
    for _, line in ipairs(want) do assert.is_truthy(out:find(line .. "\n", 1, true), line .. " in\n" .. out) end
    local doc = h.json(out:sub(out:find("\n{", 1, true) or 1))
    assert(doc, out)
    -- 4 reads, 4 writes (3 inserts, 1 update); DROP x2 + CREATE = 3 other
    assert.are.equal(4, doc.counters.reads)
    assert.are.equal(4, doc.counters.writes)
    assert.are.equal(3, doc.counters.other)
  end)

  it("reports a failure mid-pipeline, the rest aborted, rolls back the implicit transaction, and stays usable", function()
    local out, err, rc = run_script("pl_fail.lua", [[
function event()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS lbt_pl2")
  con:query("CREATE TABLE lbt_pl2(id int primary key)")
  local p = con:pipeline()
  p:query("INSERT INTO lbt_pl2 VALUES (1)")
  p:query("SELECT 1/0")
  p:query("INSERT INTO lbt_pl2 VALUES (2)")
  for i, r in ipairs(p:run{ errors = "return" }) do
    print(string.format("R %d %s %s %s %s", i, r.status, r.kind, tostring(r.sql_state), tostring(r.sql_errmsg)))
  end
  print("COUNT " .. con:query_row("SELECT count(*) FROM lbt_pl2"))
  -- inside an explicit transaction: the driver rolls it back after the failure
  con:query("BEGIN")
  p = con:pipeline()
  p:query("INSERT INTO lbt_pl2 VALUES (3)")
  p:query("SELECT * FROM no_such_table_pl")
  p:run{ errors = "return" }
  print("AFTER " .. con:query_row("SELECT count(*) FROM lbt_pl2"))
  con:query("DROP TABLE lbt_pl2")
  p = con:pipeline()
  p:query("SELECT 1")
  p:query("SELECT 1/0")
  p:run()
end
]], "--events=1 --format=json")
    assert.are.equal(1, rc, "the last pipeline's division by zero ends the run")
    assert.is_truthy(out:find("R 1 done write nil nil\n", 1, true), out)
    assert.is_truthy(out:find("R 2 failed error 22012 division by zero\n", 1, true), out)
    assert.is_truthy(out:find("R 3 aborted error nil aborted by the pipeline: statement 2 failed\n", 1, true), out)
    assert.is_truthy(out:find("COUNT 0\n", 1, true), "the insert before the failure was rolled back: " .. out)
    assert.is_truthy(out:find("AFTER 0\n", 1, true), out)
    assert.is_truthy(err:find("pl_fail.lua:24: SQL error, errno = 0, state = '22012': division by zero " ..
      "(query: SELECT 1/0 [pipeline statement 2 of 2])", 1, true), err)
  end)

  it("abort drops a pipeline, other statements wait for the run, client-side prepared statements pipeline too", function()
    local p = h.write("pl_abort.lua", [[
function event()
  local con = sysbench.sql.driver():connect()
  local st = con:prepare("SELECT ?::int * 2")
  local x = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(x)
  local p = con:pipeline()
  x:set(4) p:execute(st)
  p:query("SELECT pg_sleep(0.05)")
  p:abort()
  print("AFTER ABORT " .. con:query_row("SELECT 5"))
  p = con:pipeline()
  local ok, err = pcall(con.query, con, "SELECT 1")
  print("BUSY " .. tostring(err))
  x:set(21) p:execute(st)
  print("RESULT " .. p:run()[1]:fetch_row()[1])
  st:close()
end
]])
    for _, mode in ipairs({ "auto", "disable" }) do
      local out, err, rc = h.run(h.q(p) .. " " .. pg .. " --db-ps-mode=" .. mode .. " --events=1 run")
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("AFTER ABORT 5\n", 1, true), out)
      assert.is_truthy(out:find("BUSY " .. p .. ":12: SQL API error: pgsql: a pipeline is open on this connection " ..
        "(run it before other statements)\n", 1, true), out)
      assert.is_truthy(out:find("RESULT 42\n", 1, true), mode .. ": " .. out)
    end
  end)

  it("reconnects after the backend is killed: unanswered statements are lost, the event restarts", function()
    local out, err, rc = run_script("pl_kill.lua", [[
local con, admin
function thread_init()
  con = sysbench.sql.driver():connect()
  admin = sysbench.sql.driver():connect()
end
local n = 0
function event()
  n = n + 1
  if n == 1 then
    admin:query("SELECT pg_terminate_backend(" .. con:query_row("SELECT pg_backend_pid()") .. ")")
    local p = con:pipeline()
    p:query("SELECT 1") p:query("SELECT 2")
    for i, r in ipairs(p:run{ errors = "return" }) do print("LOST " .. i .. " " .. r.status) end
    print("ALIVE " .. con:query_row("SELECT 40 + 2"))
    admin:query("SELECT pg_terminate_backend(" .. con:query_row("SELECT pg_backend_pid()") .. ")")
  end
  local p = con:pipeline()
  p:query("SELECT 7")
  print("EVENT " .. n .. " " .. p:run()[1]:fetch_row()[1])
end
]], "--events=2 --format=json")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("LOST 1 lost\nLOST 2 lost\nALIVE 42\n", 1, true), out)
    -- event 1's pipeline lost its connection: reconnected and retried as event 2
    assert.is_truthy(out:find("EVENT 2 7\nEVENT 3 7\n", 1, true), out)
    local doc = h.json(out:sub(out:find("\n{", 1, true) or 1))
    assert(doc, out)
    assert.are.equal(2, doc.counters.reconnects)
  end)

  it("parks emulated users while their pipeline is in flight; per-type statistics as usual", function()
    -- Each thread counts the pipelines its users have in flight: a parked user lets the
    -- thread's other users start theirs, so the count climbs above one (a blocking run could
    -- never take it past one), whatever the machine's load.
    local out, err, rc = run_script("pl_users.lua", [[
local con
local T = luabench.stats.type("Pipe")
local inflight, most = 0, 0
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  local t0 = T:start()
  local p = con:pipeline()
  for i = 1, 4 do p:query("SELECT pg_sleep(0.005), " .. i) end
  inflight = inflight + 1
  if inflight > most then most = inflight end
  local res = p:run()
  inflight = inflight - 1
  assert(#res == 4 and res[4]:fetch_row()[2] == "4")
  T:done(t0)
end
function thread_done() io.stderr:write("MOST_IN_FLIGHT ", most, "\n") end
]], "--users=16 --threads=2 --time=2 --format=json")
    assert.are.equal(0, rc, err)
    local doc = h.json(out)
    local threads = 0
    for most in err:gmatch("MOST_IN_FLIGHT (%d+)") do
      threads = threads + 1
      assert.is_true(tonumber(most) > 1, "a thread's users never overlapped: " .. err)
    end
    assert.are.equal(2, threads, err)
    assert.is_true(doc.counters.events > 0)
    assert.are.equal(doc.counters.events * 4, doc.counters.reads)
    assert.are.equal(doc.counters.events, doc.types.Pipe.count)
    local p50 = doc.types.Pipe.latency_ms.percentiles["50"]
    assert.is_true(p50 >= 20, "4 x 5 ms in one pipeline, p50 " .. p50 .. " ms")
  end)

  it("oltp_read_write --pipeline=on and all run the same statements as off", function()
    local base = pg .. " --tables=1 --table-size=1000"
    local _, err, rc = h.run("oltp_read_write " .. base .. " prepare")
    assert.are.equal(0, rc, err)
    for _, mode in ipairs({ "off", "on", "all" }) do
      local out, err2, rc2 = h.run("oltp_read_write " .. base .. " --events=50 --pipeline=" .. mode .. " --format=json run")
      assert.are.equal(0, rc2, err2)
      local doc = h.json(out)
      assert.are.same({ 50 * 14, 50 * 4, 50 * 2 }, { doc.counters.reads, doc.counters.writes, doc.counters.other }, mode)
    end
    h.run("oltp_read_write " .. base .. " cleanup")
  end)

  it("tpcc --pipeline runs OrderStatus and StockLevel pipelined, and refuses --procedures=on", function()
    local base = "tpcc " .. pg .. " --table-prefix=lbt_pl_ --threads=2"
    local _, err, rc = h.run(base .. " --warehouses=1 prepare")
    assert.are.equal(0, rc, err)
    local out, err2, rc2 = h.run(base .. " --time=2 --procedures=off --pipeline --weights=0,0,50,0,50 --format=json run")
    assert.are.equal(0, rc2, err2)
    local doc = h.json(out)
    assert.is_true(doc.types.OrderStatus.count > 20 and doc.types.StockLevel.count > 20, out)
    assert.are.equal(0, doc.types.OrderStatus.errors + doc.types.StockLevel.errors)
    assert.are.equal("pipelined_statements", doc.workload_stats.transactions)
    -- --pipeline asks for client-side statements: by default it gets them
    out, err2, rc2 = h.run(base .. " --time=1 --pipeline --weights=0,0,50,0,50 --format=json run")
    assert.are.equal(0, rc2, err2)
    assert.are.equal("pipelined_statements", h.json(out).workload_stats.transactions)
    local _, err3, rc3 = h.run(base .. " --time=1 --pipeline --procedures=on run")
    assert.are.equal(1, rc3)
    assert.is_truthy(err3:find("--pipeline pipelines client-side statements: give --procedures=off too", 1, true), err3)
    h.run(base .. " cleanup")
  end)
end)

describe("examples/pipelined_reads.lua", function()
  if not pg then
    pending("the pgsql sandbox is not running")
    return
  end

  it("reads a page of lookups as one pipeline or one by one: the same reads, every row found", function()
    local ex = h.q(h.root .. "/examples/pipelined_reads.lua")
    local oltp = "oltp_read_only " .. pg .. " --tables=1 --table-size=1000 "
    h.run(oltp .. "cleanup")
    local _, err, rc = h.run(oltp .. "prepare")
    assert.are.equal(0, rc, err)
    for _, mode in ipairs({ "on", "off" }) do
      local out
      out, err, rc = h.run(ex .. " " .. pg .. " --table-size=1000 --lookups=5 --pipelined=" .. mode ..
        " --threads=2 --events=40 --time=0 --format=json run")
      assert.are.equal(0, rc, err)
      local doc = h.json(out)
      assert.are.equal(40, doc.counters.events)
      assert.are.equal(40, doc.types.Page.count)
      assert.are.equal(200, doc.counters.reads)
      assert.are.equal(0, doc.counters.errors)
    end
    h.run(oltp .. "cleanup")
  end)
end)

describe("pipelines elsewhere", function()
  local my = h.db("mysql")
  it("are refused on mysql with one clear line", function()
    if not my then
      pending("the mysql sandbox is not running")
      return
    end
    local p = h.write("pl_mysql.lua", "function event() sysbench.sql.driver():connect():pipeline() end\n")
    local _, err, rc = h.run(h.q(p) .. " " .. my .. " --events=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("pl_mysql.lua:1: SQL API error: mysql: this driver cannot pipeline statements " ..
      "(MySQL/MariaDB have no pipeline mode; use PostgreSQL)", 1, true), err)
    local _, err2, rc2 = h.run("oltp_read_only " .. my .. " --pipeline=on --events=1 run")
    assert.are.equal(1, rc2)
    assert.is_truthy(err2:find("--pipeline=on needs PostgreSQL (--db-driver=pgsql); the mysql driver cannot pipeline statements", 1, true), err2)
  end)

  it("are asked for with driver:supports(), which each driver answers from what it implements", function()
    local p = h.write("pl_supports.lua", [[
function event() end
function thread_init()
  local d = sysbench.sql.driver()
  print("S " .. d:name(), d:supports("pipeline"), d:supports("prepare"), d:supports("copy"), d:supports("copy_stream"))
  print("E " .. select(2, pcall(function() local v = d:supports("pipelines") return v end)))
end
]])
    local want = { null = "true\ttrue\tfalse\tfalse", pgsql = "true\ttrue\ttrue\ttrue",
                   mysql = "false\ttrue\ttrue\tfalse" }
    for _, name in ipairs({ "null", "pgsql", "mysql" }) do
      local opts = name == "null" and "--db-driver=null" or h.db(name)
      if opts then
        local out, err, rc = h.run(h.q(p) .. " " .. opts .. " --events=1 run")
        assert.are.equal(0, rc, err)
        assert.is_truthy(out:find("S " .. name .. "\t" .. want[name] .. "\n", 1, true), out)
        assert.is_truthy(out:find("pl_supports.lua:5: driver:supports(): unknown feature 'pipelines'", 1, true), out)
      elseif os.getenv("CI") == "true" then
        error("the " .. name .. " sandbox is not running")
      end
    end
  end)

  it("are trivial on the null driver (each statement classified, no rows)", function()
    local p = h.write("pl_null.lua", [[
function event()
  local p = sysbench.sql.driver():connect():pipeline()
  p:query("SELECT 1") p:query("UPDATE t SET a = 1") p:query("BEGIN")
  for i, r in ipairs(p:run()) do print("R " .. i .. " " .. r.kind) end
end
]])
    local out, err, rc = h.run(h.q(p) .. " --db-driver=null --events=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("R 1 read\nR 2 write\nR 3 other\n", 1, true), out)
  end)
end)
