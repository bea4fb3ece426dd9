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

  -- A script with an option of its own, swept with --users as a 2 x 2 grid on PostgreSQL: a
  -- column per axis, the rows equal to their JSON results (per-type columns too), one result
  -- file per point named by its axes, the password nowhere in what the sweep prints or writes.
  it("sweeps --users and a script option as a grid, with per-type columns, password masked", function()
    local db = h.db("pgsql")
    if not db then pending("no PostgreSQL sandbox") return end
    local script = h.write("sweep_grid.lua", [[
sysbench.cmdline.options = { rows = { "rows read per event", 1 } }
local READ = luabench.stats.type("read")
local con
function prepare()
  local c = sysbench.sql.driver():connect()
  c:query("DROP TABLE IF EXISTS sw20")
  c:query("CREATE TABLE sw20 (id INT PRIMARY KEY)")
  c:query("INSERT INTO sw20 SELECT generate_series(1, 10)")
  print("prepared with " .. sysbench.opt.threads .. " threads")
end
function cleanup() sysbench.sql.driver():connect():query("DROP TABLE IF EXISTS sw20") end
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  local t0 = READ:begin()
  local rs = con:query("SELECT id FROM sw20 WHERE id <= " .. sysbench.opt.rows)
  assert(rs.nrows == sysbench.opt.rows)
  READ:done(t0)
  luabench.think(0.005)
end
]])
    local dir = h.tmpdir() .. "/sweep-grid"
    local out, rc = tool("sweep", "--users 2,4 --axis rows=1,5 --threads 1,2 --prepare --cleanup --out " .. h.q(dir) ..
      " -- " .. h.q(script) .. " " .. db .. " --threads=7 --time=1 --percentile=50,99")
    assert.are.equal(0, rc, out)
    -- prepare once, at the largest thread count of the axis; the password masked in its echo
    assert.are.equal(1, h.count(out, "prepared with 2 threads"), out)
    assert.is_truthy(("\n" .. out):find("\nsweep: [^\n]* %-%-pgsql%-password=%*%*%* [^\n]* %-%-threads=2 prepare\n"), out)
    assert.is_truthy(("\n" .. out):find("\nsweep: [^\n]* %-%-pgsql%-password=%*%*%* [^\n]* cleanup\n"), out)
    assert.is_truthy(out:find("sweep: users=4, rows=5, threads=2 -> ", 1, true), out)
    local csv = lines(h.read(dir .. "/sweep.csv"))
    assert.are.equal(9, #csv, "a header and 2 x 2 x 2 rows")
    local head = split(csv[1])
    assert.are.same({ "users", "rows", "threads", "tps", "qps" }, { table.unpack(head, 1, 5) })
    for _, c in ipairs({ "type_read_per_s", "type_read_lat_ms_avg", "type_read_lat_ms_p50", "type_read_lat_ms_p99" }) do
      local found = false
      for _, x in ipairs(head) do found = found or x == c end
      assert.is_true(found, c .. " in " .. csv[1])
    end
    local seen = {}
    for i = 2, #csv do
      local row = {}
      for k, v in ipairs(split(csv[i])) do row[head[k]] = v end
      local name = string.format("users-%s_rows-%s_threads-%s.json", row.users, row.rows, row.threads)
      assert.are.equal(name, row.result)
      seen[name] = true
      local r = h.json(h.read(dir .. "/" .. name))
      same(row.users, r.users.users, "users")
      same(row.threads, r.threads, "threads")
      same(row.rows, tonumber(r.options.rows), "the script option")
      same(row.tps, r.rates.events_per_s, "tps")
      same(row.type_read_per_s, r.types.read.per_s, "per-type rate")
      same(row.type_read_lat_ms_avg, r.types.read.latency_ms.avg, "per-type avg")
      same(row.type_read_lat_ms_p99, r.types.read.latency_ms.percentiles["99"], "per-type p99")
      assert.is_true(r.types.read.count > 0 and r.status == "ok")
    end
    for _, u in ipairs({ 2, 4 }) do
      for _, n in ipairs({ 1, 5 }) do
        for _, t in ipairs({ 1, 2 }) do
          assert.is_true(seen[string.format("users-%d_rows-%d_threads-%d.json", u, n, t)], "point " .. u .. "/" .. n .. "/" .. t)
        end
      end
    end
    for _, chart in ipairs({ "throughput", "latency", "types-throughput", "types-latency" }) do
      local svg = h.read(dir .. "/sweep-" .. chart .. ".svg")
      assert.is_truthy(svg and svg:find("<svg", 1, true), chart)
    end
    local tput = h.read(dir .. "/sweep-throughput.svg")
    assert.is_truthy(tput:find("Emulated users", 1, true), "x axis: the first axis")
    assert.is_truthy(tput:find("rows=5, threads=2", 1, true), "a line per value of the other axes")
    -- luabench report and compare read it point by point, charted against the first axis
    local html = h.read(dir .. "/report.html")
    assert.is_truthy(html and html:find('id="types-throughput"', 1, true), "per-type chart in report.html")
    assert.is_truthy(html:find("read (rows=5, threads=2)", 1, true), "a line per value of the other axes")
    local cmp, cerr, crc = h.run("compare --label=a " .. h.q(dir) .. " --label=b " .. h.q(dir))
    assert.are.equal(0, crc, cerr)
    assert.are.equal(8, h.count(cmp, "\n== users=%d, rows=%d, threads=%d ==\n"), cmp)
    assert.is_truthy(cmp:find("a sweep over --users 2, 4 x --rows 1, 5 x --threads 1, 2 (8 points)", 1, true), cmp)
    -- the secret: nowhere in what it printed or wrote
    assert.is_falsy(out:find("sbtest-secret", 1, true), out)
    local p = io.popen("grep -rl sbtest-secret " .. h.q(dir) .. " 2>/dev/null")
    local leaked = p:read("*a")
    p:close()
    assert.are.equal("", leaked, "files holding the password")
    assert.are.same({ "0" }, h.sql(db, "SELECT count(*) FROM pg_tables WHERE tablename = 'sw20'"))
  end)

  it("sweeps an option of words, charted in the order swept", function()
    local script = h.write("sweep_words.lua", [[
sysbench.cmdline.options = { mode = { "fast or slow", "fast" } }
local W = luabench.stats.type("work")
function event() local t0 = W:begin(); luabench.sleep(sysbench.opt.mode == "fast" and 0.001 or 0.004); W:done(t0) end
]])
    local dir = h.tmpdir() .. "/sweep-words"
    local out, rc = tool("sweep", "--axis mode=slow,fast --out " .. h.q(dir) .. " -- " .. h.q(script) .. " --time=1")
    assert.are.equal(0, rc, out)
    local csv = lines(h.read(dir .. "/sweep.csv"))
    assert.are.equal("mode", split(csv[1])[1])
    assert.are.same({ "slow", "fast" }, { split(csv[2])[1], split(csv[3])[1] })
    local head, slow, fast = split(csv[1]), split(csv[2]), split(csv[3])
    for k, name in ipairs(head) do
      if name == "type_work_lat_ms_avg" then
        assert.is_true(tonumber(slow[k]) > tonumber(fast[k]) + 1.5, csv[2] .. "\n" .. csv[3])
      end
    end
    local svg = h.read(dir .. "/sweep-types-latency.svg")
    assert.is_truthy(svg and svg:find(">slow<", 1, true) and svg:find(">fast<", 1, true), "the words on the x axis")
    assert.is_truthy(svg:find("--mode", 1, true), "the axis named")
  end)

  it("refuses a bad axis in one line", function()
    for _, c in ipairs({
      { "--axis rows", "--axis wants NAME=v1,v2" },
      { "--users 1,x", "--users wants a list of counts" },
      { "--rate 10,,20", "--rate wants a list of values" },
      { "--users 1 --users 2", "the axis 'users' is given twice" },
      { "--no-plot", "no axis: give --threads, --users" },
    }) do
      local out, rc = tool("sweep", c[1] .. " -- cpu")
      assert.are.equal(1, rc, out)
      assert.is_truthy(out:find(c[2], 1, true), c[1] .. ": " .. out)
    end
  end)

  it("reports a failing point, keeps the others and exits non-zero", function()
    local script = h.write("fails_at_2.lua",
      "function event() if sysbench.opt.threads == 2 then error('no two') end end\n")
    local dir = h.tmpdir() .. "/sweep-fail"
    local out, rc = tool("sweep", "--threads 1,2,3 --no-plot --out " .. h.q(dir) .. " -- " .. h.q(script) .. " --time=1")
    assert.are.equal(1, rc, out)
    assert.is_truthy(out:find("sweep: FAILED threads=2 (exit code 1, status: error)", 1, true), out)
    assert.is_truthy(out:find("sweep: failed: threads=2", 1, true), out)
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
