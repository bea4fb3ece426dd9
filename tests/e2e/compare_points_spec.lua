-- `luabench compare` and `luabench report` deciding: a noise verdict on every per-type row (a
-- 4x per-type latency change is significant, a run against itself is not), a direction per
-- figure (only directional rows coloured), inputs labelled by what tells their paths apart,
-- sweeps of two axes headed by both values, and a note when inputs share no point.
local h = require("helpers")

local dir = h.tmpdir()
local B = h.q(h.bin)

local function run_ok(args, what)
  local out, err, rc = h.run(args)
  assert(rc == 0, (what or args) .. " failed (" .. tostring(rc) .. "): " .. err .. out)
  return out, err
end

local sh = h.sh

local function row(section, name)
  for _, r in ipairs(section.rows) do if r.metric == name then return r end end
  error("no row '" .. name .. "'")
end

-- A script with two timed types: "slow" sleeps --delay-ms, "fast" does nothing.
local TYPED = [[
sysbench.cmdline.options = { delay_ms = { "the slow type's time (ms)", 1 } }
local FAST, SLOW
function thread_init() FAST = luabench.stats.type("fast"); SLOW = luabench.stats.type("slow") end
function event()
  local t0 = SLOW:begin(); luabench.sleep(sysbench.opt.delay_ms / 1000); SLOW:done(t0)
  t0 = FAST:begin(); FAST:done(t0)
end
]]

describe("compare's verdicts", function()
  local a, b = dir .. "/x/run.json", dir .. "/y/run.json"

  setup(function()
    local script = h.write("typed.lua", TYPED)
    os.execute("mkdir -p " .. h.q(dir .. "/x") .. " " .. h.q(dir .. "/y"))
    local common = " --time=3 --report-interval=1 run"
    -- sleeps of 5 and 20 ms: long enough that a loaded machine's wake-up lateness is small beside them
    run_ok(h.q(script) .. " --delay-ms=5 --output=" .. h.q(a) .. common)
    run_ok(h.q(script) .. " --delay-ms=20 --output=" .. h.q(b) .. common)
  end)

  it("marks a 4x per-type latency change significant, a run against itself not", function()
    local m = h.json(run_ok(string.format("compare --format=json %s %s", h.q(a), h.q(b))))
    -- two result files named run.json: labelled by the directories that tell them apart
    assert.are.equal("x", m.inputs[1].label)
    assert.are.equal("y", m.inputs[2].label)
    local s = m.sections[1]
    local n = 0
    for _, r in ipairs(s.rows) do
      if r.group == "per type" and r.metric:match(" ms$") then
        n = n + 1
        assert.are_not.equal(nil, r.significant[2], r.metric .. " has no verdict")
      end
    end
    assert.is_true(n >= 12, n .. " per-type latency rows") -- avg, p50, p90, p95, p99, max of two types
    for _, name in ipairs({ "slow avg ms", "slow p50 ms" }) do
      local r = row(s, name)
      assert.is_true(r.ratios[2] > 2.5 and r.ratios[2] < 5, name .. " ratio " .. r.ratios[2])
      assert.are.equal(true, r.significant[2], name)
    end
    assert.are.equal(true, row(s, "slow /s").significant[2])
    for _, outcome in ipairs({ "errors", "rollbacks", "retries" }) do
      assert.are.equal(false, row(s, "slow " .. outcome).significant[2], outcome)
    end
    local same = h.json(run_ok(string.format("compare --format=json --label=p %s --label=q %s", h.q(a), h.q(a))))
    for _, r in ipairs(same.sections[1].rows) do
      assert.are_not.equal(true, r.significant[2], r.metric .. " is significant against itself")
      if r.group == "per type" then assert.are.equal(false, r.significant[2], r.metric) end
    end
    -- the text table: a mark on every per-type latency row, none of them '?'
    local text = run_ok(string.format("compare %s %s", h.q(a), h.q(b)))
    for line in text:gmatch("\n  slow [^\n]*ms[^\n]*") do
      assert.truthy(line:match("[%*~]$"), line)
    end
    assert.truthy(text:find("fewer than 2 points", 1, true), text)
  end)

  it("colours only figures with a direction", function()
    local html = dir .. "/typed.html"
    run_ok(string.format("report %s %s -o %s", h.q(a), h.q(b), h.q(html)))
    local page = h.read(html)
    assert.truthy(page:find('<td class="k">slow avg ms</td><td>[^<]*</td><td>[^<]*</td><td class="worse">'), "slow avg ms not red")
    assert.truthy(page:find('<td class="k">slow /s</td><td>[^<]*</td><td>[^<]*</td><td class="worse">'), "slow /s not red")
    for _, neutral in ipairs({ "context switches/s", "CPU system %", "CPU user %", "disk IOPS", "fast mix %" }) do
      local cls = page:match('<td class="k">' .. neutral:gsub("%p", "%%%0") .. '</td><td>[^<]*</td><td>[^<]*</td><td class="(%a*)"')
      if cls then assert.is_true(cls ~= "better" and cls ~= "worse", neutral .. " coloured " .. cls) end
    end
  end)
end)

