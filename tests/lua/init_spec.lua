-- luabench.init: the scripting API every Lua state gets (the sysbench table, luabench-only
-- functions, print, --luajit-cmd).
local h = require("helpers")

describe("luabench.init", function()
  it("sysbench and luabench are one table, with sysbench's version", function()
    assert.are.equal(sysbench, luabench)
    assert.are.equal("1.0.20", sysbench.version)
    assert.is_truthy(sysbench.version_string:match("^sysbench 1%.0%.20 %(luabench [%d.]+%)$"), sysbench.version_string)
    assert.are.equal(0, sysbench.tid)
    assert.are.same({ NONE = 0, RESTART_EVENT = 1 }, sysbench.error)
    assert.are.equal(ffi, require("ffi"))
  end)

  it("loads sql, stats and io on first use", function()
    assert.is_nil(rawget(sysbench, "io") and nil)
    assert.are.equal("function", type(luabench.io.open))
    assert.are.equal("function", type(luabench.stats.type))
    assert.are.equal("function", type(sysbench.sql.driver))
    assert.are.equal(luabench.io, rawget(luabench, "io"))
  end)

  it("time() is monotonic and sleep() sleeps", function()
    local t0 = luabench.time()
    luabench.sleep(0.05)
    local t1 = luabench.time()
    assert.is_true(t1 - t0 >= 0.049 and t1 - t0 < 1, "slept " .. (t1 - t0))
    assert.is_false(luabench.stopping())
  end)

  it("shared memory: same name, same memory; atomics return the value before", function()
    local p = luabench.shared("init_spec.n", "uint64_t", 4)
    local q = luabench.shared("init_spec.n", "uint64_t", 4)
    assert.are.equal(ffi.cast("void *", p), ffi.cast("void *", q))
    assert.are.equal(0, tonumber(p[3]))
    assert.are.equal(0, tonumber(luabench.atomic_add(p + 1, 5)))
    assert.are.equal(5, tonumber(luabench.atomic_load(q + 1)))
    assert.are.equal(5, tonumber(luabench.atomic_cas(p + 1, 5, 9)))
    assert.are.equal(9, tonumber(luabench.atomic_cas(p + 1, 5, 11)))
    assert.are.equal(9, tonumber(q[1]))
    local ok, err = pcall(luabench.shared, "init_spec.n", "uint64_t", 5)
    assert.is_false(ok)
    assert.is_truthy(err:find("shared object 'init_spec.n' exists with another size (asked 40 bytes)", 1, true), err)
  end)

  it("instance and instances come from --instance", function()
    assert.are.equal(0, luabench.instance)
    assert.are.equal(1, luabench.instances)
    local out, err, rc = h.run("- --verbosity=1 --instance=2/3 --events=1 --time=0 run", { stdin =
      "function thread_init() print('I', luabench.instance, luabench.instances) end function event() end" })
    assert.are.equal(0, rc, err)
    assert.are.equal("I\t2\t3", out:match("I\t[^\n]*"))
  end)

  it("print() writes each line whole, even from many threads", function()
    local script = [[
      function event() print("line", sysbench.tid, "abcdefghijklmnopqrstuvwxyz", 42) end
    ]]
    local out, err, rc = h.run("- --verbosity=1 --threads=4 --events=4000 --time=0 run", { stdin = script })
    assert.are.equal(0, rc, err)
    local n = 0
    for l in out:gmatch("[^\n]*line[^\n]*") do
      n = n + 1
      assert.is_truthy(l:match("^line\t%d\tabcdefghijklmnopqrstuvwxyz\t42$"), l)
    end
    assert.are.equal(4000, n)
  end)

  it("--luajit-cmd runs LuaJIT's commands and names a bad one in one line", function()
    local out, err, rc = h.run("- --verbosity=1 --luajit-cmd=off", { stdin = "print('JIT', jit.status())" })
    assert.are.equal(0, rc, err)
    assert.are.equal("JIT\tfalse", out:match("JIT\t%a+"))
    local _, err2, rc2 = h.run("- --verbosity=1 --luajit-cmd=nope", { stdin = "print(1)" })
    assert.are.equal(1, rc2)
    assert.are.equal("FATAL: --luajit-cmd: unknown LuaJIT command 'nope'", err2:match("FATAL:[^\n]*"))
  end)
end)
