-- luabench.internal.study: its command line and the manifest's encoding (the runs themselves: the e2e
-- spec tests/e2e/study_spec.lua).
local study = require("luabench.internal.study")

describe("luabench.internal.study", function()
  it("parses its options", function()
    local a = assert(study.parse({ "plan.lua", "--dir=out", "--set=host=db1", "--set=n=2", "--dry-run" }))
    assert.are.equal("plan.lua", a.plan)
    assert.are.equal("out", a.dir)
    assert.are.same({ host = "db1", n = "2" }, a.vars)
    assert.is_true(a["dry-run"])
    local none, err = study.parse({ "a.lua", "b.lua" })
    assert.is_nil(none)
    assert.truthy(err:find("one plan at a time", 1, true))
    none, err = study.parse({ "--set=oops" })
    assert.truthy(err:find("--set wants NAME=VALUE", 1, true))
    none, err = study.parse({ "--dir" })
    assert.truthy(err:find("needs a value", 1, true))
  end)

  it("writes the manifest with its keys in reading order, a run per line", function()
    local text = study.encode({ runs = { { status = "ok", position = 1, configuration = "A", file = "f.json" } },
                                luabench_study = 1, repeats = 3, plan = "p.lua" })
    assert.are.equal('{\n  "luabench_study": 1,\n  "plan": "p.lua",\n  "repeats": 3,\n  "runs": [\n'
      .. '    {"position": 1, "configuration": "A", "status": "ok", "file": "f.json"}\n  ]\n}', text)
    assert.are.same({ 1, 2 }, luabench.json.decode(study.encode({ 1, 2 })))
  end)
end)
