-- Every bad input: one clear line on stderr, a non-zero exit code, never a crash or backtrace.
local h = require("helpers")

describe("bad input", function()
  local broken = h.write("broken.lua", "function event()\n  local x = \nend\n")
  local init_err = h.write("init_err.lua", "function thread_init()\n  error('no db here')\nend\nfunction event() end\n")
  local event_err = h.write("event_err.lua", "local n = 0\nfunction event()\n  n = n + 1\n  if n == 5 then error('boom at five') end\nend\n")
  local slow_init = h.write("slow_init.lua", "ffi.cdef('int usleep(unsigned int);')\nfunction thread_init() ffi.C.usleep(3000000) end\nfunction event() end\n")
  local declared = h.write("declared.lua", "sysbench.cmdline.options = { table_size = {'rows', 10} }\nfunction event() end\n")
  local binary_conf = h.write("binary.conf", "\0\1\2=\255\n")
  local latin1_conf = h.write("latin1.conf", "threads=2\n# caf\233\n")
  local junk_conf = h.write("junk.conf", "threads=2\n!!=3\n")

  local cases = {
    { "cpu --threads=abc run", "Invalid value for the 'threads' option: 'abc'", 1 },
    { "cpu --threads=0 run", "FATAL: Invalid value for --threads: 0.\n", 1 }, -- sysbench's
    { "cpu --threads=-2 run", "Invalid value for the 'threads' option: '-2' (expected 1..100000)", 1 },
    { "cpu --thraeds=2 run", "invalid option: --thraeds=2\nDid you mean --threads?", 1 },
    { "cpu --time=ten run", "Invalid value for the 'time' option: 'ten'", 1 },
    { "cpu --percentile=abc run", "Invalid value for the 'percentile' option: 'abc'", 1 },
    { "cpu --percentile=101 run", "FATAL: Invalid value for --percentile: 101\n", 1 },
    { "cpu --rand-type=foo run", "FATAL: Invalid random numbers distribution: foo.\n", 1 },
    { "cpu --histogram --percentile=0 run", "--histogram cannot be used with --percentile=0", 1 },
    { "cpu --config-file=/nonexistent/lb.conf run", "cannot read config file '/nonexistent/lb.conf'", 1 },
    { "cpu --format=xml run", "Invalid value for the 'format' option: 'xml'", 1 },
    { "cpu --forced-shutdown=soon run", "Invalid value for the 'forced-shutdown' option", 1 },
    { "nosuch run", "Cannot find benchmark 'nosuch'", 1 },
    { "cpuu run", "Did you mean 'cpu'?", 1 },
    { "cpu runn", "Unknown command: runn\nDid you mean 'run'?", 1 },
    { "cpu run extra", "Unrecognized command line argument: extra", 1 },
    { "cpu --cpu-max-prime 20 run", "Unrecognized command line argument: run\nDid you mean --cpu-max-prime=20? (an option takes its value after '=')", 1 },
    { "cpu", "The 'cpu' test requires a command argument", 1 },
    { "cpu prepare", "'cpu' test does not implement the 'prepare' command.", 1 },
    { h.q(broken) .. " run", "broken.lua:3:", 1 },
    { h.q(init_err) .. " run", "`thread_init' function failed: " .. init_err .. ":2: no db here", 1 },
    { h.q(event_err) .. " --time=5 run", "`thread_run' function failed: " .. event_err .. ":4: boom at five", 1 },
    { h.q(declared) .. " --tabel-size=5 run", "invalid option: --tabel-size=5\nDid you mean --table-size?", 1 },
    { h.q(declared) .. " --table-size=many run", "Invalid value for the 'table_size' option: 'many'", 1 },
    { h.q(slow_init) .. " --thread-init-timeout=1 run", "Worker threads failed to initialize within 1 seconds!", 2 },
    -- refused before any work starts
    { "cpu --config-file=" .. h.q(binary_conf) .. " run", binary_conf .. ":1: not a text line (byte 0x00 at column 1)", 1 },
    { "cpu --config-file=" .. h.q(latin1_conf) .. " run", latin1_conf .. ":2: not a text line (byte 0xe9 at column 6)", 1 },
    { "cpu --config-file=" .. h.q(junk_conf) .. " run", junk_conf .. ":2: '!!' is not an option name", 1 },
    { "fileio --file-test-mode=sideways prepare", "Invalid IO operations mode: sideways.", 1 },
    { "oltp_read_only --db-driver=bogus run", "invalid database driver name: 'bogus' (available: mysql, pgsql, odbc, ", 1 }, -- then the embedded drivers built in, and null
  }

  -- TLS files are checked before connecting (no server needed): a clear line, not the
  -- library's bare "No such file or directory" from the connect attempt
  if h.run("--db-driver=help"):find("\n  mysql ", 1, true) then
    for _, f in ipairs({ "ca", "cert", "key" }) do
      cases[#cases + 1] = { "oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=1 " ..
        "--mysql-ssl=required --mysql-ssl-" .. f .. "=/nonexist/" .. f .. ".pem run",
        "--mysql-ssl-" .. f .. ": cannot read '/nonexist/" .. f .. ".pem': No such file or directory", 1 }
    end
  end

  -- a missing table: the server's error, then what to check
  local missing = h.write("missing_table.lua", "function event() sysbench.sql.driver():connect():query('SELECT 1 FROM lb_no_such_table') end\n")
  for _, driver in ipairs(h.drivers) do
    local db = h.db(driver)
    if db then
      cases[#cases + 1] = { h.q(missing) .. " " .. db .. " --events=1 --time=0 run",
        "(query: SELECT 1 FROM lb_no_such_table) (does the table exist? did 'prepare' run with these options?)", 1 }
    end
  end

  for _, c in ipairs(cases) do
    it(c[1], function()
      local out, err, rc = h.run(c[1])
      assert.are.equal(c[3], rc, "exit code; stderr: " .. err)
      assert.is_truthy(err:find(c[2], 1, true), "stderr was: " .. err)
      local lines = h.count(err, "\n")
      assert.is_true(lines <= 2, "one clear line, got: " .. err)
      assert.is_falsy(err:find("stack traceback", 1, true))
    end)
  end

  -- scripting.md §6.3: a script's option is named as declared, in a FATAL line; a mistyped one
  -- gets "did you mean" (also when it is part of a name: --value for --value-size); as sysbench,
  -- sysbench's line ('_' for '-', no level) and no hint
  it("a script's option: named as declared, FATAL, did you mean", function()
    local kv = h.write("kv_opts.lua", 'sysbench.cmdline.options = {\n' ..
      '  ["value-size"] = { "bytes per value", 100, sysbench.cmdline.ARG_INT },\n' ..
      '  think = { "think time, s", 0, sysbench.cmdline.ARG_DOUBLE },\n}\nfunction event() end\n')
    local sb = { env = "LUABENCH_PERSONALITY=sysbench " }
    local cases = {
      { "--value-size=1G", "FATAL: Invalid value for the 'value-size' option: '1G'\n",
        "Invalid value for the 'value_size' option: '1G'\n" },
      { "--value_size=x", "FATAL: Invalid value for the 'value-size' option: 'x'\n",
        "Invalid value for the 'value_size' option: 'x'\n" },
      { [[--value-size="$(printf '1\r\nx')"]], "FATAL: Invalid value for the 'value-size' option: '1\\r\\nx'\n",
        "Invalid value for the 'value_size' option: '1\r\nx'\n" },
      { "--value-sise=5", "invalid option: --value-sise=5\nDid you mean --value-size?\n", "invalid option: --value-sise=5\n" },
      { "--value=5", "invalid option: --value=5\nDid you mean --value-size?\n", "invalid option: --value=5\n" },
      { "--think-time=5", "invalid option: --think-time=5\nDid you mean --think?\n", "invalid option: --think-time=5\n" },
    }
    for _, c in ipairs(cases) do
      local out, err, rc = h.run(h.q(kv) .. " " .. c[1] .. " run")
      assert.are.equal(1, rc, err)
      assert.are.equal(c[2], err, c[1])
      out, err, rc = h.run(h.q(kv) .. " " .. c[1] .. " run", sb)
      assert.are.equal(1, rc, err)
      assert.are.equal(c[3], err, c[1] .. " as sysbench")
    end
  end)

  -- every message is one line: control characters from a script or a server as escapes (not
  -- as sysbench, which prints them as they are)
  it("a message quoting control characters is one line", function()
    local ctl = h.write("ctl_err.lua", 'function event()\n' ..
      '  if luabench.user == 1 then return end\n' ..
      '  error("bad reply \\27[31m-ERR\\r\\nnext\\0", 0)\nend\n')
    local out, err, rc = h.run(h.q(ctl) .. " --events=1 run")
    assert.are.equal(1, rc, err)
    assert.are.equal("FATAL: `thread_run' function failed: bad reply \\x1b[31m-ERR\\r\\nnext\\0\n", err)
    out, err, rc = h.run(h.q(ctl) .. " --events=1 run", { env = "LUABENCH_PERSONALITY=sysbench " })
    assert.are.equal(1, rc, err)
    assert.is_truthy(out:find("FATAL: `thread_run' function failed: bad reply \27[31m-ERR\r\nnext\n", 1, true), out)
    -- an emulated user's ALERT (user 1 succeeds, so the run goes on)
    out, err, rc = h.run(h.q(ctl) .. " --users=2 --threads=1 --time=1 run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("ALERT: user 0: bad reply \\x1b[31m-ERR\\r\\nnext\\0 (further user errors are only counted)\n", 1, true), err)
  end)

  it("a directory given as the script: says so", function()
    local dir = h.tmpdir() .. "/scripts_dir"
    os.execute("mkdir -p " .. h.q(dir))
    local out, err, rc = h.run(h.q(dir) .. " run")
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: cannot run '" .. dir .. "': it is a directory, not a script file\n", err)
  end)

  it("an unreadable script: says why", function()
    local secret = h.write("unreadable.lua", "function event() end\n")
    os.execute("chmod 000 " .. h.q(secret))
    local p = io.popen("id -u")
    local root = p:read("*l") == "0"
    p:close()
    -- root reads any file: run as nobody, who cannot reach it either
    local env = root and "setpriv --reuid=65534 --regid=65534 --clear-groups " or ""
    local out, err, rc = h.run(h.q(secret) .. " run", { env = env })
    assert.are.equal(1, rc)
    assert.are.equal("FATAL: cannot read script '" .. secret .. "': Permission denied\n", err)
  end)

  describe("--debug tracebacks", function()
    local deep = h.write("deep.lua", "local function inner(x)\n  local t = nil\n  return t.field + x\nend\n" ..
      "local function outer(x)\n  return inner(x) + 1\nend\nfunction event()\n  outer(1)\nend\n")

    -- user 0 fails, the others succeed (the run goes on, the ALERT is printed): same lines
    local deep_user0 = h.write("deep_user0.lua", "local function inner(x)\n  local t = nil\n  return t.field + x\nend\n" ..
      "local function outer(x)\n  return inner(x) + 1\nend\nfunction event()\n  if luabench.user == 0 then outer(1) end\nend\n")

    -- taken where event() failed: the script's frames, not the event loop's re-raise
    local function script_frames(err, path)
      path = path or deep
      assert.is_truthy(err:find(path .. ":3: attempt to index local 't'", 1, true), err)
      local tb = err:match("stack traceback:\n(.*)$")
      assert.is_truthy(tb, err)
      assert.is_truthy(tb:find("^%s*" .. path:gsub("%p", "%%%0") .. ":3: in function 'inner'\n"), err)
      assert.is_truthy(tb:find(path .. ":6: in function 'outer'", 1, true), err)
      assert.is_truthy(tb:find(path .. ":9: in function", 1, true), err)
      assert.is_falsy(tb:find("in function 'error'", 1, true), err)
      assert.are.equal(1, h.count(err, "stack traceback:"), err)
    end

    it("of a thread", function()
      local out, err, rc = h.run(h.q(deep) .. " --debug --events=1 run")
      assert.are.equal(1, rc, err)
      assert.is_truthy(err:find("`thread_run' function failed: ", 1, true), err)
      script_frames(err)
    end)

    it("of an emulated user", function()
      -- every user's first event fails: the run fails at once, as a thread's does
      local out, err, rc = h.run(h.q(deep) .. " --debug --users=1 --time=600 run")
      assert.are.equal(1, rc, err)
      assert.is_truthy(err:find("`thread_run' function failed: ", 1, true), err)
      script_frames(err)
      -- one user fails, the others go on: its ALERT carries the traceback
      out, err, rc = h.run(h.q(deep_user0) .. " --debug --users=2 --threads=1 --time=1 run")
      assert.are.equal(0, rc, err)
      assert.is_truthy(err:find("ALERT: user 0: " .. deep_user0 .. ":3: attempt to index local 't' (a nil value) " ..
        "(further user errors are only counted)\nstack traceback:", 1, true), err)
      script_frames(err, deep_user0)
    end)

    it("of thread_init, from where it failed", function()
      local out, err, rc = h.run(h.q(init_err) .. " --debug --events=1 run")
      assert.are.equal(1, rc, err)
      assert.is_truthy(err:find(init_err .. ":2: no db here\nstack traceback:\n", 1, true), err)
      assert.is_truthy(err:find(init_err .. ":2: in function <", 1, true), err)
      assert.are.equal(1, h.count(err, "stack traceback:"), err)
    end)

    it("none without --debug", function()
      local out, err, rc = h.run(h.q(deep) .. " --events=1 run")
      assert.are.equal(1, rc, err)
      assert.is_falsy(err:find("traceback", 1, true), err)
    end)
  end)

  it("never prints a password given on the command line", function()
    local out, err, rc = h.run("cpu --my-password=hunter2 --time=1 run")
    assert.are.equal(1, rc)
    assert.is_falsy((out .. err):find("hunter2", 1, true))
    assert.is_truthy(err:find("invalid option: --my-password=***", 1, true))
    local path = h.tmpdir() .. "/pw.json"
    out, err, rc = h.run("cpu --pgsql-password=hunter2 --mysql-password=hunter2 --time=1 --output=" .. path .. " run")
    assert.are.equal(0, rc, err)
    assert.is_falsy((out .. err .. h.read(path)):find("hunter2", 1, true))
  end)
end)
