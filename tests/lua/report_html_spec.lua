-- luabench.report_html: one self-contained page.
local report = require("luabench.report_html")
local fx = require("lua.result_fixture")

describe("luabench.report_html", function()
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
end)