describe("compare's per-statement rows", function()
  it("give a 4x statement latency change a verdict from the intervals (--report-statements)", function()
    local db = h.db("pgsql")
    if not db then pending("no PostgreSQL sandbox") return end
    local script = h.write("stmt_sleep.lua", [[
sysbench.cmdline.options = { sleep_ms = { "the statement's time (ms)", 5 } }
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT pg_sleep(" .. sysbench.opt.sleep_ms / 1000 .. ")") end
]])
    local a, b = dir .. "/st-a.json", dir .. "/st-b.json"
    local common = " " .. db .. " --time=3 --report-interval=1 --report-statements run"
    run_ok(h.q(script) .. " --sleep-ms=5 --output=" .. h.q(a) .. common)
    run_ok(h.q(script) .. " --sleep-ms=20 --output=" .. h.q(b) .. common)
    local m = h.json(run_ok(string.format("compare --format=json %s %s", h.q(a), h.q(b))))
    -- A busy machine adds its delay to both sleeps (5 ms read 12 beside two full test runs), so
    -- the statement's ratio is held to the events' own (one statement each), measured by the
    -- same runs, rather than to 4.
    local events_ratio = h.json(h.read(b)).latency_ms.avg / h.json(h.read(a)).latency_ms.avg
    local n = 0
    for _, r in ipairs(m.sections[1].rows) do
      if r.group == "per statement" and r.metric:find("pg_sleep", 1, true) and r.metric:match(" avg ms$") then
        n = n + 1
        assert.is_true(r.ratios[2] > 1.2 and math.abs(r.ratios[2] / events_ratio - 1) < 0.1,
          string.format("%s %.3f, the events' ratio %.3f", r.metric, r.ratios[2], events_ratio))
        assert.are.equal(true, r.significant[2], r.metric)
      end
    end
    assert.are.equal(1, n, "one pg_sleep statement")
    local same = h.json(run_ok(string.format("compare --format=json --label=p %s --label=q %s", h.q(a), h.q(a))))
    for _, r in ipairs(same.sections[1].rows) do
      if r.group == "per statement" then assert.are.equal(false, r.significant[2], r.metric) end
    end
  end)
end)

