-- luabench.socket: TCP and UDP sockets for scripts (doc/lua-api.md §3, "Sockets").
--
-- Every call waits the way the caller runs: an emulated user (--users) parks on its worker's
-- scheduler and yields, like a user waiting for a query, so thousands of connections share a
-- few threads; a plain thread waits in the kernel (a blocking socket whose SO_RCVTIMEO and
-- SO_SNDTIMEO are the timeout: one system call per send or receive, as sockperf or netperf).
-- Errors are Lua errors naming the peer and the OS reason.
local ffi = require("ffi")
sysbench._cdef("luabench.cdef_socket")
local C = ffi.C
local sb = sysbench

local READ, WRITE, TIMEOUT = C.LB_SOCK_READ, C.LB_SOCK_WRITE, 4 -- LB_DB_WAIT_TIMEOUT
local EAGAIN, EINPROGRESS, EINTR, ETIMEDOUT = 11, 115, 4, 110
local SLICE_NS = 100e6 -- a thread re-checks the clock this often while it waits

local M = {}
local errbuf = ffi.new("char[256]") -- lb_sock_open's reason (copied at once: one per Lua state)
local Socket = {}
Socket.__index = Socket

local api = require("luabench.api_check")
local escape, bad = api.escape, api.bad

local function fail(self, what, err)
  error(string.format("%s %s:%d: %s", what, escape(self.host), self.port, err), 0)
end

-- A delimiter as a message shows it: quoted, control characters as escapes ("\r\n").
local function quoted(delim)
  return '"' .. escape(delim) .. '"'
end

-- True in an emulated user's coroutine: its waits yield to the worker's scheduler.
local function in_user()
  local U = sb._users
  return U ~= nil and U.current >= 0 and coroutine.running() ~= nil
end

-- How long each system call of a call may wait in the kernel (ns): the timeout in a thread, -1
-- (never: the caller yields instead) in a user.
local function kernel_wait_ns(self)
  return in_user() and -1 or self.timeout * 1e9
end

-- Waits until the socket is ready for `events` or the deadline (ns since the run started)
-- passes; false on timeout.
local function wait(self, events, deadline)
  local w = sb.worker
  local U = sb._users
  if in_user() then
    C.lb_user_sched_wait_fd(U.sched, U.current, self.fd, events, deadline, self.poll_tag)
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

-- connect's loop: waits for the handshake (rc: lb_sock_connected's first answer).
local function connect_rest(self, rc)
  local until_ns
  while rc ~= 0 do
    if rc ~= -EINPROGRESS then
      self:close()
      fail(self, "connect to", ffi.string(C.lb_sock_strerror(rc)))
    end
    until_ns = until_ns or deadline(self)
    if not wait(self, WRITE, until_ns) then
      self:close()
      timed_out(self, "connect to")
    end
    rc = C.lb_sock_connected(self.s)
  end
end

-- Misuse is raised at the script's line, naming the call and its rule (api_check.bad); the
-- checks are type tests on the arguments, which cost nothing once a trace has them.
local CONNECT = "luabench.socket.connect(host, port [, {timeout = s, udp = bool}])"

local function whole(n)
  return type(n) == "number" and n >= 0 and n % 1 == 0
end

-- luabench.socket.connect(host, port [, {timeout = s, udp = bool}]): a connected socket.
function M.connect(host, port, opts)
  if type(host) ~= "string" or host == "" then bad(CONNECT, "host must be a name or an address", host) end
  local p = tonumber(port)
  if not (whole(p) and p >= 1 and p <= 65535) then bad(CONNECT, "port must be a whole number 1..65535", port) end
  if opts == nil then
    opts = {}
  elseif type(opts) ~= "table" then
    bad(CONNECT, "the options must be a table", opts)
  end
  local timeout = opts.timeout
  if timeout == nil then
    timeout = 10
  elseif not (type(timeout) == "number" and timeout > 0 and timeout < 1e9) then
    bad(CONNECT, "timeout must be a number of seconds > 0", timeout)
  end
  if opts.udp ~= nil and type(opts.udp) ~= "boolean" then bad(CONNECT, "udp must be true or false", opts.udp) end
  local self = setmetatable({ host = host, port = p, timeout = timeout, udp = opts.udp and true or false }, Socket)
  local s = C.lb_sock_open(sb.worker, host, self.port, self.udp and 1 or 0, kernel_wait_ns(self), errbuf, 256)
  if s == nil then fail(self, "connect to", ffi.string(errbuf)) end
  self.s = ffi.gc(s, C.lb_sock_close)
  self.fd = C.lb_sock_fd(s)
  self.poll_tag = C.lb_sock_poll_tag(s)
  local rc = C.lb_sock_connected(s) -- a thread's socket: connected already (no system call)
  if rc ~= 0 then connect_rest(self, rc) end
  return self
