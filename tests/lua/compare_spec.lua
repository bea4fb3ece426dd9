-- luabench.internal.compare: the model (values, ratios, significance) and its text, JSON and CSV.
local compare = require("luabench.internal.compare")
local fx = require("lua.result_fixture")

describe("luabench.internal.compare", function()
  local a = fx.input("before", { fx.doc { tps = 1000, per_interval = { 990, 1010, 1000 } } })
  local b = fx.input("after", { fx.doc { tps = 1500, lat = 0.5, per_interval = { 1490, 1510, 1500 } } })
  local c = fx.input("same", { fx.doc { tps = 1001, per_interval = { 980, 1020, 1003 } } })

  it("gives each input's value, the ratio to the first and whether it is beyond the noise", function()
    local m = compare.model({ a, b, c })
    assert.are.equal(1, #m.sections)
    local tps = m.sections[1].rows[1]
    assert.are.equal("transactions/s", tps.name)
    assert.are.same({ 1000, 1500, 1001 }, tps.values)
    assert.are.equal(1.5, tps.ratios[2])
    assert.are.equal(true, tps.significant[2])
    assert.are.equal(false, tps.significant[3])
  end)

  it("prints the table, JSON and CSV with the same figures", function()
    local m = compare.model({ a, b })
    local text = compare.text(m)
    assert.truthy(text:find("\n  transactions/s%s+1000%s+1500%s+1%.500 %*\n"), text)
    assert.truthy(text:find("\n  p95%s+2%s+1%s+0%.500 %*\n"), text) -- constant per interval: no noise
    local j = luabench.json.decode(compare.json(m))
    assert.are.equal(1.5, j.sections[1].rows[1].ratios[2])
    assert.are.equal(compare.json(m), compare.json(compare.model({ a, b })))
    local csv = compare.csv(m)
    assert.truthy(csv:find("^threads,group,metric,unit,before,after,ratio_after,significant_after\n"))
    assert.truthy(csv:find("\n,throughput,transactions/s,/s,1000,1500,1.5,yes\n", 1, true), csv)
  end)

  it("matches sweeps by concurrency and leaves a missing point empty", function()
    local s1 = fx.input("s1", { fx.doc { threads = 1, tps = 100 }, fx.doc { threads = 2, tps = 200 } })
    local s2 = fx.input("s2", { fx.doc { threads = 2, tps = 300 }, fx.doc { threads = 4, tps = 500 } })
    local m = compare.model({ s1, s2 })
    assert.are.same({ 1, 2, 4 }, { m.sections[1].conc, m.sections[2].conc, m.sections[3].conc })
    assert.are.same({ 100 }, { m.sections[1].rows[1].values[1], m.sections[1].rows[1].values[2] })
    assert.are.equal(1.5, m.sections[2].rows[1].ratios[2])
    assert.truthy(compare.text(m):find("== 4 threads ==", 1, true))
  end)

  it("tells studies of one label apart when they share a workload, and joins them when not", function()
    local root = os.tmpname()
    os.remove(root)
    -- a study of one configuration labelled `label`, one run of `workload`
    local function study(dir, label, workload)
      os.execute("mkdir -p " .. root .. "/" .. dir .. "/runs")
      local function put(name, text)
        local f = assert(io.open(root .. "/" .. dir .. "/" .. name, "w")); f:write(text); f:close()
      end
      put("runs/1.json", string.format('{"luabench": {"version": "x"}, "threads": 1, "rates": {"events_per_s": 10}, '
        .. '"options": {}, "workload": "%s"}', workload))
      put("manifest.json", string.format('{"luabench_study": 1, "workloads": [{"name": "%s"}], "runs": [{"position": 1, '
        .. '"configuration": "%s", "workload": "%s", "repeat": 1, "status": "ok", "file": "runs/1.json"}]}', workload, label, workload))
      return root .. "/" .. dir
    end
    local a, b = study("old/machine", "vm", "cpu"), study("new/machine", "vm", "cpu")
    local app = study("app", "vm", "app")
    local function labels(list)
      local inputs = assert(compare.load_inputs(list))
      return table.concat(compare.labels(inputs), " ")
    end
    -- the same plan run twice on one host: named after their directories
    assert.are.equal("old new", labels({ { path = a }, { path = b } }))
    -- two studies of one machine (its resources, its application): one label
    assert.are.equal("vm", labels({ { path = a }, { path = app } }))
    assert.are.equal("old new", labels({ { path = a, label = "old", group = 1 }, { path = b, label = "new", group = 2 } }))
    local none, err = compare.load_inputs({ { path = a }, { path = a } })
    assert.is_nil(none)
    assert.truthy(err:find("two inputs are labelled 'vm'", 1, true), err)
    os.execute("rm -rf " .. root)
  end)
end)
