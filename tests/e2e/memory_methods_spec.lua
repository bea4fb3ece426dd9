-- memory --memory-method: mbw's three copy methods. The bytes copied are exactly copies x array
-- size (counted from what the copy loop returns), mbw's figures follow from the copy times, and
-- the text report carries mbw's AVG line.
local h = require("helpers")

local ARRAY = 4 * 1048576

local function run(method, extra)
  local out, err, rc = h.run(string.format("memory --memory-method=%s --memory-array-size=%d --memory-runs=3 --threads=2 %s --format=json run",
    method, ARRAY, extra or ""))
  assert.are.equal(0, rc, err)
  return h.json(out)
end

describe("memory --memory-method", function()
  for _, m in ipairs({ "memcpy", "dumb", "mcblock" }) do
    it(m .. " copies exactly runs x threads arrays, with mbw's figures", function()
      local r = run(m, m == "mcblock" and "--memory-copy-block-size=100000" or "")
      local w = r.workload_stats
      assert.are.equal(6, r.counters.events)
      assert.are.equal(6, w.copies)
      assert.are.equal(m, w.method)
      assert.are.equal(ARRAY, w.array_bytes)
      assert.are.equal(6 * ARRAY, w.bytes_copied)
      assert.are.equal(6 * ARRAY, r.counters.bytes_written)
      assert.are.equal(6 * ARRAY, r.counters.bytes_read)
      assert.are.equal(24, w.mib_copied)
      -- a copy's time is its event's latency: their average, and mbw's Copy = MiB / that
      assert.is_true(math.abs(w.copy_elapsed_avg_s - r.latency_ms.sum / 1e3 / 6) < 1e-6,
        w.copy_elapsed_avg_s .. " vs " .. r.latency_ms.sum)
      assert.is_true(math.abs(w.copy_mib_per_second * w.copy_elapsed_avg_s - 4) < 1e-9)
      assert.is_true(math.abs(w.mib_per_second * r.time_s - 24) < 1e-6)
      -- sane on any machine: more than 10 MiB/s, less than 10 TiB/s
      assert.is_true(w.copy_mib_per_second > 10 and w.copy_mib_per_second < 1e7, w.copy_mib_per_second)
    end)
  end

  it("prints mbw's AVG line and the aggregate", function()
    local out, err, rc = h.run("memory --memory-method=dumb --memory-array-size=1M --memory-runs=2 --threads=2 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Running memory copy test (mbw's DUMB method)", 1, true), out)
    assert.is_truthy(out:find("Copies: 4 of 1.00 MiB (4194304 bytes copied)\n", 1, true), out)
    assert.is_truthy(out:find("\nAVG\tMethod: DUMB\tElapsed: %d+%.%d%d%d%d%d\tMiB: 1%.00000\tCopy: %d+%.%d%d%d MiB/s\n"), out)
    assert.is_truthy(out:find("\nAggregate: 4.00 MiB copied in [%d.]+ s: [%d.]+ MiB/sec over 2 threads\n"), out)
    assert.is_truthy(out:find("total number of events:              4\n", 1, true))
  end)

  it("runs until --time with --memory-runs=0", function()
    local r = run("memcpy", "--memory-runs=0 --time=1")
    assert.is_true(r.counters.events > 6)
    assert.are.equal(r.counters.events * ARRAY, r.workload_stats.bytes_copied)
    assert.is_true(r.time_s >= 0.9)
  end)

  -- --memory-runs bounds the run: sysbench's endless-run warning is not for it, whereas its own
  -- memory test (bounded by --memory-total-size) keeps it, as sysbench prints it.
  it("does not warn of an endless test with --time=0 when --memory-runs bounds it", function()
    local warning = "WARNING: Both event and time limits are disabled, running an endless test"
    local out, err, rc = h.run("memory --memory-method=dumb --memory-array-size=64K --memory-runs=2 --time=0 run")
    assert.are.equal(0, rc, err)
    assert.is_falsy(err:find(warning, 1, true), err)
    assert.is_truthy(out:find("Copies: 2 of ", 1, true), out)
    _, err = h.run("memory --memory_method=mcblock --events=0 --time=0 help")
    assert.is_falsy(err:find(warning, 1, true), err)
    -- unbounded (--memory-runs=0) or sysbench's test: warned, as sysbench does
    for _, args in ipairs({ "--memory-method=dumb --memory-runs=0", "--memory-method= --memory-runs=2", "" }) do
      _, err = h.run("memory " .. args .. " --time=0 help")
      assert.is_truthy(err:find(warning, 1, true), args .. ": " .. err)
    end
    _, err = h.run("memory --memory-total-size=64K --time=0 run")
    assert.is_truthy(err:find(warning, 1, true), err)
  end)

  -- The interval lines once gave events x --memory-block-size (the reporter's state never ran
  -- init): "0.04 MiB/sec" while 11 GiB/s were copied. Each line must be the arrays the JSON
  -- interval of the same window counted, and the JSON interval says it too.
  it("reports intervals in MiB/s of the arrays copied, in the lines and the JSON", function()
    local file = h.tmpdir() .. "/memory-intervals.json"
    local out, err, rc = h.run(string.format("memory --memory-method=memcpy --memory-array-size=%d --memory-runs=0 " ..
      "--time=2 --report-interval=1 --output=%s run", ARRAY, file))
    assert.are.equal(0, rc, err)
    local r = h.json(h.read(file))
    assert.is_true(#r.intervals >= 1, out)
    local lines = 0
    for t, v in out:gmatch("%[ (%d+)s %] ([%d.]+) MiB/sec\n") do
      lines = lines + 1
      local iv
      for _, i in ipairs(r.intervals) do
        if string.format("%.0f", i.time_s) == t then iv = i end
      end
      assert.is_truthy(iv, t .. "s: " .. out)
      local copied = iv.events * ARRAY / 1048576 / iv.interval_s
      assert.are.equal(string.format("%.2f", copied), v)
      -- the bytes are counted as the copy returns, the event just after: one copy apart at most
      local one = ARRAY / 1048576 / iv.interval_s
      assert.is_true(copied > one, v)
      assert.is_true(math.abs(iv.write_mib_per_s - copied) <= one + 1e-9, iv.write_mib_per_s .. " vs " .. copied)
      assert.are.equal(iv.write_mib_per_s, iv.read_mib_per_s)
    end
    assert.is_true(lines >= 1, out)
    -- the run's rates carry the same bandwidth as workload_stats' aggregate
    assert.is_true(math.abs(r.rates.write_mib_per_s - r.workload_stats.mib_per_second) < 1e-6 * r.rates.write_mib_per_s)
  end)

  it("refuses bad values in one line", function()
    for _, c in ipairs({
      { "--memory-method=fast", "FATAL: Invalid value for memory-method: fast (expected memcpy, dumb or mcblock)" },
      { "--memory-method=dumb --memory-array-size=12", "FATAL: Invalid value for memory-array-size: 12 bytes (expected a positive multiple of 8)" },
      { "--memory-method=dumb --memory-runs=-1", "FATAL: Invalid value for memory-runs: -1" },
    }) do
      local _, err, rc = h.run("memory " .. c[1] .. " run")
      assert.are.equal(1, rc)
      assert.is_truthy(err:find(c[2], 1, true), err)
    end
  end)
end)
