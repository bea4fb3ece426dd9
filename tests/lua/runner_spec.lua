-- luabench.runner: the event loops (one implicit user per thread, as sysbench, and emulated
-- users as coroutines), checked by real runs.
local h = require("helpers")

-- A script from stdin only runs its chunk (as in sysbench), so each goes to a file of its own.
local n = 0
local function run(script, args)
  n = n + 1
  local path = h.write("runner_" .. n .. ".lua", script)
  local out, err, rc = h.run(h.q(path) .. " " .. args)
  return out, err, rc
end

describe("the event loop", function()
  it("runs event() until --events, and a true return stops the thread uncounted", function()
    local out, err, rc = run([[
      local n = 0
      function event() n = n + 1 if n > 30 then return true end end
      function thread_done() print("CALLS", n) end
    ]], "--threads=1 --events=100 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    assert.are.equal("CALLS\t31", out:match("CALLS\t%d+"))
    assert.are.equal(30, h.json(out:gsub("CALLS[^\n]*\n", "")).counters.events)
  end)

  it("RESTART_EVENT retries the event and calls before_restart_event", function()
    local out, err, rc = run([[
      local calls, restarts = 0, 0
      function sysbench.hooks.before_restart_event(e) restarts = restarts + 1 end
      function event()
        calls = calls + 1
        if calls % 3 == 0 then error({ errcode = sysbench.error.RESTART_EVENT }) end
      end
      function thread_done() print("COUNTS", calls, restarts) end
    ]], "--threads=1 --events=20 --time=0 run")
    assert.are.equal(0, rc, err)
    -- 20 counted events; every third call restarted: 29 calls, 9 restarts
    assert.are.equal("COUNTS\t29\t9", out:match("COUNTS[^\n]*"))
  end)

  it("an error in event() stops the run with the script's line", function()
    local _, err, rc = run("function event() error('boom') end", "--events=5 --time=0 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("boom", 1, true), err)
  end)

  it("a script without event() is refused in one line", function()
    local _, err, rc = run("x = 1", "--events=5 --time=0 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("cannot find the event() function in runner_" .. n .. ".lua", 1, true), err)
  end)
end)

describe("the event loop, more", function()
  it("a script's own thread_run replaces the loop, as in sysbench", function()
    local out, err, rc = run([[
      function thread_run(tid) print("OWN", tid) end
      function event() error("never called") end
    ]], "--threads=2 --time=1 --verbosity=1 run")
    assert.are.equal(0, rc, err)
    local tids = {}
    for tid in out:gmatch("OWN\t(%d)") do tids[#tids + 1] = tid end
    table.sort(tids)
    assert.are.same({ "0", "1" }, tids)
  end)

  it("an error table from event() stops the run, saying its message", function()
    local _, err, rc = run([[
      function event() error({ errcode = 2, sql_errmsg = "fatal in a table" }) end
    ]], "--events=5 --time=0 run")
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: `thread_run' function failed: fatal in a table", err:match("FATAL:[^\n]*"))
  end)
end)

describe("emulated users, more", function()
  it("user_init runs once per user with its global id; a true return ends only that user", function()
    local out, err, rc = run([[
      local inits, ends = {}, 0
      function user_init(uid) inits[#inits + 1] = uid end
      function event()
        if sysbench.user == 3 then ends = ends + 1 return true end
        sysbench.think(0.001)
      end
      function thread_done()
        table.sort(inits)
        print("INITS", table.concat(inits, ","), ends)
      end
    ]], "--threads=2 --users=6 --events=300 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("INITS\t", 1, true), out)
    local all = {}
    for ids, ends in out:gmatch("INITS\t([%d,]*)\t(%d+)") do
      for id in ids:gmatch("%d+") do all[#all + 1] = tonumber(id) end
      assert.is_true(ends == "0" or ends == "1", ends)
    end
    table.sort(all)
    assert.are.same({ 0, 1, 2, 3, 4, 5 }, all)
  end)

  it("a user's error table is reported by its message, once per worker", function()
    local out, err, rc = run([[
      function event()
        if sysbench.user == 1 then error({ sql_errmsg = "deadlock found" }) end
        sysbench.think(0.001)
      end
    ]], "--threads=1 --users=3 --time=1 --format=json run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("ALERT: user 1: deadlock found (further user errors are only counted)", 1, true), err)
    local _, alerts = err:gsub("ALERT: user", "")
    assert.are.equal(1, alerts, err)
    local c = h.json(out).counters
    assert.is_true(c.failed_events >= 5 and c.errors == 0, out)
  end)

  it("coroutine.yield() inside event() is refused in one line", function()
    local _, err, rc = run("function event() coroutine.yield() end", "--threads=1 --users=2 --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("a user yielded without waiting for anything (coroutine.yield() inside event()?)", 1, true), err)
  end)

  it("think() without users leaves the time out of the latency too", function()
    local out, err, rc = run("function event() sysbench.think(0.01) end",
      "--threads=1 --events=20 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    local j = h.json(out)
    assert.are.equal(20, j.counters.events)
    assert.is_true(j.latency_ms.max < 5, "max latency " .. j.latency_ms.max .. " ms includes thinking")
  end)
end)

describe("emulated users", function()
  it("each of --users runs its own coroutine, with its own user id and data", function()
    local out, err, rc = run([[
      local seen = {}
      function event()
        local d = sysbench.user_data
        d.n = (d.n or 0) + 1
        seen[sysbench.user] = d.n
        sysbench.think(0.001)
      end
      function thread_done()
        local ids = {}
        for u, n in pairs(seen) do ids[#ids + 1] = u end
        table.sort(ids)
        print("USERS", #ids, ids[1], ids[#ids])
      end
    ]], "--threads=1 --users=8 --events=400 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    assert.are.equal("USERS\t8\t0\t7", out:match("USERS[^\n]*"))
  end)

  it("think time is left out of the latency", function()
    local out, err, rc = run([[
      function event() sysbench.think(0.02) end
    ]], "--threads=1 --users=4 --time=1 --format=json run")
    assert.are.equal(0, rc, err)
    local j = h.json(out)
    assert.is_true(j.counters.events > 50, "events " .. j.counters.events)
    assert.is_true(j.latency_ms.max < 15, "max latency " .. j.latency_ms.max .. " ms includes thinking")
  end)

  it("a failing user is counted and the others carry on", function()
    local out, err, rc = run([[
      function event()
        if sysbench.user == 2 then error("user two fails") end
        sysbench.think(0.001)
      end
    ]], "--threads=1 --users=4 --time=1 --format=json run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("ALERT: user 2: ", 1, true), err)
    local j = h.json(out)
    assert.is_true(j.counters.failed_events >= 1 and j.counters.events > 100, out)
    assert.are.equal(0, j.counters.errors, "not an ignored error")
  end)
end)
