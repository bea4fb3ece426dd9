-- Named metrics (issue 37 item 4): luabench.counter, .rate and .gauge updated from threads and
-- from emulated users. The script keeps its own totals beside the metrics (per thread, printed
-- from thread_done) and every form of the result — the text report, the --report-metrics lines,
-- JSON, CSV, Prometheus, merge, compare and the HTML report, --threshold — must agree with them
-- exactly; every misuse is one error at the script's line.
local h = require("helpers")

local PYTHON = io.open("/usr/bin/python3") and "/usr/bin/python3" or "python3"

local SCRIPT = [[
sysbench.cmdline.options = { final = { "the gauge's value set last, in thread_done", 42 } }
local MISS = luabench.counter("cache_miss", { better = "lower" })
local HIT = luabench.rate("hit_rate", { better = "higher" })
local DEPTH = luabench.gauge("queue_depth")
local n, miss, hits, outcomes, lo, hi = 0, 0, 0, 0, math.huge, -math.huge
function event()
  n = n + 1
  local k = (n * 7 + sysbench.tid * 3) % 13
  if k < 3 then MISS:add(k + 1); miss = miss + k + 1 end
  local ok = k % 2 == 0
  HIT:add(ok)
  outcomes = outcomes + 1
  if ok then hits = hits + 1 end
  local v = k * 10 - 20 - sysbench.tid
  DEPTH:set(v)
  lo, hi = math.min(lo, v), math.max(hi, v)
  luabench.think(0.002)
end
function thread_done()
  local final = sysbench.opt.final
  DEPTH:set(final)
  lo, hi = math.min(lo, final), math.max(hi, final)
  print(string.format("TOTALS miss=%d hits=%d outcomes=%d lo=%d hi=%d", miss, hits, outcomes, lo, hi))
end
]]

-- The script's own figures: the threads' TOTALS lines added up.
local function totals(out)
  local t = { miss = 0, hits = 0, outcomes = 0, lo = math.huge, hi = -math.huge, threads = 0 }
  for miss, hits, outcomes, lo, hi in out:gmatch("TOTALS miss=(%d+) hits=(%d+) outcomes=(%d+) lo=(%-?%d+) hi=(%-?%d+)") do
    t.miss, t.hits, t.outcomes = t.miss + miss, t.hits + hits, t.outcomes + outcomes
    t.lo, t.hi = math.min(t.lo, tonumber(lo)), math.max(t.hi, tonumber(hi))
    t.threads = t.threads + 1
  end
  return t
end

-- A rate's share as the JSON result holds it: the system's cJSON writes 15 significant digits when
-- they read back within an ulp (the counts it is made of are exact).
local function close(a, b)
  return math.abs(a - b) <= 1e-14 * math.abs(a)
end

-- A rate's share in an interval, from its exact counts.
local function share(m)
  return m.true_outcomes / m.outcomes
end

-- The result's metrics as the script counted them.
local function assert_totals(doc, t, final)
  local m = doc.metrics
  assert.are.same({ "counter", "lower", t.miss }, { m.cache_miss.kind, m.cache_miss.better, m.cache_miss.value })
  assert.are.same({ "rate", "higher", t.hits, t.outcomes }, { m.hit_rate.kind, m.hit_rate.better,
    m.hit_rate.true_outcomes, m.hit_rate.outcomes })
  assert.is_true(close(t.hits / t.outcomes, m.hit_rate.value), m.hit_rate.value)
  assert.are.same({ "gauge", "neutral", final, t.lo, t.hi }, { m.queue_depth.kind, m.queue_depth.better,
    m.queue_depth.value, m.queue_depth.min, m.queue_depth.max })
  assert.are.equal(t.outcomes + t.threads, m.queue_depth.sets) -- one per event, one per thread_done
end

