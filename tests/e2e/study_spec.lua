-- `luabench study` as a person uses it, on real runs of a second or two: the interleaved order
-- and the manifest, verdicts that agree with the runs' own order, identical configurations judged
-- by the small-sample rule, a failed run that does not stop the study, an interrupted study that resumes
-- and ends with every run, and compare refusing results of different workloads.
local h = require("helpers")

local dir = h.tmpdir()

local function run_ok(args, what)
  local out, err, rc = h.run(args)
  assert(rc == 0, (what or args) .. " failed (" .. tostring(rc) .. "): " .. err .. out)
  return out, err
end

local function manifest(d)
  return h.json(assert(h.read(d .. "/manifest.json"), "no manifest in " .. d))
end

local function row(rows, name)
  for _, r in ipairs(rows) do if r.metric == name then return r end end
  error("no row '" .. name .. "'")
end

-- The values of a figure in each of a study's runs, per configuration, read from the result
-- files themselves.
local function values_by_config(d, pick)
  local out = {}
  for _, r in ipairs(manifest(d).runs) do
    if r.status == "ok" and not r.warmup then
      local doc = h.json(h.read(d .. "/" .. r.file))
      out[r.configuration] = out[r.configuration] or {}
      table.insert(out[r.configuration], pick(doc))
    end
  end
  return out
end

local function median(xs)
  local s = {}
  for i, x in ipairs(xs) do s[i] = x end
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) / 2] or (s[n / 2] + s[n / 2 + 1]) / 2
end

