-- luabench.runner: the event loops (one implicit user per thread, as sysbench, and emulated
-- users as coroutines), checked by real runs.
local h = require("helpers")

local function run(script, args)
  local out, err, rc = h.run("- " .. args, { stdin = script })
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
    assert.is_truthy(err:find("the script defines no event() function", 1, true), err)
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
    assert.is_true(j.counters.errors >= 1 and j.counters.events > 100, out)
  end)
end)