describe("compare's inputs and points", function()
  -- A sweep directory written by hand as tools/sweep writes it: sweep.csv naming the results.
  local function sweep_dir(path, axis, results)
    os.execute("mkdir -p " .. h.q(path))
    local lines = { axis .. ",tps,result" }
    for v, file in pairs(results) do
      os.execute(string.format("cp %s %s/%s-%d.json", h.q(file), h.q(path), axis, v))
      lines[#lines + 1] = string.format("%d,0,%s-%d.json", v, axis, v)
    end
    local f = assert(io.open(path .. "/sweep.csv", "w"))
    f:write(table.concat(lines, "\n"), "\n")
    f:close()
  end

  it("says when a --threads sweep and a --users sweep share no point", function()
    local script = h.write("sleepy.lua", "function event() luabench.sleep(0.001) end\n")
    local t1, u1 = dir .. "/t1.json", dir .. "/u1.json"
    run_ok(h.q(script) .. " --threads=1 --time=1 --output=" .. h.q(t1) .. " run")
    run_ok(h.q(script) .. " --users=1 --time=1 --output=" .. h.q(u1) .. " run")
    sweep_dir(dir .. "/threads/sweep", "threads", { [1] = t1 })
    sweep_dir(dir .. "/users/sweep", "users", { [1] = u1 })
    local out = run_ok(string.format("compare %s %s", h.q(dir .. "/threads/sweep"), h.q(dir .. "/users/sweep")))
    assert.truthy(out:find("NOTE: the inputs share no point", 1, true), out)
    assert.truthy(out:find("== 1 threads == (not in users)", 1, true), out)
    assert.truthy(out:find("== 1 users == (not in threads)", 1, true), out)
    local m = h.json(run_ok(string.format("compare --format=json %s %s", h.q(dir .. "/threads/sweep"),
      h.q(dir .. "/users/sweep"))))
    assert.truthy(m.note and m.note:find("share no point", 1, true))
    assert.are.equal(2, #m.sections)
    -- the same label twice on purpose is still refused
    local _, err, rc = h.run(string.format("compare %s %s", h.q(t1), h.q(t1)))
    assert.are.equal(1, rc)
    assert.truthy(err:find("--label", 1, true), err)
  end)

  it("heads each point of two two-axis sweeps by both axes, sizes in KiB", function()
    local fdir = dir .. "/grid"
    os.execute("mkdir -p " .. h.q(fdir))
    local files = "--file-total-size=2M --file-num=1"
    local out, rc = sh(string.format("cd %s && %s fileio %s prepare", h.q(fdir), B, files))
    assert.are.equal(0, rc, out)
    for _, name in ipairs({ "a", "b" }) do
      out, rc = sh(string.format("cd %s && LUABENCH=%s %s/tools/sweep --axis iodepth=1,2 --axis file-block-size=4K,16K " ..
        "--no-plot --out %s/sweep -- fileio %s --file-test-mode=rndrd --file-io-mode=async --time=1 --report-interval=1",
        h.q(fdir), h.q(h.bin), h.q(h.root), name, files))
      assert.are.equal(0, rc, out)
    end
    -- run from the folder that holds a/ and b/, as a person would
    out, rc = sh(string.format("cd %s && %s compare a/sweep b/sweep", h.q(fdir), B))
    assert.are.equal(0, rc, out)
    assert.truthy(out:find("\n  a  fileio, 1 file, 2 MiB total, rndrd, a sweep over --iodepth 1, 2 x " ..
      "--file-block-size 4 KiB, 16 KiB (4 points)", 1, true), out)
    assert.falsy(out:find("KiB blocks", 1, true), out)
    for _, point in ipairs({ "iodepth=1, file-block-size=4 KiB", "iodepth=2, file-block-size=4 KiB",
                             "iodepth=1, file-block-size=16 KiB", "iodepth=2, file-block-size=16 KiB" }) do
      assert.truthy(out:find("== " .. point .. " ==\n", 1, true), point .. "\n" .. out)
    end
    -- CSV: the point column tells apart the sections the first axis alone would not
    out, rc = sh(string.format("cd %s && %s compare --format=csv a/sweep b/sweep", h.q(fdir), B))
    assert.are.equal(0, rc, out)
    assert.truthy(out:find("^%-%-iodepth,point,group,metric,unit,a,b,ratio_b,significant_b\n"), out)
    assert.truthy(out:find('\n2,"iodepth=2, file-block-size=16 KiB",throughput,events/s,', 1, true), out)
    out, rc = sh(string.format("cd %s && %s report a/sweep b/sweep -o grid.html", h.q(fdir), B))
    assert.are.equal(0, rc, out)
    local page = h.read(fdir .. "/grid.html")
    local headings, seen = {}, {}
    for t in page:gmatch("<h3>(iodepth=[^<]*)</h3>") do
      assert.is_nil(seen[t], "heading twice: " .. t)
      seen[t] = true
      headings[#headings + 1] = t
    end
    assert.are.equal(4, #headings, table.concat(headings, " | "))
    assert.truthy(seen["iodepth=2, file-block-size=16 KiB"])
    assert.falsy(page:find("16384", 1, true) and page:find("<h3>[^<]*16384"), "raw bytes in a heading")
    -- a block-size sweep is read in MiB/s: the client's own column in sweep.csv, a chart in the
    -- report and in tools/plot, whose throughput chart counts events (I/Os), not transactions
    assert.truthy(page:find('id="mib"', 1, true), "no MiB/s chart in the report")
    local csv = h.read(fdir .. "/a/sweep/sweep.csv")
    local head, first = csv:match("^([^\n]+)\n([^\n]+)")
    local col
    for i, name in ipairs((function() local t = {} for c in head:gmatch("[^,]+") do t[#t + 1] = c end return t end)()) do
      if name == "read_mib_per_s" then col = i end
    end
    assert.truthy(col, head)
    local cells = {}
    for c in (first .. ","):gmatch("([^,]*),") do cells[#cells + 1] = c end
    assert.is_true(tonumber(cells[col]) > 0, first)
    out, rc = sh(string.format("cd %s && %s/tools/plot a/sweep/sweep.csv", h.q(fdir), h.q(h.root)))
    assert.are.equal(0, rc, out)
    assert.truthy(h.read(fdir .. "/a/sweep/sweep-mib.svg"), out)
    local tput = h.read(fdir .. "/a/sweep/sweep-throughput.svg")
    assert.truthy(tput:find("Events per second", 1, true) and not tput:find("Transactions", 1, true))
  end)
end)
