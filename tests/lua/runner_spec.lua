-- luabench.runner: the event loop of a thread (one implicit user per thread, as sysbench),
-- checked by real runs; the emulated users' loop is in users_spec.lua.
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

  it("think() without users leaves the time out of the latency too", function()
    local out, err, rc = run("function event() sysbench.think(0.01) end",
      "--threads=1 --events=20 --time=0 --format=json run")
    assert.are.equal(0, rc, err)
    local j = h.json(out)
    assert.are.equal(20, j.counters.events)
    assert.is_true(j.latency_ms.max < 5, "max latency " .. j.latency_ms.max .. " ms includes thinking")
  end)
end)
