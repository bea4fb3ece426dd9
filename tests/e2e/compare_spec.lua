-- `luabench compare` and `luabench report` as a person uses them: real results (cpu runs, a
-- fileio run, an SQL run on the PostgreSQL sandbox, a merged run, two tiny tools/sweep
-- sweeps), the numbers in the tables checked against the inputs' own, and the HTML report
-- opened in headless Chromium: it renders, logs no console error, and every chart has plotted
-- data.
local h = require("helpers")

local dir = h.tmpdir()
local B = h.q(h.bin)

local function json_file(path)
  return h.json(assert(h.read(path), "missing " .. path))
end

local function run_ok(args, what)
  local out, err, rc = h.run(args)
  assert(rc == 0, (what or args) .. " failed (" .. tostring(rc) .. "): " .. err .. out)
  return out, err
end

local function close(a, b, rel)
  return math.abs(a - b) <= (rel or 1e-9) * math.max(math.abs(a), math.abs(b), 1e-12)
end

-- The row of a JSON comparison section by metric name.
local function row(section, name)
  for _, r in ipairs(section.rows) do if r.metric == name then return r end end
  error("no row '" .. name .. "'")
end

local sh = h.sh

local chromium
local function find_chromium()
  if chromium ~= nil then return chromium end
  for _, name in ipairs({ "chromium", "chromium-browser", "google-chrome" }) do
    local out = sh("command -v " .. name)
    if out:match("^/") then chromium = out:match("^(%S+)"); return chromium end
  end
  if os.getenv("CI") == "true" then error("chromium is not installed (tools/install-deps installs it)") end
  chromium = false
  return chromium
end

-- Opens an HTML file in headless Chromium: returns the DOM as Chromium built it, the screenshot's
-- size in bytes and the browser's log (console messages go there).
local function open_in_chromium(html)
  local flags = "--headless --disable-gpu --no-sandbox --hide-scrollbars --enable-logging=stderr --v=0 " ..
    "--user-data-dir=" .. h.q(dir .. "/chromium-profile")
  local png = html:gsub("%.html$", ".png")
  os.remove(png)
  local log = sh(string.format("%s %s --window-size=1200,3000 --screenshot=%s file://%s", chromium, flags, h.q(png), h.q(html)))
  local dom = sh(string.format("%s %s --dump-dom file://%s 2>/dev/null", chromium, flags, h.q(html)))
  local f = io.open(png, "rb")
  local size = f and f:seek("end") or 0
  if f then f:close() end
  return dom, size, log
end

