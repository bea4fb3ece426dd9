-- sysbench.report_default / report_csv / report_json: the same lines as sysbench 1.0.20's for
-- the same statistics (run side by side), plus the documented differences.
local h = require("helpers")

local SCRIPT = [[
sysbench.opt = sysbench.opt or {}
sysbench.opt.percentile = sysbench.opt.percentile or 95
local stat = { time_total = 12.4, time_interval = 2, threads_running = 8, events = 2001, reads = 14000,
  writes = 4000, other = 2002, latency_pct = 0.0123456, errors = 3, reconnects = 1 }
sysbench.report_default(stat)
sysbench.report_csv(stat)
stat.time_total, stat.threads_running, stat.latency_pct = 999.6, 1, 1.5
sysbench.report_default(stat)
sysbench.report_csv(stat)
sysbench.report_json(stat)
stat.time_total = 1001
sysbench.report_json(stat)
]]

local function body(s) return (s:gsub("^[^\n]*\n", "")) end -- the banners differ

describe("built-in reporters", function()
  it("print what sysbench 1.0.20 prints", function()
    local path = h.write("reporters.lua", SCRIPT)
    local lb, err, rc = h.run(path)
    assert.are.equal(0, rc, err)
    local p = io.popen("sysbench " .. h.q(path) .. " 2>&1")
    local sb = p:read("*a")
    p:close()
    assert.is_truthy(sb:find("[ 12s ] thds: 8 tps: 1000.50 qps: 10001.00 (r/w/o: 7000.00/2000.00/1001.00) " ..
      "lat (ms,95%): 12.35 err/s 1.50 reconn/s: 0.50", 1, true), sb)
    -- luabench closes the JSON array when the state closes; sysbench never does
    assert.are.equal(body(sb) .. "\n]\n", body(lb))
  end)

  it("the JSON intervals parse once the state has closed", function()
    local path = h.write("reporters_json.lua", SCRIPT:gsub("sysbench.report_default%(stat%)\n", "")
      :gsub("sysbench.report_csv%(stat%)\n", ""))
    local out, err, rc = h.run(path)
    assert.are.equal(0, rc, err)
    local j = h.json(body(out))
    assert.are.equal(2, #j)
    assert.are.equal(1001, j[2].time)
    assert.are.equal(1000.5, j[1].tps)
    assert.are.equal(7000, j[1].qps.reads)
  end)

  it("an interval of 0 s gives finite rates", function()
    local out, err, rc = h.run("- --verbosity=1", { stdin = [[
      sysbench.opt = sysbench.opt or { percentile = 95 }
      sysbench.report_csv({ time_total = 1, time_interval = 0, threads_running = 1, events = 5, reads = 1,
        writes = 2, other = 3, latency_pct = 0.001, errors = 0, reconnects = 0 })
    ]] })
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("1,1,5.00,6.00,1.00,2.00,3.00,1.00,0.00,0.00", 1, true), out)
  end)
  it("the default line names the --percentile in use, and every figure is per second", function()
    local saved, real, lines = rawget(sysbench, "opt"), _G.print, {}
    sysbench.opt = { percentile = 99.9 }
    _G.print = function(l) lines[#lines + 1] = l end
    local ok, err = pcall(sysbench.report_default, { time_total = 30, time_interval = 4, threads_running = 2,
      events = 40, reads = 80, writes = 20, other = 8, latency_pct = 0.25, errors = 2, reconnects = 4 })
    _G.print, sysbench.opt = real, saved
    assert(ok, err)
    assert.are.same({ "[ 30s ] thds: 2 tps: 10.00 qps: 27.00 (r/w/o: 20.00/5.00/2.00) lat (ms,99.9%): 250.00 "
      .. "err/s 0.50 reconn/s: 1.00" }, lines)
  end)
end)
