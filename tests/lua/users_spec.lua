-- luabench.users: the emulated users' loop (--users: each user a coroutine), checked by real
-- runs.
local h = require("helpers")

-- A script from stdin only runs its chunk (as in sysbench), so each goes to a file of its own.
local n = 0
local function run(script, args)
  n = n + 1
  local path = h.write("users_" .. n .. ".lua", script)
  local out, err, rc = h.run(h.q(path) .. " " .. args)
  return out, err, rc
end

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

  it("is loaded by the states that run users only (a state is made for every thread)", function()
    local script = [[
      function event() end
      function thread_init() print("USERS LOADED", package.loaded["luabench.users"] ~= nil) end
    ]]
    local out, err, rc = run(script, "--threads=1 --events=10 --time=0 run")
    assert.are.equal(0, rc, err)
    assert.are.equal("USERS LOADED\tfalse", out:match("USERS LOADED[^\n]*"))
    out, err, rc = run(script, "--threads=1 --users=2 --events=10 --time=0 run")
    assert.are.equal(0, rc, err)
    assert.are.equal("USERS LOADED\ttrue", out:match("USERS LOADED[^\n]*"))
  end)

  it("coroutine.yield() inside event() is refused in one line", function()
    local _, err, rc = run("function event() coroutine.yield() end", "--threads=1 --users=2 --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("a user yielded without waiting for anything (coroutine.yield() inside event()?)", 1, true), err)
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
