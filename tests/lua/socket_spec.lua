-- luabench.socket in this state (a thread: calls block it) against a real `luabench net-server`:
-- exact, delimited and partial receives from its buffer, UDP, timeouts, errors with the OS
-- reason, and the run's connection counts.
local h = require("helpers")

local function be32(n)
  return string.char(bit.band(bit.rshift(n, 24), 255), bit.band(bit.rshift(n, 16), 255),
    bit.band(bit.rshift(n, 8), 255), bit.band(n, 255))
end

-- A real server that keeps what it receives: each connection's bytes, up to its end, in the file
-- <dir>/<n> (n = 1, 2, ... in the order of the connections), written once the client closed.
local SINK = [[
import socket, sys, threading, time
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0)); srv.listen(64)
print(srv.getsockname()[1], flush=True)
def keep(c, n):
    time.sleep(0.2)  # the client's first sends fill the buffers (reading would widen them)
    data = bytearray()
    while True:
        b = c.recv(1 << 20)
        if not b: break
        data += b
    open("%s/%d.part" % (sys.argv[1], n), "wb").write(data)
    import os; os.rename("%s/%d.part" % (sys.argv[1], n), "%s/%d" % (sys.argv[1], n))
    c.close()
n = 0
while True:
    c, _ = srv.accept(); n += 1
    threading.Thread(target=keep, args=(c, n), daemon=True).start()
]]

-- Starts the sink (stopped by finally); returns its port and the directory of its files.
local function sink(name)
  local dir = h.tmpdir() .. "/" .. name
  os.execute("mkdir -p " .. h.q(dir))
  local py = h.write(name .. ".py", SINK)
  local p = io.popen(string.format("timeout 60 python3 %s %s & echo $!", h.q(py), h.q(dir)))
  local pid = p:read("*l")
  local port = tonumber(p:read("*l"))
  finally(function()
    os.execute("kill -TERM " .. pid .. " 2>/dev/null")
    p:close()
  end)
  return port, dir
end

-- What the sink kept of its n-th connection (waits for the file: the client has closed).
local function kept(dir, n)
  os.execute(string.format("for i in $(seq 200); do test -e %s/%d && break; sleep 0.05; done", h.q(dir), n))
  return h.read(dir .. "/" .. n)
end

