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

  -- The commands that are not runs of a workload read their words in src/cli/ (merge,
  -- net-server) or luabench.internal.cli (compare, report, study): each mistake is one exact
  -- line on stderr, nothing on stdout, exit code 1; --help is the usage on stdout, exit code 0.
  it("each other command refuses a mistake in its words with one exact line", function()
    local cases = {
      { "merge", "FATAL: merge: no result files given (usage: luabench merge a.json b.json …)\n" },
      { "merge a.json --format=xml", "FATAL: merge: Invalid value for the 'format' option: 'xml' (expected text or json)\n" },
      { "merge a.json --nope", "FATAL: merge: invalid option: --nope (see 'luabench merge --help')\n" },
      { "merge a.json --percentile=50,200", "FATAL: merge: Invalid value for the 'percentile' option: '50,200'\n" },
      { "compare", "FATAL: compare: give at least two inputs to compare (see luabench compare --help)\n" },
      { "compare --nope", "FATAL: compare: unknown option '--nope' (see luabench compare --help)\n" },
      { "compare a.json --format", "FATAL: compare: option '--format' needs a value (see luabench compare --help)\n" },
      { "compare a.json --format=xml", "FATAL: compare: unknown format 'xml' (text, json or csv)\n" },
      { "compare --help=1", "FATAL: compare: option '--help' takes no value (see luabench compare --help)\n" },
      { "compare --label=a --label=b x.json", "FATAL: compare: --label=a names no input (see luabench compare --help)\n" },
      { "compare a.json --label=b", "FATAL: compare: --label must come before the input it names (see luabench compare --help)\n" },
      -- (not an option: an input, named with its control character escaped)
      { "compare " .. h.q("--x\1y"), "FATAL: compare: cannot read '--x\\x01y': --x\\x01y: No such file or directory\n" },
      { "report", "FATAL: report: no input (see luabench report --help)\n" },
      { "report a.json", "FATAL: report: say where the HTML goes: -o report.html\n" },
      { "report a.json -o", "FATAL: report: option '-o' needs a value (see luabench report --help)\n" },
      { "study", "FATAL: study: give a plan: luabench study PLAN (see luabench study --help)\n" },
      { "study a.lua b.lua", "FATAL: study: one plan at a time (got 'a.lua' and 'b.lua') (see luabench study --help)\n" },
      { "study --set=oops", "FATAL: study: --set wants NAME=VALUE (got 'oops') (see luabench study --help)\n" },
      { "study --dir", "FATAL: study: option '--dir' needs a value (--dir=...) (see luabench study --help)\n" },
      { "study --dry-run=1", "FATAL: study: option '--dry-run' takes no value (see luabench study --help)\n" },
      { "net-server --threads=0", "FATAL: net-server: invalid option '--threads=0'\nUsage: luabench net-server " },
    }
    for _, c in ipairs(cases) do
      local out, err, rc = h.run(c[1])
      assert.are.equal(1, rc, c[1])
      assert.are.equal("", out, c[1])
      if c[1]:find("^net%-server") then
        assert.are.equal(c[2], err:sub(1, #c[2]), c[1])
      else
        assert.are.equal(c[2], err, c[1])
      end
    end
    for _, cmd in ipairs({ "merge", "compare", "report", "study", "net-server" }) do
      local out, err, rc = h.run(cmd .. " --help")
      assert.are.equal(0, rc, cmd)
      assert.are.equal("", err, cmd)
      assert.truthy(out:find("^Usage:%s+luabench " .. cmd:gsub("%-", "%%-")), out)
    end
  end)
end)