-- Intervals add up to at most the final figures (thread_done's updates come after the last one).
local function interval_sums(doc)
  local s = { miss = 0, hits = 0, outcomes = 0 }
  for _, iv in ipairs(doc.intervals) do
    s.miss = s.miss + iv.metrics.cache_miss.value
    s.hits = s.hits + iv.metrics.hit_rate.true_outcomes
    s.outcomes = s.outcomes + iv.metrics.hit_rate.outcomes
  end
  return s
end

local function python_has_client()
  local ok = os.execute(PYTHON .. " -c 'import prometheus_client.parser' 2>/dev/null")
  return ok == true or ok == 0
end

local function sample(fam, name)
  for _, s in ipairs(fam and fam.samples or {}) do
    if s[2].name == name then return s[3] end
  end
end

describe("named metrics", function()
  local dir = h.tmpdir()
  local script = h.write("named_metrics.lua", SCRIPT)
  local threads_json, users_json = dir .. "/nm_threads.json", dir .. "/nm_users.json"

  it("from 2 threads: the text report, the interval lines, JSON and Prometheus agree with the script", function()
    local args = h.q(script) .. " --threads=2 --time=2 --report-interval=1 --report-metrics --output=" .. threads_json
    local out, scrapes
    if python_has_client() then
      local scraped = dir .. "/nm_scrapes.json"
      local cmd = table.concat({ PYTHON, h.q(h.root .. "/tests/e2e/metrics_scrape.py"), h.q(scraped), h.q(h.bin),
        args, "--metrics-listen={port}", "run" }, " ")
      assert(os.execute(cmd .. " >/dev/null 2>&1"))
      local s = h.json(assert(h.read(scraped)))
      assert.are.equal(0, s.rc, s.stderr)
      assert.are.same({}, s.failures)
      out, scrapes = s.stdout, s.scrapes
    else
      assert(os.getenv("CI") ~= "true", "python3-prometheus-client is missing (tools/install-deps installs it)")
      local err, rc
      out, err, rc = h.run(args .. " run")
      assert.are.equal(0, rc, err)
    end
    local t = totals(out)
    assert.are.equal(2, t.threads, out)
    assert.is_true(t.outcomes > 0)
    local doc = h.json(h.read(threads_json))
    assert_totals(doc, t, 42)

    -- the text block, after sysbench's report
    local block = out:match("\nNamed metrics:\n(.-)\n\n")
    assert.is_truthy(block, out)
    assert.is_true(out:find("Named metrics:", 1, true) > out:find("Threads fairness:", 1, true))
    assert.is_truthy(block:find("\n    cache_miss +counter +" .. t.miss .. "  [%d.]+ per sec%.; lower is better"), block)
    assert.is_truthy(block:find(string.format("\n    hit_rate +rate +%.4f  %d true of %d; higher is better",
      t.hits / t.outcomes, t.hits, t.outcomes)), block)
    local gauge_line = string.format("\n    queue_depth +gauge +42  last; min %d, max %d, set %d times", t.lo, t.hi,
      t.outcomes + 2)
    assert.is_truthy(block:find((gauge_line:gsub("%-", "%%-"))), block)

    -- each --report-metrics line carries its interval's figures
    assert.is_true(#doc.intervals >= 1)
    local lines = {}
    for sec, miss, rate, depth in out:gmatch("\n%[ (%d+)s %] metrics: cache_miss=(%d+) hit_rate=([%d.]+) queue_depth=(%-?%d+)\n") do
      lines[tonumber(sec)] = { tonumber(miss), rate, tonumber(depth) }
    end
    for _, iv in ipairs(doc.intervals) do
      local l = lines[math.floor(iv.time_s + 0.5)]
      assert.is_truthy(l, "a line for the interval at " .. iv.time_s .. " s:\n" .. out)
      assert.are.same({ iv.metrics.cache_miss.value, string.format("%.4f", share(iv.metrics.hit_rate)),
        iv.metrics.queue_depth.value }, l)
    end
    local s = interval_sums(doc)
    assert.is_true(s.miss <= t.miss and s.hits <= t.hits and s.outcomes <= t.outcomes)

    -- each scrape: the counters since the start, the interval's rate and the gauge's last value
    if scrapes then
      local matched = 0
      for _, scrape in ipairs(scrapes) do
        local f = scrape.families
        local at = f.luabench_run_seconds and f.luabench_run_seconds.samples[1][3]
        local miss, hits, outcomes, iv = 0, 0, 0, nil
        for _, x in ipairs(doc.intervals) do
          if at and x.time_s <= at + 1e-9 then
            miss = miss + x.metrics.cache_miss.value
            hits = hits + x.metrics.hit_rate.true_outcomes
            outcomes = outcomes + x.metrics.hit_rate.outcomes
            if math.abs(x.time_s - at) < 1e-6 then iv = x end
          end
        end
        if iv then
          matched = matched + 1
          assert.are.equal("counter", f.luabench_counter.type)
          assert.are.equal(miss, sample(f.luabench_counter, "cache_miss"))
          assert.are.equal(hits, sample(f.luabench_rate_true, "hit_rate"))
          assert.are.equal(outcomes, sample(f.luabench_rate_outcomes, "hit_rate"))
          assert.are.equal(share(iv.metrics.hit_rate), sample(f.luabench_rate_ratio, "hit_rate"))
          assert.are.equal(iv.metrics.queue_depth.value, sample(f.luabench_gauge, "queue_depth"))
        end
      end
      assert.is_true(matched >= 1, matched .. " scrapes matched an interval")
    end
  end)

  it("from emulated users: CSV and JSON agree with the script", function()
    local out, err, rc = h.run(h.q(script) .. " --threads=2 --users=6 --time=2 --report-interval=1 --final=43 " ..
      "--format=csv --output=" .. users_json .. " run")
    assert.are.equal(0, rc, err)
    local t = totals(out)
    assert.are.equal(2, t.threads, out)
    local doc = h.json(h.read(users_json))
    assert_totals(doc, t, 43)
    local header = out:match("^([^\n]*)\n")
    assert.is_truthy(header:find(",metric_cache_miss,metric_hit_rate,metric_hit_rate_outcomes,metric_queue_depth$"), header)
    local rows = {}
    for line in out:gmatch("\n(%d[^\n]*)") do
      local miss, rate, n, depth = line:match(",(%d+),([%d.e-]+),(%d+),(%-?%d+)$")
      rows[#rows + 1] = { tonumber(miss), tonumber(rate), tonumber(n), tonumber(depth) }
    end
    assert.are.equal(#doc.intervals, #rows, out)
    for i, iv in ipairs(doc.intervals) do
      local m = iv.metrics
      assert.are.same({ m.cache_miss.value, share(m.hit_rate), m.hit_rate.outcomes, m.queue_depth.value }, rows[i])
    end
  end)

  it("merge adds the two runs up exactly; a gauge keeps the value set last and every extreme", function()
    local a, b = h.json(h.read(threads_json)), h.json(h.read(users_json))
    local merged = dir .. "/nm_merged.json"
    -- (two runs one after another: --allow-gaps)
    local out, err, rc = h.run("merge --allow-gaps " .. h.q(threads_json) .. " " .. h.q(users_json) .. " --output=" .. h.q(merged))
    assert.are.equal(0, rc, err)
    local m = h.json(h.read(merged)).metrics
    local ma, mb = a.metrics, b.metrics
    assert.are.equal(ma.cache_miss.value + mb.cache_miss.value, m.cache_miss.value)
    assert.are.equal(ma.hit_rate.true_outcomes + mb.hit_rate.true_outcomes, m.hit_rate.true_outcomes)
    assert.are.equal(ma.hit_rate.outcomes + mb.hit_rate.outcomes, m.hit_rate.outcomes)
    assert.is_true(close(share(m.hit_rate), m.hit_rate.value))
    assert.are.equal(math.min(ma.queue_depth.min, mb.queue_depth.min), m.queue_depth.min)
    assert.are.equal(math.max(ma.queue_depth.max, mb.queue_depth.max), m.queue_depth.max)
    assert.are.equal(ma.queue_depth.sets + mb.queue_depth.sets, m.queue_depth.sets)
    -- the users' run ran second: its 43 was set last
    assert.is_true(mb.queue_depth.last_set_unix_us > ma.queue_depth.last_set_unix_us)
    assert.are.same({ 43, mb.queue_depth.last_set_unix_us }, { m.queue_depth.value, m.queue_depth.last_set_unix_us })
    assert.are.same({ "lower", "higher" }, { m.cache_miss.better, m.hit_rate.better })
    assert.is_truthy(out:find("\n    cache_miss +counter +" .. m.cache_miss.value .. "  "), out)
    -- in either order, and the intervals add up by position
    local _, err2, rc2 = h.run("merge --allow-gaps --format=json " .. h.q(users_json) .. " " .. h.q(threads_json) .. " --output=" ..
      h.q(dir .. "/nm_merged2.json"))
    assert.are.equal(0, rc2, err2)
    local m2 = h.json(h.read(dir .. "/nm_merged2.json"))
    assert.are.same(m, m2.metrics)
    local iv = m2.intervals[1].metrics
    assert.are.equal(a.intervals[1].metrics.cache_miss.value + b.intervals[1].metrics.cache_miss.value, iv.cache_miss.value)
    assert.are.equal(a.intervals[1].metrics.hit_rate.outcomes + b.intervals[1].metrics.hit_rate.outcomes, iv.hit_rate.outcomes)
  end)

  it("merge refuses one name of two kinds", function()
    local doc = h.json(h.read(threads_json))
    doc.metrics.cache_miss.kind = "gauge"
    local other = h.write("nm_other_kind.json", luabench.json.encode(doc))
    local _, err, rc = h.run("merge --allow-gaps " .. h.q(threads_json) .. " " .. h.q(other))
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("FATAL: merge: '" .. other .. "': metric 'cache_miss' is a gauge, in '" .. threads_json
      .. "' a counter", 1, true), err)
  end)

  it("compare and the HTML report judge each metric in its declared direction", function()
    -- two results made from a real one: cache misses fall tenfold (lower is better: better), the
    -- hit rate falls by half (higher is better: worse), each with three intervals of noise
    local base = h.json(h.read(threads_json))
    local function variant(name, miss, rate)
      local d = h.json(h.read(threads_json))
      d.intervals = {}
      for i, wobble in ipairs({ 0.98, 1, 1.02 }) do
        local iv = h.json(luabench.json.encode(base.intervals[1]))
        iv.time_s, iv.interval_s = i, 1
        iv.metrics.cache_miss.value = math.floor(miss * wobble)
        iv.metrics.hit_rate.value = rate * wobble
        d.intervals[i] = iv
      end
      d.metrics.cache_miss.value = math.floor(miss * 3)
      d.metrics.hit_rate.value = rate
      return h.write(name, luabench.json.encode(d))
    end
    local a, b = variant("nm_a.json", 1000, 0.8), variant("nm_b.json", 100, 0.4)
    local out, err, rc = h.run("compare --format=json " .. h.q(a) .. " " .. h.q(b))
    assert.are.equal(0, rc, err)
    local rows = {}
    for _, r in ipairs(h.json(out).sections[1].rows) do rows[r.metric] = r end
    assert.are.same({ "metrics", "lower", 0.1, true }, { rows.cache_miss.group, rows.cache_miss.better,
      rows.cache_miss.ratios[2], rows.cache_miss.significant[2] })
    assert.are.same({ "higher", 0.5, true }, { rows.hit_rate.better, rows.hit_rate.ratios[2], rows.hit_rate.significant[2] })
    assert.are.equal("neutral", rows.queue_depth.better)
    assert.is_truthy(rows["queue_depth max"] and rows["cache_miss /s"], out)
    local html = dir .. "/nm.html"
    _, err, rc = h.run("report " .. h.q(a) .. " " .. h.q(b) .. " -o " .. h.q(html))
    assert.are.equal(0, rc, err)
    local page = h.read(html)
    assert.is_truthy(page:find('<td class="k">cache_miss</td><td>3000</td><td>300</td><td class="better">0.100 *</td>', 1, true))
    assert.is_truthy(page:find('<td class="k">hit_rate</td><td>0.8</td><td>0.4</td><td class="worse">0.500 *</td>', 1, true))
  end)

  describe("--threshold", function()
    local args = h.q(script) .. " --threads=2 --events=400 "

    it("passes and fails on a counter, a rate and a gauge's extremes, with the figures of the result", function()
      local json = dir .. "/nm_thr.json"
      local out, err, rc = h.run(args .. "--threshold='cache_miss<1000000,hit_rate>0.9,hit_rate<90%' " ..
        "--threshold='queue_depth.max<=100,queue_depth.min>=-21,queue_depth>=42' --output=" .. json .. " run")
      assert.are.equal(4, rc, err)
      local doc = h.json(h.read(json))
      local by = {}
      for _, t in ipairs(doc.thresholds) do by[t.threshold] = t end
      assert.are.same({ true, doc.metrics.cache_miss.value, "" }, { by["cache_miss<1000000"].pass,
        by["cache_miss<1000000"].observed, by["cache_miss<1000000"].unit })
      assert.are.same({ false, doc.metrics.hit_rate.value, "fraction" }, { by["hit_rate>0.9"].pass,
        by["hit_rate>0.9"].observed, by["hit_rate>0.9"].unit })
      assert.are.same({ true, doc.metrics.hit_rate.value * 100, "%" }, { by["hit_rate<90%"].pass,
        by["hit_rate<90%"].observed, by["hit_rate<90%"].unit })
      assert.is_true(by["queue_depth.max<=100"].pass and by["queue_depth.min>=-21"].pass and by["queue_depth>=42"].pass)
      assert.are.equal(doc.metrics.queue_depth.max, by["queue_depth.max<=100"].observed)
      assert.is_truthy(out:find(string.format("\n    hit_rate>0.9 +FAIL  %%(%.4f%%)", doc.metrics.hit_rate.value)), out)
      assert.is_truthy(out:find("1 of 6 thresholds failed", 1, true), out)
      out, err, rc = h.run(args .. "--threshold='cache_miss<1000000,hit_rate>0.1' run")
      assert.are.equal(0, rc, err)
    end)

    for _, case in ipairs({
      { "cache_mis<5", "FATAL: threshold 'cache_mis<5': unknown metric 'cache_mis' (did you mean 'cache_miss'?)" },
      { "cache_miss.max<5", "FATAL: threshold 'cache_miss.max<5': 'cache_miss' is a counter: only a gauge has .last, .min and .max (name it alone: cache_miss)" },
      { "queue_depth<5%", "FATAL: threshold 'queue_depth<5%': unit '%' does not fit gauge 'queue_depth' (units: none)" },
    }) do
      it("refuses '" .. case[1] .. "' before the run starts", function()
        local out, err, rc = h.run(args .. "--threshold=" .. h.q(case[1]) .. " run")
        assert.are.equal(1, rc, err)
        assert.is_truthy(err:find(case[2], 1, true), err)
        assert.are.equal(1, h.count(err, "\n"), err)
        assert.is_falsy(out:find("Threads started!", 1, true), out)
      end)
    end
  end)

  describe("misuse is one error at the script's line", function()
    local cases = {
      { "luabench.counter(5)", "luabench.counter(name): name must be letters, digits and '_' (at most 47, not starting with a digit or with 'p' and a digit), got 5" },
      { "luabench.gauge('p99')", "luabench.gauge(name): name must be letters, digits and '_'" },
      { "luabench.rate('a b')", [[luabench.rate(name): name must be letters, digits and '_' (at most 47, not starting with a digit or with 'p' and a digit), got "a b"]] },
      { "luabench.counter(string.rep('x', 48))", "luabench.counter(name): name must be letters" },
      { "luabench.counter('errors')", [[luabench.counter(name): "errors" is one of luabench's own figures in --threshold]] },
      { "luabench.counter('x', 5)", "luabench.counter(name, options): options must be a table, got 5" },
      { "luabench.counter('x', { bettr = 'lower' })", [[luabench.counter(name, options): unknown option "bettr" (options: better)]] },
      { "luabench.rate('x', { better = 'up' })", [[luabench.rate(name, options): options.better must be "higher", "lower" or "neutral", got "up"]] },
      { "luabench.counter('x'); luabench.rate('x')", [[luabench.rate(name): "x" is declared already as a counter]] },
      { "luabench.counter('x', { better = 'lower' }); luabench.counter('x')", [[luabench.counter(name): "x" is declared already with better = "lower"]] },
      { "for i = 1, 65 do luabench.counter('c' .. i) end", "luabench.counter(name): too many named metrics (at most 64)" },
    }
    for _, case in ipairs(cases) do
      it("at the top: " .. case[1], function()
        local path = h.write("nm_misuse.lua", case[1] .. "\nfunction event() end\n")
        local out, err, rc = h.run(h.q(path) .. " --events=1 run")
        assert.are.equal(1, rc, err)
        assert.is_truthy(err:find("nm_misuse.lua:1: " .. case[2], 1, true), err)
        assert.are.equal(1, h.count(err, "\n"), err)
      end)
    end
    local events = {
      { "C:add(-1)", "counter:add(n): n must be a whole number >= 0 (below 2^53), got -1" },
      { "C:add(1.5)", "counter:add(n): n must be a whole number >= 0 (below 2^53), got 1.5" },
      { "C:add('3')", [[counter:add(n): n must be a whole number >= 0 (below 2^53), got "3"]] },
      { "C.add(3)", "counter:add(n): called on number, not on this counter from luabench.counter() (call it with ':')" },
      { "R:add(1)", "rate:add(outcome): outcome must be true or false, got 1" },
      { "R:add()", "rate:add(outcome): outcome must be true or false, got nil" },
      { "G:set(0/0)", "gauge:set(value): value must be a finite number, got nan" },
      { "G:set(1/0)", "gauge:set(value): value must be a finite number, got inf" },
      { "G.set(5)", "gauge:set(value): called on number, not on this gauge from luabench.gauge() (call it with ':')" },
      { "luabench.counter('late')", [[luabench.counter(name): "late" is not declared, and the run has started: declare metrics at the top of the script (or in init or thread_init)]] },
    }
    for _, case in ipairs(events) do
      for _, mode in ipairs({ "", "--users=2 " }) do
        it("in event()" .. (mode ~= "" and " of a user" or "") .. ": " .. case[1], function()
          local path = h.write("nm_event.lua", "local C, R, G = luabench.counter('c'), luabench.rate('r'), luabench.gauge('g')\n" ..
            "function event()\n  " .. case[1] .. "\nend\n")
          local _, err, rc = h.run(h.q(path) .. " --events=1 " .. mode .. "run")
          assert.are.equal(1, rc, err)
          assert.is_truthy(err:find("nm_event.lua:3: " .. case[2], 1, true), err)
        end)
      end
    end
    it("a metric declared in init is found again in event() by its name", function()
      local path = h.write("nm_init.lua", "function init() luabench.counter('hits') end\n" ..
        "function event() luabench.counter('hits'):add(2) end\n")
      local json = dir .. "/nm_init.json"
      local _, err, rc = h.run(h.q(path) .. " --events=10 --output=" .. json .. " run")
      assert.are.equal(0, rc, err)
      assert.are.equal(20, h.json(h.read(json)).metrics.hits.value)
    end)
  end)
end)