end

-- A method called with '.' (c.send(x)) or on something else gets one clear line.
local function not_socket(name, self)
  api.raise(string.format("c:%s(): called on %s, not on a socket from luabench.socket.connect() (call it with ':')",
    name, api.show(self)))
end

-- Using a closed socket is the script's mistake: raised at its line, not as an I/O error.
local function closed(self, name)
  api.raise(string.format("c:%s(): use of %s:%d: the socket is closed", name, escape(self.host), self.port))
end

local function check_open(self, name)
  if getmetatable(self) ~= Socket then not_socket(name, self) end
  local s = self.s
  if not s then closed(self, name) end
  return s
end

-- A call that needs a second system call has a deadline, read from the clock then (the first
-- one costs no clock read): it may take up to twice its timeout in all, never longer.
local function next_deadline(self, until_ns, what)
  if not until_ns then return deadline(self) end
  if C.lb_clock_ns(sb.worker) >= until_ns then timed_out(self, what) end
  return until_ns
end

-- A send in several pieces (c:send(a, b, ...)) fills this array (one per Lua state) from its
-- arguments and gives it to one sendmsg; a call that has to wait fills it again before it sends
-- the rest, as another user of the state may have used it meanwhile.
local MAX_PIECES = C.LB_SOCK_MAX_PIECES
local pieces = ffi.new("struct lb_sock_piece[?]", MAX_PIECES)
local pieces_total = ffi.new("double[1]")
local SEND = "c:send(data, ...)"

-- Piece i (0-based) is a: a string, or a whole number sent in decimal (no Lua string is made).
local function put(i, a)
  local p = pieces[i]
  if type(a) == "string" then
    p.data = a
    p.len = #a
  elseif type(a) == "number" and a % 1 == 0 and a >= -2^53 and a <= 2^53 then
    p.data = nil
    p.num = a
  else
    bad(SEND, string.format("argument %d must be a string or a whole number", i + 1), a)
  end
end

