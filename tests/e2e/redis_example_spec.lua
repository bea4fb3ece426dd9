-- examples/redis_kv.lua against a real Redis started here on a private port (and stopped):
-- prepare sets every key, the run's GET/SET mix reaches the server (its own command counts
-- agree), and bytes are counted.
local h = require("helpers")

local function sh(cmd)
  return (h.sh(cmd))
end

local EX = h.q(h.root .. "/examples/redis_kv.lua")

describe("examples/redis_kv.lua", function()
  it("runs a GET/SET mix with think times against redis-server", function()
    if sh("command -v redis-server redis-cli") == "" or not sh("command -v redis-cli"):find("redis") then
      assert.is_nil(os.getenv("CI") == "true" and "redis-server is not installed (tools/install-deps)" or nil)
      pending("redis-server is not installed")
      return
    end
    local port = 26000 + math.random(0, 999)
    local dir = h.tmpdir() .. "/redis" .. port
    sh("mkdir -p " .. h.q(dir))
    local cli = "redis-cli -p " .. port .. " "
    finally(function() sh(cli .. "shutdown nosave; rm -rf " .. h.q(dir)) end)
    sh(string.format("redis-server --port %d --bind 127.0.0.1 --save '' --appendonly no --dir %s --daemonize yes --pidfile %s/pid --logfile %s/log",
      port, h.q(dir), h.q(dir), h.q(dir)))
    sh("for i in $(seq 50); do " .. cli .. "ping | grep -q PONG && break; sleep 0.1; done")
    local opts = " --redis-port=" .. port .. " --keys=500 --value-size=64"
    local out, err, rc = h.run(EX .. opts .. " prepare")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("500 keys set", 1, true), out)
    assert.are.equal("500", sh(cli .. "dbsize"):match("%d+"))
    sh(cli .. "config resetstat")
    out, err, rc = h.run(EX .. opts .. " --users=20 --threads=2 --think=0.01 --time=2 --format=json run")
    assert.are.equal(0, rc, err)
    local r = h.json(out)
    local gets, sets = r.types.GET.count, r.types.SET.count
    assert.is_true(gets > 0 and sets > 0, gets .. " GETs, " .. sets .. " SETs")
    local stats = sh(cli .. "info commandstats")
    assert.are.equal(gets, tonumber(stats:match("cmdstat_get:calls=(%d+)")), stats)
    assert.are.equal(sets, tonumber(stats:match("cmdstat_set:calls=(%d+)")), stats)
    -- a GET reply is $64\r\n (5 bytes) + 64 + \r\n = 71 bytes, a SET's +OK\r\n 5
    assert.are.equal(gets * 71 + sets * 5, r.counters.bytes_read)
    -- a user thinking at the end of its event when the run ends has its request done, not its event
    assert.is_true(gets + sets >= r.counters.events and gets + sets <= r.counters.events + 20)
    _, err, rc = h.run(EX .. opts .. " cleanup")
    assert.are.equal(0, rc, err)
    assert.are.equal("0", sh(cli .. "dbsize"):match("%d+"))
  end)
end)
