-- Emulated users: many coroutines per worker, think times, non-blocking queries, pools.
local h = require("helpers")

describe("emulated users", function()
  it("reports the users block in text", function()
    local p = h.write("think2.lua", "function event() luabench.think(0.01) end\n")
    local out, err, rc = h.run(h.q(p) .. " --users=10 --threads=2 --time=1 --ramp-up=0.5 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Emulated users:\n    users / threads / connections:       10 / 2 / 10\n", 1, true), out)
    assert.is_truthy(out:match("wake%-up lateness p50/p99/max %(ms%):%s+[%d.]+/[%d.]+/[%d.]+"))
  end)

  it("keeps an idle user in less than 1 KiB", function()
    -- Users that think after their first step hold their coroutine and the scheduler's record:
    -- the process's RSS grows by less than 1 KiB a user from 2,000 to 22,000 users (it was
    -- 1.45 KiB while every coroutine's stack doubled). The last user reads it, a second after
    -- the others parked.
    local rss = {}
    for _, n in ipairs({ 2000, 22000 }) do
      local p = h.write("idle_rss.lua", string.format([[
function event()
  if luabench.user == %d then
    luabench.think(1)
    local f = io.open("/proc/self/status")
    io.stderr:write("RSS_KIB ", f:read("*a"):match("VmRSS:%%s*(%%d+)"), "\n")
    f:close()
  end
  luabench.think(3600)
end
]], n - 1))
      local _, err, rc = h.run(h.q(p) .. " --users=" .. n .. " --threads=2 --time=2 run")
      assert.are.equal(0, rc, err)
      rss[n] = tonumber(err:match("RSS_KIB (%d+)"))
      assert.is_truthy(rss[n], err)
    end
    local per_user = (rss[22000] - rss[2000]) / 20000
    assert.is_true(per_user > 0.2 and per_user < 1.0, string.format("%.2f KiB per idle user (RSS %d and %d KiB)",
      per_user, rss[2000], rss[22000]))
  end)

  it("rejects inconsistent options with one clear line", function()
    local p = h.write("think3.lua", "function event() end\n")
    for _, c in ipairs({
      { "--users=1 --threads=2", "--users=1 is less than --threads=2" },
      { "--connections=5", "give --users too" },
      { "--users=4 --rate=10", "--rate cannot be combined with --users" },
      { "--users=4 --ramp-up=soon", "Invalid value for the 'ramp-up' option" },
    }) do
      local out, err, rc = h.run(h.q(p) .. " " .. c[1] .. " --time=1 run")
      assert.are.equal(1, rc)
      assert.is_truthy(err:find(c[2], 1, true), err)
    end
  end)

  it("counts a failing interaction as a failed event, not an ignored error, and lets the user carry on", function()
    local p = h.write("fail.lua", [[
local n, failed = {}, 0
function event()
  local u = luabench.user
  n[u] = (n[u] or 0) + 1
  if u == 3 and n[u] % 2 == 0 then failed = failed + 1; error("user 3 fails every other time") end
  luabench.think(0.01)
end
function thread_done()
  local users, done = 0, 0
  for u, k in pairs(n) do users = users + 1; done = done + k end
  io.stderr:write("TRIED ", done, " FAILED ", failed, " USERS ", users, " USER3 ", n[3] or 0, "\n")
end
]])
    local json = h.tmpdir() .. "/fail.json"
    local out, err, rc = h.run(h.q(p) .. " --users=8 --threads=2 --time=2 --output=" .. h.q(json) .. " run")
    assert.are.equal(0, rc, err)
    local doc = h.json(h.read(json))
    -- what the users counted themselves (events still thinking at the end are neither)
    local tried, failed, users, user3 = 0, 0, 0, 0
    for t, f, u, u3 in err:gmatch("TRIED (%d+) FAILED (%d+) USERS (%d+) USER3 (%d+)") do
      tried, failed, users, user3 = tried + t, failed + f, users + u, user3 + u3
    end
    assert.is_true(user3 >= 2 and failed >= 1, err)
    assert.are.equal(failed, doc.counters.failed_events, "failed events counted")
    -- the text report names them too
    assert.are.equal(doc.counters.failed_events, tonumber(out:match("\n    event failures:%s+(%d+)\n")), out)
    assert.are.equal(0, doc.counters.errors, "a script error is not an ignored (SQL) error")
    assert.are.equal("ok", doc.status, "most events succeeded")
    -- every user ran; the others' events all count (the last one of each user may have been
    -- cut by the end of the run, which counts it neither way)
    assert.are.equal(8, users, err)
    assert.is_true(doc.counters.events <= tried - failed and doc.counters.events >= tried - failed - 8,
      doc.counters.events .. " events of " .. tried - failed .. " that did not fail")
    assert.are.equal(1, h.count(err, "ALERT: user 3: "), err)
  end)

  h.each_driver("on %s", function(driver, db)
    local sleep = driver == "pgsql" and "SELECT pg_sleep(1)" or "SELECT SLEEP(1)"

    it("a user blocked on a slow query does not block the other users of its worker", function()
      local p = h.db_script("slow_" .. driver .. ".lua", [[
local slow, during, slow_done = false, 0, 0
function event()
  if luabench.user == 0 then
    slow = true
    con:query("]] .. sleep .. [[")
    slow, slow_done = false, slow_done + 1
  else
    con:query("SELECT 1")
    if slow then during = during + 1 end
  end
  luabench.think(0.01)
end
function thread_done() io.stderr:write("SLOW ", slow_done, " DURING ", during, "\n") end
]])
      local out, err, rc = h.run(h.q(p) .. " " .. db .. " --users=10 --threads=1 --time=3 --format=json run")
      assert.are.equal(0, rc, err)
      -- the 9 fast users' queries completed while user 0's 1 s query was in flight (a worker
      -- blocked by it could complete none of them then)
      local slow_done, during = err:match("SLOW (%d+) DURING (%d+)")
      assert.is_true(tonumber(slow_done) >= 1 and tonumber(during) >= 9, err)
    end)

    it("a pooled connection's rs and error fields are those of the running user's statement", function()
      -- Users of one worker interleave while the server works; each must read the row count
      -- and error of its own statement, not those of the statement another user ran meanwhile.
      local delay = driver == "pgsql" and "pg_sleep(0.0005) IS NOT NULL" or "SLEEP(0.0005) = 0"
      local p = h.write("pooled_rs_" .. driver .. ".lua", [[
local con, sel, p
local wrong, errors = 0, 0
function thread_init()
  con = sysbench.sql.driver():connect()
  sel = con:prepare("SELECT n FROM lbt_pooled_rs WHERE n <= ? AND ]] .. delay .. [[")
  p = sel:bind_create(sysbench.sql.type.INT)
  sel:bind_param(p)
end
function event()
  local u = luabench.user
  p:set(u % 8 + 1)
  sel:execute()
  if con.rs.nrows ~= u % 8 + 1 then wrong = wrong + 1 end
  -- odd users run a failing statement naming themselves, even ones a good one that takes a while
  local col = "no_such_column_" .. u
  local ok = pcall(con.query, con, u % 2 == 1 and ("SELECT " .. col .. " FROM lbt_pooled_rs")
    or "SELECT n FROM lbt_pooled_rs WHERE ]] .. delay .. [[")
  if not ok then
    errors = errors + 1
    if not tostring(con.sql_errmsg):find(col .. "[^%d]") then wrong = wrong + 1 end
  end
end
function thread_done() print("WRONG", wrong, "ERRORS", errors) end
]])
      local setup = h.write("pooled_rs_setup.lua", [[
local con = sysbench.sql.driver():connect()
con:query("DROP TABLE IF EXISTS lbt_pooled_rs")
con:query("CREATE TABLE lbt_pooled_rs (n INT PRIMARY KEY)")
for i = 1, 8 do con:query("INSERT INTO lbt_pooled_rs VALUES (" .. i .. ")") end
]])
      assert.are.equal(0, select(3, h.run(h.q(setup) .. " " .. db)))
      local out, err, rc = h.run(h.q(p) .. " " .. db .. " --users=16 --connections=8 --threads=1 --events=400 run")
      assert.are.equal(0, rc, err)
      assert.are.equal("0", out:match("WRONG\t(%d+)"), out)
      assert.is_true(tonumber(out:match("ERRORS\t(%d+)")) >= 150, out)
      local drop = h.write("pooled_rs_drop.lua", 'sysbench.sql.driver():connect():query("DROP TABLE lbt_pooled_rs")')
      assert.are.equal(0, select(3, h.run(h.q(drop) .. " " .. db)))
    end)

    it("a pool smaller than the user count serializes access without deadlock", function()
      local p = h.db_script("pool_" .. driver .. ".lua", [[
function event()
  con:query("BEGIN")
  con:query("SELECT 1")
  con:query("COMMIT")
end
]])
      -- a deadlocked pool would stop short of the events asked for, at --time
      local out, err, rc = h.run(h.q(p) .. " " .. db .. " --users=50 --connections=4 --threads=2 --events=2000 --time=60 --format=json run")
      assert.are.equal(0, rc, err)
      local doc = h.json(out)
      assert.are.equal(2000, doc.counters.events)
      -- three queries per completed event, plus those of events cut by the end of the run
      local extra = doc.counters.queries - 3 * doc.counters.events
      assert.is_true(extra >= 0 and extra <= 2 * 50, "queries beyond 3 per event: " .. extra)
      assert.are.equal(0, doc.counters.errors)
      if driver ~= "pgsql" then return end
      -- the server saw at most 3 sessions from the pool: they tag themselves, a probe counts
      local q = h.db_script("sessions.lua", [[
function event()
  con:query("SET application_name = 'lbtest_pool'")
  if luabench.user == 0 and luabench.time() > 1 and not printed then
    printed = true
    local c2 = sysbench.sql.driver():connect_physical()
    print("SESSIONS", c2:query_row("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lbtest_pool'"))
  end
end
]])
      out, err, rc = h.run(h.q(q) .. " " .. db .. " --users=20 --connections=3 --threads=1 --time=2 run")
      assert.are.equal(0, rc, err)
      assert.are.equal("3", out:match("SESSIONS\t(%d+)"), out)
    end)
  end)
