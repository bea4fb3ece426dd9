-- luabench.internal.study: the manifest's encoding (the runs themselves: the e2e
-- spec tests/e2e/study_spec.lua).
local study = require("luabench.internal.study")

describe("luabench.internal.study", function()
  it("writes the manifest with its keys in reading order, a run per line", function()
    local text = study.encode({ runs = { { status = "ok", position = 1, configuration = "A", file = "f.json" } },
                                luabench_study = 1, repeats = 3, plan = "p.lua" })
    assert.are.equal('{\n  "luabench_study": 1,\n  "plan": "p.lua",\n  "repeats": 3,\n  "runs": [\n'
      .. '    {"position": 1, "configuration": "A", "status": "ok", "file": "f.json"}\n  ]\n}', text)
    assert.are.same({ 1, 2 }, luabench.json.decode(study.encode({ 1, 2 })))
  end)
end)
