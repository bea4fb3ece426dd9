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

  it("shared memory has the element type asked, whatever was asked before", function()
    -- (under busted's ffi.typeof cache every call got the first type: see run_busted.lua)
    local a = luabench.shared("init_spec.u64", "uint64_t", 2)
    local b = luabench.shared("init_spec.u32", "uint32_t", 3)
    local c = luabench.shared("init_spec.dbl", "double")
    local d = luabench.shared("init_spec.ct", ffi.typeof("int16_t"), 2)
    assert.is_true(ffi.istype("uint64_t *", a))
    assert.is_true(ffi.istype("uint32_t *", b))
    assert.is_true(ffi.istype("double *", c))
    assert.is_true(ffi.istype("int16_t *", d))
    -- count defaults to 1: the size (8 bytes) is what a second caller must ask again
    assert.is_true(pcall(luabench.shared, "init_spec.dbl", "uint64_t"))
    assert.is_false(pcall(luabench.shared, "init_spec.dbl", "double", 2))
    b[2] = 4294967295
    assert.are.equal(4294967295, b[2])
    assert.are.equal(0, b[0] + b[1] + a[0] + a[1] + c[0])
  end)

  it("counters, roles and the state's fields", function()
    assert.are.same({ OTHER = 0, READ = 1, WRITE = 2, EVENT = 3, ERROR = 4, RECONNECT = 5, BYTES_READ = 6,
      BYTES_WRITTEN = 7, FAILED = 8 }, luabench.counters)
    luabench.counter_add(luabench.counters.OTHER)
    luabench.counter_add(luabench.counters.READ, 3)
    assert.are.equal("control", luabench.role)
    assert.are.equal(1, luabench.threads)
    assert.are.equal(jit.version, luabench.luajit_version)
    assert.are.equal("function", type(thread_run))
    assert.is_nil(luabench.no_such_field)
    luabench.think(0) -- no users: returns at once
    luabench.think(nil)
  end)

  it("--luajit-cmd: opt and flush run, a module without start() and a bad value are one line", function()
    for _, cmd in ipairs({ "opt=3", "opt=hotloop=10", "flush", "on" }) do
      local out, err, rc = h.run("- --verbosity=1 --luajit-cmd=" .. cmd, { stdin = "print('OK')" })
      assert.are.equal(0, rc, cmd .. ": " .. err)
      assert.is_truthy(out:find("OK\n", 1, true), cmd)
    end
    local _, err, rc = h.run("- --verbosity=1 --luajit-cmd=vmdef", { stdin = "print(1)" })
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: --luajit-cmd: LuaJIT command 'vmdef' cannot be started: the module has no start()",
      err:match("FATAL:[^\n]*"))
    _, err, rc = h.run("- --verbosity=1 --luajit-cmd==x", { stdin = "print(1)" })
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: --luajit-cmd: invalid value '=x'", err:match("FATAL:[^\n]*"))
  end)

  it("instance and instances come from --instance", function()
    assert.are.equal(0, luabench.instance)
    assert.are.equal(1, luabench.instances)
    local out, err, rc = h.run(h.q(h.write("instance.lua",
      "function thread_init() print('I', luabench.instance, luabench.instances) end function event() end")) ..
      " --verbosity=1 --instance=2/3 --events=1 --time=0 run")
    assert.are.equal(0, rc, err)
    assert.are.equal("I\t2\t3", out:match("I\t[^\n]*"))
  end)

  it("a worker's state carries only what its script uses", function()
    -- (one state per thread: the argument checks, the option declarations' checks, the users'
    -- declarations and loop load where they are used; a misuse still names the script's line)
    local script = [[
      function thread_init()
        local names = {}
        for _, m in ipairs({ "api_check", "cmdline_decl", "users", "sql", "report" }) do
          if package.loaded["luabench." .. m] then names[#names + 1] = m end
        end
        print("LOADED[" .. table.concat(names, ",") .. "]", pcall(ffi.typeof, "struct lb_user_sched *"))
        luabench.sleep("soon")
      end
      function event() end
    ]]
    local out, err, rc = h.run(h.q(h.write("carries.lua", script)) .. " --verbosity=1 --events=1 --time=0 run")
    assert.are.equal(1, rc, out)
    assert.are.equal("LOADED[]	false", out:match("LOADED[^\n]*"):sub(1, 14))
    assert.is_truthy(err:find("carries.lua:7: luabench.sleep(seconds): seconds must be a number (got \"soon\")", 1, true), err)
    out, err, rc = h.run(h.q(h.write("carries_users.lua", script)) .. " --verbosity=1 --users=2 --events=1 --time=0 run")
    assert.are.equal("LOADED[users]\ttrue", out:match("LOADED[^\n]*"):match("^%S+%s%a+"), err)
  end)

  it("print() writes each line whole, even from many threads", function()
    local script = [[
      function event() print("line", sysbench.tid, "abcdefghijklmnopqrstuvwxyz", 42) end
    ]]
    local out, err, rc = h.run(h.q(h.write("lines.lua", script)) .. " --verbosity=1 --threads=4 --events=4000 --time=0 run")
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