end)

-- An error no retry can fix ends a --users run at once, with the line and exit code of thread
-- mode (it used to be reported when --time was over: 10 minutes for --time=600).
h.each_driver("a --users run that can never succeed on %s", function(driver, db)
  local p = h.db_script("never_" .. driver .. ".lua", [[
function event() con:query(os.getenv("LB_Q") or "SELECT 1") end
]])
  local cases = {
    { "a wrong password", db:gsub("sbtest%-secret", "wrong-secret"), "" },
    { "a missing table", db, "LB_Q='SELECT * FROM lb_no_such_table' " },
    { "a syntax error", db, "LB_Q='SELEC 1' " },
  }
  for _, c in ipairs(cases) do
    it("fails within 3 s on " .. c[1] .. ", as thread mode does", function()
      local t0 = h.now()
      local tout, terr, trc = h.run(h.q(p) .. " " .. c[2] .. " --threads=2 --time=600 run", { env = c[3] })
      local tsecs = h.now() - t0
      assert.are.equal(1, trc, terr)
      t0 = h.now()
      local out, err, rc = h.run(h.q(p) .. " " .. c[2] .. " --users=8 --threads=2 --time=600 run", { env = c[3] })
      local secs = h.now() - t0
      assert.are.equal(1, rc, err)
      -- about as long as thread mode took just before (it fails at once), not --time
      assert.is_true(secs < 2 * tsecs + 2, string.format("took %.1f s, thread mode %.1f s", secs, tsecs))
      assert.are.equal(terr, err)
      assert.are.equal(tout, out)
    end)
  end
end)

