-- Retries that roll back, and honest status (issue 20): a retried event never commits what its
-- failed attempt wrote, on either server, with and without --users; an event that ends inside
-- a transaction is named in a WARNING; a run whose events fail is not reported as a success.
local h = require("helpers")

local function rows(db, sql) return h.sql(db, sql) end

-- The same run in sysbench's mode (one user per thread) and with emulated users (both users on
-- one worker, so they share its Lua state and its connection pool).
local modes = {
  { name = "threads", args = "--threads=2" },
  { name = "--users", args = "--users=2 --threads=1" },
}

describe("retries", function()
  h.each_driver("on %s", function(driver, db)
    local pg = driver == "pgsql"
    -- PostgreSQL's lock timeout (55P03) is not in its default ignore list; MySQL's 1205 is.
    local ignore = pg and " --pgsql-ignore-errors=55P03" or ""

    local function reset()
      h.sql(db, "DROP TABLE IF EXISTS r20_acct")
      h.sql(db, "DROP TABLE IF EXISTS r20_log")
      h.sql(db, "CREATE TABLE r20_acct (id INT PRIMARY KEY, v INT NOT NULL)")
      h.sql(db, "CREATE TABLE r20_log (who INT NOT NULL)")
      h.sql(db, "INSERT INTO r20_acct VALUES (1, 0)")
    end

    -- Participant 0 holds the row lock for 2.5 s. Participant 1 writes its log row, then waits
    -- for that lock with a 1 s lock timeout: its attempts fail and are retried until the lock
    -- is free. One logical transaction: one log row, one +10. One event each (--events=2): a
    -- run whose events all returned a stop value counts none, and with its errors it would
    -- fail (results.md 6.5).
    local lockwait = h.write("lockwait_" .. driver .. ".lua", [[
local pg = ]] .. tostring(pg) .. [[

local con
local waited = false
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  local me = luabench.user or sysbench.tid
  if me == 0 then
    con:query("BEGIN")
    con:query("UPDATE r20_acct SET v = v + 1 WHERE id = 1")
    con:query(pg and "SELECT pg_sleep(2.5)" or "SELECT SLEEP(2.5)")
    con:query("COMMIT")
    return
  end
  if not waited then
    waited = true
    luabench.think(0.5)
  end
  con:query(pg and "SET lock_timeout = '1s'" or "SET SESSION innodb_lock_wait_timeout = 1")
  con:query("BEGIN")
  con:query("INSERT INTO r20_log (who) VALUES (1)")
  con:query("UPDATE r20_acct SET v = v + 10 WHERE id = 1")
  con:query("COMMIT")
end
]])

    -- A script's own RESTART_EVENT after a write: two attempts are retried.
    local selfretry = h.db_script("selfretry_" .. driver .. ".lua", [[
local attempts = {}
function event()
  local me = luabench.user or sysbench.tid
  attempts[me] = (attempts[me] or 0) + 1
  con:query("BEGIN")
  local st = con:prepare("INSERT INTO r20_log (who) VALUES (?)")
  local p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
  p:set(me)
  st:execute()
  if attempts[me] < 3 then
    error({ errcode = sysbench.error.RESTART_EVENT, message = "try again" })
  end
  con:query("COMMIT")
  return true
end
]])

    for _, m in ipairs(modes) do
      it("a lock wait timeout retried (" .. m.name .. ") leaves one logical transaction's rows", function()
        reset()
        local out, err, rc = h.run(h.q(lockwait) .. " " .. db .. ignore .. " " .. m.args ..
          " --events=2 --time=20 --format=json run")
        assert.are.equal(0, rc, err)
        local doc = h.json(out)
        assert.are.equal(2, doc.counters.events)
        assert.is_true(doc.counters.errors >= 1, "the writer's attempts timed out: " .. out)
        assert.are.same({ "1" }, rows(db, "SELECT count(*) FROM r20_log"))
        assert.are.same({ "11" }, rows(db, "SELECT v FROM r20_acct WHERE id = 1"))
      end)

      it("a script's own RESTART_EVENT (" .. m.name .. ") does not commit the failed attempts", function()
        reset()
        local out, err, rc = h.run(h.q(selfretry) .. " " .. db .. " " .. m.args .. " --time=20 run")
        assert.are.equal(0, rc, err)
        assert.are.same({ "1", "1" }, rows(db, "SELECT count(*) FROM r20_log GROUP BY who ORDER BY who"))
      end)
    end

    it("an event that ends inside a transaction is named once per worker; a pool rolls it back", function()
      local open = h.db_script("opentx_" .. driver .. ".lua", [[
function event()
  con:query("BEGIN")
  con:query("INSERT INTO r20_log (who) VALUES (7)")
end
]])
      reset()
      local out, err, rc = h.run(h.q(open) .. " " .. db .. " --threads=2 --time=1 run")
      assert.are.equal(0, rc, err)
      assert.are.equal(2, h.count(err, "WARNING: an event ended inside an open transaction %(last statement: INSERT INTO r20_log %(who%) VALUES %(7%)%)"), err)
      reset()
      out, err, rc = h.run(h.q(open) .. " " .. db .. " --users=4 --threads=2 --time=1 run")
      assert.are.equal(0, rc, err)
      assert.are.equal(2, h.count(err, "WARNING: an event ended inside an open transaction %(last statement: INSERT INTO r20_log"), err)
      assert.is_truthy(err:find("rolled back", 1, true), err)
      -- nothing committed: every event's transaction was rolled back before the next user
      assert.are.same({ "0" }, rows(db, "SELECT count(*) FROM r20_log"))
      h.sql(db, "DROP TABLE r20_acct")
      h.sql(db, "DROP TABLE r20_log")
    end)
  end)
end)