describe("luabench study", function()
  it("runs every configuration in each round, and compare's verdict follows the runs' own order", function()
    local d = dir .. "/threads"
    local plan = h.write("threads.lua", string.format([[
return { dir = %q, repeats = 4, options = "--time=1 --percentile=50,95,99",
  configurations = { { label = "one", options = "--threads=1" }, { label = "two", options = "--threads=2" } },
  workloads = { { args = "cpu --cpu-max-prime=3000" } } }
]], d))
    local out = run_ok("study " .. h.q(plan))
    assert.truthy(out:find("study " .. d .. ": 8 runs (2 configurations x 1 workload, 4 rounds)", 1, true), out)
    assert.truthy(out:find("[8/8] two cpu r4: ", 1, true), out)
    local m = manifest(d)
    local order = {}
    for i, r in ipairs(m.runs) do
      order[i] = r.configuration .. r["repeat"]
      assert.are.equal("ok", r.status, r.error)
      assert.are.equal(i, r.position)
      assert.truthy(r.command:find("--output=" .. d .. "/" .. r.file, 1, true), r.command)
      assert.is_true(r.wall_s >= 1, "run " .. i .. " took " .. r.wall_s .. " s")
    end
    assert.are.equal("one1 two1 one2 two2 one3 two3 one4 two4", table.concat(order, " "))
    -- the study's own time is what it says: the sessions' wall time minus the runs'
    assert.is_true(m.study_wall_s >= m.runs_wall_s)

    local cmp = h.json(run_ok("compare --format=json " .. h.q(d)))
    assert.are.equal("between-runs", cmp.verdict_rule)
    assert.are.same({ "one", "two" }, { cmp.inputs[1].label, cmp.inputs[2].label })
    assert.are.same({ 4, 4 }, { cmp.inputs[1].runs, cmp.inputs[2].runs })
    local tps = row(cmp.sections[1].rows, "events/s")
    local v = values_by_config(d, function(doc) return doc.rates.events_per_s end)
    assert.are.equal(median(v.one), tps.values[1])
    assert.are.equal(median(v.two), tps.values[2])
    assert.are.equal(median(v.two) / median(v.one), tps.ratios[2])
    -- 4 against 4 runs: significant exactly when one configuration's runs all beat the other's
    -- (p = 2/70); one run out of order gives p = 4/70 > 0.05
    local function max(xs) local m = -math.huge; for _, x in ipairs(xs) do m = math.max(m, x) end; return m end
    local function min(xs) local m = math.huge; for _, x in ipairs(xs) do m = math.min(m, x) end; return m end
    local apart = min(v.two) > max(v.one) or min(v.one) > max(v.two)
    assert.are.equal(apart, tps.significant[2], "runs " .. table.concat(v.one, ",") .. " vs " .. table.concat(v.two, ","))
    if apart then assert.are.equal(min(v.two) > max(v.one), tps.ratios[2] > 1) end
    assert.is_true(math.abs(tps.p_values[2] - (apart and 2 / 70 or tps.p_values[2])) < 1e-12)
    assert.is_true(tps.ratio_intervals[2][1] <= tps.ratios[2] and tps.ratios[2] <= tps.ratio_intervals[2][2])
    -- what differs: the option, with each label's value
    local found
    for _, r in ipairs(cmp.differs) do
      if r.group == "options" and r.name == "threads" then found = r end
    end
    assert.are.same({ "1", "2" }, found and found.values)
    local text = run_ok("compare " .. h.q(d))
    assert.truthy(text:find("verdicts between runs: a label's runs against the first label's by the Mann-Whitney U test", 1, true), text)
    assert.truthy(text:find("\nsummary:\n", 1, true), text)
    assert.truthy(text:find("\nwhat differs:\n", 1, true), text)

    -- the study's report, as Chromium draws it: the summary first, a dot per run
    local html = dir .. "/threads.html"
    run_ok(string.format("report %s -o %s", h.q(d), h.q(html)))
    local chromium = h.sh("command -v chromium"):match("^(/%S+)")
    if not chromium then
      if os.getenv("CI") == "true" then error("chromium is not installed (tools/install-deps installs it)") end
      return
    end
    local flags = "--headless --disable-gpu --no-sandbox --disable-quic --no-first-run --disable-background-networking "
      .. "--disable-component-update --disable-sync --enable-logging=stderr --v=0 --user-data-dir=" .. h.q(dir .. "/chromium")
    local log = h.sh(string.format("%s %s --window-size=1200,3000 --screenshot=%s file://%s", chromium, flags,
      h.q(dir .. "/threads.png"), h.q(html)))
    for line in log:gmatch("[^\n]+") do
      assert.falsy(line:find("CONSOLE", 1, true) or line:find("Uncaught", 1, true), "console error: " .. line)
    end
    local png = io.open(dir .. "/threads.png", "rb")
    assert.is_true(png and png:seek("end") > 20000, "no screenshot")
    png:close()
    local dom = h.sh(string.format("%s %s --dump-dom file://%s 2>/dev/null", chromium, flags, h.q(html)))
    assert.truthy(dom:find("<h1>Study threads: one vs two</h1>", 1, true), dom:sub(1, 400))
    local summary, ran = dom:find("<h2>Summary</h2>", 1, true), dom:find("<h2>What ran</h2>", 1, true)
    assert.truthy(summary and ran and summary < ran)
    -- events/s, p95, p99: four dots per label each
    assert.are.equal(3, h.count(dom, '<svg[^>]-class="dots"'))
    assert.are.equal(24, h.count(dom, '<circle class="run"'))
    assert.falsy(dom:find("<script", 1, true))
  end)

  it("judges identical configurations by the small-sample rule, and says how many runs the rank test takes", function()
    local d = dir .. "/same"
    local plan = h.write("same.lua", string.format([[
return { dir = %q, repeats = 3, options = "--time=1 --percentile=95,99",
  configurations = { { label = "a" }, { label = "b" } },
  workloads = { { args = "cpu --cpu-max-prime=2000" }, { name = "mem", args = "memory --memory-total-size=64M" } } }
]], d))
    run_ok("study " .. h.q(plan))
    local cmp = h.json(run_ok("compare --format=json " .. h.q(d)))
    assert.are.same({ "cpu", "mem" }, cmp.workloads)
    local headlines = 0
    for _, r in ipairs(cmp.summary) do headlines = headlines + 1 end
    assert.is_true(headlines >= 5, headlines .. " headline figures") -- events/s, p95, p99 each; mem's MiB/s
    for _, s in ipairs(cmp.sections) do
      assert.are.same({ 3, 3 }, s.runs)
      assert.are.equal(4, s.runs_needed)
    end
    -- 3 against 3: the small-sample rule decides, from the runs themselves. Identical
    -- configurations come out * only by chance (BENCHMARKS: the rate, measured), and only where
    -- the runs do not overlap and Welch's test on their logarithms says p <= 0.05.
    local rs = require("luabench.internal.runstats")
    for name, pick in pairs({ ["events/s"] = function(doc) return doc.rates.events_per_s end,
                              p95 = function(doc) return doc.latency_ms.percentiles["95"] end }) do
      local v, r = values_by_config(d, function(doc) return doc.workload == "cpu" and pick(doc) or nil end), nil
      for _, x in ipairs(cmp.summary) do if x.workload == "cpu" and x.metric == name then r = x end end
      local w = rs.welch_log(v.a, v.b)
      assert.are.equal(w.p <= 0.05 and rs.separated(v.a, v.b), r.significant[2], name)
      assert.is_true(math.abs(r.p_values[2] - w.p) < 1e-9, name)
    end
    local text = run_ok("compare " .. h.q(d))
    assert.truthy(text:find("(3 against 3 runs: fewer than the rank test needs (4 per label); verdicts by the " ..
      "small-sample rule", 1, true), text)
    assert.truthy(text:find("\n== cpu ==\n", 1, true) and text:find("\n== mem ==\n", 1, true), text)
    -- a label's runs against the very same runs: p = 1 on every row
    local runs = {}
    for _, r in ipairs(manifest(d).runs) do
      if r.workload == "cpu" then runs[#runs + 1] = h.q(d .. "/" .. r.file) end
    end
    local self = h.json(run_ok("compare --format=json --label=x " .. table.concat(runs, " ") .. " --label=y " .. table.concat(runs, " ")))
    for _, r in ipairs(self.sections[1].rows) do
      assert.are_not.equal(true, r.significant[2], r.metric)
      if r.p_values[2] then assert.are.equal(1, r.p_values[2], r.metric) end
    end
  end)

  it("discards warm-up runs and adds rounds until the figures are precise enough", function()
    local d = dir .. "/precise"
    local marks = dir .. "/marks"
    -- a script that tells what its environment was: the configuration's env and prefix
    local script = h.write("envcheck.lua", [[
function event() end
function sysbench.hooks.report_json()
  return { from_env = tonumber(os.getenv("FROM_ENV")), from_prefix = tonumber(os.getenv("FROM_PREFIX")) }
end
]])
    -- an interval within 0.001 % of the median is out of reach: rounds until max_repeats
    local plan = h.write("precise.lua", string.format([[
return { dir = %q, repeats = 2, warmup = 1, precision = { pct = 0.001, max_repeats = 3 }, options = "--time=1",
  configurations = { { env = { FROM_ENV = "7" }, prefix = "env FROM_PREFIX=8",
                        before = "echo before $FROM_ENV >> %s", after = "echo after >> %s" } },
  workloads = { { name = "envcheck", args = %q } } }
]], d, marks, marks, script))
    local out = run_ok("study " .. h.q(plan) .. " --label=box")
    assert.truthy(out:find("precision: envcheck not within ±0.001 % yet: round 3", 1, true), out)
    local m = manifest(d)
    local kinds = {}
    for i, r in ipairs(m.runs) do
      assert.are.equal("ok", r.status)
      assert.are.equal("box", r.configuration)
      kinds[i] = r.warmup and "w" or (r.extra and "x" or "r") .. r["repeat"]
      local stats = h.json(h.read(d .. "/" .. r.file)).workload_stats
      assert.are.same({ from_env = 7, from_prefix = 8 }, stats)
    end
    assert.are.equal("w r1 r2 x3", table.concat(kinds, " "))
    -- the commands ran around each round's runs, with the configuration's environment
    assert.are.equal(string.rep("before 7\nafter\n", 4), h.read(marks))
    assert.are.same({ "FROM_ENV" }, m.configurations[1].env)
    -- compare and report leave the warm-up out
    local _, err, rc = h.run("compare " .. h.q(d))
    assert.are.equal(1, rc)
    assert.truthy(err:find("give at least two inputs", 1, true), err)
    local other = dir .. "/precise-other"
    plan = h.write("precise2.lua", string.format([[
return { dir = %q, repeats = 3, options = "--time=1", workloads = { { name = "envcheck", args = %q } } }
]], other, script))
    run_ok("study " .. h.q(plan) .. " --label=box2")
    local cmp = h.json(run_ok("compare --format=json " .. h.q(d) .. " " .. h.q(other)))
    assert.are.same({ "box", "box2" }, { cmp.inputs[1].label, cmp.inputs[2].label })
    assert.are.same({ 3, 3 }, cmp.sections[1].runs)
  end)

  it("refuses to compare results of different workloads, naming both", function()
    local d = dir .. "/same"
    local cpu, mem
    for _, r in ipairs(manifest(d).runs) do
      if r.workload == "cpu" then cpu = d .. "/" .. r.file else mem = d .. "/" .. r.file end
    end
    local _, err, rc = h.run("compare " .. h.q(cpu) .. " " .. h.q(mem))
    assert.are.equal(1, rc)
    assert.truthy(err:find("FATAL: compare: the inputs ran different workloads", 1, true), err)
    assert.truthy(err:find("cpu (only in", 1, true) and err:find("memory (only in", 1, true), err)
    assert.are.equal(1, h.count(err, "\n"))
  end)

  it("reports a failed run and goes on; an interrupted study resumes and ends with every run", function()
    local d = dir .. "/resume"
    local plan = h.write("resume.lua", string.format([[
return { dir = %q, repeats = 2, options = "--time=1",
  configurations = { { label = "a" }, { label = "b", options = "--cpu-max-prime=3000" },
                     { label = "broken", options = "--no-such-option=1" } },
  workloads = { { args = "cpu --cpu-max-prime=2000" } } }
]], d))
    local rcfile = dir .. "/resume.rc"
    local pid = h.sh(string.format("sh -c '%s study %s > %s 2>&1; echo $? > %s' </dev/null >/dev/null 2>&1 & echo $!",
      h.q(h.bin), h.q(plan), h.q(dir .. "/resume.out"), h.q(rcfile))):match("%d+")
    -- once the first run is done, a Ctrl-C: the terminal's SIGINT reaches the run in progress
    -- (the study waits for it with SIGINT ignored, as system() does)
    local first, run_pid
    for _ = 1, 300 do
      local text = h.read(d .. "/manifest.json")
      if text and text:find('"status": "ok"', 1, true) then first = h.json(text).runs[1] end
      local study_pid = h.sh("pgrep -P " .. pid):match("%d+")
      run_pid = first and study_pid and h.sh("pgrep -P " .. study_pid):match("%d+")
      -- (once the run catches SIGINT: a background job starts with it ignored)
      local caught = run_pid and (h.read("/proc/" .. run_pid .. "/status") or ""):match("SigCgt:%s*(%x+)")
      if caught and tonumber(caught:sub(-1), 16) % 4 >= 2 then break end
      run_pid = nil
      h.sh("sleep 0.1")
    end
    assert.truthy(run_pid, "no run ended: " .. tostring(h.read(dir .. "/resume.out")))
    h.sh("kill -INT " .. run_pid)
    for _ = 1, 300 do
      if h.read(rcfile) then break end
      h.sh("sleep 0.1")
    end
    assert.are.equal("130", (h.read(rcfile) or ""):match("%d+"), h.read(dir .. "/resume.out"))
    local m = manifest(d)
    local ok = 0
    for _, r in ipairs(m.runs) do if r.status == "ok" then ok = ok + 1 end end
    assert.is_true(ok >= 1 and ok < 6, ok .. " runs ok before the interruption")
    assert.truthy(h.read(dir .. "/resume.out"):find("interrupted; run the same command again to resume it", 1, true))
    -- a changed plan is refused
    local changed = h.write("resume2.lua", (h.read(plan):gsub("repeats = 2", "repeats = 3")))
    local _, err, rc = h.run("study " .. h.q(changed))
    assert.are.equal(1, rc)
    assert.truthy(err:find("the plan changed since " .. d .. " was started (repeats was 2, now 3)", 1, true), err)
    -- resumed: what was done stays, the rest runs, the broken configuration fails twice
    local out
    out, err, rc = h.run("study " .. h.q(plan))
    assert.are.equal(1, rc, err)
    assert.truthy(out:find("study " .. d .. ": resuming, " .. ok .. " of 6 runs done", 1, true), out)
    assert.truthy(out:find("broken cpu r1: FAILED (exit code 1): invalid option: --no-such-option=1", 1, true), out)
    assert.truthy(err:find("FATAL: study: 2 of 6 runs failed", 1, true), err)
    m = manifest(d)
    assert.are.same(first, m.runs[1])
    local status = {}
    for _, r in ipairs(m.runs) do status[#status + 1] = r.configuration .. ":" .. r.status end
    assert.are.equal("a:ok b:ok broken:failed a:ok b:ok broken:failed", table.concat(status, " "))
    assert.are.equal(2, #m.sessions)
    -- the runs that ended well are compared
    local cmp = h.json(run_ok("compare --format=json " .. h.q(d)))
    assert.are.same({ "a", "b" }, { cmp.inputs[1].label, cmp.inputs[2].label })
  end)
end)
