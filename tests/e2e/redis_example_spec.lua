-- examples/redis_kv.lua against a real Redis started here on a private port (and stopped):
-- prepare sets every key, the run's GET/SET mix reaches the server (its own command counts
-- agree), bytes are counted; a server restarted in the middle of a run is survived (the new
-- server serves the rest of it), and a reply that is not RESP is one clear error.
local h = require("helpers")

local function sh(cmd)
  return (h.sh(cmd))
end

local EX = h.q(h.root .. "/examples/redis_kv.lua")

local function have_redis()
  if sh("command -v redis-server") ~= "" and sh("command -v redis-cli") ~= "" then return true end
  assert.is_nil(os.getenv("CI") == "true" and "redis-server is not installed (tools/install-deps)" or nil)
  pending("redis-server is not installed")
  return false
end

-- A private redis-server on a loopback port (no persistence); returns its port, the redis-cli
-- prefix, and start/stop functions (stop registered with finally by the caller).
local function redis()
  local port = h.free_port()
  local dir = h.tmpdir() .. "/redis" .. port
  sh("mkdir -p " .. h.q(dir))
  local cli = "redis-cli -p " .. port .. " "
  local r = { port = port, cli = cli }
  function r.start()
    sh(string.format("redis-server --port %d --bind 127.0.0.1 --save '' --appendonly no --dir %s --daemonize yes --pidfile %s/pid --logfile %s/log",
      port, h.q(dir), h.q(dir), h.q(dir)))
    sh("for i in $(seq 100); do " .. cli .. "ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done")
  end
  function r.stop()
    sh(cli .. "shutdown nosave 2>/dev/null; for i in $(seq 100); do " .. cli .. "ping >/dev/null 2>&1 || break; sleep 0.05; done")
  end
  function r.calls(cmd)
    return tonumber(sh(cli .. "info commandstats"):match("cmdstat_" .. cmd .. ":calls=(%d+)")) or 0
  end
  return r
end

-- A private server started (stopped when the test ends) and prepared with `keys` keys; returns
-- the server and the example's options, or nil when there is no redis-server.
local function prepared(keys, value_size)
  if not have_redis() then return nil end
  local r = redis()
  finally(function() r.stop() end)
  r.start()
  local opts = " --redis-port=" .. r.port .. " --keys=" .. keys .. " --value-size=" .. value_size
  local out, err, rc = h.run(EX .. opts .. " prepare")
  assert.are.equal(0, rc, err)
  assert.is_truthy(out:find(keys .. " keys set", 1, true), out)
  return r, opts
end