-- tools/sweep over a script, into h.tmpdir()/<name>: its output, ending in "::rc=<exit code>".
local function sweep(name, sweep_args, script, run_args)
  local p = io.popen(string.format("LUABENCH=%s %s/tools/sweep %s --no-plot --out %s -- %s %s 2>&1; echo \"::rc=$?\"",
    h.q(h.bin), h.q(h.root), sweep_args, h.q(h.tmpdir() .. "/" .. name), h.q(script), run_args))
  local out = p:read("*a")
  p:close()
  return out
end

describe("a run whose events fail", function()
  local boom = h.write("boom.lua", "function event() error('boom') end\n")

  it("fails without --users", function()
    local out, err, rc = h.run(h.q(boom) .. " --threads=2 --time=2 --format=json run")
    assert.are.equal(1, rc, err)
    assert.is_truthy(err:find("FATAL: `thread_run' function failed: [^\n]*boom"), err)
    assert.are.equal("error", h.json(out).status)
  end)

  it("fails with --users at once, as without, when nothing ever worked", function()
    -- every user's first event fails: no retry can fix it, the run ends within a second with
    -- the FATAL line of sysbench mode instead of backing off until --time is over
    local t0 = h.now()
    local _, terr, trc = h.run(h.q(boom) .. " --threads=2 --time=600 run")
    local tsecs = h.now() - t0
    assert.are.equal(1, trc, terr)
    t0 = h.now()
    local out, err, rc = h.run(h.q(boom) .. " --users=4 --threads=2 --time=600 --format=json run")
    local secs = h.now() - t0
    assert.are.equal(1, rc, err)
    -- about as long as the thread mode run just before (which fails at once), not --time
    assert.is_true(secs < 2 * tsecs + 2, string.format("took %.1f s, thread mode %.1f s", secs, tsecs))
    assert.is_truthy(err:find("FATAL: `thread_run' function failed: [^\n]*boom"), err)
    assert.is_falsy(err:find("ALERT", 1, true), err)
    assert.are.equal("error", h.json(out).status)
  end)

  it("fails with --users when most events fail, backing off instead of spinning, and sweeps mark the point failed", function()
    -- users 1-3 fail every event, user 0 succeeds (so the run is not failed at once)
    local most = h.write("most.lua", "function event() if luabench.user ~= 0 then error('boom') end luabench.think(0.2) end\n")
    local out, err, rc = h.run(h.q(most) .. " --users=4 --threads=1 --time=2 --format=json run")
    assert.are.equal(1, rc, err)
    local doc = h.json(out)
    assert.are.equal("error", doc.status)
    local failed, done = err:match("FATAL: more than half of the emulated users' events failed %((%d+) failed, (%d+) completed%)")
    assert.is_truthy(failed, err)
    failed = tonumber(failed)
    -- 3 users backing off from 1 ms doubling to 1 s fail about a dozen times each in 2 s
    -- (without the back-off: hundreds of thousands)
    assert.is_true(failed >= 3 and failed < 150, "failed events: " .. failed)
    assert.is_truthy(doc.error:find("more than half", 1, true), doc.error)
    assert.are.equal(1, h.count(err, "ALERT: user %d+: [^\n]*boom"), err)

    local sout = sweep("sweep-users-fail", "--threads 1,2", most, "--users=4 --time=1")
    assert.is_truthy(sout:find("::rc=1", 1, true), sout)
    assert.is_truthy(sout:find("sweep: FAILED threads=1 (exit code 1, status: error)", 1, true), sout)
    assert.is_truthy(sout:find("sweep: failed: threads=1 threads=2", 1, true), sout)
    assert.is_nil(h.read(h.tmpdir() .. "/sweep-users-fail/sweep.csv"), "no row for a failed point")
  end)

  it("stops a sweep at a run that failed before any event completed", function()
    local sout = sweep("sweep-users-boom", "--users 4,8", boom, "--threads=2 --time=600")
    assert.is_truthy(sout:find("::rc=1", 1, true), sout)
    assert.is_truthy(sout:find("sweep: FAILED users=4 (exit code 1, status: error)", 1, true), sout)
    assert.is_truthy(sout:find("sweep: stopping: `thread_run' function failed: ", 1, true), sout)
    assert.is_falsy(sout:find("users=8", 1, true), sout)
    assert.is_truthy(sout:find("sweep: failed: users=4\n", 1, true), sout)
  end)
end)
