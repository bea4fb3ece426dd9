-- luabench.internal.compare_text: the model as text, JSON and CSV, the same figures in each.
local model = require("luabench.internal.compare_model")
local render = require("luabench.internal.compare_text")
local fx = require("lua.result_fixture")

local function concat(a, b)
  local out = {}
  for _, x in ipairs(a) do out[#out + 1] = x end
  for _, x in ipairs(b) do out[#out + 1] = x end
  return out
end

describe("luabench.internal.compare_text", function()
  local a = fx.runs("A", { fx.doc { tps = 100 }, fx.doc { tps = 104 }, fx.doc { tps = 98 }, fx.doc { tps = 101 } })
  local b = fx.runs("B", { fx.doc { tps = 130 }, fx.doc { tps = 128 }, fx.doc { tps = 135 }, fx.doc { tps = 131 } })

  it("prints the summary, the medians with their spread and the ratio with its interval and p", function()
    local m = assert(model.build(concat(a, b)))
    local text = render.text(m)
    assert.truthy(text:find("luabench compare: 2 labels, 8 runs, each label against the first (A)", 1, true), text)
    assert.truthy(text:find("Mann-Whitney U", 1, true))
    assert.truthy(text:find("\nsummary:\n", 1, true), text)
    -- median 100.5, range 98..104: +-3.5 of 100.5 is 3.5 %; ratio 130.5/100.5
    assert.truthy(text:find("\n  transactions/s%s+100%.5 ±3%.5%%%s+130%.5 ±3%.4%%%s+1%.299 %* %[1%.%d+ 1%.%d+%] p=0%.029\n"), text)
  end)

  it("says which rule decided and when there are too few runs", function()
    local m = assert(model.build(concat({ a[1], a[2], a[3] }, { b[1], b[2], b[3] })))
    local text = render.text(m)
    assert.truthy(text:find("(3 against 3 runs: fewer than the rank test needs (4 per label); verdicts by the " ..
      "small-sample rule: * when Welch's t-test on the runs' logarithms gives p <= 0.05 and no run of one label " ..
      "falls among the other's)", 1, true), text)
    local one = render.text(assert(model.build({ fx.input("x", { fx.doc() }), fx.input("y", { fx.doc() }) })))
    assert.truthy(one:find("2 x sqrt(se_a^2 + se_b^2)", 1, true))
  end)

  it("writes the same figures as JSON and CSV", function()
    local m = assert(model.build(concat(a, b)))
    local j = luabench.json.decode(render.json(m))
    assert.are.equal("between-runs", j.verdict_rule)
    local r = j.sections[1].rows[1]
    assert.are.same({ 100.5, 130.5 }, r.values)
    assert.are.same({ 4, 4 }, r.runs)
    assert.are.same({ 98, 104 }, { r.intervals[1][1], r.intervals[1][2] })
    assert.are.equal("transactions/s", j.summary[1].metric)
    assert.are.equal(render.json(m), render.json(assert(model.build(concat(a, b)))))
    local csv = render.csv(m)
    assert.truthy(csv:find("^threads,group,metric,unit,A,runs_A,lo_A,hi_A,B,runs_B,lo_B,hi_B,ratio_B,significant_B,ratio_lo_B,ratio_hi_B,p_B\n"), csv)
    assert.truthy(csv:find("\n,throughput,transactions/s,/s,100.5,4,98,104,130.5,4,128,135,", 1, true), csv)
  end)
end)
