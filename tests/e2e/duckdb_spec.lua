-- The duckdb driver against real DuckDB database files: the SQL API (types, NULLs, prepared
-- statements, affected rows, COPY through the appender, errors with SQLSTATEs, transactions),
-- the database shared by every thread, the OLTP family, and dbt3 (prepare, check, power and
-- throughput tests, answers).
local h = require("helpers")

describe("duckdb driver", function()
  local db = h.duckdb("api.duckdb")
  if not db then
    pending("the duckdb driver is not built in (tools/install-duckdb)")
    return
  end

  local function lua(opts, script)
    local out, err, rc = h.run("- --verbosity=1 " .. opts, { stdin = script })
    assert.are.equal(0, rc, out .. err)
    return out
  end

  it("loads DuckDB's library only in a process that uses it, and names it when it cannot", function()
    -- A run without DuckDB neither maps its 70 MB library nor gives every thread its
    -- thread-local storage.
    local maps = [[
local f = io.open("/proc/self/maps")
local text = f:read("*a")
f:close()
print("MAPPED", text:find("libduckdb", 1, true) ~= nil)
]]
    assert.truthy(lua("", maps):find("MAPPED\tfalse", 1, true))
    assert.truthy(lua(db, "sysbench.sql.driver():connect():query('SELECT 1')\n" .. maps):find("MAPPED\ttrue", 1, true))
    local out, err, rc = h.run("oltp_point_select " .. db .. " --events=1 run", { env = "LUABENCH_DUCKDB_LIB=/no/libduckdb.so " })
    assert.are.equal(1, rc, out)
    assert.are.equal("FATAL: cannot load DuckDB's library (/no/libduckdb.so: cannot open shared object file: No such " ..
      "file or directory): run tools/install-duckdb, or name it with LUABENCH_DUCKDB_LIB\n", err)
  end)

  it("runs queries and prepared statements with every type and NULLs; COPY through the appender", function()
    local out = lua(db, [[
local c = sysbench.sql.driver():connect()
c:query("CREATE TABLE t1 (id INTEGER PRIMARY KEY, k BIGINT, c VARCHAR(20), d DATE, p DECIMAL(15,2), f DOUBLE)")
c:query("INSERT INTO t1 VALUES (1, 10, 'a', DATE '1995-01-01', 1.5, 0.25), (2, NULL, 'b''x', NULL, 2.25, NULL)")
local rs = c:query("SELECT * FROM t1 ORDER BY id")
print("shape", rs.nrows, rs.nfields)
local row = rs:fetch_row()
while row do print("row", row[1], row[2], row[3], row[4], row[5], row[6]) row = rs:fetch_row() end
c:query("UPDATE t1 SET k = 5 WHERE id = 1")
local st = c:prepare("SELECT c, k FROM t1 WHERE id = ? AND c <> ?")
local p1 = st:bind_create(sysbench.sql.type.INT)
local p2 = st:bind_create(sysbench.sql.type.VARCHAR, 10)
st:bind_param(p1, p2)
p1:set(2) p2:set("zz")
print("ps", st:execute():fetch_row()[1])
local del = c:prepare("DELETE FROM t1 WHERE id = ?")
local d1 = del:bind_create(sysbench.sql.type.INT)
del:bind_param(d1) d1:set(1)
del:execute()
print("left", c:query_row("SELECT COUNT(*) FROM t1"))
c:copy_init("COPY t1 (id, k, c, d, p, f) FROM STDIN")
c:copy_next("3\t30\ttab\\there\t1996-02-03\t9.99\t1.5")
c:copy_next("4\t\\N\tz\t\\N\t0\t\\N")
c:copy_done()
print("copied", c:query_row("SELECT COUNT(*), SUM(k), MAX(c) FROM t1 WHERE id >= 3"))
print("escape", c:query_row("SELECT c FROM t1 WHERE id = 3") == "tab\there")
]])
    assert.is_truthy(out:find("shape\t2\t6", 1, true), out)
    assert.is_truthy(out:find("row\t1\t10\ta\t1995-01-01\t1.50\t0.25", 1, true), out)
    assert.is_truthy(out:find("row\t2\tnil\tb'x\tnil\t2.25\tnil", 1, true), out)
    assert.is_truthy(out:find("ps\tb'x", 1, true), out)
    assert.is_truthy(out:find("left\t1", 1, true), out)
    assert.is_truthy(out:find("copied\t2\t30\tz", 1, true), out)
    assert.is_truthy(out:find("escape\ttrue", 1, true), out)
  end)

  it("gives typed values without text (rs:next, rs:get, rs:fetch_values); fetch_row stays text", function()
    local out = lua(db, [[
local c = sysbench.sql.driver():connect()
local rs = c:query("SELECT 42::INTEGER, 12.25::DECIMAL(10,2), 2.5::DOUBLE, true, 'héllo', NULL, DATE '1995-03-04', " ..
  "10000000000::BIGINT, 7::DECIMAL(18,0)")
print("next", rs:next())
local t = {}
for i = 1, rs.nfields do local v = rs:get(i) t[#t + 1] = type(v) .. ":" .. tostring(v) end
print("typed", table.concat(t, " "))
print("end", rs:next(), select(2, pcall(rs.get, rs, 1)))
print("nocol", select(2, pcall(rs.get, rs, 10)))
rs = c:query("SELECT i, i * 0.5 AS h, 'x' || i AS s FROM range(100000) t(i)")
local n, sum, last = 0, 0, nil
while rs:next() do n = n + 1; sum = sum + rs:get(2); last = rs:get(3) end
print("sum", rs.nrows, n, sum, last)
local v = c:query("SELECT 1.5::DECIMAL(4,1), NULL, 'z'"):fetch_values()
print("values", type(v[1]), v[1], v[2], v[3])
local r = c:query("SELECT 1.5::DECIMAL(4,1), 2.5::DOUBLE, 3::INTEGER"):fetch_row()
print("text", type(r[1]), r[1], r[2], r[3])
]])
    assert.is_truthy(out:find("next\ttrue\n", 1, true), out)
    assert.is_truthy(out:find("typed\tnumber:42 number:12.25 number:2.5 boolean:true string:héllo nil:nil " ..
      "string:1995-03-04 number:10000000000 number:7\n", 1, true), out)
    assert.is_truthy(out:find("end\tfalse\t[^\n]*SQL API error: get%(%) without a current row"), out)
    assert.is_truthy(out:find("nocol\t[^\n]*SQL API error: get%(10%): no such column %(the result set has 9%)"), out)
    assert.is_truthy(out:find("sum\t100000\t100000\t2499975000\tx99999\n", 1, true), out)
    assert.is_truthy(out:find("values\tnumber\t1.5\tnil\tz\n", 1, true), out)
    assert.is_truthy(out:find("text\tstring\t1.5\t2.5\t3\n", 1, true), out)
  end)

  it("reports errors with SQLSTATEs, and a conflict is retried after its transaction is rolled back", function()
    local out = lua(db, [[
local c = sysbench.sql.driver():connect()
c:query("CREATE TABLE t2 (id INTEGER PRIMARY KEY, v INTEGER)")
c:query("INSERT INTO t2 VALUES (1, 0)")
local ok = pcall(c.query, c, "INSERT INTO t2 VALUES (1, 1)")
print("dup", ok, c.sql_state)
ok = pcall(c.query, c, "SELEC 1")
print("syntax", ok, c.sql_state)
ok = pcall(c.query, c, "SELECT * FROM nowhere")
print("missing", ok, c.sql_state)
-- DuckDB's error types as PostgreSQL's SQLSTATEs (they were HY000)
c:query("CREATE TABLE p (id INTEGER PRIMARY KEY, n INTEGER NOT NULL CHECK (n > 0))")
c:query("CREATE TABLE f (pid INTEGER REFERENCES p (id))")
for _, q in ipairs({ "SELECT nosuch FROM t2", "SELECT nofunc(1)", "SELECT CAST('x' AS INTEGER)",
    "SELECT 2147483647::INTEGER + 1", "INSERT INTO p VALUES (1, NULL)", "INSERT INTO p VALUES (1, -1)",
    "INSERT INTO f VALUES (9)", "CREATE TABLE t2 (a INTEGER)", "SELECT id FROM t2 GROUP BY v",
    "SELECT 1::nosuchtype" }) do
  ok = pcall(c.query, c, q)
  print("state", q, ok, c.sql_state)
end
-- two connections update the same row: the second to commit conflicts (40001)
local a, b = sysbench.sql.driver():connect(), sysbench.sql.driver():connect()
a:query("BEGIN") b:query("BEGIN")
a:query("UPDATE t2 SET v = 1 WHERE id = 1")
ok = pcall(b.query, b, "UPDATE t2 SET v = 2 WHERE id = 1")
print("conflict", ok, b.sql_state)
b:query("ROLLBACK") a:query("COMMIT")
print("value", a:query_row("SELECT v FROM t2"))
]])
    assert.is_truthy(out:find("dup\tfalse\t23505", 1, true), out)
    assert.is_truthy(out:find("syntax\tfalse\t42601", 1, true), out)
    assert.is_truthy(out:find("missing\tfalse\t42P01", 1, true), out)
    assert.is_truthy(out:find("conflict\tfalse\t40001", 1, true), out)
    for q, state in pairs({ ["SELECT nosuch FROM t2"] = "42703", ["SELECT nofunc(1)"] = "42883",
      ["SELECT CAST('x' AS INTEGER)"] = "22P02", ["SELECT 2147483647::INTEGER + 1"] = "22003",
      ["INSERT INTO p VALUES (1, NULL)"] = "23502", ["INSERT INTO p VALUES (1, -1)"] = "23514",
      ["INSERT INTO f VALUES (9)"] = "23503", ["CREATE TABLE t2 (a INTEGER)"] = "42P07",
      ["SELECT id FROM t2 GROUP BY v"] = "42803", ["SELECT 1::nosuchtype"] = "42704" }) do
      assert.is_truthy(out:find("state\t" .. q .. "\tfalse\t" .. state .. "\n", 1, true), q .. " -> " .. state .. ": " .. out)
    end
    assert.is_truthy(out:find("value\t1", 1, true), out)
    local _, err, rc = h.run("- --db-driver=duckdb --duckdb-db=/nonexistent/dir/x.duckdb", { stdin = "sysbench.sql.driver():connect()" })
    assert.are_not.equal(0, rc)
    assert.is_truthy(err:find("duckdb: cannot open the database '/nonexistent/dir/x.duckdb'", 1, true), err)
  end)

  -- Checked before anything runs, as one line: they once failed in the script's thread_init,
  -- blamed on its line ('s.lua:2: connection creation failed: duckdb: invalid setting ...').
  it("checks its options before anything runs, and names a file of the other kind", function()
    local script = h.write("duckdb_connect.lua", "local c\nfunction thread_init() c = sysbench.sql.driver():connect() end\n" ..
      "function event() c:query('SELECT 1') end\n")
    for opt, line in pairs({
      ["--duckdb-threads=-1"] = "FATAL: invalid --duckdb-threads value -1 (expected 0 for one per CPU luabench may use, or more)\n",
      ["--duckdb-memory-limit=lots"] = "FATAL: invalid --duckdb-memory-limit value 'lots' (expected a size DuckDB reads, e.g. 4GB or 512MiB)\n",
    }) do
      local out, err, rc = h.run(h.q(script) .. " " .. db .. " " .. opt .. " --events=1 run")
      assert.are.equal(1, rc, out .. err)
      assert.are.equal(line, err)
      assert.are.equal("", out)
    end
    -- a SQLite file opened as DuckDB, and a DuckDB file opened as SQLite, are named as such
    local sq = h.tmpdir() .. "/made-by-sqlite.db"
    local dk = h.tmpdir() .. "/made-by-duckdb.duckdb"
    os.remove(sq)
    os.remove(dk)
    local make = "sysbench.sql.driver():connect():query('CREATE TABLE k (a INTEGER)')"
    local _, err, rc = h.run("- --db-driver=sqlite --sqlite-db=" .. h.q(sq), { stdin = make })
    assert.are.equal(0, rc, err)
    _, err, rc = h.run("- --db-driver=duckdb --duckdb-db=" .. h.q(dk), { stdin = make })
    assert.are.equal(0, rc, err)
    _, err, rc = h.run(h.q(script) .. " --db-driver=duckdb --duckdb-db=" .. h.q(sq) .. " --events=1 run")
    assert.are.equal(1, rc)
    assert.are.equal(string.format("FATAL: --duckdb-db=%s is a SQLite database file, not a DuckDB one: open it with " ..
      "--db-driver=sqlite --sqlite-db=%s\n", sq, sq), err)
    _, err, rc = h.run(h.q(script) .. " --db-driver=sqlite --sqlite-db=" .. h.q(dk) .. " --events=1 run")
    assert.are.equal(1, rc)
    assert.are.equal(string.format("FATAL: --sqlite-db=%s is a DuckDB database file, not a SQLite one: open it with " ..
      "--db-driver=duckdb --duckdb-db=%s\n", dk, dk), err)
    -- each opens with its own driver
    _, err, rc = h.run(h.q(script) .. " --db-driver=sqlite --sqlite-db=" .. h.q(sq) .. " --events=1 run")
    assert.are.equal(0, rc, err)
  end)

  it("interrupts a statement at its timeout; the connection runs the next one", function()
    -- a cross join of 10^18 rows (the small side is the one held) runs for days: only the
    -- timeout ends it
    local long = "SELECT COUNT(*) FROM range(1000000000000000) a, range(1000) b"
    local out = lua(db, [[
local long = "]] .. long .. [["
local function cut(c, f, ...)
  local t0 = luabench.time()
  local ok, err = pcall(f, ...)
  print(string.format("cut\t%s\t%s\t%.3f\t%s", tostring(ok), c.sql_state, luabench.time() - t0, c.sql_errmsg))
end
local c = sysbench.sql.driver():connect()
c:query("SET statement_timeout = 300")
cut(c, c.query, c, long)
print("next", c:query_row("SELECT 42"))
local st = c:prepare("SELECT COUNT(*) FROM range(?) a, range(1000) b")
local n = st:bind_create(sysbench.sql.type.BIGINT)
st:bind_param(n) n:set(1000000000000000)
cut(c, st.execute, st)
n:set(3)
print("prepared", st:execute():fetch_row()[1])
c:query("BEGIN")
cut(c, c.query, c, long)
c:query("ROLLBACK")
c:query("SET statement_timeout TO '0'")
print("off", c:query_row("SELECT COUNT(*) FROM range(3000000) a, range(3) b"))
print("bad", pcall(c.query, c, "SET statement_timeout = 'soon'"), c.sql_state)
]])
    local cuts = 0
    for ok, state, secs, msg in out:gmatch("cut\t(%a+)\t(%w+)\t([%d.]+)\t([^\n]*)") do
      cuts = cuts + 1
      assert.are.equal("false", ok, out)
      assert.are.equal("57014", state, out)
      assert.are.equal("duckdb: canceling statement due to statement timeout (300 ms)", msg)
      -- DuckDB stops between chunks of rows: well within a second of the deadline
      assert.is_true(tonumber(secs) >= 0.29 and tonumber(secs) < 1.5, out)
    end
    assert.are.equal(3, cuts, out)
    assert.is_truthy(out:find("next\t42", 1, true), out)
    assert.is_truthy(out:find("prepared\t3000", 1, true), out)
    assert.is_truthy(out:find("off\t9000000", 1, true), out)
    assert.is_truthy(out:find("bad\tfalse\t22023", 1, true), out)
    -- --db-statement-timeout gives every connection its timeout
    out = lua(db .. " --db-statement-timeout=0.2", [[
local c = sysbench.sql.driver():connect()
print("opt", pcall(c.query, c, "]] .. long .. [["), c.sql_state, c:query_row("SELECT 1"))
]])
    assert.is_truthy(out:find("opt\tfalse\t57014\t1", 1, true), out)
  end)

  it("runs the OLTP family with --threads and --users on one database file", function()
    local o = h.duckdb("oltp.duckdb") .. " --tables=2 --table-size=500 --duckdb-threads=1"
    local out, err, rc = h.run("oltp_read_write " .. o .. " --threads=2 prepare")
    assert.are.equal(0, rc, out .. err)
    assert.are.same({ "500" }, h.sql(o, "SELECT COUNT(*) FROM sbtest2"))
    for _, wl in ipairs({ "oltp_read_write", "oltp_point_select", "oltp_insert", "oltp_delete", "oltp_update_index" }) do
      out, err, rc = h.run(wl .. " " .. o .. " --threads=2 --events=40 --time=0 run")
      assert.are.equal(0, rc, wl .. out .. err)
      assert.is_truthy(out:find("transactions:%s+40 "), wl .. out)
      -- a write is counted when the driver reports changed rows
      if wl ~= "oltp_point_select" then assert.is_true(tonumber(out:match("write:%s+(%d+)")) > 0, wl .. out) end
    end
    -- the result records DuckDB's version and its settings as in force on the database
    out, err, rc = h.run("oltp_point_select " .. o .. " --duckdb-memory-limit=256MB --events=10 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    local v = h.json(out).server_version
    assert.is_truthy(v:find("^DuckDB %d+%.%d+%.%d+ %(threads=1, memory_limit=244%.1 MiB, checkpoint_threshold=16%.0 MiB, preserve_insertion_order=true, temp_directory=.+/oltp%.duckdb%.tmp%)$"), v)
    local ds = h.json(out).driver_settings
    assert.are.equal("1", ds.threads)
    assert.are.equal("244.1 MiB", ds.memory_limit)
    assert.are.equal("true", ds.preserve_insertion_order)
    assert.is_truthy(ds.temp_directory:find("/oltp%.duckdb%.tmp$"), ds.temp_directory)
    out, err, rc = h.run("oltp_read_only " .. o .. " --threads=1 --users=4 --events=20 --time=0 run")
    assert.are.equal(0, rc, out .. err)
    -- inserts with auto_inc took keys from the sequence made after the load
    local n = tonumber(h.sql(o, "SELECT COUNT(*) FROM sbtest1 WHERE id > 500")[1])
    assert.is_true(n >= 0)
    out, err, rc = h.run("oltp_read_write " .. o .. " cleanup")
    assert.are.equal(0, rc, err)
    assert.are.same({}, h.sql(o, "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'sbtest%'"))
  end)

  -- DuckDB's own default is a thread per online CPU; its threads inherit the CPUs of the thread
  -- that opens the database.
  it("starts a thread per CPU the process may use, and warns when its threads exceed their CPUs", function()
    local o = h.duckdb("cpus.duckdb") .. " --tables=1 --table-size=100"
    local out, err, rc = h.run("oltp_point_select " .. o .. " prepare")
    assert.are.equal(0, rc, out .. err)
    local first = h.sh("grep Cpus_allowed_list /proc/self/status"):match("(%d+)[-,%s]")
    local json = h.tmpdir() .. "/cpus.json"
    out, rc = h.sh(string.format("taskset -c %s %s oltp_point_select %s --events=10 --time=0 --output=%s run",
      first, h.q(h.bin), o, h.q(json)))
    assert.are.equal(0, rc, out)
    local r = h.json(h.read(json))
    assert.are.equal("1", r.driver_settings.threads)
    assert.are.equal(1, r.placement.process_cpu_count)
    assert.is_falsy(out:find("WARNING", 1, true), out)
    local ncpus = tonumber(h.sh("nproc"):match("%d+"))
    out, err, rc = h.run("oltp_point_select " .. o .. " --events=10 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    assert.are.equal(tostring(ncpus), h.json(out).driver_settings.threads)
    -- a worker pinned to one CPU opens the database: its threads share that CPU
    if ncpus > 1 then
      out, err, rc = h.run("oltp_point_select " .. o .. " --threads=1 --cpu-affinity=" .. first .. " --events=10 --time=0 run")
      assert.are.equal(0, rc, err)
      local warnings = {}
      for l in err:gmatch("WARNING:[^\n]*") do warnings[#warnings + 1] = l end
      assert.are.same({ "WARNING: the database engine runs " .. ncpus .. " threads on the 1 CPU the thread that "
        .. "opened it may use (its threads inherit them: --cpu-affinity pins each worker to one CPU, taskset "
        .. "limits the process); give --cpu-affinity-mode=process or fewer threads (--duckdb-threads=1)" }, warnings)
      -- the whole process on the CPUs: no warning
      out, err, rc = h.run("oltp_point_select " .. o .. " --threads=1 --cpu-affinity=" .. first .. "," .. (first + 1)
        .. " --cpu-affinity-mode=process --events=10 --time=0 run")
      assert.are.equal(0, rc, err)
      assert.is_falsy(err:find("WARNING", 1, true), err)
    end
  end)

  it("runs dbt3: prepare through the appender, check, power and throughput tests, answers", function()
    local o = "dbt3 " .. h.duckdb("dbt3.duckdb")
    local out, err, rc = h.run(o .. " --scale=0.01 --threads=2 prepare")
    assert.are.equal(0, rc, out .. err)
    assert.is_truthy(out:find("Rows go in streamed through COPY", 1, true), out)
    out, err, rc = h.run(o .. " check")
    assert.are.equal(0, rc, out .. err)
    assert.is_truthy(out:find("check: all 20 checks passed", 1, true), out)
    out, err, rc = h.run(o .. " --threads=3 --time=0 --query-timeout=60 --format=json run")
    assert.are.equal(0, rc, err)
    local w = h.json(out).workload_stats
    for _, e in ipairs(w.queries) do assert.are.equal("ok", e.power_status, e.name) end
    assert.is_true(w.qphh_at_size > 0)
    out, err, rc = h.run(o .. " --qualification answers")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Q1: 4 rows", 1, true), out)
    -- --query-timeout: queries cut at 1 ms are reported as timed out, the next ones still run;
    -- the refresh functions and their bookkeeping run without it
    out, err, rc = h.run(o .. " --threads=1 --tests=power --query-timeout=0.001 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    local cut = 0
    for _, e in ipairs(h.json(out).workload_stats.queries) do
      if e.power_status == "timed out" then cut = cut + 1 end
    end
    assert.is_true(cut >= 5, out)
    out, err, rc = h.run(o .. " --query-timeout=0.001 answers")
    assert.are.equal(1, rc, out .. err)
    cut = tonumber(out:match("(%d+) of 22 queries timed out %(%-%-query%-timeout=0%.001%)"))
    assert.is_true(cut and cut >= 5, out)
    assert.is_nil(out:find("Removed", 1, true), out) -- the power test's refresh pair was completed
    for q = 1, 22 do assert.is_truthy(out:find("\nQ" .. q .. ": ") or out:find("^Q" .. q .. ": "), out) end
    assert.are.equal(cut, select(2, out:gsub("timed out after 0%.001s", "")), out)
  end)
end)
