-- luabench.internal.report_html: one self-contained page.
local report = require("luabench.internal.report_html")
local fx = require("lua.result_fixture")

describe("luabench.internal.report_html", function()
  it("has the facts, tables and charts, no script and no password", function()
    local d = fx.doc { types = { read = { count = 10, mix_pct = 100, per_s = 1, errors = 0, rollbacks = 0, retries = 0,
      latency_ms = { avg = 1, max = 2, percentiles = { ["50"] = 1 } } } } }
    d.options["pgsql-password"] = "hunter2"
    local page = report.render({ fx.input("base", { d }), fx.input("new", { fx.doc { tps = 2000 } }) })
    assert.truthy(page:find("^<!DOCTYPE html>"))
    assert.falsy(page:find("<script", 1, true))
    assert.falsy(page:find("hunter2", 1, true))
    assert.truthy(page:find("Test CPU, 4 CPUs, 8.0 GiB memory", 1, true))
    assert.truthy(page:find("--pgsql-password=***", 1, true))
    assert.truthy(page:find('<td class="better">2.000 *</td>', 1, true))
    assert.truthy(page:find("<h2>Per transaction type</h2>", 1, true))
    assert.truthy(select(2, page:gsub('<svg[^>]-class="chart"', "")) >= 5)
    assert.are.equal(page, report.render({ fx.input("base", { d }), fx.input("new", { fx.doc { tps = 2000 } }) }))
  end)

  it("puts a study's summary first, a dot per run, and what differs", function()
    local function runs(label, tps_list, affinity)
      local out = {}
      for i, tps in ipairs(tps_list) do
        local d = fx.doc { tps = tps, p99 = 10 }
        d.options["cpu-affinity"] = affinity
        out[i] = { label = label, path = label .. i .. ".json", kind = "run", doc = d, rep = i, study = "s",
                   points = { { conc = 8, doc = d, file = label .. i .. ".json" } } }
      end
      return out
    end
    local inputs = runs("A", { 100, 104, 98, 101 }, "0")
    for _, x in ipairs(runs("B", { 130, 128, 135, 131 }, "0,1")) do inputs[#inputs + 1] = x end
    local page = report.render(inputs)
    assert.truthy(page:find("<h1>Study s: A vs B</h1>", 1, true))
    local summary, dots, differs, ran = page:find("<h2>Summary</h2>", 1, true), page:find("<h2>Every run</h2>", 1, true),
      page:find("<h2>What differs</h2>", 1, true), page:find("<h2>What ran</h2>", 1, true)
    assert.truthy(summary and dots and differs and ran and summary < dots and dots < differs and differs < ran)
    -- transactions/s, p95 and p99: a dot plot each, four dots per label
    assert.are.equal(3, select(2, page:gsub('<svg[^>]-class="dots"', "")))
    assert.are.equal(24, select(2, page:gsub('<circle class="run"', "")))
    assert.truthy(page:find('<td class="k">options</td><td class="k">cpu-affinity</td><td class="k">0</td><td class="k">0,1</td>', 1, true))
    assert.truthy(page:find('<td class="k">oltp_read_write</td><td class="k">transactions/s</td><td>100.5 ±3.5%</td>', 1, true))
    assert.truthy(page:find('<td class="better">1.299 * <span class="iv">[', 1, true))
    assert.truthy(page:find("The runs (4)", 1, true))
  end)
end)
