-- luabench.stats: per-type counters, checked against what a run's JSON result reports.
local h = require("helpers")
local stats = luabench.stats

describe("luabench.stats", function()
  it("one object and id per name", function()
    local a = stats.type("stats_spec.a")
    assert.are.equal(a, stats.type("stats_spec.a"))
    local b = stats.type("stats_spec.b")
    assert.are_not.equal(a.id, b.id)
    assert.are.equal("stats_spec.b", b.name)
  end)

  it("measure() passes on all of the function's results, or its error unchanged", function()
    local t = stats.type("stats_spec.measure")
    local function pack(...) return { n = select("#", ...), ... } end
    -- (it used to return exactly three values: the rest lost, nothing padded to three nils)
    assert.are.same({ 3, nil, "x", 4, 5, n = 5 }, pack(t:measure(function(a, b) return a + b, nil, "x", 4, 5 end, 1, 2)))
    assert.are.equal(0, select("#", t:measure(function() end)))
    local desc = { errcode = sysbench.error.RESTART_EVENT }
    local ok, err = pcall(t.measure, t, function() error(desc) end)
    assert.is_false(ok)
    assert.are.equal(desc, err) -- the same table: the event loop still sees RESTART_EVENT
    ok, err = pcall(t.measure, t, function() error("boom") end)
    assert.is_truthy(err:match("stats_spec%.lua:%d+: boom$"), err)
  end)

  it("start() marks ns on luabench.time()'s clock", function()
    local t = stats.type("stats_spec.a")
    local t0 = t:start()
    luabench.sleep(0.002)
    local t1 = t:start()
    assert.is_true(t1 - t0 >= 2e6, "elapsed " .. (t1 - t0))
    assert.is_true(math.abs(t1 / 1e9 - luabench.time()) < 0.05)
  end)

  it("refuses the 65th type in one line", function()
    local out, err, rc = h.run("- --verbosity=1", { stdin = [[
      for i = 1, 64 do luabench.stats.type("t" .. i) end
      print("ERR", select(2, pcall(luabench.stats.type, "one too many")))
    ]] })
    assert.are.equal(0, rc, err)
    assert.are.equal("ERR\tstdin:2: luabench.stats.type(name): too many statistics types (at most 64)", out:match("ERR[^\n]*"))
  end)

  it("done, rollback, error, retry and measure count exactly", function()
    local script = [[
      local A, B = luabench.stats.type("A"), luabench.stats.type("B")
      local n = 0
      function event()
        n = n + 1
        local t0 = A:start()
        if n % 4 == 0 then A:rollback(t0) else A:done(t0) end
        if n % 5 == 0 then A:error() end
        if n % 10 == 0 then A:retry() end
        local ok = pcall(B.measure, B, function(x) if x % 3 == 0 then error("no") end return x end, n)
      end
    ]]
    local out, err, rc = h.run(h.q(h.write("measure.lua", script)) .. " --events=120 --time=0 --threads=1 --format=json run")
    assert.are.equal(0, rc, err)
    local t = h.json(out).types
    assert.are.equal(120, t.A.count, "done + rollback")
    assert.are.equal(30, t.A.rollbacks)
    assert.are.equal(24, t.A.errors)
    assert.are.equal(12, t.A.retries)
    assert.are.equal(80, t.B.count)
    assert.are.equal(40, t.B.errors)
  end)
end)
