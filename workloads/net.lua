-- net: netperf-style network tests against `luabench net-server` (doc/workloads/net.md).
--   tcp_rr      request/response on one connection per user (netperf TCP_RR)
--   tcp_crr     a new connection per transaction: connect, request, response, close (TCP_CRR)
--   tcp_stream  one connection per user sending --request-size bytes per event (TCP_STREAM)
--   udp_rr      one datagram each way per transaction (UDP_RR)
-- One transaction is one event: its latency is the round trip (tcp_crr: with the handshake).
-- Runs through luabench.socket, so --users puts thousands of connections on a few threads.
local ffi = require("ffi")

local A = sysbench.cmdline
sysbench.cmdline.options = {
  mode = { "tcp_rr, tcp_crr, tcp_stream or udp_rr", "tcp_rr" },
  host = { "address of the luabench net-server", "127.0.0.1" },
  port = { "its port (TCP and UDP)", 12866, A.ARG_INT },
  ["request-size"] = { "bytes per request (tcp_stream: per send); empty = 1 (tcp_stream: 64K); udp_rr at least 4", "" },
  ["response-size"] = { "bytes per response (not used by tcp_stream)", "1", A.ARG_SIZE },
  ["net-timeout"] = { "seconds a connect, send or receive may take before the transaction fails", 10, A.ARG_DOUBLE },
}

local modes = { tcp_rr = true, tcp_crr = true, tcp_stream = true, udp_rr = true }
local o = {}

local function size_of(text, name)
  local n, unit = tostring(text):match("^(%d+)([KkMmGg]?)$")
  if not n then error(string.format("Invalid value for %s: %s (expected bytes, e.g. 4K)", name, text), 0) end
  local mult = ({ [""] = 1, k = 1024, m = 1048576, g = 1073741824 })[unit:lower()]
  return tonumber(n) * mult
end

local function settings()
  local opt = sysbench.opt
  o.mode = opt.mode
  if not modes[o.mode] then
    error("Invalid value for mode: " .. tostring(o.mode) .. " (expected tcp_rr, tcp_crr, tcp_stream or udp_rr)", 0)
  end
  local req = opt.request_size
  o.req = req == "" and (o.mode == "tcp_stream" and 65536 or 1) or size_of(req, "request-size")
  o.resp = opt.response_size
  o.host, o.port, o.timeout = opt.host, opt.port, opt.net_timeout
  if o.req < 1 or o.req > 0xffffffff then error("Invalid value for request-size: " .. tostring(req), 0) end
  if o.resp > 64 * 1048576 then error("Invalid value for response-size: at most 64M (the server's limit)", 0) end
  if o.mode == "udp_rr" and (o.req < 4 or o.req > 65507 or o.resp < 1 or o.resp > 65507) then
    error("udp_rr: --request-size 4..65507 (its first 4 bytes carry the response size) and --response-size 1..65507", 0)
  end
  if o.mode ~= "tcp_stream" and o.mode ~= "udp_rr" and o.resp < 0 then
    error("Invalid value for response-size: " .. tostring(o.resp), 0)
  end
end

local function be32(n)
  return string.char(bit.band(bit.rshift(n, 24), 255), bit.band(bit.rshift(n, 16), 255),
    bit.band(bit.rshift(n, 8), 255), bit.band(n, 255))
end

-- The 12-byte hello a TCP connection starts with (net_server.c).
local function hello(kind)
  return "LBN" .. kind .. be32(o.req) .. be32(o.mode == "tcp_stream" and 0 or o.resp)
end

function init()
  settings()
end

local sock
local crr_message, udp_message -- built once per thread: hello + request, response size + padding

function thread_init()
  settings()
  sock = luabench.socket
  crr_message = hello("c") .. string.rep("\0", o.req)
  udp_message = be32(o.resp) .. string.rep("\0", o.req - 4)
end

local function open(kind)
  local c = sock.connect(o.host, o.port, { timeout = o.timeout, udp = kind == "u" })
  if kind ~= "u" then c:send(hello(kind)) end
  return c
end