-- luabench.pause(): client-side work inside a transaction. The user keeps its connection and its
-- transaction (think() gives both up), the other users of the worker run meanwhile, the time is
-- in the latency, and a user pausing when --time is over finishes its event.
h.each_driver("luabench.pause() on %s", function(driver, db)
  local pid = driver == "pgsql" and "SELECT pg_backend_pid()" or "SELECT CONNECTION_ID()"

  it("keeps the user's connection and transaction, and does not block the worker", function()
    local p = h.db_script("pause_" .. driver .. ".lua", [[
local moved, pausing, most = 0, 0, 0
function event()
  con:query("BEGIN")
  local a = con:query_row("]] .. pid .. [[")
  pausing = pausing + 1
  if pausing > most then most = pausing end
  luabench.pause(0.05)
  pausing = pausing - 1
  local b = con:query_row("]] .. pid .. [[")
  if a ~= b then moved = moved + 1 end
  con:query("COMMIT")
end
function thread_done() io.stderr:write("MOVED " .. moved .. "\nMOST PAUSING " .. most .. "\n") end
]])
    local out, err, rc = h.run(h.q(p) .. " " .. db .. " --users=8 --connections=8 --threads=1 --time=2 --format=json run")
    assert.are.equal(0, rc, err)
    assert.is_falsy(err:find("WARNING", 1, true), err) -- no transaction rolled back on the way
    assert.is_truthy(err:find("MOVED 0\n", 1, true), err)
    local doc = h.json(out)
    assert.are.equal("ok", doc.status, "a user pausing at the end finishes its event")
    assert.is_true(doc.latency_ms.avg >= 50, "the pause is response time: " .. doc.latency_ms.avg)
    -- the worker's users paused at the same time (a pause blocking the worker: one at a time)
    assert.is_true(tonumber(err:match("MOST PAUSING (%d+)")) > 1, err)
  end)
end)

