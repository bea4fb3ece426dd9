-- luabench.internal.charts: which charts a set of inputs gets, and what is on them.
local charts = require("luabench.internal.charts")
local fx = require("lua.result_fixture")

local function ids(list)
  local out = {}
  for _, c in ipairs(list) do out[#out + 1] = c.id end
  return out
end

describe("luabench.internal.charts", function()
  it("overlays sweeps against concurrency, one line per input, the maximum on its own chart", function()
    local s1 = fx.input("ssd", { fx.doc { threads = 1 }, fx.doc { threads = 8 } })
    local s2 = fx.input("nvme", { fx.doc { threads = 1 }, fx.doc { threads = 8 } })
    local list = charts.build({ s1, s2 })
    assert.are.same({ "throughput", "queries", "latency-avg", "latency-p50", "latency-p95", "latency-max", "cpu", "disk-iops" }, ids(list))
    for _, c in ipairs(list) do
      assert.truthy(c.svg:find('data-series="ssd"', 1, true) and c.svg:find('data-series="nvme"', 1, true), c.id)
      assert.truthy(c.svg:find("oltp_read_write, pgsql, 10 tables x 100,000 rows", 1, true), c.id)
      assert.truthy(c.svg:find("Concurrency (threads)", 1, true))
      assert.falsy(c.svg:find('data-series="maximum"', 1, true))
    end
  end)

  it("draws single runs over time, and one input's percentiles together", function()
    local list = charts.build({ fx.input("run", { fx.doc() }) })
    assert.are.same({ "throughput", "queries", "latency", "latency-max", "cpu", "disk-iops" }, ids(list))
    assert.truthy(list[3].svg:find('data-series="p95"', 1, true))
    assert.truthy(list[1].svg:find("Time since start (s)", 1, true))
  end)
end)