describe("luabench.socket", function()
  local port, pid
  setup(function()
    -- a free port may be taken before the server binds it (the server then exits): another one
    local log = h.tmpdir() .. "/sock_server.txt"
    for _ = 1, 5 do
      port = h.free_port()
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

  it("sends several pieces in one call: strings and whole numbers, as the server received them", function()
    local sport, dir = sink("pieces")
    local c = luabench.socket.connect("127.0.0.1", sport, { timeout = 5 })
    assert.are.equal(1, c:send("a"))
    assert.are.equal(30, c:send("*2\r\n$", 3, "\r\n", "", -42, "|", 2 ^ 53, "\r\n"))
    local big = string.rep("0123456789", 300000)  -- larger than the socket's buffer
    assert.are.equal(3000005, c:send("<", big, ">", "[", big:sub(1, 1), "]"))
    local many = {}
    for i = 1, 64 do many[i] = i end
    assert.are.equal(119, c:send(unpack(many)))    -- 9 one-digit and 55 two-digit numbers
    c:close()
    assert.are.equal("a" .. "*2\r\n$3\r\n-42|9007199254740992\r\n" .. "<" .. big .. ">[0]" .. table.concat(many),
      kept(dir, 1))
  end)

  it("sends pieces in parts when the socket takes less, every byte once and in order (users)", function()
    -- non-blocking sockets (--users): 2 users of one Lua state each send, in one call, more than
    -- the kernel's largest send buffer and a receive buffer not yet grown hold together (tcp_wmem's
    -- maximum + tcp_rmem's default) to a server that does not read at first: each call is sent in
    -- parts, waiting (yielding) between them while the other user sends; each server file must be
    -- exactly the pieces in order
    local function sysctl(f, i) return tonumber((select(i, h.read("/proc/sys/net/ipv4/" .. f):match("(%d+)%s+(%d+)%s+(%d+)")))) end
    local wmem = sysctl("tcp_wmem", 3) + sysctl("tcp_rmem", 2)
    local sport, dir = sink("parts")
    local script = h.write("parts.lua", string.format([[
local users = 0
function event()
  local u = luabench.user_data
  if u.done then return end
  users = users + 1
  u.done = true
  local tag = string.char(64 + users)
  local c = luabench.socket.connect("127.0.0.1", %d, { timeout = 20 })
  local a, b = string.rep(tag, %d), string.rep("-", %d)
  local n = c:send(tag, 7, a, "|", b, 123456789, tag)
  c:close()
  print("SENT " .. n)
end
]], sport, wmem + 7, wmem + 13))
    local out, err, rc = h.run(h.q(script) .. " --users=2 --threads=1 --events=2 run")
    assert.are.equal(0, rc, err)
    local len = 1 + 1 + (wmem + 7) + 1 + (wmem + 13) + 9 + 1
    assert.are.equal(2, h.count(out, "SENT " .. len .. "\n"), out)
    local got = { kept(dir, 1), kept(dir, 2) }
    table.sort(got, function(x, y) return (x or "") < (y or "") end)
    for i, tag in ipairs({ "A", "B" }) do
      assert.are.equal(len, #(got[i] or ""))
      assert.is_true(got[i] == tag .. "7" .. string.rep(tag, wmem + 7) .. "|" .. string.rep("-", wmem + 13) .. "123456789" .. tag,
        "the bytes of user " .. tag .. " are not the pieces in order")
    end
  end)

  it("checks the pieces of a send: one line naming the argument", function()
    local c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    local function err_of(...)
      local ok, err = pcall(c.send, c, ...)
      assert.is_false(ok)
      return err
    end
    assert.are.equal("c:send(data, ...): argument 2 must be a string or a whole number (got table)",
      err_of("a", {}, "b"):match("c:send.*"))
    assert.are.equal("c:send(data, ...): argument 3 must be a string or a whole number (got 1.5)",
      err_of("a", "b", 1.5):match("c:send.*"))
    assert.are.equal("c:send(data, ...): argument 1 must be a string or a whole number (got nil)",
      err_of(nil):match("c:send.*"))
    assert.are.equal("c:send(data, ...): argument 2 must be a string or a whole number (got nil)",
      err_of("a", nil):match("c:send.*"))
    local many = {}
    for i = 1, 65 do many[i] = "x" end
    assert.are.equal("c:send(data, ...): at most 64 pieces (got 65)", err_of(unpack(many)):match("c:send.*"))
    assert.is_truthy(err_of("a", {}):find("^[^\n]*socket_spec%.lua:%d+: c:send"))  -- at the caller's line
    c:close()
    assert.is_truthy(err_of("a", "b"):find("c:send(): use of 127.0.0.1:" .. port .. ": the socket is closed", 1, true))
  end)

  it("skips the bytes that come next only when they are the ones expected", function()
    local c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    -- request/response: 1-byte requests, 6-byte responses of zero bytes
    c:send("LBNr" .. be32(1) .. be32(6))
    c:send("q")
    assert.is_false(c:skip_if("\0\1"))           -- differs at its 2nd byte: nothing taken
    assert.is_true(c:skip_if("\0\0\0"))
    c:send("q")                                   -- 3 left, and 6 more to come: it waits for them
    assert.is_true(c:skip_if(string.rep("\0", 9)))
    c:settimeout(0.2)
    local ok, err = pcall(c.skip_if, c, "x")       -- nothing more comes
    assert.are.equal("receive from 127.0.0.1:" .. port .. ": timed out after 0.2 s", err)
    ok, err = pcall(c.skip_if, c, "")
    assert.is_truthy(err:find('c:skip_if(bytes): bytes must be a string of at least one byte (got "")', 1, true), err)
    c:close()
    c = luabench.socket.connect("127.0.0.1", port, { timeout = 5 })
    c:send("XXXXXXXXXXXX") -- not a hello: the server closes the connection
    ok, err = pcall(c.skip_if, c, "abc")
    assert.are.equal("receive from 127.0.0.1:" .. port .. ": connection closed after 0 of 3 bytes", err)
    c:close()
  end)
end)
