-- A run that completed no event fails (doc/results.md §6.5), in every mode and with every driver:
-- status "failed" in the result, exit code 1, the report still printed, and one FATAL line naming
-- the first error (control characters escaped: one line) and the count, which is the report's.
-- Running as sysbench the same runs print their report and exit 0, as sysbench 1.0.20 does.
local h = require("helpers")

math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 100000)

-- The run's stderr lines; the FATAL ones.
local function fatal_lines(err)
  local list = {}
  for line in err:gmatch("[^\n]+") do
    if line:find("^FATAL: ") then list[#list + 1] = line end
  end
  return list
end

-- Runs args with --format=json and checks the rule: returns the result and its FATAL line.
local function failed_run(args, opts)
  local out, err, rc = h.run(args .. " --format=json run", opts)
  assert.are.equal(1, rc, err)
  local j = h.json(out)
  assert.are.equal("failed", j.status, err)
  assert.are.equal(0, j.counters.events)
  local fatal = fatal_lines(err)
  assert.are.equal(1, #fatal, err)
  assert.are.equal("FATAL: " .. j.error, fatal[1])
  assert.is_falsy(err:find("\r", 1, true), "a raw carriage return on stderr: " .. err)
  -- the count is the report's: ignored errors plus failed users' events
  local n = tonumber(fatal[1]:match("while (%d+) errors? w[ae][sr]e? counted; the first: "))
  assert.is_truthy(n, fatal[1])
  assert.are.equal(j.counters.errors + j.counters.failed_events, n)
  assert.is_true(n > 0)
  return j, fatal[1]
end

describe("a run that completes no event", function()
  it("net against a closed port: threads, --users, --rate; as sysbench: exit 0", function()
    local port = h.free_port()
    local want = "; the first: connect to 127.0.0.1:" .. port .. ": Connection refused"
    for _, mode in ipairs({ "--threads=2", "--users=8 --threads=2", "--rate=200" }) do
      local j, line = failed_run(string.format("net --port=%d --net-timeout=1 --time=1 %s", port, mode))
      assert.is_truthy(line:find("^FATAL: no event completed in the measured window %(%d+%.%d%d s%) while %d+ errors were counted"), line)
      assert.are.equal(want, line:sub(-#want), mode)
      assert.are.equal(j.workload_stats.errors, j.counters.errors)
    end
    -- the text report is printed before the FATAL line
    local out, err, rc = h.run(string.format("net --port=%d --time=1 run", port))
    assert.are.equal(1, rc, err)
    assert.is_truthy(out:find("transactions:                        0 (0.00 per sec.)", 1, true), out)
    assert.is_truthy(err:find("FATAL: no event completed", 1, true), err)
    out, err, rc = h.run(string.format("net --port=%d --time=1 run", port), { env = "LUABENCH_PERSONALITY=sysbench " })
    assert.are.equal(0, rc, err)
    assert.is_falsy((out .. err):find("FATAL", 1, true), out .. err)
    assert.is_truthy(out:find("failed transactions:", 1, true), out)
  end)

  describe("a script with the net workload's retry idiom against a server that sends garbage", function()
    local port = h.free_port()
    local server = h.write("garbage.py", [[
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(128)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    try:
        c.recv(64)
        c.sendall(b"\x1b[31m-ERR garbage\r\n")
    except OSError:
        pass
    c.close()
]])
    local pid
    setup(function()
      local log = h.tmpdir() .. "/garbage.log"
      pid = h.sh(string.format("timeout 120 python3 %s %d >%s 2>&1 & echo PID $!", h.q(server), port, log)):match("PID (%d+)")
      h.sh("for i in $(seq 100); do grep -q listening " .. log .. " && break; sleep 0.05; done")
      assert.is_truthy((h.read(log) or ""):find("listening", 1, true), h.read(log))
    end)
    teardown(function() h.sh("kill " .. pid) end)

    -- a PING client that counts a failed attempt, drops its connection and restarts the event
    local client = h.write("ping_retry.lua", [[
sysbench.cmdline.options = {
  port = { "server port", 6379, sysbench.cmdline.ARG_INT },
  message = { "raise RESTART_EVENT with the error's message", true },
}
local RESTART_EVENT, ERROR = sysbench.error.RESTART_EVENT, luabench.counters.ERROR
function event()
  local u = sysbench.user_data
  local ok, err = pcall(function()
    u.c = u.c or luabench.socket.connect("127.0.0.1", sysbench.opt.port, { timeout = 2 })
    u.c:send("PING\r\n")
    local line = u.c:receive_until("\r\n")
    if line ~= "+PONG" then error("unexpected reply " .. line, 0) end
  end)
  if ok then return end
  luabench.counter_add(ERROR, 1)
  if u.c then u.c:close() u.c = nil end
  if not luabench.stopping() then luabench.think(0.01) end
  error({ errcode = RESTART_EVENT, message = sysbench.opt.message and err or nil }, 0)
end
]])

    it("names the server's reply, escaped, in threads and with --users", function()
      local want = [[; the first: unexpected reply \x1b[31m-ERR garbage]]
      for _, mode in ipairs({ "--threads=2", "--users=4" }) do
        local _, line = failed_run(string.format("%s --port=%d --time=1 %s", h.q(client), port, mode))
        assert.are.equal(want, line:sub(-#want), mode)
      end
    end)

    it("says when the script gave no message", function()
      local _, line = failed_run(string.format("%s --port=%d --message=off --time=1", h.q(client), port))
      local want = "; the first: (no message: the script counted it without one)"
      assert.are.equal(want, line:sub(-#want))
    end)
  end)

  h.each_driver("OLTP against a dropped table, its errors ignored (%s)", function(driver, db)
    it("threads and --users", function()
      local opts = db .. " --tables=1 --table-size=10 --db-ps-mode=disable"
      local _, err, rc = h.run("oltp_read_only " .. opts .. " prepare")
      assert.are.equal(0, rc, err)
      h.sql(db, "DROP TABLE sbtest1")
      local ignore = driver == "mysql" and "--mysql-ignore-errors=all" or "--pgsql-ignore-errors=42P01"
      local missing = driver == "mysql" and "Table '[%w_]+%.sbtest1' doesn't exist" or 'relation "sbtest1" does not exist'
      for _, mode in ipairs({ "--threads=2", "--users=4 --threads=1" }) do
        local j, line = failed_run(string.format("oltp_read_only %s %s --time=1 %s", opts, ignore, mode))
        assert.is_truthy(line:find("; the first: " .. missing .. "$"), line)
        assert.are.equal(0, j.counters.reads)
      end
    end)
  end)

  it("a result that failed: merge, compare and the HTML report say so", function()
    local dir = h.tmpdir()
    local port = h.free_port()
    local _, err, rc = h.run(string.format("net --port=%d --time=1 --output=%s/failed.json run", port, dir))
    assert.are.equal(1, rc, err)
    os.execute(string.format("cp %s/failed.json %s/again.json", h.q(dir), h.q(dir)))
    local out
    out, err, rc = h.run(string.format("merge --format=json %s/failed.json %s/failed.json", dir, dir))
    assert.are.equal(0, rc, err)
    local m = h.json(out)
    assert.are.equal("failed", m.status)
    assert.is_truthy(m.error:find("failed.json' failed: no event completed", 1, true), m.error)
    out, err, rc = h.run(string.format("compare %s/failed.json %s/again.json", dir, dir))
    assert.are.equal(0, rc, err)
    assert.are.equal(2, h.count(out, ", status failed %("), out)
    out, err, rc = h.run(string.format("report %s/failed.json --output=%s/failed.html", dir, dir))
    assert.are.equal(0, rc, err)
    assert.is_truthy((h.read(dir .. "/failed.html") or ""):find("failed: no event completed in the measured window", 1, true))
  end)
end)
