-- luabench.study_plan: a plan's checks, defaults and the order of its runs.
local splan = require("luabench.study_plan")

local function plan(t, opts)
  return splan.normalize(t, opts or { path = "x/wal.lua", hostname = "box1" })
end

local function seq(runs)
  local out = {}
  for i, r in ipairs(runs) do
    out[i] = string.format("%s:%s%s:%s", r.configuration, r.workload, r.point and ("@" .. r.point) or "",
      r.warmup and ("w" .. r.round) or ("r" .. r["repeat"]))
  end
  return table.concat(out, " ")
end

describe("luabench.study_plan", function()
  it("fills in the defaults: one configuration named after the host, 3 repeats, the plan's name", function()
    local p = assert(plan { workloads = { { args = "cpu --cpu-max-prime=20000" }, { args = "scripts/orders.lua" } } })
    assert.are.equal(3, p.repeats)
    assert.are.equal("wal", p.dir)
    assert.are.equal("box1", p.configurations[1].label)
    assert.are.same({ "cpu", "orders" }, { p.workloads[1].name, p.workloads[2].name })
    assert.are.equal("old", assert(plan({ workloads = { { args = "cpu" } } }, { hostname = "h", label = "old" })).configurations[1].label)
  end)

  it("interleaves the configurations, warm-up rounds first, a point per axis value", function()
    local p = assert(plan { repeats = 2, warmup = 1,
      configurations = { { label = "A" }, { label = "B" } },
      workloads = { { name = "w", args = "oltp_read_only --threads=4", threads = { 8, 32 } }, { args = "cpu" } } })
    local runs = splan.order(p)
    assert.are.equal("A:w@8:w1 A:w@32:w1 A:cpu:w1 B:w@8:w1 B:w@32:w1 B:cpu:w1 "
      .. "A:w@8:r1 A:w@32:r1 A:cpu:r1 B:w@8:r1 B:w@32:r1 B:cpu:r1 "
      .. "A:w@8:r2 A:w@32:r2 A:cpu:r2 B:w@8:r2 B:w@32:r2 B:cpu:r2", seq(runs))
    assert.are.equal("runs/0008-A-w-r1-t32.json", runs[8].file)
    assert.are.equal("runs/0008-A-w-r1-t32.txt", runs[8].log)
    -- the axis replaces the args' own --threads
    assert.are.same({ "oltp_read_only", "--output=f.json", "--threads=32", "run" },
      (function()
        local w = splan.run_words(p, runs[8], "f.json")
        return { w[1], w[#w - 1], w[#w - 2], w[#w] }
      end)())
    for _, word in ipairs(splan.run_words(p, runs[8])) do assert.are_not.equal("--threads=4", word) end
  end)

  it("randomizes each round's order from the seed, the same every time", function()
    local t = { repeats = 6, order = "random", seed = 7,
                configurations = { { label = "A" }, { label = "B" }, { label = "C" } }, workloads = { { args = "cpu" } } }
    local a, b = seq(splan.order(assert(plan(t)))), seq(splan.order(assert(plan(t))))
    assert.are.equal(a, b)
    -- each round has every configuration once, and not always in the same order
    local firsts = {}
    for r = 1, 6 do
      local round = {}
      for c in a:gmatch("(%u):cpu:r" .. r .. "%f[^%d]") do round[#round + 1] = c end
      table.sort(round)
      assert.are.equal("ABC", table.concat(round))
      firsts[a:match("(%u):cpu:r" .. r .. "%f[^%d]")] = true
    end
    assert.is_true(next(firsts, next(firsts)) ~= nil, a)
  end)

  it("refuses what it cannot run, naming the key", function()
    local cases = {
      { {}, "no workloads" },
      { { workloads = { { args = "cpu --output=x.json" } } }, "no --output in args" },
      { { workloads = { { args = "cpu run" } } }, "without the command ('run')" },
      { { workloads = { { args = "cpu" }, { args = "cpu" } } }, "two workloads are named 'cpu'" },
      { { workloads = { { args = "cpu", threads = { 1, 0 } } } }, "workloads[1].threads[2]" },
      { { workloads = { { args = "cpu", bound_ms = 5 } } }, "needs a concurrency axis" },
      { { workloads = { { args = "cpu" } }, configurations = { { label = "a" }, {} } }, "configurations[2] has no label" },
      { { workloads = { { args = "cpu" } }, configurations = { { label = "a" }, { label = "a" } } }, "labelled 'a'" },
      { { workloads = { { args = "cpu" } }, order = "abab" }, "order must be" },
      { { workloads = { { args = "cpu" } }, repeat_count = 3 }, "unknown key 'repeat_count'" },
      { { workloads = { { args = "cpu" } }, configurations = { { label = "a", env = { ["1x"] = "y" } } } }, "not an environment" },
    }
    for _, c in ipairs(cases) do
      local p, err = plan(c[1])
      assert.is_nil(p)
      assert.truthy(err:find(c[2], 1, true), err)
    end
  end)

  it("masks passwords in the command text", function()
    assert.are.equal("oltp_read_only --pgsql-password=*** 'a b'",
      splan.masked({ "oltp_read_only", "--pgsql-password=hunter2", "a b" }))
  end)
end)