-- --logon: the sessions the server saw, told apart by the server itself (PostgreSQL: the
-- backend's pid and start time; MariaDB: CONNECTION_ID(), never reused), one row per event.
h.each_driver("--logon on %s", function(driver, db)
  local session = driver == "pgsql" and
    "(SELECT pid || '@' || backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())" or "CONNECTION_ID()"
  local p = h.db_script("logon_" .. driver .. ".lua", [[
function event()
  con:query("INSERT INTO lbt_logon (sess) VALUES (]] .. session .. [[)")
  if luabench.user then luabench.think(0.001) end
end
function done() print("LOGONS", sysbench.sql.logons()) end
]])
  local function sessions(args)
    local reset = h.write("logon_reset.lua", [[
local c = sysbench.sql.driver():connect()
c:query("DROP TABLE IF EXISTS lbt_logon")
c:query("CREATE TABLE lbt_logon (sess VARCHAR(80))")
]])
    assert.are.equal(0, select(3, h.run(h.q(reset) .. " " .. db)))
    local out, err, rc = h.run(h.q(p) .. " " .. db .. " --events=60 " .. args .. " run")
    assert.are.equal(0, rc, err)
    local n, distinct = h.sql(db, "SELECT CONCAT(COUNT(*), ' ', COUNT(DISTINCT sess)) FROM lbt_logon")[1]:match("(%d+) (%d+)")
    return tonumber(n), tonumber(distinct), tonumber(out:match("LOGONS\t(%d+)")), out
  end

  it("once: a session per thread, or per connection of the pool, for the whole run", function()
    local n, distinct, logons = sessions("--threads=2 --logon=once")
    assert.are.same({ 60, 2, 2 }, { n, distinct, logons })
    n, distinct, logons = sessions("--threads=2 --users=12 --connections=4")
    assert.are.equal(60, n)
    assert.is_true(distinct >= 2 and distinct <= 4, "sessions " .. distinct)
    assert.are.equal(distinct, logons)
  end)

  it("per-transaction: a new session for every event, with threads and with users", function()
    -- (and one per thread in thread_init, closed at once: it checks that connecting works)
    local n, distinct, logons = sessions("--threads=2 --logon=per-transaction")
    assert.are.same({ 60, 60, 62 }, { n, distinct, logons })
    n, distinct, logons = sessions("--threads=2 --users=12 --connections=4 --logon=per-transaction")
    assert.are.same({ 60, 60, 62 }, { n, distinct, logons })
    h.sql(db, "DROP TABLE lbt_logon")
  end)

  it("refuses another value in one line", function()
    local _, err, rc = h.run(h.q(p) .. " " .. db .. " --logon=always run")
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: Invalid value for the 'logon' option: 'always' (expected once or per-transaction)\n", err)
  end)
end)
