-- tools/sweep and tools/plot: a three-point sweep on the sandbox PostgreSQL gives a CSV whose
-- rows are the three JSON results, and charts; a failing point is reported, never skipped.
local h = require("helpers")

local function split(line)
  local t = {}
  for v in (line .. ","):gmatch("([^,]*),") do t[#t + 1] = v end
  return t
end

local function lines(s)
  local t = {}
  for l in s:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

-- Runs a tools/ script with the luabench under test; returns stdout+stderr and the exit code.
local function tool(name, args)
  local p = io.popen(string.format("LUABENCH=%s %s/tools/%s %s 2>&1; echo \"::rc=$?\"", h.q(h.bin), h.q(h.root), name, args))
  local out = p:read("*a")
  p:close()
  return out:gsub("::rc=%d+%s*$", ""), tonumber(out:match("::rc=(%d+)%s*$"))
end

local function same(csv, json, what)
  if json == nil then return assert.are.equal("", csv, what) end
  local v = tonumber(csv)
  assert.is_truthy(v, what .. ": '" .. tostring(csv) .. "'")
  assert.is_true(v == json or math.abs(v - json) <= 1e-12 * math.abs(json), what .. ": " .. csv .. " vs " .. json)
end

describe("tools/sweep", function()
  it("runs every point on PostgreSQL and writes sweep.csv rows equal to the JSON results, and plots", function()
    local db = h.db("pgsql")
    if not db then pending("no PostgreSQL sandbox") return end
    local dir = h.tmpdir() .. "/sweep"
    local out, rc = tool("sweep", "--threads 1,2,3 --prepare --cleanup --out " .. h.q(dir) ..
      " -- oltp_point_select " .. db .. " --tables=1 --table-size=200 --time=1 --percentile=50,95,99.9")
    assert.are.equal(0, rc, out)
    local csv = lines(h.read(dir .. "/sweep.csv"))
    assert.are.equal(4, #csv, "a header and three rows")
    local head = split(csv[1])
    assert.are.same({ "threads", "tps", "qps", "lat_ms_min", "lat_ms_avg", "lat_ms_max",
      "lat_ms_p50", "lat_ms_p95", "lat_ms_p99.9", "errors", "errors_per_s", "reconnects" },
      { table.unpack(head, 1, 12) })
    for i, t in ipairs({ 1, 2, 3 }) do
      local row = {}
      for k, v in ipairs(split(csv[i + 1])) do row[head[k]] = v end
      local r = h.json(h.read(dir .. "/threads-" .. t .. ".json"))
      assert.are.equal("threads-" .. t .. ".json", row.result)
      same(row.threads, t, "threads")
      same(row.threads, r.threads, "threads")
      same(row.tps, r.rates.events_per_s, "tps")
      same(row.qps, r.rates.queries_per_s, "qps")
      same(row.lat_ms_avg, r.latency_ms.avg, "avg")
      same(row.lat_ms_max, r.latency_ms.max, "max")
      for _, p in ipairs({ "50", "95", "99.9" }) do same(row["lat_ms_p" .. p], r.latency_ms.percentiles[p], "p" .. p) end
      same(row.errors, r.counters.errors, "errors")
      local c = r.system.cpu_pct
      same(row.cpu_user_pct, c.user + c.nice, "cpu user")
      same(row.cpu_iowait_pct, c.iowait, "iowait")
      same(row.luabench_cpu_pct, r.system.process.user_pct + r.system.process.system_pct, "luabench cpu")
      same(row.disk_iops, r.system.disk_iops, "disk iops")
      assert.are.equal("", row.db_cpu_pct, "not measured without --db-server-*")
      assert.is_true(r.counters.events > 0 and r.status == "ok")
    end
    for _, chart in ipairs({ "throughput", "queries", "latency", "latency-max", "system" }) do
      local svg = h.read(dir .. "/sweep-" .. chart .. ".svg")
      local png = h.read(dir .. "/sweep-" .. chart .. ".png")
      assert.is_truthy(svg and svg:find("^<%?xml") and svg:find("<svg", 1, true), chart .. ".svg")
      assert.is_truthy(png and #png > 1000 and png:sub(1, 8) == "\137PNG\r\n\26\n", chart .. ".png")
    end
    assert.is_truthy(h.read(dir .. "/sweep-latency.svg"):find("Latency (ms)", 1, true), "axis with its unit")
    -- One y axis per quantity; titles say what ran, not the file; the maximum has its own chart.
    local tput = h.read(dir .. "/sweep-throughput.svg")
    assert.is_falsy(tput:find("Queries per second", 1, true) or tput:find("right axis", 1, true), "qps on the tps chart")
    assert.is_truthy(tput:find("oltp_point_select, pgsql, 1 tables x 200 rows", 1, true), "title names what ran")
    assert.is_falsy(tput:find("sweep.csv", 1, true), "title is the file name")
    assert.is_falsy(h.read(dir .. "/sweep-latency.svg"):find("maximum", 1, true), "maximum squashes the percentiles")
    assert.is_truthy(h.read(dir .. "/report.html"):find("<svg", 1, true), "tools/sweep wrote report.html")
    -- the table is gone again (--cleanup)
    assert.are.same({ "0" }, h.sql(db, "SELECT count(*) FROM pg_tables WHERE tablename = 'sbtest1'"))
  end)

  it("reports a failing point, keeps the others and exits non-zero", function()
    local script = h.write("fails_at_2.lua",
      "function event() if sysbench.opt.threads == 2 then error('no two') end end\n")
    local dir = h.tmpdir() .. "/sweep-fail"
    local out, rc = tool("sweep", "--threads 1,2,3 --no-plot --out " .. h.q(dir) .. " -- " .. h.q(script) .. " --time=1")
    assert.are.equal(1, rc, out)
    assert.is_truthy(out:find("sweep: FAILED threads=2 (exit code 1, status: error)", 1, true), out)
    assert.is_truthy(out:find("sweep: failed: 2", 1, true))
    local csv = lines(h.read(dir .. "/sweep.csv"))
    assert.are.equal(3, #csv)
    assert.are.equal("1", split(csv[2])[1])
    assert.are.equal("3", split(csv[3])[1])
    out, rc = tool("sweep", "--threads 1,x -- " .. h.q(script))
    assert.are.equal(1, rc)
    assert.is_truthy(out:find("--threads wants a list of thread counts", 1, true), out)
  end)

  it("marks a point in which no event completed failed, not a row of zeros", function()
    local script = h.write("never_done.lua", "function event() luabench.think(30) end\n")
    local dir = h.tmpdir() .. "/sweep-idle"
    local out, rc = tool("sweep", "--threads 1 --no-plot --out " .. h.q(dir) .. " -- " .. h.q(script) ..
      " --users=2 --time=1")
    assert.are.equal(1, rc, out)
    assert.is_truthy(out:find("sweep: FAILED threads=1 (no event completed)", 1, true), out)
    assert.is_nil(h.read(dir .. "/sweep.csv"), "no row")
  end)

  it("plots a single result's time series, also as luabench plot", function()
    local json = h.tmpdir() .. "/series.json"
    local _, err, rc = h.run("cpu --threads=2 --time=2 --percentile=50,99 --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    local out
    out, err, rc = h.run("plot --log --out " .. h.q(h.tmpdir() .. "/series") .. " " .. json)
    assert.are.equal(0, rc, err .. out)
    local svg = h.read(h.tmpdir() .. "/series-timeseries.svg")
    assert.is_truthy(svg and svg:find("<svg", 1, true) and svg:find("Latency (ms)", 1, true))
    assert.are.equal("\137PNG", h.read(h.tmpdir() .. "/series-timeseries.png"):sub(1, 4))
    out, err, rc = h.run("plot " .. h.q(h.tmpdir() .. "/nope.csv"))
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("plot: cannot read", 1, true))
  end)
end)