local exchange = {
  tcp_rr = function(u)
    u.conn = u.conn or open("r")
    u.conn:send_zeros(o.req)
    u.conn:skip(o.resp)
  end,
  tcp_crr = function(u)
    local c = sock.connect(o.host, o.port, { timeout = o.timeout })
    u.conn = c
    c:send(crr_message) -- hello and request in one send: one segment, as a real client
    c:skip(o.resp)
    -- The server closes first ('c'), as netserver and a web server do: the TIME_WAIT is its own,
    -- and this side's ephemeral port is free again at once.
    if c:receive_some(1) then error("receive from " .. o.host .. ":" .. o.port .. ": more than the response", 0) end
    c:close()
    u.conn = nil
  end,
  tcp_stream = function(u)
    u.conn = u.conn or open("s")
    u.conn:send_zeros(o.req)
  end,
  udp_rr = function(u)
    u.conn = u.conn or open("u")
    u.conn:send(udp_message)
    u.conn:skip(o.resp)
  end,
}

local ERROR = luabench.counters.ERROR
local reported = false

local RESTART_EVENT = sysbench.error.RESTART_EVENT

-- A failed attempt (refused, reset, timed out) is counted as an error, its connection dropped,
-- and the transaction restarted on a new one, as sysbench restarts an event after an ignored SQL
-- error (its latency includes the failed attempt): a server restart or a lost datagram must
-- not end the run.
function event()
  local u = luabench.user_data
  local ok, err = pcall(exchange[o.mode], u)
  if ok then return end
  luabench.counter_add(ERROR, 1)
  if u.conn then u.conn:close() u.conn = nil end
  if not reported then
    reported = true
    io.stderr:write("ALERT: " .. luabench.escape(err) .. " (further errors are only counted)\n")
  end
  if not luabench.stopping() then luabench.think(0.01) end -- no hot loop against a dead server
  -- (the message is what a run that completes no transaction names in its FATAL line)
  error({ errcode = RESTART_EVENT, message = tostring(err) }, 0)
end

function thread_done()
  -- (users' connections are closed when their state goes; this thread's own here)
  local u = luabench.user_data
  if u and u.conn then u.conn:close() u.conn = nil end
end

local function figures(stat)
  local s = stat.time_interval
  local c = luabench.socket.counts()
  local n = stat.events
  return {
    mode = o.mode, request_bytes = o.req, response_bytes = o.mode == "tcp_stream" and 0 or o.resp,
    transactions = n, transactions_per_second = s > 0 and n / s or 0,
    bytes_sent = stat.bytes_written, bytes_received = stat.bytes_read,
    mib_per_second_sent = s > 0 and stat.bytes_written / 1048576 / s or 0,
    mib_per_second_received = s > 0 and stat.bytes_read / 1048576 / s or 0,
    errors = stat.errors, connections_opened = c.opened, connections_connected = c.connected,
    connections_failed = c.failed, connections_closed = c.closed,
  }
end

function sysbench.hooks.run_header()
  return string.format("Running the network test (%s to %s:%d) with the following options:\n" ..
    "  request size: %d bytes\n  response size: %s\n\n", o.mode, o.host, o.port, o.req,
    o.mode == "tcp_stream" and "none (stream)" or (o.resp .. " bytes"))
end

function sysbench.hooks.report_intermediate(stat)
  local f = figures(stat)
  print(string.format("[ %.0fs ] thds: %d %s/s: %4.2f MiB/s sent/received: %4.2f/%4.2f err/s: %4.2f",
    stat.time_total, stat.threads_running, o.mode == "tcp_stream" and "sends" or "trans",
    f.transactions_per_second, f.mib_per_second_sent, f.mib_per_second_received,
    stat.time_interval > 0 and stat.errors / stat.time_interval or 0))
end

function sysbench.hooks.report_text(stat)
  local f = figures(stat)
  local l = string.format("Network (%s, %s:%d):\n", o.mode, o.host, o.port)
  l = l .. string.format("    %-37s%d (%.2f per sec.)\n", o.mode == "tcp_stream" and "sends:" or "transactions:",
    f.transactions, f.transactions_per_second)
  l = l .. string.format("    %-37s%.2f/%.2f\n", "MiB/s sent/received:", f.mib_per_second_sent, f.mib_per_second_received)
  l = l .. string.format("    %-37s%.0f/%.0f\n", "bytes sent/received:", f.bytes_sent, f.bytes_received)
  l = l .. string.format("    %-37s%d/%d/%d\n", "connections opened/failed/closed:", f.connections_opened,
    f.connections_failed, f.connections_closed)
  l = l .. string.format("    %-37s%d\n\n", "failed transactions:", f.errors)
  return l
end

function sysbench.hooks.report_json(stat)
  return figures(stat)
end