-- Every <svg class="chart"> of a page: its id, title and the point counts of its polylines.
local function charts_of(dom)
  local list = {}
  for body in dom:gmatch('<svg[^>]-class="chart".-</svg>') do
    local c = { id = body:match('id="([^"]+)"'), title = body:match('<text class="title"[^>]*>(.-)</text>'),
                lines = {}, ylabels = h.count(body, 'class="ylabel"'), series = {} }
    for attrs in body:gmatch("<polyline([^>]*)>") do
      local pts = attrs:match('points="([^"]*)"') or ""
      c.lines[#c.lines + 1] = h.count(pts, "[%d.]+,[%d.]+")
      c.series[#c.series + 1] = attrs:match('data%-series="([^"]*)"')
    end
    list[#list + 1] = c
  end
  return list
end

local function check_page(html, min_charts, min_points)
  local dom, png_bytes, log = open_in_chromium(html)
  assert.truthy(dom:find("<h1>", 1, true), "Chromium rendered no page: " .. dom:sub(1, 300))
  assert.is_true(png_bytes > 20000, "screenshot of " .. html .. " is only " .. png_bytes .. " bytes")
  for line in log:gmatch("[^\n]+") do
    assert.falsy(line:find("CONSOLE", 1, true) or line:find("Uncaught", 1, true), "console error: " .. line)
  end
  assert.falsy(dom:find("<script", 1, true), "the report has a script")
  assert.falsy(dom:find("https?://[%w.]+/[^\"]*%.js"), "the report loads something from the network")
  local charts = charts_of(dom)
  assert.is_true(#charts >= min_charts, html .. ": " .. #charts .. " charts, expected " .. min_charts .. " or more")
  for _, c in ipairs(charts) do
    assert.is_true(#c.lines >= 1, c.id .. " has no line")
    for i, n in ipairs(c.lines) do
      assert.is_true(n >= min_points, string.format("%s: series %s has %d points", c.id, tostring(c.series[i]), n))
    end
    assert.are.equal(1, c.ylabels, c.id .. " has more than one y axis")
    -- Titles say what ran, not which file it came from.
    assert.falsy(c.title:find(".json", 1, true) or c.title:find("sweep.csv", 1, true), c.id .. ": " .. c.title)
    -- The maximum never shares a chart with the percentiles.
    if c.id:match("^latency") and c.id ~= "latency-max" then
      for _, s in ipairs(c.series) do assert.are_not.equal("maximum", s) end
    end
  end
  return dom, charts
end

describe("luabench compare", function()
  local a, b = dir .. "/base.json", dir .. "/slow.json"

  setup(function()
    local common = " --threads=1 --time=3 --report-interval=1 --percentile=50,95,99 run"
    run_ok("cpu --cpu-max-prime=5000 --output=" .. h.q(a) .. common)
    run_ok("cpu --cpu-max-prime=40000 --output=" .. h.q(b) .. common)
  end)

  it("shows each input's own figures and the ratio to the first (json)", function()
    local out = run_ok(string.format("compare --format=json --label=base %s --label=slow %s", h.q(a), h.q(b)))
    local m = h.json(out)
    local da, db = json_file(a), json_file(b)
    assert.are.equal("base", m.inputs[1].label)
    assert.are.equal("slow", m.inputs[2].label)
    assert.are.equal(1, #m.sections)
    local s = m.sections[1]
    local tps = row(s, "events/s")
    assert.are.equal(da.rates.events_per_s, tps.values[1])
    assert.are.equal(db.rates.events_per_s, tps.values[2])
    assert.is_true(close(db.rates.events_per_s / da.rates.events_per_s, tps.ratios[2]))
    -- 8x the primes: a difference far beyond the per-second noise.
    assert.is_true(tps.ratios[2] < 0.5)
    assert.are.equal(true, tps.significant[2])
    for _, p in ipairs({ "50", "95", "99" }) do
      local r = row(s, "p" .. p)
      assert.are.equal(da.latency_ms.percentiles[p], r.values[1])
      assert.are.equal(db.latency_ms.percentiles[p], r.values[2])
      assert.is_true(close(r.values[2] / r.values[1], r.ratios[2]))
    end
    assert.are.equal(da.latency_ms.max, row(s, "max").values[1])
    assert.are.equal(da.counters.errors, row(s, "errors").values[1])
    assert.are.equal(da.system.cpu_pct.iowait, row(s, "CPU iowait %").values[1])
    assert.are.equal(5000, row(s, "cpu_max_prime").values[1])
    assert.are.equal(8, row(s, "cpu_max_prime").ratios[2])
  end)

  it("prints the same numbers in its text table, and says when a difference is noise", function()
    local out = run_ok(string.format("compare --label=base %s --label=slow %s", h.q(a), h.q(b)))
    local da, db = json_file(a), json_file(b)
    local v1, v2, r, mark = out:match("\n  events/s%s+(%S+)%s+(%S+)%s+(%S+) (%S)\n")
    assert.truthy(v1, out)
    assert.are.equal(string.format("%.6g", da.rates.events_per_s), v1)
    assert.are.equal(string.format("%.6g", db.rates.events_per_s), v2)
    assert.are.equal(string.format("%.3f", db.rates.events_per_s / da.rates.events_per_s), r)
    assert.are.equal("*", mark)
    local p95 = out:match("\n  p95%s+%S+%s+%S+%s+(%S+ %S)\n")
    assert.are.equal(string.format("%.3f", db.latency_ms.percentiles["95"] / da.latency_ms.percentiles["95"]),
      p95:match("^%S+"))
    assert.truthy(out:find("base  cpu, 1 thread, host ", 1, true), out)
    assert.truthy(out:find("2 x sqrt(se_a^2 + se_b^2)", 1, true))
    -- A run against itself: ratio 1, and no difference is significant.
    local same = run_ok(string.format("compare --label=x %s --label=y %s", h.q(a), h.q(a)))
    assert.truthy(same:match("\n  events/s%s+%S+%s+%S+%s+1%.000 ~\n"), same)
    assert.falsy(same:find("%d %*\n"), same)
  end)

  it("writes CSV with one row per figure", function()
    local out = run_ok(string.format("compare --format=csv --label=base %s --label=slow %s", h.q(a), h.q(b)))
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.are.equal("threads,group,metric,unit,base,slow,ratio_slow,significant_slow", lines[1])
    local da, db = json_file(a), json_file(b)
    local tps = out:match("\n,throughput,events/s,/s,([^\n]+)")
    local x, y, r, sig = tps:match("^([^,]+),([^,]+),([^,]+),(%a*)$")
    assert.are.equal(da.rates.events_per_s, tonumber(x))
    assert.are.equal(db.rates.events_per_s, tonumber(y))
    assert.is_true(close(tonumber(r), db.rates.events_per_s / da.rates.events_per_s))
    assert.are.equal("yes", sig)
  end)

  it("refuses what it cannot compare, with one line", function()
    local _, err, rc = h.run("compare " .. h.q(a))
    assert.are.equal(1, rc)
    assert.truthy(err:find("at least two inputs", 1, true), err)
    _, err, rc = h.run("compare " .. h.q(a) .. " " .. h.q(dir .. "/nope.json"))
    assert.are.equal(1, rc)
    assert.truthy(err:find("nope.json", 1, true), err)
    _, err, rc = h.run("compare " .. h.q(a) .. " " .. h.q(a))
    assert.are.equal(1, rc)
    assert.truthy(err:find("--label", 1, true), err)
    _, err, rc = h.run("compare --format=xml " .. h.q(a) .. " " .. h.q(b))
    assert.are.equal(1, rc)
    assert.truthy(err:find("unknown format 'xml'", 1, true), err)
    local out
    out, _, rc = h.run("compare --help")
    assert.are.equal(0, rc)
    assert.truthy(out:find("Usage: luabench compare", 1, true))
  end)

  it("compares per transaction type (fileio directions)", function()
    local fdir = dir .. "/fio"
    os.execute("mkdir -p " .. h.q(fdir))
    local opts = "--file-total-size=4M --file-num=2"
    local cd = "cd " .. h.q(fdir) .. " && "
    local out, rc = sh(cd .. B .. " fileio " .. opts .. " prepare")
    assert.are.equal(0, rc, out)
    for _, mode in ipairs({ "rndrd", "rndrw" }) do
      out, rc = sh(string.format("%s%s fileio %s --file-test-mode=%s --time=2 --report-interval=1 --output=%s.json run",
        cd, B, opts, mode, mode))
      assert.are.equal(0, rc, out)
    end
    out = run_ok(string.format("compare --format=json %s/rndrd.json %s/rndrw.json", h.q(fdir), h.q(fdir)))
    local m, rw = h.json(out), json_file(fdir .. "/rndrw.json")
    local s = m.sections[1]
    assert.are.equal(rw.types.write.per_s, row(s, "write /s").values[2])
    assert.are.equal(rw.types.read.latency_ms.percentiles["99"], row(s, "read p99 ms").values[2])
    assert.are.equal(rw.counters.bytes_written / 1048576 / rw.time_s, row(s, "written MiB/s").values[2])
    local html = fdir .. "/fileio.html"
    run_ok(string.format("report %s/rndrd.json %s/rndrw.json -o %s", h.q(fdir), h.q(fdir), h.q(html)))
    local page = h.read(html)
    assert.truthy(page:find("<h2>Per transaction type</h2>", 1, true))
    assert.truthy(page:find('<td class="k">write</td>', 1, true))
  end)
end)

describe("luabench report", function()
  local a, b = dir .. "/base.json", dir .. "/slow.json"

  it("renders a comparison in Chromium with every chart plotted", function()
    if not find_chromium() then pending("chromium is not installed") return end
    local html = dir .. "/cmp.html"
    run_ok(string.format("report --label=base %s --label=slow %s -o %s", h.q(a), h.q(b), h.q(html)))
    local dom, charts = check_page(html, 5, 2)
    local ids = {}
    for _, c in ipairs(charts) do ids[c.id] = c end
    assert.truthy(ids.throughput and ids["latency-p95"] and ids["latency-max"], "missing charts")
    assert.truthy(ids.throughput.title:find("cpu", 1, true), ids.throughput.title)
    assert.are.same({ "base", "slow" }, ids.throughput.series)
    -- The summary table carries the same ratio as compare.
    local da, db = json_file(a), json_file(b)
    local ratio = string.format("%.3f", db.rates.events_per_s / da.rates.events_per_s)
    assert.truthy(dom:find('<td class="k">events/s</td><td>' .. string.format("%.6g", da.rates.events_per_s)
      .. "</td><td>" .. string.format("%.6g", db.rates.events_per_s) .. '</td><td class="worse">' .. ratio .. " *</td>", 1, true))
    -- Machine facts recorded at run time.
    assert.truthy(dom:find(da.machine.kernel, 1, true))
    assert.truthy(dom:find("--cpu-max-prime=40000", 1, true))
  end)

  it("reports on an SQL run without its password, and on a merged run", function()
    local db = h.db("pgsql")
    if not db then pending("no PostgreSQL sandbox") return end
    if not find_chromium() then pending("chromium is not installed") return end
    local script = h.write("select1.lua", "local con\nfunction thread_init() con = sysbench.sql.driver():connect() end\n" ..
      "function event() con:query('SELECT 1') end\n")
    local runs = {}
    for i = 0, 1 do
      runs[i + 1] = string.format("%s/sql%d.json", dir, i)
      run_ok(string.format("%s %s --threads=2 --time=2 --report-interval=1 " ..
        "--instance=%d/2 --output=%s run", h.q(script), db, i, h.q(runs[i + 1])))
    end
    local merged = dir .. "/merged.json"
    -- (run one after the other here: their windows do not overlap)
    local out = run_ok(string.format("merge --allow-gaps --format=json %s %s", h.q(runs[1]), h.q(runs[2])))
    local f = assert(io.open(merged, "w"))
    f:write(out)
    f:close()
    local html = dir .. "/sql.html"
    run_ok(string.format("report %s -o %s", h.q(runs[1]), h.q(html)))
    local page = h.read(html)
    -- The sandbox's password is on the command line: neither the result nor the report has it.
    local password = db:match("%-%-pgsql%-password=(%S+)")
    assert.truthy(password, "the sandbox options name no password: " .. db)
    assert.falsy(h.read(runs[1]):find(password, 1, true), "password in the result file")
    assert.falsy(page:find(password, 1, true), "password in the report")
    assert.truthy(page:find("--pgsql-password=***", 1, true), "the command line is not shown masked")
    local dom, charts = check_page(html, 4, 2)
    local ids = {}
    for _, c in ipairs(charts) do ids[c.id] = c end
    -- Transactions and queries per second: a chart (and a y axis) each.
    assert.truthy(ids.throughput and ids.queries, "no separate queries chart")
    assert.truthy(ids.throughput.title:find("pgsql", 1, true), ids.throughput.title)
    assert.truthy(dom:find("database server", 1, true))
    local mhtml = dir .. "/merged.html"
    run_ok(string.format("report %s -o %s", h.q(merged), h.q(mhtml)))
    dom = check_page(mhtml, 3, 2)
    assert.truthy(dom:find("Merged from these instances", 1, true))
    assert.truthy(dom:find("sql1.json", 1, true))
    -- compare reads merged results too.
    out = run_ok(string.format("compare --format=json %s %s", h.q(runs[1]), h.q(merged)))
    local m = h.json(out)
    assert.are.equal("merged", m.inputs[2].kind)
    assert.are.equal(json_file(merged).rates.queries_per_s, row(m.sections[1], "queries/s").values[2])
  end)

  it("comes with every tools/sweep, and compares sweeps point by point", function()
    local sweeps = {}
    for i, prime in ipairs({ 5000, 20000 }) do
      sweeps[i] = dir .. "/sweep" .. i
      local out, rc = sh(string.format("LUABENCH=%s %s/tools/sweep --threads 1,2 --no-plot --out %s -- cpu " ..
        "--cpu-max-prime=%d --time=2 --report-interval=1", h.q(h.bin), h.q(h.root), h.q(sweeps[i]), prime))
      assert.are.equal(0, rc, out)
      assert.truthy(h.read(sweeps[i] .. "/report.html"), "tools/sweep wrote no report.html")
    end
    local out = run_ok(string.format("compare --format=json --label=fast %s --label=slow %s", h.q(sweeps[1]), h.q(sweeps[2])))
    local m = h.json(out)
    assert.are.equal(2, #m.sections)
    for i, threads in ipairs({ 1, 2 }) do
      local s = m.sections[i]
      assert.are.equal(threads, s.concurrency)
      local p1 = json_file(string.format("%s/threads-%d.json", sweeps[1], threads))
      local p2 = json_file(string.format("%s/threads-%d.json", sweeps[2], threads))
      local tps = row(s, "events/s")
      assert.are.equal(p1.rates.events_per_s, tps.values[1])
      assert.are.equal(p2.rates.events_per_s, tps.values[2])
      assert.is_true(close(tps.ratios[2], p2.rates.events_per_s / p1.rates.events_per_s))
    end
    local text = run_ok(string.format("compare %s %s", h.q(sweeps[1]), h.q(sweeps[2])))
    assert.truthy(text:find("== 1 threads ==", 1, true) and text:find("== 2 threads ==", 1, true), text)
    if not find_chromium() then pending("chromium is not installed") return end
    local _, charts = check_page(sweeps[1] .. "/report.html", 4, 2)
    for _, c in ipairs(charts) do
      assert.truthy(c.title:find("cpu", 1, true), c.title)
    end
    local html = dir .. "/sweeps.html"
    run_ok(string.format("report --label=fast %s --label=slow %s -o %s", h.q(sweeps[1]), h.q(sweeps[2]), h.q(html)))
    check_page(html, 5, 2)
  end)
end)
