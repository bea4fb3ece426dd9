-- Distributed runs: --start-at and --instance, and `luabench merge` — exact counters and
-- histograms, percentiles from the merged histogram, associativity, and bad inputs.
local h = require("helpers")

-- Nearest-rank percentile of a histogram given as {[lowest ns] = count}, as doc/results.md §7.4.
local function percentile_ms(buckets, n, p, min_ns, max_ns)
  local keys = {}
  for v in pairs(buckets) do keys[#keys + 1] = v end
  table.sort(keys)
  local rank, seen, v = math.max(1, math.ceil(p / 100 * n)), 0, max_ns
  for _, lowest in ipairs(keys) do
    seen = seen + buckets[lowest]
    if seen >= rank then
      local width = lowest < 2048 and 1 or 2 ^ (math.floor(math.log(lowest) / math.log(2)) - 10)
      v = lowest + math.floor(width / 2)
      break
    end
  end
  return math.min(math.max(v, min_ns), max_ns) / 1e6
end

local function buckets_of(hist, into)
  into = into or {}
  for _, pair in ipairs(hist.buckets) do into[pair[1]] = (into[pair[1]] or 0) + pair[2] end
  return into
end

-- The document without the wall-clock fields that depend on when each merge ran.
local function strip_times(s)
  return (s:gsub('\n%s*"start_time":[^\n]*', ""):gsub('\n%s*"end_time":[^\n]*', ""):gsub('\n%s*"start_unix_s":[^\n]*', ""))
end

describe("distributed runs", function()
  local dir = h.tmpdir()
  local files = {}

  it("start together with --start-at, and merge exactly", function()
    local db = h.db("pgsql")
    if not db then pending("no PostgreSQL sandbox") return end
    -- Instance i sleeps (i + 1) * 3 ms per event after a query: known, distinct latencies.
    local script = h.write("instances.lua", [[
ffi.cdef("int usleep(unsigned int);")
local con
function thread_init()
  con = sysbench.sql.driver():connect()
  if sysbench.tid == 0 then print("INSTANCE " .. luabench.instance .. "/" .. luabench.instances) end
end
function event()
  con:query("SELECT 1")
  ffi.C.usleep(3000 * (luabench.instance + 1))
end
]])
    local results, outputs, start = h.run_together(dir, "inst", 3, function(i)
      return string.format("%s %s --threads=2 --events=%d --time=0", h.q(script), db, 40 * (i + 1))
    end)
    for i = 1, 3 do files[i] = results[i] end
    local docs, sum, expect = {}, 0, {}
    local min_ns, max_ns, sum_ns = math.huge, 0, 0
    for i = 0, 2 do
      local text = h.read(outputs[i + 1])
      assert.is_truthy(text:find("INSTANCE " .. i .. "/3", 1, true), text)
      assert.is_truthy(text:find("Waiting [%d.]+ seconds for the start time [%dT:.-]+Z %(%-%-start%-at%)"), text)
      local d = h.json(h.read(files[i + 1]))
      docs[i + 1] = d
      assert.are.equal("ok", d.status)
      assert.are.equal(i, d.instance)
      assert.are.equal(3, d.instances)
      assert.are.equal(40 * (i + 1), d.counters.events)
      -- started together: within 100 ms of each other and not before the start time
      assert.is_true(d.window.start_unix_us >= start * 1e6 - 1000, "instance " .. i .. " started early")
      assert.is_true(math.abs(d.window.start_unix_us - docs[1].window.start_unix_us) < 1e5)
      assert.is_true(d.histogram.min_ns >= (i + 1) * 3e6, "instance " .. i .. " sleeps " .. (i + 1) * 3 .. " ms")
      sum = sum + d.counters.events
      buckets_of(d.histogram, expect)
      min_ns, max_ns, sum_ns = math.min(min_ns, d.histogram.min_ns), math.max(max_ns, d.histogram.max_ns), sum_ns + d.histogram.sum_ns
    end

    local out, err, rc = h.run("merge " .. table.concat(files, " ") .. " --format=json --percentile=10,50,90,99 --output=" .. dir .. "/all.json")
    assert.are.equal(0, rc, err)
    assert.are.equal(out, h.read(dir .. "/all.json"))
    local m = h.json(out)
    assert.are.equal(sum, m.counters.events)
    assert.are.equal(sum, m.counters.reads)
    assert.are.equal(sum, m.histogram.count)
    assert.are.same(expect, buckets_of(m.histogram), "merged histogram = the three added")
    assert.are.equal(min_ns, m.histogram.min_ns)
    assert.are.equal(max_ns, m.histogram.max_ns)
    assert.are.equal(sum_ns, m.histogram.sum_ns)
    for _, p in ipairs({ 10, 50, 90, 99 }) do
      local want, got = percentile_ms(expect, sum, p, min_ns, max_ns), m.latency_ms.percentiles[tostring(p)]
      assert.is_true(math.abs(want - got) < 1e-9, "p" .. p .. ": " .. got .. " vs " .. want)
    end
    -- instance 2 ran half of the events, each over 9 ms: the 90th percentile is one of them
    assert.is_true(m.latency_ms.percentiles["90"] >= 9 and m.latency_ms.percentiles["10"] < m.latency_ms.percentiles["90"])
    -- rates over the union of the windows; threads and per-thread figures of every instance
    local s, e = math.huge, 0
    for _, d in ipairs(docs) do s, e = math.min(s, d.window.start_unix_us), math.max(e, d.window.end_unix_us) end
    assert.are.same({ start_unix_us = s, end_unix_us = e }, m.window)
    assert.is_true(math.abs((e - s) / 1e6 - m.time_s) < 1e-9)
    assert.is_true(math.abs(m.rates.events_per_s - sum / m.time_s) < 1e-9 * m.rates.events_per_s)
    assert.are.equal(6, m.threads)
    assert.are.equal(6, #m.fairness.per_thread)
    assert.are.equal(3, m.instances)
    assert.are.equal(3, #m.merged_from)
    assert.are.equal(1, m.merged_from[2].instance)
    assert.are.equal(3, #m.systems)

    -- the usual final report
    out, err, rc = h.run("merge " .. table.concat(files, " "))
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("^Merged 3 results %(6 threads in all%)"))
    assert.is_truthy(out:find("\n    transactions:                        " .. sum .. " ", 1, true))
    assert.is_truthy(out:find("\n    total number of events:              " .. sum .. "\n", 1, true))
    assert.is_truthy(out:find("\nSystem statistics by instance"))
  end)

  it("is associative: merge(merge(a,b),c) equals merge(a,merge(b,c))", function()
    if not files[3] or not h.read(files[3]) then pending("needs the results of the previous test") return end
    local a, b, c = files[1], files[2], files[3]
    local function merge(args, out)
      local _, err, rc = h.run("merge " .. args .. " --format=json --output=" .. dir .. "/" .. out)
      assert.are.equal(0, rc, err)
      return h.read(dir .. "/" .. out)
    end
    merge(a .. " " .. b, "ab.json")
    merge(b .. " " .. c, "bc.json")
    local left = merge(dir .. "/ab.json " .. c, "ab_c.json")
    local right = merge(a .. " " .. dir .. "/bc.json", "a_bc.json")
    local flat = merge(a .. " " .. b .. " " .. c, "abc.json")
    assert.are.equal(strip_times(left), strip_times(right))
    assert.are.equal(strip_times(flat), strip_times(left))
  end)

  it("refuses bad inputs with one clear line, and warns about mismatched ones", function()
    local good = files[1] and h.read(files[1]) and files[1]
    if not good then
      good = dir .. "/cpu.json"
      local _, err, rc = h.run("cpu --time=1 --output=" .. good .. " run")
      assert.are.equal(0, rc, err)
    end
    local failed = h.write("failed.json", '{"luabench": {"version": "0.1.0"}, "status": "error", "error": "boom"}')
    local other = h.write("other.json", '{"name": "not ours"}')
    local garbage = h.write("garbage.json", "this is not JSON")
    for _, case in ipairs({
      { good .. " " .. dir .. "/missing.json", "cannot read '" .. dir .. "/missing.json': No such file or directory" },
      { good .. " " .. other, "'" .. other .. "' is not a luabench result" },
      { garbage, "'" .. garbage .. "' is not a luabench result (not JSON)" },
      { failed, "'" .. failed .. "' is the result of a failed run (error: boom)" },
      { "", "no result files given" },
      { good .. " --bogus", "invalid option: --bogus" },
    }) do
      local out, err, rc = h.run("merge " .. case[1])
      assert.are.equal(1, rc, case[1])
      assert.are.equal("", out)
      assert.are.equal(1, h.count(err, "\n"), err)
      assert.is_truthy(err:find("FATAL: merge: " .. case[2], 1, true), err)
    end
    local cpu = dir .. "/cpu2.json"
    local _, err, rc = h.run("cpu --time=1 --threads=2 --output=" .. cpu .. " run")
    assert.are.equal(0, rc, err)
    local out
    out, err, rc = h.run("merge --allow-gaps " .. good .. " " .. cpu)
    assert.are.equal(0, rc, err)
    if good ~= dir .. "/cpu.json" then
      assert.is_truthy(err:find("WARNING: '" .. cpu .. "' ran workload 'cpu'", 1, true), err)
    end
    assert.is_truthy(err:find("ran with other options than", 1, true), err)
  end)

  it("a script's report_merge hook computes the merged workload figures, when the script is at hand", function()
    local script = h.write("hooked.lua", [[
local T = luabench.stats.type("Step")
function event()
  T:done(T:start())
end
function luabench.hooks.report_json(stat)
  return { steps = stat.types.Step.count, instance = luabench.instance }
end
function luabench.hooks.report_merge(inputs, stat)
  local sum, from = 0, {}
  for _, x in ipairs(inputs) do
    sum = sum + x.steps
    from[#from + 1] = x.instance
  end
  return { steps = stat.types.Step.count, inputs_steps = sum, from = from },
    string.format("steps: %d merged, %d from %d inputs\n", stat.types.Step.count, sum, #inputs)
end
]])
    -- (100 events at 100/s: a second each, so that the three windows overlap however late one starts)
    local r, logs = h.run_together(dir, "hooked", 3, function() return h.q(script) .. " --threads=2 --events=100 --time=0 --rate=100" end)
    for i = 1, 3 do assert.are.equal("ok", h.json(h.read(r[i])).status, h.read(logs[i])) end
    local out, err, rc = h.run("merge " .. table.concat(r, " ") .. " --output=" .. dir .. "/hooked.json")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("steps: 300 merged, 300 from 3 inputs\n", 1, true), out)
    local w = h.json(h.read(dir .. "/hooked.json")).workload_stats
    assert.are.same({ steps = 300, inputs_steps = 300, from = { 0, 1, 2 } }, w)
    -- the merged result merged again: the hook sees the original results, not the merged one
    out, err, rc = h.run("merge " .. dir .. "/hooked.json --format=json")
    assert.are.equal(0, rc, err)
    assert.are.same(w, h.json(out).workload_stats)
    -- the script is gone (merged on another machine): no merged figures, no error
    os.remove(script)
    out, err, rc = h.run("merge " .. table.concat(r, " ") .. " --format=json")
    assert.are.equal(0, rc, err)
    assert.are.equal("", err)
    local m = h.json(out)
    assert.is_nil(m.workload_stats)
    assert.are.same({ steps = 100, instance = 1 }, m.merged_from[2].workload_stats)
  end)

  it("refuses runs one after another, whose windows do not overlap, unless told to merge them", function()
    local a, b = dir .. "/seq_a.json", dir .. "/seq_b.json"
    for _, f in ipairs({ a, b }) do
      local _, err, rc = h.run("cpu --cpu-max-prime=1000 --time=1 --output=" .. f .. " run")
      assert.are.equal(0, rc, err)
    end
    local da, db = h.json(h.read(a)), h.json(h.read(b))
    assert.is_true(db.window.start_unix_us > da.window.end_unix_us)
    local _, err, rc = h.run("merge " .. a .. " " .. b)
    assert.are.equal(1, rc)
    assert.are.equal(1, h.count(err, "\n"), err)
    assert.is_truthy(err:find("FATAL: merge: the measured windows do not overlap: '" .. b .. "' started ", 1, true), err)
    assert.is_truthy(err:find(string.format(" s after '%s' ended", a), 1, true), err)
    assert.is_truthy(err:find("luabench compare --label=A RUN", 1, true), err)
    local gap = tonumber(err:match("started ([%d.]+) s after"))
    assert.is_true(math.abs(gap - (db.window.start_unix_us - da.window.end_unix_us) / 1e6) <= 0.051, err)
    local out
    out, err, rc = h.run("merge --allow-gaps --format=json " .. a .. " " .. b)
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("WARNING: merge: the measured windows do not overlap", 1, true), err)
    assert.are.equal(da.counters.events + db.counters.events, h.json(out).counters.events)
  end)

  it("refuses a start time in the past and a bad instance", function()
    local empty = h.write("empty.lua", "function event() end\n")
    for _, case in ipairs({
      { "--start-at=" .. string.format("%.3f", h.now() - 60), "seconds in the past: give a time in the future" },
      { "--start-at=soon", "Invalid value for the 'start-at' option: 'soon'" },
      { "--instance=3/3", "Invalid value for the 'instance' option: '3/3'" },
      { "--instance=1", "Invalid value for the 'instance' option: '1'" },
    }) do
      local _, err, rc = h.run(h.q(empty) .. " " .. case[1] .. " run")
      assert.are.equal(1, rc, case[1])
      assert.are.equal(1, h.count(err, "\n"), err)
      assert.is_truthy(err:find(case[2], 1, true), err)
    end
  end)
end)
