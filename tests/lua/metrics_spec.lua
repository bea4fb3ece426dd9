-- luabench.internal.metrics: the rows of a comparison and the noise rule.
local metrics = require("luabench.internal.metrics")
local fx = require("lua.result_fixture")

local function row(rows, name)
  for _, r in ipairs(rows) do if r.name == name then return r end end
end

describe("luabench.internal.metrics", function()
  it("lists throughput, each percentile in numeric order, errors, system and per-type rows", function()
    local d = fx.doc { types = { NewOrder = { per_s = 5, mix_pct = 45, errors = 0,
      latency_ms = { avg = 3, max = 9, percentiles = { ["90"] = 4, ["50"] = 2 } } } } }
    local rows = metrics.rows({ d })
    assert.are.equal(1000, row(rows, "transactions/s").value(d))
    assert.are.equal(10000, row(rows, "queries/s").value(d))
    assert.are.equal(2, row(rows, "p95").value(d))
    assert.are.equal(60, row(rows, "CPU user %").value(d) + row(rows, "CPU system %").value(d))
    assert.are.equal(4, row(rows, "NewOrder p90 ms").value(d))
    local order = {}
    for _, r in ipairs(rows) do if r.group == "latency (ms)" then order[#order + 1] = r.name end end
    assert.are.same({ "min", "avg", "p50", "p95", "max" }, order)
  end)

  it("takes the spread from the intervals and calls a difference significant beyond 2 standard errors", function()
    local tps = metrics.rows({ fx.doc() })[1]
    local a = metrics.spread(fx.doc { per_interval = { 90, 110, 90, 110 } }, tps)
    assert.are.equal(4, a.n)
    assert.are.equal(100, a.mean)
    local sd = math.sqrt(400 / 3)
    assert.is_true(math.abs(a.se - sd / 2) < 1e-12)
    local limit = 2 * math.sqrt(2) * a.se -- two runs with the same spread
    assert.is_true(metrics.significant(100, 100 + limit * 1.01, a, a))
    assert.is_false(metrics.significant(100, 100 + limit * 0.99, a, a))
    assert.is_nil(metrics.significant(100, 200, a, nil))
    assert.is_nil(metrics.spread(fx.doc { per_interval = { 100 } }, tps))
  end)

  it("declares a direction for every row; system, mix and workload rows are neutral but the headlines", function()
    local d = fx.doc { types = { NewOrder = { per_s = 5, mix_pct = 45, errors = 0, rollbacks = 1, retries = 2,
      latency_ms = { avg = 3, max = 9, percentiles = { ["50"] = 2 } } } } }
    d.workload_stats = { tpmC = 7 }
    for _, r in ipairs(metrics.rows({ d })) do
      assert.truthy(r.better == "higher" or r.better == "lower" or r.better == "neutral", r.name)
    end
    local rows = metrics.rows({ d })
    assert.are.equal("neutral", row(rows, "CPU system %").better)
    assert.are.equal("neutral", row(rows, "context switches/s").better)
    assert.are.equal("neutral", row(rows, "NewOrder mix %").better)
    -- tpmC heads a summary: a throughput
    assert.are.equal("higher", row(rows, "tpmC").better)
    assert.is_true(row(rows, "tpmC").headline)
    assert.are.equal("lower", row(rows, "NewOrder rollbacks").better)
    assert.are.equal(2, row(rows, "NewOrder retries").value(d))
  end)

  it("gives every per-type row a series from the intervals, and a count the spread of a sum", function()
    local d = fx.doc { types = { T = { per_s = 5, mix_pct = 100, errors = 6, rollbacks = 0, retries = 0,
      latency_ms = { avg = 3, max = 9, percentiles = { ["99"] = 4 } } } } }
    d.intervals = {}
    for i, ms in ipairs({ 2, 4, 2, 4 }) do
      d.intervals[i] = { interval_s = 1, types = { T = 10 }, type_latency_ms = { T = { avg = ms, ["99"] = 2 * ms, max = 3 * ms } },
                         type_outcomes = i % 2 == 0 and { T = { errors = 3, rollbacks = 0, retries = 0 } } or {} }
    end
    local rows = metrics.rows({ d })
    local sd = math.sqrt(4 / 3)
    for name, scale in pairs({ ["T avg ms"] = 1, ["T p99 ms"] = 2, ["T max ms"] = 3 }) do
      local s = metrics.spread(d, row(rows, name))
      assert.are.equal(4, s.n, name)
      assert.is_true(math.abs(s.se - scale * sd / 2) < 1e-12, name)
    end
    assert.are.equal(10, metrics.spread(d, row(rows, "T /s")).mean)
    assert.are.equal(0, metrics.spread(d, row(rows, "T mix %")).sd)
    -- errors 0, 3, 0, 3 per interval: 6 in all, se of the sum = sd x sqrt(4)
    local e = metrics.spread(d, row(rows, "T errors"))
    assert.is_true(math.abs(e.se - math.sqrt(9 / 3) * 2) < 1e-12)
    -- a result without per-interval outcomes has no series for them
    for _, iv in ipairs(d.intervals) do iv.type_outcomes = nil end
    assert.is_nil(metrics.spread(d, row(rows, "T errors")))
  end)
end)
