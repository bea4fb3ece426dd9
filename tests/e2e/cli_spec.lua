-- Command line: sysbench syntax and semantics, and luabench's additions.
local h = require("helpers")

describe("command line", function()
  it("prints help with every general option", function()
    local out, err, rc = h.run("--help")
    assert.are.equal(0, rc)
    for _, o in ipairs({ "--threads=N", "--events=N", "--time=N", "--rate=N", "--report-interval=N",
      "--report-checkpoints=[LIST,...]", "--warmup-time=N", "--forced-shutdown=STRING",
      "--thread-init-timeout=N", "--thread-stack-size=SIZE", "--percentile=STRING",
      "--histogram[=on|off]", "--verbosity=N", "--debug[=on|off]", "--validate[=on|off]",
      "--config-file=FILENAME", "--version[=on|off]", "--help[=on|off]", "--rand-type=STRING",
      "--rand-seed=N", "--rand-zipfian-exp=N", "--format=STRING", "--output=STRING" }) do
      assert.is_truthy(out:find(o, 1, true), o)
    end
    assert.is_truthy(out:find("Built-in workloads:", 1, true))
  end)

  it("prints the version", function()
    local out, _, rc = h.run("--version")
    assert.are.equal(0, rc)
    assert.is_truthy(out:match("^luabench %d+%.%d+%.%d+ %(sysbench 1%.0%.20 compatible%)"))
  end)

  it("treats - and _ alike and accepts deprecated aliases with a warning", function()
    local out, err, rc = h.run("cpu --num_threads=2 --max-requests=100 --cpu_max_prime=100 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("WARNING: --num-threads is deprecated, use --threads instead", 1, true))
    assert.is_truthy(err:find("WARNING: --max-requests is deprecated, use --events instead", 1, true))
    assert.is_truthy(out:find("Number of threads: 2", 1, true))
    assert.is_truthy(out:find("total number of events:              100\n", 1, true))
  end)

  it("reads a config file, with the command line taking precedence", function()
    local conf = h.write("lb.conf", "# test\nthreads = 3\ncpu-max-prime = 500\nevents=77\n")
    local out, err, rc = h.run("cpu --events=50 --config-file=" .. conf .. " run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("Number of threads: 3", 1, true))
    assert.is_truthy(out:find("Prime numbers limit: 500", 1, true))
    assert.is_truthy(out:find("total number of events:              50\n", 1, true))
  end)

  it("accepts --test= with a warning", function()
    local out, err, rc = h.run("--test=cpu --events=10 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("WARNING: the --test option is deprecated.", 1, true))
  end)

  it("runs a script with a shebang line directly", function()
    local p = h.write("shebang.lua", "#!/usr/bin/env luabench\nfunction event() end\n")
    local out, err, rc = h.run(h.q(p) .. " --events=10 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("total number of events:              10\n", 1, true))
  end)

  it("runs a script from stdin, executing only its chunk", function()
    local out, err, rc = h.run("-", { stdin = "print('chunk ran', sysbench.tid)" })
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("chunk ran\t0", 1, true))
  end)

  it("resolves a script as a module on the Lua path", function()
    local out, err, rc = h.run("mymod --events=3 run", { env = "cd " .. h.tmpdir() .. " && " })
    assert.are.equal(1, rc)
    h.write("mymod.lua", "function event() end\n")
    out, err, rc = h.run("mymod --events=3 run", { env = "cd " .. h.tmpdir() .. " && " })
    assert.are.equal(0, rc, err)
  end)

  it("runs custom and parallel commands", function()
    local p = h.write("cmds.lua", [[
sysbench.cmdline.commands = {
  hello = { function() print("hello from " .. sysbench.tid) end },
  par = { function() print("par " .. sysbench.tid) end, sysbench.cmdline.PARALLEL_COMMAND },
  fail = { function() return false end },
  pfail = { function() if sysbench.tid == 1 then error("thread one fails") end end, sysbench.cmdline.PARALLEL_COMMAND },
}
]])
    local out, err, rc = h.run(h.q(p) .. " hello")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("hello from 0", 1, true))
    out, err, rc = h.run(h.q(p) .. " --threads=3 par")
    assert.are.equal(0, rc, err)
    for t = 0, 2 do assert.is_truthy(out:find("par " .. t, 1, true)) end
    out, err, rc = h.run(h.q(p) .. " fail")
    assert.are.equal(1, rc)
    out, err, rc = h.run(h.q(p) .. " --threads=2 pfail")
    assert.are.equal(1, rc, "a failing parallel thread fails the command")
    assert.is_truthy(err:find("thread one fails", 1, true))
  end)

  it("shows a workload's options with help", function()
    local out, err, rc = h.run("cpu help")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("--cpu-max-prime=N", 1, true))
    assert.is_truthy(out:find("[10000]", 1, true))
  end)

  it("hides passwords from the process title", function()
    local p = h.write("cmdline.lua", "function event() end\n" ..
      "function thread_init() local f = io.open('/proc/self/cmdline') print('CMDLINE ' .. f:read('*a'):gsub('%z', ' ')) f:close() end\n")
    local out, err, rc = h.run(h.q(p) .. " --my-password=hunter2 --events=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("CMDLINE", 1, true))
    assert.is_falsy(out:find("hunter2", 1, true))
  end)
  it("an unknown --luajit-cmd is one line", function()
    local out, err, rc = h.run("cpu --luajit-cmd=bogus --time=1 run")
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: --luajit-cmd: unknown LuaJIT command 'bogus'\n", err)
  end)

  it("--output naming a directory fails before the run", function()
    local out, err, rc = h.run("cpu --time=5 --output=" .. h.tmpdir() .. " run")
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: cannot write the result file '" .. h.tmpdir() .. "': Is a directory\n", err)
    assert.is_falsy(out:find("Threads started!", 1, true), "no run: " .. out)
  end)

  it("a result file that cannot be written at the end makes the exit code non-zero", function()
    local dir = h.tmpdir() .. "/vanishing"
    local cmd = string.format("mkdir -p %s; %s cpu --time=2 --output=%s/r.json run >%s/vanish.out 2>%s/vanish.err & " ..
      "pid=$!; %s sleep 1; rmdir %s; wait $pid; echo rc=$?", dir, h.bin, dir, h.tmpdir(), h.tmpdir(),
      h.wait_started(h.tmpdir() .. "/vanish.out"), dir)
    local p = io.popen(cmd)
    local res = p:read("*a")
    p:close()
    assert.is_truthy(res:find("rc=1", 1, true), res)
    local err = h.read(h.tmpdir() .. "/vanish.err")
    assert.is_truthy(err:find("ALERT: cannot write the result file '" .. dir .. "/r.json'", 1, true), err)
  end)

  it("a full disk at the end keeps the previous result file intact and leaves no temporary file", function()
    local mnt = h.tmpdir() .. "/full"
    os.execute("mkdir -p " .. h.q(mnt))
    if os.execute("mount -t tmpfs -o size=256k lbfull " .. h.q(mnt) .. " 2>/dev/null") ~= 0 then
      assert.is_falsy(os.getenv("CI") == "true", "CI=true: the disk-full test needs to mount a tmpfs (root)")
      pending("needs root to mount a tmpfs")
      return
    end
    finally(function() os.execute("umount " .. h.q(mnt) .. " 2>/dev/null") end)
    local previous = '{"status": "ok", "previous": true}\n'
    local f = assert(io.open(mnt .. "/r.json", "w"))
    f:write(previous)
    f:close()
    os.execute("dd if=/dev/zero of=" .. h.q(mnt .. "/filler") .. " bs=4k 2>/dev/null")
    local out, err, rc = h.run("cpu --events=2000 --time=0 --report-interval=1 --output=" .. h.q(mnt .. "/r.json") .. " run")
    assert.are.equal(1, rc, err)
    assert.is_truthy(err:find("ALERT: cannot write the result file '" .. mnt .. "/r.json'", 1, true), err)
    assert.is_truthy(err:lower():find("no space left on device", 1, true), err)
    assert.are.equal(previous, h.read(mnt .. "/r.json"))
    local p = io.popen("ls " .. h.q(mnt))
    local files = p:read("*a")
    p:close()
    assert.are.equal("filler\nr.json\n", files)
    assert.is_truthy(out:find("General statistics", 1, true), "the report is still printed")
  end)

  it("a script's help lists its own commands after its options (not as sysbench)", function()
    local p = h.write("cmds.lua", "sysbench.cmdline.options = { n = { 'rows', 1 } }\n" ..
      "function check() end\nfunction load() end\n" ..
      "sysbench.cmdline.commands = { check = { check }, load = { load, sysbench.cmdline.PARALLEL_COMMAND } }\n" ..
      "function event() end\n")
    local out, err, rc = h.run(h.q(p) .. " help")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("cmds.lua options:\n  --n=N rows [1]\n\ncmds.lua commands: check, load\n", 1, true), out)
    out, err, rc = h.run(h.q(p) .. " help", { env = "LUABENCH_PERSONALITY=sysbench " })
    assert.are.equal(0, rc, err)
    assert.is_falsy(out:find("commands:", 1, true), out)
  end)

  it("--percentile lists each percentile once, in the order given", function()
    local out, err, rc = h.run("cpu --events=200 --time=0 --percentile=99,95,99,95 --format=json run")
    assert.are.equal(0, rc, err)
    -- The run's percentiles only: a loaded machine makes the run long enough for intervals.
    local pct = out:match('"percentiles":%s*(%b{})')
    assert.are.equal(1, h.count(pct, '"99":'), out)
    assert.are.equal(1, h.count(pct, '"95":'), out)
    out, err, rc = h.run("cpu --time=1 --percentile=99,95,99 --format=csv run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("other_per_s,lat_ms_p99,lat_ms_p95,err_per_s", 1, true), out)
    out, err, rc = h.run("cpu --events=200 --time=0 --percentile=99,95,99 run")
    assert.are.equal(0, rc, err)
    assert.are.equal(1, h.count(out, "99th percentile"))
    assert.is_true(out:find("99th percentile", 1, true) < out:find("95th percentile", 1, true))
  end)
end)
