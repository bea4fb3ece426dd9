-- luabench.internal.results: inputs from files and sweep directories, described in words.
local results = require("luabench.internal.results")
local fx = require("lua.result_fixture")
local h = require("helpers")

describe("luabench.internal.results", function()
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

  it("names a script by its base name, and a server by its product", function()
    assert.are.equal("orders", results.workload_name({ workload = "/home/me/scripts/orders.lua" }))
    assert.are.equal("oltp_read_write", results.workload_name({ workload = "oltp_read_write" }))
    assert.are.equal("script", results.workload_name({ workload = "" }))
    assert.truthy(results.what(fx.doc { workload = "./a/b/composite.lua" }):find("^composite, pgsql"))
    assert.are.equal("PostgreSQL", results.product({ server_version = "PostgreSQL 15.8 on x86_64" }))
    assert.are.equal("MariaDB", results.product({ server_version = "10.11.6-MariaDB-0+deb12u1" }))
    assert.are.equal("duckdb", results.product({ sql = true, options = { ["db-driver"] = "duckdb" } }))
    assert.is_nil(results.product({ options = {} }))
    assert.are.equal("99", results.percentile_key(99))
    assert.are.equal("99.9", results.percentile_key(99.9))
  end)

  it("expands a pattern the shell left alone, and reads a study's manifest", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. "/runs")
    local function put(name, text)
      local f = assert(io.open(dir .. "/" .. name, "w")); f:write(text); f:close()
    end
    local doc = '{"luabench": {"version": "x"}, "threads": 2, "rates": {"events_per_s": %d}, "options": {}, "workload": "cpu"}'
    put("runs/a-1.json", doc:format(100))
    put("runs/a-2.json", doc:format(110))
    put("runs/b-1.json", doc:format(200))
    assert.are.same({ dir .. "/runs/a-1.json", dir .. "/runs/a-2.json" }, results.expand(dir .. "/runs/a-*.json"))
    assert.are.same({ dir .. "/runs/b-1.json" }, results.expand(dir .. "/runs/[b]-?.json"))
    local none, err = results.expand(dir .. "/runs/c*.json")
    assert.is_nil(none)
    assert.truthy(err:find("no file matches", 1, true))
    put("manifest.json", [[{"luabench_study": 1, "workloads": [{"name": "c", "axis": "threads", "bound_ms": 50}],
      "runs": [{"position": 1, "configuration": "A", "workload": "c", "repeat": 1, "warmup": true, "status": "ok", "file": "runs/a-1.json"},
               {"position": 2, "configuration": "A", "workload": "c", "repeat": 1, "warmup": false, "status": "ok", "file": "runs/a-2.json"},
               {"position": 3, "configuration": "B", "workload": "c", "repeat": 1, "warmup": false, "status": "failed", "file": "runs/b-1.json"}]}]])
    assert.is_true(results.is_study(dir))
    local runs = assert(results.load_study(dir))
    assert.are.equal(1, #runs) -- the warm-up and the failed run are left out
    assert.are.same({ "A", "c", 1, true }, { runs[1].label, runs[1].workload, runs[1].rep, runs[1].axis })
    assert.are.same({ key = "99", ms = 50 }, runs[1].bound)
    assert.are.equal(110, runs[1].doc.rates.events_per_s)
    os.execute("rm -rf " .. dir)
  end)
end)
