-- The scripting API as sysbench 1.0.20 defines it: hook order, tids, options, legacy globals.
local h = require("helpers")

describe("hooks", function()
  it("run in the right states, in order, with the right tids", function()
    local p = h.write("hooks.lua", [[
print("chunk " .. sysbench.tid .. " opt=" .. tostring(sysbench.opt))
function init() print("init " .. sysbench.tid .. " threads=" .. sysbench.opt.threads) end
function thread_init(tid) print("thread_init " .. tid .. " " .. sysbench.tid) end
function event(tid) end
function thread_done(tid) print("thread_done " .. tid) end
function done() print("done") end
]])
    local out, err, rc = h.run(h.q(p) .. " --threads=3 --events=30 run")
    assert.are.equal(0, rc, err)
    -- main chunk: control state + one per worker; sysbench.opt is not there yet
    assert.are.equal(4, h.count(out, "chunk %d opt=nil"))
    assert.are.equal(1, h.count(out, "init 0 threads=3"))
    for t = 0, 2 do
      assert.are.equal(1, h.count(out, "thread_init " .. t .. " " .. t .. "\n"))
      assert.are.equal(1, h.count(out, "thread_done " .. t .. "\n"))
    end
    local i_init = out:find("init 0", 1, true)
    local i_running = out:find("Running the test", 1, true)
    local i_tinit = out:find("thread_init", 1, true)
    local i_started = out:find("Threads started!", 1, true)
    local i_general = out:find("General statistics", 1, true)
    local i_done = out:find("\ndone\n", 1, true)
    assert.is_true(i_init < i_running and i_running < i_tinit and i_tinit < i_started)
    assert.is_true(i_general < i_done, "done() runs after the final report")
  end)

  it("print() lines of threads printing at once stay whole", function()
    -- Lua's own print writes each argument, tab and newline separately (sysbench 1.0.20 mixes
    -- about 6% of such lines)
    local p = h.write("prints.lua", [[
function thread_init(tid)
  for i = 1, 3000 do print("thread", tid, "line", i, nil) end
end
function event() end
]])
    local out, err, rc = h.run(h.q(p) .. " --threads=4 --events=4 run")
    assert.are.equal(0, rc, err)
    assert.are.equal(12000, h.count(out, "thread\t%d\tline\t%d+\tnil\n"))
  end)

  it("stop a thread when event() returns a value, without counting that event", function()
    local p = h.write("stop.lua", "local n = 0\nfunction event() n = n + 1 if n > 5 then return true end end\n")
    local out, err, rc = h.run(h.q(p) .. " --threads=4 --time=10 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("total number of events:              20\n", 1, true))
  end)

  it("retry an event that raises RESTART_EVENT, calling before_restart_event", function()
    local p = h.write("restart.lua", [[
local tries = 0
sysbench.hooks.before_restart_event = function(e) print("restart " .. e.errcode .. " " .. e.why) end
function event()
  tries = tries + 1
  if tries % 3 ~= 0 then error({ errcode = sysbench.error.RESTART_EVENT, why = "try" .. tries }) end
end
]])
    local out, err, rc = h.run(h.q(p) .. " --events=10 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("total number of events:              10\n", 1, true))
    assert.are.equal(20, h.count(out, "restart 1 try%d+"))
  end)

  it("let report hooks replace the reports", function()
    local p = h.write("rhooks.lua", [[
function event() ffi.C.usleep(1000) end
ffi.cdef("int usleep(unsigned int);")
sysbench.hooks.report_intermediate = function(s) print(string.format("MYLINE tid=%d ev=%d lat=%s", sysbench.tid, s.events, type(s.latency_pct))) end
sysbench.hooks.report_cumulative = function(s) print(string.format("MYFINAL ev=%d min=%s max=%s avg=%s", s.events, type(s.latency_min), type(s.latency_max), type(s.latency_avg))) end
]])
    local out, err, rc = h.run(h.q(p) .. " --threads=2 --time=2 --report-interval=1 run")
    assert.are.equal(0, rc, err)
    assert.is_true(h.count(out, "MYLINE tid=2 ev=%d+ lat=number") >= 1)
    assert.are.equal(1, h.count(out, "MYFINAL ev=%d+ min=number max=number avg=number"))
    assert.is_falsy(out:find("General statistics", 1, true))
  end)

  it("provide sysbench.report_csv and report_json for intermediate reports", function()
    local p = h.write("csvhook.lua", "function event() end\nsysbench.hooks.report_intermediate = sysbench.report_csv\n")
    local out, err, rc = h.run(h.q(p) .. " --time=2 --report-interval=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:match("\n1,1,[%d.]+,[%d.]+,[%d.]+,[%d.]+,[%d.]+,[%d.]+,[%d.]+,[%d.]+\n"))
    p = h.write("jsonhook.lua", "function event() end\nsysbench.hooks.report_intermediate = sysbench.report_json\n")
    out, err, rc = h.run(h.q(p) .. " --time=2 --report-interval=1 run")
    assert.are.equal(0, rc, err)
    local arr = out:match("(%[\n.-\n%]\n)")
    assert.is_truthy(arr, out)
    local doc = h.json(arr)
    assert.is_true(#doc >= 1 and doc[1].time == 1 and doc[1].qps.total == 0)
  end)
end)

describe("options", function()
  it("are typed as sysbench types them", function()
    local p = h.write("types.lua", [[
sysbench.cmdline.options = {
  num = {"a number", 10},
  str = {"a string", "x"},
  flag = {"a bool", false},
  nildef_bool = {"bool without default", nil, sysbench.cmdline.ARG_BOOL},
  nildef_int = {"int without default", nil, sysbench.cmdline.ARG_INT},
  size = {"a size", "1M", sysbench.cmdline.ARG_SIZE},
  list = {"a list", {"a", "b"}},
  unset = {"unset string"},
}
function init()
  local o = sysbench.opt
  print("TYPES", type(o.num), o.num, type(o.str), o.str, type(o.flag), tostring(o.flag),
    tostring(o.nildef_bool), o.nildef_int, o.size, type(o.list), #o.list, o.list[2], "[" .. o.unset .. "]",
    type(o.threads), type(o.percentile), o.percentile)
end
function event() end
]])
    local out, err, rc = h.run(h.q(p) .. " --num=1e6 --size=2K --list=x,y,z --events=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("TYPES\tnumber\t1000000\tstring\tx\tboolean\tfalse\ttrue\t0\t2048\ttable\t3\ty\t[]\tnumber\tnumber\t95", 1, true), out)
  end)

  it("reject unknown options once a script declares options, and accept them in legacy mode", function()
    local p = h.write("legacy.lua", [[
function event() end
function init() print("LEGACY", oltp_table_size, type(oltp_table_size), thread_id, test ~= nil, type(sb_rand), type(sb_rand_uniq), DB_ERROR_RESTART_TRANSACTION, type(threads), sysbench.db.query == db_query, sysbench.db.DB_ERROR_FAILED) end
]])
    local out, err, rc = h.run(h.q(p) .. " --oltp-table-size=10000 --events=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("LEGACY\t10000\tstring\t0\ttrue\tfunction\tfunction\t1\tnumber\ttrue\t2", 1, true), out)
  end)
end)

describe("ffi names", function()
  it("accept sysbench's declarations of sb_counter_inc and SB_CNT_*", function()
    local src = 'ffi.cdef("void sb_counter_inc(int, sb_counter_type); uint32_t sb_rand_uniform(uint32_t, uint32_t);")\n' ..
      'sysbench.hooks.report_cumulative = function(s) print("ERRORS", s.errors, "READS", s.reads) end\n' ..
      'function event(tid)\n ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_ERROR)\n ffi.C.sb_counter_inc(tid, ffi.C.SB_CNT_READ)\n assert(ffi.C.sb_rand_uniform(5, 6) >= 5)\nend\n'
    local p = h.write("ffinames.lua", src)
    local out, err, rc = h.run(h.q(p) .. " --threads=2 --events=50 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("ERRORS\t50\tREADS\t50", 1, true), out)
  end)
end)

describe("random seed", function()
  it("reproduces every thread's numbers, for every distribution", function()
    local p = h.write("seed.lua", [[
ffi.cdef("int usleep(unsigned int);")
local seen = {}
local r = sysbench.rand
-- every distribution, the string template and the double draw
function event(tid)
  seen[#seen + 1] = table.concat({ r.uniform(1, 1e9), r.gaussian(1, 1e9), r.special(1, 1e9),
    r.pareto(1, 1e9), r.zipfian(1, 1e9), r.default(1, 1e9), r.string("###-@@@"),
    string.format("%.9f", r.uniform_double()) }, ":")
  ffi.C.usleep(200)
end
function thread_done(tid) print("SEQ " .. tid .. " " .. table.concat(seen, ",", 1, 5)) end
]])
    local a = h.run(h.q(p) .. " --threads=3 --events=150 --rand-seed=42 run")
    local b = h.run(h.q(p) .. " --threads=3 --events=150 --rand-seed=42 run")
    local c = h.run(h.q(p) .. " --threads=3 --events=150 --rand-seed=43 run")
    local function seqs(out)
      local t = {}
      for tid, s in out:gmatch("SEQ (%d) ([%w,:.%-]+)") do t[tid] = s end
      return t
    end
    local sa, sb, sc = seqs(a), seqs(b), seqs(c)
    for t = 0, 2 do
      assert.is_truthy(sa[tostring(t)], a)
      assert.are.equal(sa[tostring(t)], sb[tostring(t)])
      assert.are_not.equal(sa[tostring(t)], sc[tostring(t)])
    end
    assert.are_not.equal(sa["0"], sa["1"])
  end)
end)
