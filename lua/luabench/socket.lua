-- luabench.socket: TCP and UDP sockets for scripts (doc/scripting.md, "Sockets").
--
-- Every call waits the way the caller runs: an emulated user (--users) parks on its worker's
-- scheduler and yields, like a user waiting for a query, so thousands of connections share a
-- few threads; a plain thread polls. Errors are Lua errors naming the peer and the OS reason.
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench

local READ, WRITE, TIMEOUT = C.LB_SOCK_READ, C.LB_SOCK_WRITE, 4 -- LB_DB_WAIT_TIMEOUT
local EAGAIN, EINPROGRESS, EINTR = 11, 115, 4
local SLICE_NS = 100e6 -- a thread re-checks the clock this often while it waits

local M = {}
local Socket = {}
Socket.__index = Socket

local function fail(self, what, err)
  error(string.format("%s %s:%d: %s", what, self.host, self.port, err), 0)
end

-- Waits until the socket is ready for `events` or the deadline (ns since the run started)
-- passes; false on timeout.
local function wait(self, events, deadline)
  local w = sb.worker
  local U = sb._users
  if U and U.current >= 0 and coroutine.running() then
    C.lb_user_sched_wait_fd(U.sched, U.current, self.fd, events, deadline)
    local bits = coroutine.yield()
    return bit.band(bits or 0, TIMEOUT) == 0 or bit.band(bits, events) ~= 0
  end
  while true do
    local left = deadline - C.lb_clock_ns(w)
    if left <= 0 then return false end
    local rc = C.lb_sock_wait(self.s, events, left < SLICE_NS and left or SLICE_NS)
    if rc > 0 then return true end
    if rc < 0 then fail(self, "wait on", ffi.string(C.lb_sock_strerror(rc))) end
  end
end

local function deadline(self)
  return C.lb_clock_ns(sb.worker) + self.timeout * 1e9
end

local function timed_out(self, what)
  fail(self, what, string.format("timed out after %g s", self.timeout))
end

-- luabench.socket.connect(host, port [, {timeout = s, udp = bool}]): a connected socket.
function M.connect(host, port, opts)
  opts = opts or {}
  if type(host) ~= "string" or not tonumber(port) then
    error("luabench.socket.connect(host, port [, options]): host a string, port a number", 2)
  end
  local self = setmetatable({ host = host, port = tonumber(port), timeout = opts.timeout or 10,
    udp = opts.udp and true or false }, Socket)
  local err = ffi.new("char[256]")
  local s = C.lb_sock_open(sb.worker, host, self.port, self.udp and 1 or 0, err, 256)
  if s == nil then fail(self, "connect to", ffi.string(err)) end
  self.s = ffi.gc(s, C.lb_sock_close)
  self.fd = C.lb_sock_fd(s)
  local until_ns = deadline(self)
  while true do
    local rc = C.lb_sock_connected(s)
    if rc == 0 then break end
    if rc ~= -EINPROGRESS then
      self:close()
      fail(self, "connect to", ffi.string(C.lb_sock_strerror(rc)))
    end
    if not wait(self, WRITE, until_ns) then
      self:close()
      timed_out(self, "connect to")
    end
  end
  return self
end

local function check_open(self)
  if not self.s then fail(self, "use of", "the socket is closed") end
end

-- Sends len bytes through send_from(offset) (the C call for the bytes from there), waiting
-- whenever the socket's buffer is full; returns len.
local function send_all(self, len, send_from)
  check_open(self)
  local sent, until_ns = 0, nil
  while sent < len do
    local n = send_from(sent)
    if n >= 0 then
      sent = sent + n
    elseif n == -EAGAIN or n == -EINTR then
      until_ns = until_ns or deadline(self)
      if not wait(self, WRITE, until_ns) then timed_out(self, "send to") end
    else
      fail(self, "send to", ffi.string(C.lb_sock_strerror(n)))
    end
  end
  return len
end

-- Sends all of data (a string); returns its length.
function Socket:send(data)
  local p, len = ffi.cast("const char *", data), #data
  return send_all(self, len, function(sent) return C.lb_sock_send(self.s, p + sent, len - sent) end)
end

-- Sends n zero bytes (a request whose content does not matter); returns n.
function Socket:send_zeros(n)
  return send_all(self, n, function(sent) return C.lb_sock_send_zeros(self.s, n - sent) end)
end

-- Reads more into the buffer, waiting for it; false at the end of the stream.
local function fill(self, until_ns, what)
  while true do
    local n = C.lb_sock_fill(self.s)
    if n > 0 then return true end
    if n == 0 then return false end
    if n ~= -EAGAIN and n ~= -EINTR then fail(self, what, ffi.string(C.lb_sock_strerror(n))) end
    if not wait(self, READ, until_ns) then timed_out(self, what) end
  end
end

local function take(self, n)
  local s = ffi.string(C.lb_sock_peek(self.s), n)
  C.lb_sock_consume(self.s, n)
  return s
end

-- Exactly n bytes (an error if the peer closes before).
function Socket:receive(n)
  check_open(self)
  local until_ns = deadline(self)
  while C.lb_sock_buffered(self.s) < n do
    if not fill(self, until_ns, "receive from") then
      fail(self, "receive from", string.format("connection closed after %d of %d bytes", C.lb_sock_buffered(self.s), n))
    end
  end
  return take(self, n)
end

-- Receives and drops exactly n bytes (counted, never copied into Lua); returns n.
function Socket:skip(n)
  check_open(self)
  local left, until_ns = n, nil
  while true do
    left = left - C.lb_sock_consume(self.s, left)
    if left <= 0 then return n end
    until_ns = until_ns or deadline(self)
    if not fill(self, until_ns, "receive from") then
      fail(self, "receive from", string.format("connection closed after %d of %d bytes", n - left, n))
    end
  end
end

-- The bytes before the next `delim` (which is consumed too).
function Socket:receive_until(delim, max)
  check_open(self)
  max = max or 1048576
  local until_ns = deadline(self)
  while true do
    local at = C.lb_sock_find(self.s, delim, #delim)
    if at >= 0 then
      local s = take(self, at)
      return s:sub(1, #s - #delim)
    end
    if C.lb_sock_buffered(self.s) > max then
      fail(self, "receive from", string.format("no %q in %d bytes", delim, max))
    end
    if not fill(self, until_ns, "receive from") then
      fail(self, "receive from", "connection closed before " .. string.format("%q", delim))
    end
  end
end

-- What has arrived (at least one byte; waits for it), up to max; nil at the end of the stream.
function Socket:receive_some(max)
  check_open(self)
  if C.lb_sock_buffered(self.s) == 0 and not fill(self, deadline(self), "receive from") then return nil end
  local n = C.lb_sock_buffered(self.s)
  return take(self, max and max < n and max or n)
end

function Socket:settimeout(seconds)
  self.timeout = seconds
end

function Socket:close()
  if self.s then
    C.lb_sock_close(ffi.gc(self.s, nil))
    self.s = nil
  end
end

-- The run's sockets so far: opened, connected, failed (to connect), closed.
function M.counts()
  local c = ffi.new("uint64_t[4]")
  C.lb_sock_counts(sb.worker, c)
  return { opened = tonumber(c[0]), connected = tonumber(c[1]), failed = tonumber(c[2]), closed = tonumber(c[3]) }
end

return M