describe("examples/redis_kv.lua", function()
  it("runs a GET/SET mix with think times against redis-server", function()
    local r, opts = prepared(500, 64)
    if not r then return end
    local out, err, rc
    assert.are.equal("500", sh(r.cli .. "dbsize"):match("%d+"))
    sh(r.cli .. "config resetstat")
    out, err, rc = h.run(EX .. opts .. " --users=20 --threads=2 --think=0.01 --time=2 --format=json run")
    assert.are.equal(0, rc, err)
    local doc = h.json(out)
    local gets, sets = doc.types.GET.count, doc.types.SET.count
    assert.is_true(gets > 0 and sets > 0, gets .. " GETs, " .. sets .. " SETs")
    assert.are.equal(gets, r.calls("get"))
    assert.are.equal(sets, r.calls("set"))
    -- a GET reply is $64\r\n (5 bytes) + 64 + \r\n = 71 bytes, a SET's +OK\r\n 5
    assert.are.equal(gets * 71 + sets * 5, doc.counters.bytes_read)
    -- a user thinking at the end of its event when the run ends has its request done, not its event
    assert.is_true(gets + sets >= doc.counters.events and gets + sets <= doc.counters.events + 20)
    assert.are.equal(0, doc.counters.errors)
    _, err, rc = h.run(EX .. opts .. " cleanup")
    assert.are.equal(0, rc, err)
    assert.are.equal("0", sh(r.cli .. "dbsize"):match("%d+"))
  end)

  -- It kept a dead connection: after a restart every request failed, 0 events/s for the rest of
  -- the run. The restarted server (a new process, its counters from zero) must serve requests.
  it("survives a server restart during a run: the new server serves the rest of it", function()
    local r, opts = prepared(200, 16)
    if not r then return end
    local dir = h.tmpdir() .. "/redis-restart"
    sh("mkdir -p " .. h.q(dir))
    local result = dir .. "/result.json"
    os.execute(string.format("(%s %s%s --users=4 --threads=1 --think=0.005 --time=3 --output=%s run >%s/out 2>%s/err; echo $? >%s/rc) &",
      h.q(h.bin), EX, opts, h.q(result), h.q(dir), h.q(dir), h.q(dir)))
    -- restart once the run is under way (the first server has answered requests)
    sh("for i in $(seq 200); do [ \"$(" .. r.cli .. "info commandstats 2>/dev/null | grep -c cmdstat_get)\" = 1 ] && break; sleep 0.05; done")
    assert.is_true(r.calls("get") > 0, "the run never reached the server")
    r.stop()
    r.start()
    sh("for i in $(seq 200); do [ -s " .. h.q(dir .. "/rc") .. " ] && break; sleep 0.05; done")
    local served = r.calls("get") + r.calls("set")
    assert.are.equal("0", (h.read(dir .. "/rc") or ""):match("%d+"), h.read(dir .. "/err"))
    assert.is_true(served > 0, "the restarted server got no request: " .. (h.read(dir .. "/err") or ""))
    local doc = h.json(h.read(result))
    assert.is_true(doc.counters.errors >= 1, "no failed request counted")
    assert.are.equal(doc.counters.errors, doc.types.GET.retries + doc.types.SET.retries)
    -- the failures are said once, in one line
    local errs = h.read(dir .. "/err")
    assert.are.equal(1, h.count(errs, "ALERT: "), errs)
    assert.is_truthy(errs:find("ALERT: [^\n]*connection dropped, request sent again; further errors are only counted%)\n"), errs)
  end)

  it("says a reply that is not RESP in one line, and does not use it", function()
    if not have_redis() then return end
    -- a server that answers every request with a bulk length that is not a number
    local port = h.free_port()
    local dir = h.tmpdir() .. "/redis-garbage"
    sh("mkdir -p " .. h.q(dir))
    local server = h.write("garbage_server.py", string.format([[
import socket, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", %d))
s.listen(64)
open("%s/ready", "w").close()
def serve(c):
    while c.recv(65536):
        c.sendall(b"$abc\r\n")
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
]], port, dir))
    os.execute(string.format("python3 %s >/dev/null 2>&1 & echo $! >%s/pid", h.q(server), h.q(dir)))
    finally(function() sh("kill $(cat " .. h.q(dir .. "/pid") .. ") 2>/dev/null") end)
    sh("for i in $(seq 100); do [ -e " .. h.q(dir .. "/ready") .. " ] && break; sleep 0.05; done")
    local opts = " --redis-port=" .. port .. " --keys=10"
    local _, err, rc = h.run(EX .. opts .. " prepare")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find(string.format('FATAL: `prepare\' function failed: redis 127.0.0.1:%d: malformed reply: a bulk length that is not -1 .. 512 MB (got "$abc")', port), 1, true), err)
    assert.is_falsy(err:find("attempt to", 1, true), err)
    local out
    out, err = h.run(EX .. opts .. " --users=2 --threads=1 --time=1 --format=json run")
    assert.is_falsy(err:find("attempt to", 1, true), err)
    assert.are.equal(1, h.count(err, "ALERT: "), err)
    assert.is_truthy(err:find(string.format('ALERT: redis 127.0.0.1:%d: malformed reply: a bulk length that is not -1 .. 512 MB (got "$abc") (connection dropped', port), 1, true), err)
    local doc = h.json(out)
    assert.are.equal(0, doc.types.GET and doc.types.GET.count or 0)
    assert.is_true(doc.counters.errors > 0, out)
  end)
end)
