-- luabench.socket in this state (a thread: calls block it) against a real `luabench net-server`:
-- exact, delimited and partial receives from its buffer, UDP, timeouts, errors with the OS
-- reason, and the run's connection counts.
local h = require("helpers")

local function be32(n)
  return string.char(bit.band(bit.rshift(n, 24), 255), bit.band(bit.rshift(n, 16), 255),
    bit.band(bit.rshift(n, 8), 255), bit.band(n, 255))
end

describe("luabench.socket", function()
  local port, pid
  setup(function()
    math.randomseed(os.time())
    -- a random port may be taken (the server then exits): another one, a few times
    local log = h.tmpdir() .. "/sock_server.txt"
    for _ = 1, 5 do
      port = 30000 + math.random(0, 9999)
      local p = io.popen(string.format("timeout 60 %s net-server --port=%d >%s 2>&1 & echo $!", h.q(h.bin), port, log))
      pid = p:read("*l")
      p:close()
      os.execute("for i in $(seq 300); do grep -q listening " .. log .. " && break; kill -0 " .. pid ..
        " 2>/dev/null || break; sleep 0.05; done")
      if (h.read(log) or ""):find("listening", 1, true) then break end
      os.execute("kill -TERM " .. pid .. " 2>/dev/null")
      pid = nil
    end
    assert(pid, "net-server did not start: " .. tostring(h.read(log)))
  end)
  teardown(function() os.execute("kill -TERM " .. pid .. " 2>/dev/null") end)

  it("sends and receives exactly, up to a delimiter and what has arrived", function()
    local before = luabench.socket.counts()
    local c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    -- hello: request/response mode, 3-byte requests, 6-byte responses (all zero bytes)
    assert.are.equal(12, c:send("LBNr" .. be32(3) .. be32(6)))
    c:send("abc")
    assert.are.equal("\0\0", c:receive(2))
    assert.are.equal("", c:receive_until("\0"))   -- the delimiter is consumed, not returned
    assert.are.equal("\0\0\0", c:receive_some())  -- the rest that had arrived
    assert.are.equal(3, c:send_zeros(3))
    assert.are.equal(6, c:skip(6))
    c:close()
    local after = luabench.socket.counts()
    assert.are.equal(1, after.opened - before.opened)
    assert.are.equal(1, after.connected - before.connected)
    assert.are.equal(1, after.closed - before.closed)
  end)

  it("moves messages larger than the socket buffers in several pieces", function()
    local before = luabench.socket.counts()
    local c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    c:send("LBNr" .. be32(3000000) .. be32(5000000))
    assert.are.equal(1000000, c:send(string.rep("y", 1000000))) -- one call, all of it
    assert.are.equal(2000000, c:send_zeros(2000000))             -- 64 KiB per system call
    assert.are.equal(5000000, c:skip(5000000))                   -- many receives, one deadline
    c:close()
    assert.are.equal(1, luabench.socket.counts().closed - before.closed)
  end)

  it("talks UDP: one datagram each way", function()
    local c = luabench.socket.connect("127.0.0.1", port, { udp = true, timeout = 5 })
    c:send(be32(5) .. "xyz")
    assert.are.equal(string.rep("\0", 5), c:receive(5))
    c:close()
  end)

  it("times out, and says why a call failed", function()
    local c = luabench.socket.connect("127.0.0.1", port, { timeout = 0.2 })
    local t0 = luabench.time()
    local ok, err = pcall(c.receive, c, 1)
    assert.is_false(ok)
    assert.are.equal("receive from 127.0.0.1:" .. port .. ": timed out after 0.2 s", err)
    assert.is_true(luabench.time() - t0 >= 0.19)
    c:close()
    ok, err = pcall(function() c:send("x") end)
    assert.is_truthy(err:find("^[^\n]*socket_spec%.lua:%d+: c:send%(%): use of 127%.0%.0%.1:" .. port ..
      ": the socket is closed$"), err)
    ok, err = pcall(luabench.socket.connect, "127.0.0.1", port + 1)
    assert.are.equal("connect to 127.0.0.1:" .. (port + 1) .. ": Connection refused", err)
    ok, err = pcall(luabench.socket.connect, "no-such-host.invalid", 1)
    assert.is_truthy(tostring(err):find("^connect to no%-such%-host%.invalid:1: "), err)
    ok, err = pcall(luabench.socket.connect, 42)
    assert.is_truthy(tostring(err):find("luabench.socket.connect(host, port [, {timeout = s, udp = bool}]): host must be a name or an address (got 42)", 1, true), err)
  end)

  it("reports the end of the stream", function()
    local c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    c:send("XXXXXXXXXXXX") -- not a hello: the server closes the connection
    assert.is_nil(c:receive_some())
    local ok, err = pcall(c.receive, c, 4)
    assert.are.equal("receive from 127.0.0.1:" .. port .. ": connection closed after 0 of 4 bytes", err)
    c:close()
    -- a delimiter is shown with its control characters as escapes: one line
    c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    c:send("XXXXXXXXXXXX")
    ok, err = pcall(c.receive_until, c, "\r\n")
    assert.are.equal('receive from 127.0.0.1:' .. port .. ': connection closed before "\\r\\n"', err)
    c:close()
    -- and when the bytes before it exceed the limit
    c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    c:send("LBNr" .. be32(1) .. be32(64))
    c:send("a")
    ok, err = pcall(c.receive_until, c, "\0\27", 8)
    assert.are.equal('receive from 127.0.0.1:' .. port .. ': no "\\0\\x1b" in 8 bytes', err)
    c:close()
  end)
end)