-- fill(n, a1, ..., a64): put()s the first n arguments. Written out, not a loop, for the same
-- reason as the hot paths below; select(i, ...) with a variable i is not compiled either.
local fill_pieces
do
  local src = { "local put = ...\nreturn function(n" }
  for i = 1, MAX_PIECES do src[#src + 1] = ", a" .. i end
  src[#src + 1] = ")\n"
  for i = 1, MAX_PIECES do src[#src + 1] = string.format("if n < %d then return end put(%d, a%d)\n", i, i - 1, i) end
  src[#src + 1] = "end\n"
  fill_pieces = assert(load(table.concat(src), "@luabench/socket.lua (pieces)"))(put)
end

-- The hot paths (one send, one receive) have no loop: a loop that runs once per call would make
-- LuaJIT abort the trace of the run's event loop ("inner loop in root trace") and interpret
-- every event. The loops are in the *_rest functions, for the calls that need more.

-- send_all's loop, once a first send (result n) did not send all of it. data: a string, nil
-- (zeros), or the number of pieces, which follow.
local function send_rest(self, data, len, n, wait_ns, ...)
  local s = self.s
  local sent, until_ns = 0, nil
  while true do
    if n >= 0 then
      sent = sent + n
      if sent >= len then return len end
      until_ns = next_deadline(self, until_ns, "send to")
    elseif n == -EAGAIN or n == -EINTR then
      until_ns = until_ns or deadline(self)
      if not wait(self, WRITE, until_ns) then timed_out(self, "send to") end
    elseif n == -ETIMEDOUT then
      timed_out(self, "send to")
    else
      fail(self, "send to", ffi.string(C.lb_sock_strerror(n)))
    end
    if data == nil then
      n = C.lb_sock_send_zeros(s, len - sent, wait_ns)
    elseif type(data) == "number" then
      fill_pieces(data, ...)
      n = C.lb_sock_sendv(s, pieces, data, sent, wait_ns, pieces_total)
    else
      n = C.lb_sock_send(s, ffi.cast("const char *", data) + sent, len - sent, wait_ns)
    end
  end
end

-- Sends len bytes of data (a string; nil: zeros), waiting whenever the socket's buffer is
-- full; returns len. No closure or pointer is made unless the bytes go in several sends.
local function send_all(self, data, len, name)
  local s = self.s
  if not s then closed(self, name) end
  local wait_ns = kernel_wait_ns(self)
  local n
  if data == nil then n = C.lb_sock_send_zeros(s, len, wait_ns) else n = C.lb_sock_send(s, data, len, wait_ns) end
  if n == len then return len end
  return send_rest(self, data, len, n, wait_ns)
end

-- Sends the n pieces (the arguments after n) in one system call; returns their length.
local function send_pieces(self, n, ...)
  if n > MAX_PIECES then bad(SEND, "at most " .. MAX_PIECES .. " pieces", n) end
  fill_pieces(n, ...)
  local s = self.s
  if not s then closed(self, "send") end
  local wait_ns = kernel_wait_ns(self)
  local sent = C.lb_sock_sendv(s, pieces, n, 0, wait_ns, pieces_total)
  local len = pieces_total[0]
  if sent == len then return len end
  return send_rest(self, n, len, sent, wait_ns, ...)
end

-- Sends all of data (a string), or of several pieces (strings and whole numbers) in one system
-- call; returns the bytes sent. One string takes the shortest path.
function Socket:send(data, ...)
  if getmetatable(self) ~= Socket then not_socket("send", self) end
  if select("#", ...) == 0 and type(data) == "string" then return send_all(self, data, #data, "send") end
  return send_pieces(self, select("#", ...) + 1, data, ...)
end

-- Sends n zero bytes (a request whose content does not matter); returns n.
function Socket:send_zeros(n)
  if getmetatable(self) ~= Socket then not_socket("send_zeros", self) end
  if not whole(n) then bad("c:send_zeros(n)", "n must be a whole number >= 0", n) end
  return send_all(self, nil, n, "send_zeros")
end

-- fill's loop, once a read (result n) brought nothing: waits for the socket and reads again.
local function fill_rest(self, n, until_ns, what)
  while true do
    if n > 0 then return true, until_ns or false end
    if n == 0 then return false end
    if n == -ETIMEDOUT then timed_out(self, what) end
    if n ~= -EAGAIN and n ~= -EINTR then fail(self, what, ffi.string(C.lb_sock_strerror(n))) end
    until_ns = until_ns or deadline(self)
    if not wait(self, READ, until_ns) then timed_out(self, what) end
    n = C.lb_sock_fill(self.s, -1) -- ready now (or a signal came: the loop waits again)
  end
end

-- Reads more into the buffer, waiting for it. Returns false at the end of the stream, else true
-- and the call's deadline for its next fill (until_ns: nil at the call's first fill).
local function fill(self, until_ns, what)
  local wait_ns = kernel_wait_ns(self)
  if until_ns ~= nil and wait_ns >= 0 then until_ns = next_deadline(self, until_ns, what) end
  local n = C.lb_sock_fill(self.s, wait_ns)
  if n > 0 then return true, until_ns or false end
  if n == 0 then return false end -- (tcp_crr's last read: no loop either)
  return fill_rest(self, n, until_ns, what)
end

local function take(self, n)
  local s = ffi.string(C.lb_sock_peek(self.s), n)
  C.lb_sock_consume(self.s, n)
  return s
end

-- Fills until n bytes are buffered (after a first fill: until_ns false or the deadline).
local function receive_rest(self, n, until_ns)
  local more
  while C.lb_sock_buffered(self.s) < n do
    more, until_ns = fill(self, until_ns, "receive from")
    if not more then
      fail(self, "receive from", string.format("connection closed after %d of %d bytes", C.lb_sock_buffered(self.s), n))
    end
  end
end

-- Exactly n bytes (an error if the peer closes before); a string n is a delimiter
-- (receive_until).
function Socket:receive(n)
  local s = check_open(self, "receive")
  if not whole(n) then
    if type(n) == "string" and n ~= "" then return self:receive_until(n) end
    bad("c:receive(n)", "n must be a whole number >= 0 or a delimiter string", n)
  end
  if C.lb_sock_buffered(s) < n then
    local more, until_ns = fill(self, nil, "receive from")
    if not more then
      fail(self, "receive from", string.format("connection closed after %d of %d bytes", C.lb_sock_buffered(s), n))
    end
    if C.lb_sock_buffered(s) < n then receive_rest(self, n, until_ns) end
  end
  return take(self, n)
end

-- skip's loop: drops `left` more of n bytes (after a first fill: until_ns false or the deadline).
local function skip_rest(self, n, left, until_ns)
  local s, more = self.s, nil
  while true do
    more, until_ns = fill(self, until_ns, "receive from")
    if not more then
      fail(self, "receive from", string.format("connection closed after %d of %d bytes", n - left, n))
    end
    left = left - C.lb_sock_consume(s, left)
    if left <= 0 then return n end
  end
end

-- Receives and drops exactly n bytes (counted, never copied into Lua); returns n.
function Socket:skip(n)
  local s = check_open(self, "skip")
  if not whole(n) then bad("c:skip(n)", "n must be a whole number >= 0", n) end
  local left = n - C.lb_sock_consume(s, n)
  if left <= 0 then return n end
  local more, until_ns = fill(self, nil, "receive from")
  if not more then
    fail(self, "receive from", string.format("connection closed after %d of %d bytes", n - left, n))
  end
  left = left - C.lb_sock_consume(s, left)
  if left <= 0 then return n end
  return skip_rest(self, n, left, until_ns)
end

-- skip_if's loop, once a fill (until_ns: the call's deadline or false) left it undecided.
local function skip_if_rest(self, bytes, until_ns)
  local s, more = self.s, nil
  while true do
    local r = C.lb_sock_skip_if(s, bytes, #bytes)
    if r ~= 0 then return r end
    more, until_ns = fill(self, until_ns, "receive from")
    if not more then
      fail(self, "receive from", string.format("connection closed after %d of %d bytes", C.lb_sock_buffered(s), #bytes))
    end
  end
end

-- Drops `bytes` if they are what comes next (true; never copied into Lua), else false with
-- nothing taken: a reply checked against the one expected without a Lua string per reply. It
-- waits only as long as the bytes that came agree with `bytes`.
function Socket:skip_if(bytes)
  local s = check_open(self, "skip_if")
  if type(bytes) ~= "string" or bytes == "" then
    bad("c:skip_if(bytes)", "bytes must be a string of at least one byte", bytes)
  end
  local r = C.lb_sock_skip_if(s, bytes, #bytes)
  if r == 0 then
    local more, until_ns = fill(self, nil, "receive from")
    if not more then
      fail(self, "receive from", string.format("connection closed after %d of %d bytes", C.lb_sock_buffered(s), #bytes))
    end
    r = C.lb_sock_skip_if(s, bytes, #bytes)
    if r == 0 then r = skip_if_rest(self, bytes, until_ns) end
  end
  return r > 0
end

-- The bytes before the next `delim` (which is consumed too).
function Socket:receive_until(delim, max)
  check_open(self, "receive_until")
  if type(delim) ~= "string" or delim == "" then
    bad("c:receive_until(delim [, max])", "delim must be a string of at least one byte", delim)
  end
  if max == nil then
    max = 1048576
  elseif not (whole(max) and max >= 1) then
    bad("c:receive_until(delim [, max])", "max must be a whole number of bytes >= 1", max)
  end
  local until_ns, more
  while true do
    local at = C.lb_sock_find(self.s, delim, #delim)
    if at >= 0 then
      local s = take(self, at)
      return s:sub(1, #s - #delim)
    end
    if C.lb_sock_buffered(self.s) > max then
      fail(self, "receive from", string.format("no %s in %d bytes", quoted(delim), max))
    end
    more, until_ns = fill(self, until_ns, "receive from")
    if not more then
      fail(self, "receive from", "connection closed before " .. quoted(delim))
    end
  end
end

-- What has arrived (at least one byte; waits for it), up to max; nil at the end of the stream.
function Socket:receive_some(max)
  check_open(self, "receive_some")
  if max ~= nil and not (whole(max) and max >= 1) then
    bad("c:receive_some([max])", "max must be a whole number of bytes >= 1", max)
  end
  if C.lb_sock_buffered(self.s) == 0 and not fill(self, nil, "receive from") then return nil end
  local n = C.lb_sock_buffered(self.s)
  return take(self, max and max < n and max or n)
end

function Socket:settimeout(seconds)
  if getmetatable(self) ~= Socket then not_socket("settimeout", self) end
  if not (type(seconds) == "number" and seconds > 0 and seconds < 1e9) then
    bad("c:settimeout(seconds)", "seconds must be a number > 0", seconds)
  end
  self.timeout = seconds
end

function Socket:close()
  if getmetatable(self) ~= Socket then not_socket("close", self) end
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
