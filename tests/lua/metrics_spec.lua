-- luabench.metrics: the rows of a comparison and the noise rule.
local metrics = require("luabench.metrics")
local fx = require("lua.result_fixture")

local function row(rows, name)
  for _, r in ipairs(rows) do if r.name == name then return r end end
end

describe("luabench.metrics", function()
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
end)
