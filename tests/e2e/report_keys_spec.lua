-- What luabench adds to a sysbench-layout report never matches what people grep sysbench's report
-- for. The keys are taken from sysbench 1.0.20's own report lines (cpu, memory, threads, mutex,
-- fileio and a script with SQL on the sandbox PostgreSQL): each line's label ("min:", "total
-- number of events:", "read, MiB/s:") and its last word ("events:"), plus "events". A line of a
-- luabench report whose label sysbench's reports do not have is an added line (system statistics,
-- per-type tables, emulated users, rate, statements, fileio's directions, stall lines); none may
-- contain a key, so `grep min: | awk '{print $2}'` prints one number, as with sysbench.
local h = require("helpers")

local dir = h.tmpdir() .. "/keys"
os.execute("mkdir -p " .. h.q(dir))

local SYSBENCH = "/usr/bin/sysbench"

local function sh(cmd)
  local p = io.popen("cd " .. h.q(dir) .. " && " .. cmd .. " 2>&1; echo \"::rc=$?\"")
  local out = p:read("*a")
  p:close()
  local rc = tonumber(out:match("::rc=(%d+)%s*$"))
  return out:gsub("::rc=%d+%s*$", ""), rc
end

local function run_ok(cmd)
  local out, rc = sh(cmd)
  assert(rc == 0, cmd .. " failed (" .. tostring(rc) .. "): " .. out)
  return out
end

-- The report part of an output: what follows "Threads started!".
local function report_lines(out)
  local lines, on = {}, false
  for line in out:gmatch("[^\n]+") do
    if on then lines[#lines + 1] = line end
    if line:find("Threads started!", 1, true) then on = true end
  end
  assert(#lines > 0, "no report in:\n" .. out)
  return lines
end

-- A report line's label: up to its first colon, without the leading blanks and the "[ 1s ]" of
-- intermediate lines; a line without a colon is its own label.
local function label(line)
  local l = line:gsub("^%s*%[ *[%d.]+s *%]%s*", ""):gsub("^%s+", "")
  return l:match("^([^:]*:)") or l
end

local function sysbench_keys(outputs)
  local labels, keys = {}, { ["events"] = true }
  for _, out in ipairs(outputs) do
    for _, line in ipairs(report_lines(out)) do
      local l = label(line)
      if l:sub(-1) == ":" then
        labels[l] = true
        keys[l] = true
        local last = l:match("(%S+:)$")
        if last and last:match("^%a") then keys[last] = true end -- "min:", "events:"; not "(ms):"
      end
    end
  end
  return labels, keys
end

-- Added lines (labels sysbench's reports do not have) that contain a key.
local function collisions(out, labels, keys)
  local bad = {}
  for _, line in ipairs(report_lines(out)) do
    if not labels[label(line)] then
      for k in pairs(keys) do
        if line:find(k, 1, true) then bad[#bad + 1] = string.format("'%s' in: %s", k, line) end
      end
    end
  end
  return bad
end

describe("the lines luabench adds to a sysbench-layout report", function()
  local labels, keys
  local db = h.db("pgsql")
  local sqlscript = h.write("keys_sql.lua", [[
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
]])

  setup(function()
    local outs = {
      run_ok(SYSBENCH .. " cpu --time=1 --report-interval=1 run"),
      run_ok(SYSBENCH .. " memory --memory-total-size=1M run"),
      run_ok(SYSBENCH .. " threads --time=1 run"),
      run_ok(SYSBENCH .. " mutex --mutex-num=64 --mutex-locks=1000 run"),
    }
    run_ok(SYSBENCH .. " fileio --file-total-size=2M --file-num=2 prepare")
    outs[#outs + 1] = run_ok(SYSBENCH .. " fileio --file-total-size=2M --file-num=2 --file-test-mode=rndrw --time=1 run")
    if db then outs[#outs + 1] = run_ok(SYSBENCH .. " " .. h.q(sqlscript) .. " " .. db .. " --time=1 run") end
    labels, keys = sysbench_keys(outs)
    for _, k in ipairs({ "min:", "avg:", "max:", "total:", "transactions:", "queries:", "total time:" }) do
      local sql_only = k == "transactions:" or k == "queries:" or k == "total:"
      if db or not sql_only then assert.is_true(keys[k], "no key " .. k) end
    end
  end)

  local function check(args)
    local out = run_ok(h.q(h.bin) .. " " .. args)
    local bad = collisions(out, labels, keys)
    assert.are.same({}, bad, args .. "\n" .. out)
    return out
  end

  it("leave sysbench's grep keys alone: system statistics, intermediate lines", function()
    local out = check("cpu --time=2 --report-interval=1 --system-stats=on run")
    assert.truthy(out:find("System statistics", 1, true), out)
    local sb = run_ok(SYSBENCH .. " cpu --time=1 run")
    assert.are.equal(h.count(sb, "min:"), h.count(out, "min:"))
    assert.are.equal(h.count(sb, "avg:"), h.count(out, "avg:"))
    assert.are.equal(h.count(sb, "max:"), h.count(out, "max:"))
  end)

  it("leave them alone: fileio's directions", function()
    check("fileio --file-total-size=2M --file-num=2 --file-test-mode=rndrw --time=1 --report-interval=1 run")
  end)

  it("leave them alone: per-type tables, emulated users, rate, stalls", function()
    local script = h.write("keys_types.lua", [[
local T
function thread_init() T = luabench.stats.type("pay") end
function event() local t0 = T:begin(); luabench.sleep(0.001); T:done(t0) end
]])
    check(h.q(script) .. " --users=4 --time=2 --report-interval=1 run")
    check(h.q(script) .. " --rate=200 --time=2 --report-interval=1 run")
    -- an event longer than the interval: stall lines
    local slow = h.write("keys_slow.lua", "function event() luabench.sleep(2.5) end\n")
    local out = check(h.q(slow) .. " --time=2 --report-interval=1 run")
    assert.truthy(out:find("stalled:", 1, true), out)
  end)

  it("leave them alone: SQL runs with statements", function()
    if not db then pending("no PostgreSQL sandbox") return end
    local out = check(h.q(sqlscript) .. " " .. db .. " --time=1 --report-statements run")
    assert.truthy(out:find("SQL statistics", 1, true), out)
    -- a statement still running when the run ends: the cut-off note
    local hung = h.write("keys_hung.lua", [=[
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT pg_sleep(3)") end
]=])
    out = sh(h.q(h.bin) .. " " .. h.q(hung) .. " " .. db .. " --time=1 --end-grace=0.3 run")
    assert.truthy(out:find("Cut off at the end", 1, true), out)
    assert.are.same({}, collisions(out, labels, keys), out)
  end)
end)
