-- luabench.results: inputs from files and sweep directories, described in words.
local results = require("luabench.results")
local fx = require("lua.result_fixture")
local h = require("helpers")

describe("luabench.results", function()
  it("describes what ran, also from a script's '_' options", function()
    local d = fx.doc()
    assert.are.equal("oltp_read_write, pgsql, 10 tables x 100,000 rows", results.what(d))
    assert.are.equal("2026-01-02 03:04:05 UTC", results.date(d))
    local input = fx.input("a", { d })
    assert.are.equal("oltp_read_write, pgsql, 10 tables x 100,000 rows, 8 threads, host db1, 2026-01-02 03:04:05 UTC",
      results.describe(input))
    d.options = { warehouses = 20, ["db-driver"] = "mysql" }
    d.workload = "tpcc"
    assert.are.equal("tpcc, mysql, 20 warehouses", results.what(d))
  end)

  it("refuses files that are not results, and reads a sweep directory by its sweep.csv", function()
    local bad = h.write("notjson.json", "{")
    local input, err = results.load(bad)
    assert.is_nil(input)
    assert.truthy(err:find("is not JSON", 1, true), err)
    local dir = h.tmpdir() .. "/sweep-r"
    os.execute("mkdir -p " .. h.q(dir))
    input, err = results.load(dir)
    assert.truthy(err:find("without sweep.csv", 1, true), err)
    local function put(name, text)
      local f = assert(io.open(dir .. "/" .. name, "w")); f:write(text); f:close()
    end
    for _, t in ipairs({ 4, 2 }) do
      put("threads-" .. t .. ".json", string.format(
        '{"luabench": {"version": "x"}, "threads": %d, "rates": {"events_per_s": %d}, "options": {}, "workload": "cpu"}', t, t * 100))
    end
    put("sweep.csv", "threads,tps,result\n4,400,threads-4.json\n2,200,threads-2.json\n")
    input = assert(results.load(dir))
    assert.are.equal("sweep", input.kind)
    assert.are.equal("sweep-r", input.label)
    assert.are.same({ 2, 4 }, { input.points[1].conc, input.points[2].conc })
    assert.are.equal("2..4 threads (2 points)", results.concurrency_text(input))
  end)
end)
