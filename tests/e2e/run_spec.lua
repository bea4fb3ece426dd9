-- The run lifecycle: limits, rate mode, reports, result files, signals.
local h = require("helpers")

local function events_of(out)
  return tonumber(out:match("total number of events:%s+(%d+)"))
end

describe("run", function()
  local empty = h.write("empty.lua", "function event() end\n")
  local sleeper = h.write("sleeper.lua", "ffi.cdef('int usleep(unsigned int);')\n" ..
    "local us = tonumber(os.getenv('SLEEP_US') or '1000')\nfunction event() ffi.C.usleep(us) end\n")

  it("--events=N runs exactly N events across threads", function()
    for _, c in ipairs({ { 100000, 4 }, { 1, 8 }, { 7, 3 }, { 12345, 2 } }) do
      local out, err, rc = h.run(string.format("%s --events=%d --threads=%d --time=0 run", h.q(empty), c[1], c[2]))
      assert.are.equal(0, rc, err)
      assert.are.equal(c[1], events_of(out))
    end
  end)

  it("--time stops within one interval", function()
    local t0 = h.now()
    local out, err, rc = h.run(h.q(empty) .. " --threads=2 --time=2 run")
    local dt = h.now() - t0
    assert.are.equal(0, rc, err)
    assert.is_true(dt >= 2 and dt < 3, "took " .. dt .. " s")
    local total = tonumber(out:match("total time:%s+([%d.]+)s"))
    assert.is_true(total >= 1.99 and total < 2.1, "total time " .. total)
  end)

  it("--rate holds the target rate", function()
    -- Poisson arrivals: 20,000 expected in 2 s at 10,000/s have a standard deviation of 0.71%,
    -- so 3.5% is 5 sigma (a bound at 3 sigma fails one correct run in 600). Every arrival due in
    -- the window either ran or is counted as due but not started: both together are the
    -- arrivals, however far behind a busy machine leaves the workers.
    local out, err, rc = h.run(h.q(sleeper) .. " --threads=4 --rate=10000 --time=2 run", { env = "SLEEP_US=0 " })
    assert.are.equal(0, rc, err)
    local unserved = tonumber(out:match("arrivals due but not started at end:%s+(%d+)"))
    local rate = (events_of(out) + unserved) / 2
    assert.is_true(math.abs(rate - 10000) / 10000 < 0.035, "arrivals " .. rate .. "/s\n" .. out)
    assert.is_truthy(out:find("Target transaction rate: 10000/sec", 1, true))
    -- Constant arrivals are exact up to the last partial gap: every arrival due in the 2 s either
    -- ran or is counted as due but not started (a loaded machine can start the last few late).
    -- 4 threads for 500 events/s of 1 ms: no event waits for a thread, so the latency, measured
    -- from each event's intended start, stays near the service time.
    out, err, rc = h.run(h.q(sleeper) .. " --threads=4 --rate=500 --rate-arrival=constant --time=2 run", { env = "SLEEP_US=1000 " })
    assert.are.equal(0, rc, err)
    local n = events_of(out)
    unserved = tonumber(out:match("arrivals due but not started at end:%s+(%d+)"))
    assert.is_true(n + unserved >= 999 and n + unserved <= 1001,
      "constant arrivals: " .. n .. " events + " .. unserved .. " unserved in 2 s at 500/s")
    assert.is_true(n >= 950, "constant arrivals: only " .. n .. " of 1000 started")
    local p95 = tonumber(out:match("95th percentile:%s+([%d.]+)"))
    assert.is_true(p95 < 50, "no queueing expected, p95 " .. p95 .. "\n" .. out)
  end)

  it("--rate shows queueing latency when events are slower than the rate", function()
    -- 2 threads x 20 ms = 100 events/s of capacity against 200/s arriving
    local out, err, rc = h.run(h.q(sleeper) .. " --threads=2 --rate=200 --time=3 --report-interval=1 run",
      { env = "SLEEP_US=20000 " })
    assert.are.equal(0, rc, err)
    local p95 = tonumber(out:match("95th percentile:%s+([%d.]+)"))
    assert.is_true(p95 > 500, "latency from the intended start must include the wait, p95 " .. p95)
    local ql = {}
    for n in out:gmatch("queue length: (%d+) concurrency") do ql[#ql + 1] = tonumber(n) end
    assert.is_true(#ql >= 2 and ql[#ql] > 50, "the backlog is reported and grows")
    assert.is_truthy(out:find("arrivals due but not started at end:", 1, true))
    local svc = tonumber(out:match("service time, excluding queueing %(ms%):\n%s+95th percentile:%s+([%d.]+)"))
    -- at least the 20 ms slept, and far below the latency with the wait (a busy machine
    -- oversleeps: 55 ms beside two busy loops, so no fixed ceiling)
    assert.is_true(svc and svc >= 20 and svc < p95 / 4,
      "service time shown separately: " .. tostring(svc) .. " (p95 with the wait " .. p95 .. ")")
  end)

  it("prints intermediate lines in sysbench's layout, one field per percentile", function()
    local out, err, rc = h.run(h.q(sleeper) .. " --time=3 --report-interval=1 --percentile=50,99.9 run")
    assert.are.equal(0, rc, err)
    local lines = {}
    for l in out:gmatch("(%[ %d+s %] thds: [^\n]+)") do lines[#lines + 1] = l end
    assert.is_true(#lines >= 2)
    assert.is_truthy(lines[1]:match("^%[ 1s %] thds: 1 eps: [%d.]+ lat %(ms,50%%%): [%d.]+ lat %(ms,99.9%%%): [%d.]+$"), lines[1])
    assert.is_truthy(out:find("\n         50th percentile:", 1, true))
    assert.is_truthy(out:find("\n        99.9th percentile:", 1, true))
    -- the value column ends where sysbench's does
    local l50 = out:match("\n(         50th percentile: +[%d.]+)\n")
    local l999 = out:match("\n(        99.9th percentile: +[%d.]+)\n")
    local lmin = out:match("\n(         min: +[%d.]+)\n")
    assert.are.equal(#lmin, #l50)
    assert.are.equal(#lmin, #l999)
  end)

  it("--format=json prints one JSON document with everything", function()
    local out, err, rc = h.run(h.q(sleeper) .. " --threads=2 --time=2 --percentile=50,95,99 --format=json run")
    assert.are.equal(0, rc, err)
    local doc = h.json(out)
    assert.is_truthy(doc, out)
    assert.are.equal("ok", doc.status)
    assert.are.equal(false, doc.interrupted)
    assert.are.equal(2, doc.threads)
    assert.is_true(doc.counters.events > 100)
    assert.is_truthy(doc.latency_ms.percentiles["50"] and doc.latency_ms.percentiles["99"])
    local n = 0
    for _, b in ipairs(doc.histogram.buckets) do n = n + b[2] end
    assert.are.equal(doc.counters.events, n, "histogram counts equal the event count")
    assert.is_true(#doc.intervals >= 1)
    assert.are.equal(2, #doc.fairness.per_thread)
    assert.is_truthy(err:find("Threads started!", 1, true), "human messages go to stderr")
  end)

  it("--format=csv prints a header and one line per interval", function()
    local out, err, rc = h.run(h.q(empty) .. " --time=3 --format=csv --percentile=95,99 run")
    assert.are.equal(0, rc, err)
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.are.equal("time,threads,tps,qps,reads_per_s,writes_per_s,other_per_s,lat_ms_p95,lat_ms_p99,err_per_s,reconn_per_s,queue_length,concurrency", lines[1])
    assert.is_true(#lines >= 3)
    assert.is_truthy(lines[2]:match("^1,1,[%d.]+,"))
  end)

  it("--format=csv rows stay whole while the script prints from its threads", function()
    -- A row was written a piece at a time, and a print() from a worker could land inside it
    -- (5 broken rows in 3 such runs before): the reporter now holds the stream for the row.
    local script = h.write("csv_printer.lua", [[
      local MISS, HIT, DEPTH = luabench.counter("m_miss"), luabench.rate("m_hit"), luabench.gauge("m_depth")
      function event() MISS:add(1) HIT:add(true) DEPTH:set(3) print("PRINTED FROM AN EVENT") end
    ]])
    local out, err, rc = h.run(h.q(script) .. " --threads=2 --time=3 --report-interval=1 --format=csv run")
    assert.are.equal(0, rc, err)
    local rows, printed = 0, 0
    for l in out:gmatch("[^\n]+") do
      if l == "PRINTED FROM AN EVENT" then
        printed = printed + 1
      elseif l:match("^%d") then
        -- (the rate's share may miss an outcome at an interval's edge: its count and its true
        -- outcomes are two stores the reporter can read between)
        assert.is_truthy(l:match("^%d+,%d+,[%d.]+,[%d.,]+,%d+,[%d.]+,%d+,3$"), "a broken row: " .. l)
        rows = rows + 1
      else
        assert.is_truthy(l:match("^time,threads,.*,metric_m_depth$"), "a broken line: " .. l)
      end
    end
    assert.is_true(rows >= 2 and printed > 1000, rows .. " rows, " .. printed .. " lines printed")
  end)

  it("--output writes the result atomically and keeps secrets out", function()
    local path = h.tmpdir() .. "/result.json"
    local out, err, rc = h.run(h.q(empty) .. " --time=1 --output=" .. path .. " --my-password=hunter2 run")
    assert.are.equal(0, rc, err)
    local text = h.read(path)
    local doc = h.json(text)
    assert.are.equal("ok", doc.status)
    assert.is_falsy(text:find("hunter2", 1, true))
    assert.is_truthy(out:find("General statistics:", 1, true), "text report still on stdout")
  end)

  it("SIGINT stops the run, prints the report and writes the result file", function()
    local path = h.tmpdir() .. "/interrupted.json"
    -- a second after the threads started, however long the start took on a busy machine
    local cmd = string.format("%s cpu --threads=2 --time=60 --output=%s run > %s/int.out 2>&1 & pid=$!; " ..
      "%s sleep 1; kill -INT $pid; wait $pid; echo rc=$?", h.bin, path, h.tmpdir(), h.wait_started(h.tmpdir() .. "/int.out"))
    local p = io.popen(cmd)
    local res = p:read("*a")
    p:close()
    assert.is_truthy(res:find("rc=130", 1, true), res)
    local out = h.read(h.tmpdir() .. "/int.out")
    assert.is_truthy(out:find("SIGINT received", 1, true))
    assert.is_truthy(out:find("General statistics:", 1, true))
    local doc = h.json(h.read(path))
    assert.are.equal(true, doc.interrupted)
    assert.are.equal("interrupted", doc.status)
    assert.is_true(doc.counters.events > 0)
    assert.is_true(doc.time_s > 0.9 and doc.time_s < 10, doc.time_s)
  end)

  it("--report-checkpoints prints full reports and resets the statistics", function()
    local counting = h.write("counting.lua", "ffi.cdef('int usleep(unsigned int);')\nlocal n = 0\n" ..
      "function event() n = n + 1; ffi.C.usleep(1000) end\n" ..
      "function thread_done() io.stderr:write('RAN ', n, '\\n') end\n")
    local out, err, rc = h.run(h.q(counting) .. " --time=3 --report-checkpoints=1,2 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("[ 1s ] Checkpoint report:", 1, true))
    assert.is_truthy(out:find("[ 2s ] Checkpoint report:", 1, true))
    local n = {}
    for e in out:gmatch("total number of events:%s+(%d+)") do n[#n + 1] = tonumber(e) end
    assert.are.equal(3, #n)
    -- each report counts its own window: together, every event the thread ran (the last one
    -- may have been cut by the end), and none twice
    local ran = tonumber(err:match("RAN (%d+)"))
    assert.is_true(n[1] + n[2] + n[3] == ran or n[1] + n[2] + n[3] == ran - 1, table.concat(n, "+") .. " of " .. ran)
    -- a 1 ms sleep: at most ~1,000 a second in each window
    for i = 1, 3 do assert.is_true(n[i] > 0 and n[i] < 1100, "window " .. i .. ": " .. n[i]) end
  end)

  it("--warmup-time excludes the warm-up from the statistics", function()
    local out, err, rc = h.run(h.q(sleeper) .. " --time=2 --warmup-time=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Warming up for 1 seconds...", 1, true))
    local total = tonumber(out:match("total time:%s+([%d.]+)s"))
    assert.is_true(total > 1.9 and total < 2.2, "measured window " .. total)
    assert.is_true(events_of(out) < 2200)
  end)

  it("--histogram prints the latency distribution", function()
    local out, err, rc = h.run(h.q(sleeper) .. " --time=1 --histogram run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Latency histogram (values are in milliseconds)", 1, true))
    assert.is_truthy(out:match("\n +[%d.]+ |%*+ +%d+\n"))
  end)

  it("--forced-shutdown ends a run whose events don't finish", function()
    local stuck = h.write("stuck.lua", "ffi.cdef('int usleep(unsigned int);')\nfunction event() ffi.C.usleep(10000000) end\n")
    local t0 = h.now()
    local out, err, rc = h.run(h.q(stuck) .. " --threads=2 --time=1 --forced-shutdown=1 run")
    assert.are.equal(2, rc)
    assert.is_true(h.now() - t0 < 5)
    assert.is_truthy(err:find("forcing shutdown", 1, true))
    assert.is_truthy(out:find("Number of unfinished transactions on forced shutdown: 2", 1, true))
  end)
  it("--thread-stack-size below what a LuaJIT state needs is raised, with a warning", function()
    for _, size in ipairs({ "1", "8K", "16K" }) do
      for _, w in ipairs({ "cpu", h.q(empty) }) do
        local out, err, rc = h.run(w .. " --thread-stack-size=" .. size .. " --threads=2 --time=1 run")
        assert.are.equal(0, rc, w .. " " .. size .. ": " .. err)
        assert.is_truthy(err:find("WARNING: --thread-stack-size=" .. (size == "1" and "1 (bytes)" or size) ..
          " is too small for a LuaJIT state, using 64K", 1, true), err)
        assert.is_truthy(out:find("General statistics:", 1, true))
      end
    end
    local _, err, rc = h.run(h.q(empty) .. " --thread-stack-size=64K --time=1 run")
    assert.are.equal(0, rc, err)
    assert.are.equal("", err)
  end)

  it("after SIGTERM, events still running get a bounded grace period", function()
    local long = h.write("long.lua", "function event() luabench.sleep(60) end\n")
    for _, c in ipairs({ { "", 5 }, { " --forced-shutdown=1", 1 } }) do
      local path = h.tmpdir() .. "/term.json"
      os.remove(path)
      -- timed from the signal, sent a second after the threads started
      local cmd = string.format("%s %s --threads=2 --time=0%s --output=%s run > %s/term.out 2>&1 & pid=$!; " ..
        "%s sleep 1; t0=$(date +%%s.%%N); kill -TERM $pid; wait $pid; echo rc=$?; " ..
        "echo \"after=$(echo \"$(date +%%s.%%N) - $t0\" | bc)\"",
        h.bin, h.q(long), c[1], path, h.tmpdir(), h.wait_started(h.tmpdir() .. "/term.out"))
      local p = io.popen(cmd)
      local res = p:read("*a")
      p:close()
      local dt = tonumber(res:match("after=([%d.]+)"))
      assert.is_truthy(res:find("rc=2", 1, true), res)
      assert.is_true(dt > c[2] - 0.5 and dt < c[2] + 2, "took " .. dt .. " s after the signal with grace " .. c[2])
      local out = h.read(h.tmpdir() .. "/term.out")
      assert.is_truthy(out:find(string.format("SIGTERM received, stopping the run (running events get %d seconds; " ..
        "send it again to force shutdown)...", c[2]), 1, true), out)
      assert.is_truthy(out:find(string.format("FATAL: Running events did not finish within %d seconds of the signal, " ..
        "forcing shutdown...", c[2]), 1, true), out)
      assert.is_truthy(out:find("Number of unfinished transactions on forced shutdown: 2\n\nGeneral statistics:", 1, true), out)
      local doc = h.json(h.read(path))
      assert.are.equal(true, doc.interrupted)
      assert.are.equal("forced_shutdown", doc.status)
      assert.are.equal(2, doc.unfinished_events)
    end
  end)

  it("an error in a report hook makes the exit code non-zero", function()
    local cum = h.write("cum.lua", "function event() end\n" ..
      "function sysbench.hooks.report_cumulative() error('x', 0) end\n")
    local path = h.tmpdir() .. "/hook.json"
    local out, err, rc = h.run(h.q(cum) .. " --time=1 --output=" .. path .. " run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("ALERT: report_cumulative hook failed: x", 1, true), err)
    assert.are.equal("ok", h.json(h.read(path)).status, "the result file is still written")
    local inter = h.write("inter.lua", "function event() end\n" ..
      "function sysbench.hooks.report_intermediate() error('y', 0) end\n")
    out, err, rc = h.run(h.q(inter) .. " --time=2 --report-interval=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("ALERT: report_intermediate hook failed: y", 1, true), err)
    assert.is_truthy(out:find("General statistics:", 1, true), "the final report is still printed")
  end)

  it("--debug prints sysbench's per-thread lines", function()
    local out, err, rc = h.run("cpu --threads=2 --time=1 --debug run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("DEBUG: Verbose per-thread statistics:\n\n", 1, true), out)
    for i = 0, 1 do
      assert.is_truthy(out:match("DEBUG:     thread #  " .. i .. ": min: [%d.]+s  avg: [%d.]+s  max: [%d.]+s  events: %d+\n" ..
        "DEBUG:                  total time taken by event execution: [%d.]+s\n"), out)
      assert.is_truthy(out:find("DEBUG: Worker thread (#" .. i .. ") initialized", 1, true))
    end
    assert.is_truthy(out:find("Time limit exceeded, exiting...\n(last message repeated 1 times)\nDone.\n\n", 1, true), out)
  end)
end)
