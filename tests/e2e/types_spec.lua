-- Per-type data everywhere (issue 20): T:begin() times a transaction from its first attempt
-- (retries of the same event keep that mark and are counted), per user with --users; the
-- per-type figures in the text table (with --percentile), JSON intervals, --format=csv and merge.
local h = require("helpers")

-- Every event fails twice (a RESTART_EVENT after 10 ms each) and commits at its third attempt:
-- a transaction timed from its first attempt takes >= 30 ms, three attempts, two retries. The
-- attempt count lives in user_data, so users sharing a Lua state keep their own.
local RETRIED = [[
local T = luabench.stats.type("transfer")
local Q = luabench.stats.type("quick")
function event()
  local ud = luabench.user_data
  local t0 = T:begin()
  ud.tries = (ud.tries or 0) + 1
  luabench.sleep(0.010)
  if ud.tries < 3 then error({ errcode = sysbench.error.RESTART_EVENT }) end
  assert(T:attempts() == 3, "attempts: " .. T:attempts())
  ud.tries = 0
  T:done()
  Q:done(Q:begin())
end
]]

local modes = {
  { name = "threads", args = "--threads=2" },
  { name = "--users", args = "--users=4 --threads=2" },
}

describe("per-type timing from the first attempt", function()
  local script = h.write("types_retried.lua", RETRIED)
  for _, m in ipairs(modes) do
    it("counts retries and includes the failed attempts' time (" .. m.name .. ")", function()
      local json = h.tmpdir() .. "/types-" .. m.name:gsub("%W", "") .. ".json"
      local out, err, rc = h.run(h.q(script) .. " " .. m.args .. " --events=40 --percentile=99.9 --output=" .. json .. " run")
      assert.are.equal(0, rc, err .. out)
      local r = h.json(h.read(json))
      local t = r.types.transfer
      assert.are.equal(40, t.count)
      assert.are.equal(80, t.retries, "two retries per transaction")
      assert.is_true(t.latency_ms.avg >= 30, "avg " .. t.latency_ms.avg)
      assert.is_true(t.latency_ms.percentiles["50"] >= 29.9, "p50 " .. t.latency_ms.percentiles["50"])
      assert.are.equal(0, r.types.quick.retries)
      -- both types are timed inside their events: together no longer than the events
      local inside = (t.latency_ms.avg + r.types.quick.latency_ms.avg) * 40
      assert.is_true(inside <= r.latency_ms.sum * (1 + 1e-6), inside .. " ms of " .. r.latency_ms.sum)
      -- the per-type table shows the run's --percentile besides p50/p90/p95/p99
      local head = out:match("\n(    type +count[^\n]*)")
      assert.is_truthy(head, out)
      assert.is_truthy(head:find("p50 +p90 +p95 +p99 +p99.9 +max", 1), head)
      local row = out:match("\n(    transfer [^\n]*)")
      local cells = {}
      for c in row:gmatch("%S+") do cells[#cells + 1] = c end
      assert.are.equal("40", cells[2])
      assert.are.equal("80", cells[#cells], "retries column")
      assert.is_true(math.abs(tonumber(cells[10]) - t.latency_ms.percentiles["99.9"]) < 0.01, row)
    end)
  end

  it("errors when done() has no mark in this event", function()
    local s = h.write("types_nomark.lua", 'local T = luabench.stats.type("x")\nfunction event() T:done() end\n')
    local _, err, rc = h.run(h.q(s) .. " --events=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("types_nomark.lua:2: x: done()/rollback() without a start mark", 1, true), err)
  end)

  it("outside an event (thread_init, user_init) every begin() is a fresh start", function()
    local s = h.write("types_outside.lua", [[
local T = luabench.stats.type("t")
function thread_init() for i = 1, 3 do local t0 = T:begin(); assert(T:attempts() == 0); T:done(t0) end end
function user_init() T:done(T:begin()) end
function event() T:done(T:begin()) end
]])
    for _, c in ipairs({ { "--threads=1", 13 }, { "--users=2 --threads=1", 15 } }) do
      local json = h.tmpdir() .. "/types-outside.json"
      local _, err, rc = h.run(h.q(s) .. " " .. c[1] .. " --events=10 --output=" .. json .. " run")
      assert.are.equal(0, rc, err)
      local t = h.json(h.read(json)).types.t
      assert.are.same({ c[2], 0 }, { t.count, t.retries }, c[1])
    end
  end)

  it("the old start() mark still restarts at each attempt", function()
    local s = h.write("types_start.lua", [[
local T = luabench.stats.type("t")
function event()
  local t0 = T:start()
  local ud = luabench.user_data
  ud.n = (ud.n or 0) + 1
  luabench.sleep(0.010)
  if ud.n % 2 == 1 then error({ errcode = sysbench.error.RESTART_EVENT }) end
  T:done(t0)
end
]])
    local json = h.tmpdir() .. "/types-start.json"
    local _, err, rc = h.run(h.q(s) .. " --events=10 --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    local r = h.json(h.read(json))
    local t = r.types.t
    -- one attempt's time: the events' time without their first attempts (10 ms each at least)
    assert.is_true(t.latency_ms.avg * 10 <= r.latency_ms.sum - 10 * 10,
      "one attempt's time: " .. t.latency_ms.avg .. " ms; events " .. r.latency_ms.sum .. " ms")
    assert.are.equal(0, t.retries)
  end)
end)

describe("per-type latency in the time series", function()
  local script = h.write("types_series.lua", [[
local A = luabench.stats.type("slow,one")
local B = luabench.stats.type("fast")
function event()
  local t0 = A:begin(); luabench.sleep(0.004); A:done(t0)
  B:done(B:begin())
end
]])

  it("JSON intervals carry each type's avg, percentiles and max; merge keeps avg and max", function()
    local json = h.tmpdir() .. "/series.json"
    local _, err, rc = h.run(h.q(script) .. " --threads=2 --time=3 --report-interval=1 --percentile=50,99 --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    local r = h.json(h.read(json))
    assert.is_true(#r.intervals >= 2)
    for _, iv in ipairs(r.intervals) do
      local a = iv.type_latency_ms["slow,one"]
      assert.is_truthy(a, "interval at " .. iv.time_s)
      assert.is_true(a["50"] >= 4 and a["50"] < 40, "p50 " .. a["50"])
      assert.is_true(a["99"] >= a["50"] and a.max >= a["99"] and a.avg >= 4)
      assert.is_true(iv.type_latency_ms.fast.avg < 1)
    end
    local merged = h.tmpdir() .. "/merged.json"
    local out
    out, err, rc = h.run("merge " .. json .. " " .. json .. " --format=json --output=" .. merged)
    assert.are.equal(0, rc, err .. out)
    local m = h.json(h.read(merged))
    local a, b = m.intervals[1].type_latency_ms["slow,one"], r.intervals[1].type_latency_ms["slow,one"]
    assert.is_true(math.abs(a.avg - b.avg) < 1e-9 and a.max == b.max, "avg and max of two equal inputs")
    assert.are.equal(2 * r.intervals[1].types["slow,one"], m.intervals[1].types["slow,one"])
  end)

  it("--format=csv has columns per type, equal in count to the types' rates", function()
    local out, err, rc = h.run(h.q(script) .. " --threads=2 --time=2 --report-interval=1 --percentile=50,99 --format=csv run")
    assert.are.equal(0, rc, err)
    local lines = {}
    for l in out:gmatch("[^\n]+") do lines[#lines + 1] = l end
    local head = {}
    for c in (lines[1] .. ","):gmatch("([^,]*),") do head[#head + 1] = c end
    local want = { "type_slow_one_per_s", "type_slow_one_lat_ms_avg", "type_slow_one_lat_ms_p50",
                   "type_slow_one_lat_ms_p99", "type_fast_per_s", "type_fast_lat_ms_avg",
                   "type_fast_lat_ms_p50", "type_fast_lat_ms_p99",
                   "type_slow_one_errors_per_s", "type_slow_one_rollbacks_per_s", "type_slow_one_retries_per_s",
                   "type_fast_errors_per_s", "type_fast_rollbacks_per_s", "type_fast_retries_per_s" }
    assert.are.same(want, { table.unpack(head, #head - 13, #head) })
    assert.is_true(#lines >= 3, out)
    for i = 2, #lines do
      local row = {}
      for c in (lines[i] .. ","):gmatch("([^,]*),") do row[#row + 1] = c end
      assert.are.equal(#head, #row, lines[i])
      local col = {}
      for k, name in ipairs(head) do col[name] = tonumber(row[k]) end
      assert.is_true(math.abs(col.type_slow_one_per_s - col.tps) < 0.01, lines[i])
      assert.is_true(col.type_slow_one_lat_ms_p50 >= 4, lines[i])
    end
  end)
end)

-- --report-statements (like pgbench -r): each statement's count, errors and latency, literals
-- shown as ?, in the text report, the JSON result and merges; nothing when off.
describe("--report-statements", function()
  local script = h.write("statements.lua", [[
local con, st
function thread_init()
  con = sysbench.sql.driver():connect()
  st = con:prepare("SELECT 2 AS m")
end
function event()
  local ud = luabench.user_data
  ud.n = (ud.n or 0) + 1
  if ud.n % 2 == 1 then con:query("SELECT * FROM no_such_table_st20") end -- fails, ignored: retried
  con:query(string.format("SELECT %d AS n, 'it''s' AS s", sysbench.rand.uniform(1, 1000)))
  st:execute()
end
]])
  for _, driver in ipairs(h.drivers) do
    for _, m in ipairs(modes) do
      it("lists each statement with count, errors and latency on " .. driver .. " (" .. m.name .. ")", function()
        local db = h.db(driver)
        if not db then pending("no " .. driver .. " sandbox") return end
        local json = h.tmpdir() .. "/st-" .. driver .. m.name:gsub("%W", "") .. ".json"
        local args = h.q(script) .. " " .. db .. " " .. m.args .. " --events=50 --" .. driver .. "-ignore-errors=all"
        local out, err, rc = h.run(args .. " --report-statements --percentile=50,99 --output=" .. json .. " run")
        assert.are.equal(0, rc, err .. out)
        local r = h.json(h.read(json))
        local by = {}
        for _, s in ipairs(r.statements) do by[s.sql] = s end
        assert.are.equal(3, #r.statements, out)
        local q, p, bad = by["SELECT ? AS n, ? AS s"], by["SELECT ? AS m"], by["SELECT * FROM no_such_table_st20"]
        assert.is_truthy(q and p and bad, out)
        assert.are.same({ 50, 0 }, { q.count, q.errors })
        assert.are.same({ 50, 0 }, { p.count, p.errors })
        assert.are.same({ 0, 50 }, { bad.count, bad.errors })
        assert.is_true(q.latency_ms.avg > 0 and q.latency_ms.percentiles["99"] >= q.latency_ms.percentiles["50"])
        assert.are.equal(50, q.histogram.count)
        local block = out:match("\nStatements %(latency in ms%):\n(.-)\n\n")
        assert.is_truthy(block, out)
        assert.is_truthy(block:find("count +errors +avg +p50 +p99 +max  statement"), block)
        assert.is_truthy(block:find("\n +50 +0 [%d. ]+  SELECT %? AS n, %? AS s\n"), block)
        assert.is_truthy(block:find("\n +0 +50 [%d. ]+  SELECT %* FROM no_such_table_st20"), block)
        -- merge adds them up by text
        local merged = h.tmpdir() .. "/st-merged.json"
        out, err, rc = h.run("merge " .. json .. " " .. json .. " --format=json --output=" .. merged)
        assert.are.equal(0, rc, err .. out)
        local mm = h.json(h.read(merged))
        local mby = {}
        for _, s in ipairs(mm.statements) do mby[s.sql] = s end
        assert.are.same({ 100, 0 }, { mby["SELECT ? AS m"].count, mby["SELECT ? AS m"].errors })
        assert.are.equal(100, mby["SELECT * FROM no_such_table_st20"].errors)
        assert.is_true(math.abs(mby["SELECT ? AS n, ? AS s"].latency_ms.avg - q.latency_ms.avg) < 1e-6)
        -- off: no block, no key
        out, err, rc = h.run(args .. " --output=" .. json .. " run")
        assert.are.equal(0, rc, err .. out)
        assert.is_falsy(out:find("Statements (latency", 1, true))
        assert.is_nil(h.json(h.read(json)).statements)
      end)
    end
  end
end)

-- Per-type outcomes add up to the event counters (issue 24): a transaction begun with begin()
-- whose event then fails is that type's error (the type stays in the table), retries and
-- rollbacks are counted, in the text table, the JSON result and the CSV lines.
describe("per-type accounting", function()
  local ACCOUNT = [[
local OK = luabench.stats.type("ok")
local FAIL = luabench.stats.type("fail")
local NEVER = luabench.stats.type("never")
local RETRY = luabench.stats.type("retry")
local RB = luabench.stats.type("rb")
local uniform = sysbench.rand.uniform
function event()
  local u = luabench.user_data
  if OK:attempts() + FAIL:attempts() + NEVER:attempts() + RETRY:attempts() + RB:attempts() == 0 then
    u.kind = uniform(1, 5) -- a new event (not a retry)
  end
  if u.kind == 1 then
    OK:begin(); OK:done()
  elseif u.kind == 2 then
    FAIL:begin()
    if uniform(1, 3) == 1 then error("payment refused") end
    FAIL:done()
  elseif u.kind == 3 then
    NEVER:begin()
    error("always refused") -- every one fails: the type stays in the table with its errors
  elseif u.kind == 4 then
    RETRY:begin()
    if RETRY:attempts() == 1 then error({ errcode = sysbench.error.RESTART_EVENT }) end
    RETRY:done()
  else
    RB:begin(); RB:rollback()
  end
end
]]

  it("adds up to the events and failed events with --users, in text, JSON and CSV", function()
    local p = h.write("account.lua", ACCOUNT)
    local json = h.tmpdir() .. "/account.json"
    local out, err, rc = h.run(h.q(p) .. " --users=8 --threads=2 --events=2000 --report-interval=1 --output=" ..
      json .. " run")
    assert.are.equal(0, rc, err)
    local doc = h.json(h.read(json))
    local t = doc.types
    assert.is_not_nil(t.never, "a type whose every transaction fails stays")
    assert.are.equal(0, t.never.count)
    assert.is_true(t.never.errors > 0)
    local count, errors, retries, rollbacks = 0, 0, 0, 0
    for _, ty in pairs(t) do
      count, errors = count + ty.count, errors + ty.errors
      retries, rollbacks = retries + ty.retries, rollbacks + ty.rollbacks
    end
    assert.are.equal(doc.counters.events, count, "completed transactions = events")
    assert.are.equal(doc.counters.failed_events, errors, "errors = failed events")
    assert.are.equal(t.retry.count, t.retry.retries, "one retry per retried transaction")
    assert.are.equal(t.rb.count, rollbacks)
    assert.are.equal(2000, doc.counters.events + doc.counters.failed_events)
    -- the text table: errors, rollbacks, retries per type
    local line = out:match("\n    never +0 [^\n]*")
    assert.is_truthy(line, out)
    assert.are.equal(tostring(t.never.errors), line:match("(%d+) +0 +0$"), line)
    line = out:match("\n    retry [^\n]*")
    assert.are.equal(tostring(t.retry.retries), line:match("(%d+)$"), line)
  end)

  it("--format=csv has each type's errors, rollbacks and retries per second", function()
    local p = h.write("account_csv.lua", ACCOUNT)
    local out, err, rc = h.run(h.q(p) .. " --users=4 --threads=1 --time=2 --report-interval=1 --format=csv run")
    assert.are.equal(0, rc, err)
    local header = out:match("^[^\n]+")
    for _, name in ipairs({ "ok", "fail", "never", "retry", "rb" }) do
      for _, what in ipairs({ "errors", "rollbacks", "retries" }) do
        assert.is_truthy(header:find(",type_" .. name .. "_" .. what .. "_per_s", 1, true), header)
      end
    end
    local cols = {}
    for c in header:gmatch("[^,]+") do cols[#cols + 1] = c end
    local row = {}
    for v in (out:match("\n([^\n]+)") .. ","):gmatch("([^,]*),") do row[#row + 1] = v end
    assert.are.equal(#cols, #row)
    local at = {}
    for i, c in ipairs(cols) do at[c] = tonumber(row[i]) end
    assert.is_true(at.type_never_errors_per_s > 0, out)
    assert.is_true(at.type_retry_retries_per_s > 0, out)
    assert.is_true(at.type_rb_rollbacks_per_s > 0, out)
    assert.are.equal(0, at.type_ok_errors_per_s)
  end)
end)
