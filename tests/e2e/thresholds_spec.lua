-- --threshold (issue 20): pass/fail conditions on the final window set the exit code (4), are
-- printed after the report and recorded in the result file; bad syntax is one line before the
-- run.
local h = require("helpers")

local function outcome(doc, text)
  for _, t in ipairs(doc.thresholds or {}) do
    if t.threshold == text then return t end
  end
end

describe("--threshold", function()
  local dir = h.tmpdir()

  it("passes: exit 0, a pass line each, the JSON records them with the observed values", function()
    local path = dir .. "/thr_pass.json"
    local out, err, rc = h.run("cpu --cpu-max-prime=2000 --time=1 --threshold='p95<10s' " ..
      "--threshold='tps>1,errors<0.1%' --threshold='p99.9 <= 10 s' --output=" .. path .. " run")
    assert.are.equal(0, rc, err)
    local block = out:match("\nThresholds:\n(.-)\n\n")
    assert.is_truthy(block, out)
    assert.is_truthy(block:find("    p95<10s +pass  %(%d+%.%d+ ms%)"), block)
    assert.is_truthy(block:find("    tps>1 +pass  %(%d+%.%d+ per sec%.%)"), block)
    assert.is_truthy(block:find("    errors<0.1%% +pass  %(0.0000%%%)"), block)
    assert.is_truthy(block:find("    p99.9<=10s +pass"), block)
    assert.is_falsy(block:find("failed", 1, true), block)
    -- after the report
    assert.is_true(out:find("Thresholds:", 1, true) > out:find("Threads fairness:", 1, true))
    local doc = h.json(h.read(path))
    assert.are.equal("ok", doc.status)
    assert.are.equal(4, #doc.thresholds)
    local p95 = outcome(doc, "p95<10s")
    assert.are.same({ "p95", "<", 10000, "ms", true }, { p95.metric, p95.op, p95.limit, p95.unit, p95.pass })
    -- the observed p95 is the report's own figure
    assert.are.equal(doc.latency_ms.percentiles["95"], p95.observed)
    local tps = outcome(doc, "tps>1")
    assert.are.equal(doc.rates.events_per_s, tps.observed)
    assert.are.equal("per_s", tps.unit)
    assert.are.equal(0, outcome(doc, "errors<0.1%").observed)
  end)

  it("fails: exit 4, FAIL lines, the JSON says which and why", function()
    local path = dir .. "/thr_fail.json"
    local out, err, rc = h.run("cpu --cpu-max-prime=2000 --time=1 --threshold='tps>100000000' " ..
      "--threshold='p95<1us,p95<10s' --output=" .. path .. " run")
    assert.are.equal(4, rc, err)
    assert.is_truthy(out:find("    tps>100000000 +FAIL  %(%d+%.%d+ per sec%.%)"), out)
    assert.is_truthy(out:find("    p95<1us +FAIL"), out)
    assert.is_truthy(out:find("    p95<10s +pass"), out)
    assert.is_truthy(out:find("    2 of 3 thresholds failed\n", 1, true), out)
    local doc = h.json(h.read(path))
    assert.are.equal("ok", doc.status) -- the run itself went well
    assert.is_false(outcome(doc, "tps>100000000").pass)
    assert.are.equal(0.001, outcome(doc, "p95<1us").limit)
  end)

  it("with --format=json: in the document on stdout, the lines on stderr", function()
    local out, err, rc = h.run("cpu --cpu-max-prime=2000 --time=1 --format=json --threshold='tps>100000000' run")
    assert.are.equal(4, rc, err)
    local doc = h.json(out)
    assert.is_false(doc.thresholds[1].pass)
    assert.is_truthy(err:find("tps>100000000 +FAIL"), err)
  end)

  it("per transaction type", function()
    local mix = h.write("thr_mix.lua", [[
local FAST = luabench.stats.type("Fast")
local SLOW = luabench.stats.type("Slow")
local n = 0
function event()
  n = n + 1
  local t0 = FAST:start()
  FAST:done(t0)
  if n % 10 == 0 then
    t0 = SLOW:start()
    ffi.C.usleep(20000)
    SLOW:done(t0)
  end
end
ffi.cdef("int usleep(unsigned int);")
]])
    local path = dir .. "/thr_types.json"
    local out, err, rc = h.run(h.q(mix) .. " --time=1 --threshold='Fast.p99<5ms,Slow.p50>=15ms,Slow.max<1s' " ..
      "--threshold='Slow.p95<10ms' --output=" .. path .. " run")
    assert.are.equal(4, rc, err)
    local doc = h.json(h.read(path))
    assert.is_true(outcome(doc, "Fast.p99<5ms").pass)
    assert.is_true(outcome(doc, "Slow.p50>=15ms").pass)
    assert.is_true(outcome(doc, "Slow.max<1s").pass)
    local slow = outcome(doc, "Slow.p95<10ms")
    assert.is_false(slow.pass)
    assert.are.equal(doc.types.Slow.latency_ms.percentiles["95"], slow.observed)
    assert.is_truthy(out:find("1 of 4 thresholds failed", 1, true), out)
  end)

  it("as sysbench: no lines (sysbench prints none), the exit code still says", function()
    local link = dir .. "/sysbench"
    os.execute("ln -sf " .. h.q(h.bin) .. " " .. h.q(link))
    local p = io.popen(h.q(link) .. " cpu --cpu-max-prime=2000 --time=1 --threshold='tps>100000000' run 2>&1; echo rc=$?")
    local out = p:read("*a")
    p:close()
    assert.is_truthy(out:find("rc=4", 1, true), out)
    assert.is_falsy(out:find("Threshold", 1, true), out)
  end)

  it("refuses a type the script does not define before the run, with a suggestion", function()
    local script = h.write("thr_hold.lua", [[
local HOLD = luabench.stats.type("hold")
local PAY = luabench.stats.type("pay")
function event() HOLD:done(HOLD:start()) end
]])
    for _, case in ipairs({
      { "hodl.p95<50ms", "FATAL: threshold 'hodl.p95<50ms': no transaction type 'hodl' (did you mean 'hold'?)" },
      { "browse.errors<1%", "FATAL: threshold 'browse.errors<1%': no transaction type 'browse' (the script's types: hold, pay)" },
    }) do
      local t0 = h.now()
      local out, err, rc = h.run(h.q(script) .. " --time=600 --threshold=" .. h.q(case[1]) .. " --output=" .. dir .. "/thr_refused.json run")
      assert.are.equal(1, rc, err)
      assert.is_true(h.now() - t0 < 5, "it ran")
      assert.is_truthy(err:find(case[2], 1, true), err)
      assert.are.equal(1, h.count(err, "\n"), err)
      assert.is_falsy(out:find("Threads started!", 1, true), out)
      assert.are.equal("error", h.json(h.read(dir .. "/thr_refused.json")).status)
    end
    -- a type defined but never run is not refused: it fails after the run (no transactions)
    local path = dir .. "/thr_never.json"
    local out, err, rc = h.run(h.q(script) .. " --time=1 --threshold='pay.p95<50ms' --output=" .. path .. " run")
    assert.are.equal(4, rc, err)
    assert.is_truthy(out:find("    pay.p95<50ms +FAIL  %(no transactions of this type%)"), out)
    local missing = outcome(h.json(h.read(path)), "pay.p95<50ms")
    assert.are.equal("pay", missing.type)
    assert.are_not.equal("number", type(missing.observed)) -- null
    assert.are.equal("no transactions of this type", missing.missing)
  end)

  for _, case in ipairs({
    { "p95x<50ms", "threshold 'p95x<50ms': unknown metric 'p95x' (did you mean 'p95'?)" },
    { "NewOrder.reconects<1", "threshold 'NewOrder.reconects<1': unknown metric 'reconects' (did you mean 'reconnects'?)" },
    { "p95", "threshold 'p95': expected [TYPE.]METRIC<VALUE" },
    { "p95<fast", "threshold 'p95<fast': 'fast' is not a number" },
    { "tps>5ms", "threshold 'tps>5ms': unit 'ms' does not fit tps" },
  }) do
    it("refuses '" .. case[1] .. "' in one line before the run", function()
      local out, err, rc = h.run("cpu --time=1 --threshold=" .. h.q(case[1]) .. " run")
      assert.are.equal(1, rc)
      assert.are.equal("", out) -- not even the banner
      assert.is_truthy(err:find("FATAL: " .. case[2], 1, true), err)
      assert.are.equal(1, h.count(err, "\n"), err)
    end)
  end

  -- a name that is none of luabench's figures may be a metric the script declares
  -- (luabench.counter, .rate, .gauge): known once the script is loaded, still before the run
  it("refuses a name the script does not declare either, before the run", function()
    local out, err, rc = h.run("cpu --time=1 --threshold='lat<5' run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("FATAL: threshold 'lat<5': unknown metric 'lat' (metrics: pNN (e.g. p95, p99.9), avg, "
      .. "min, max, tps, qps, errors, events or reconnects; the script declares no luabench.counter, .rate or .gauge)",
      1, true), err)
    assert.are.equal(1, h.count(err, "\n"), err)
    assert.is_falsy(out:find("Threads started!", 1, true), out)
  end)

  describe("on a small OLTP run", function()
    local db = h.db("pgsql")
    if not db then
      pending("the pgsql sandbox is not running")
      return
    end
    local oltp = "oltp_read_write " .. db .. " --tables=1 --table-size=1000 "
    setup(function()
      h.run(oltp .. "cleanup")
      local _, err, rc = h.run(oltp .. "prepare")
      assert(rc == 0, err)
    end)
    teardown(function() h.run(oltp .. "cleanup") end)

    it("passes and fails on queries, latency, errors and reconnects", function()
      local path = dir .. "/thr_oltp.json"
      local out, err, rc = h.run(oltp .. "--threads=2 --time=2 --threshold='qps>10,p95<5s,errors<50%,reconnects<1' " ..
        "--output=" .. path .. " run")
      assert.are.equal(0, rc, err)
      local doc = h.json(h.read(path))
      local qps = outcome(doc, "qps>10")
      assert.is_true(qps.pass)
      assert.are.equal(doc.rates.queries_per_s, qps.observed)
      assert.is_true(outcome(doc, "errors<50%").pass)
      assert.is_true(outcome(doc, "reconnects<1").pass)
      out, err, rc = h.run(oltp .. "--threads=2 --time=2 --threshold='qps>100000000' run")
      assert.are.equal(4, rc, err)
      assert.is_truthy(out:find("qps>100000000 +FAIL"), out)
    end)
  end)
end)
