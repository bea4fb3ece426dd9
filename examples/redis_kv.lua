#!/usr/bin/env luabench
-- redis_kv.lua: a key-value cache's traffic against a real Redis, through luabench.socket.
--
-- Each event is one GET or SET (--get-pct % GETs) of a key among --keys, in Redis's text
-- protocol (RESP); emulated users think between requests. GET and SET have their own statistics
-- (luabench.stats); bytes sent and received are in the report (bytes_written/bytes_read).
--
--   redis-server --port 6390 --save '' --daemonize yes
--   luabench redis_kv.lua --redis-port=6390 --keys=10000 prepare
--   luabench redis_kv.lua --redis-port=6390 --users=1000 --threads=2 --think=0.05 --time=60 run
--
-- One connection per user (luabench.user_data), opened on its first event and kept; a request
-- that fails (the server restarted, the connection was reset or timed out, a reply is not
-- RESP) drops it, counts an error and is sent again on a new one (doc/lua-api.md §3), so a
-- server restart costs the requests it interrupted, not the rest of the run. Every reply is
-- checked: its syntax, and a GET's value against the one SET wrote.
--
-- A request makes no Lua string: it is sent in pieces (the key's number among them) by one
-- c:send, and the reply expected is checked in the socket's buffer with c:skip_if; only a
-- reply that is not the one expected is read into Lua, to say what it was.
sysbench.cmdline.options = {
  ["redis-host"] = { "Redis server address", "127.0.0.1" },
  ["redis-port"] = { "Redis server port", 6379, sysbench.cmdline.ARG_INT },
  keys = { "number of keys", 10000, sysbench.cmdline.ARG_INT },
  ["value-size"] = { "bytes per value", 100, sysbench.cmdline.ARG_INT },
  ["get-pct"] = { "share of GETs among the requests, %", 90, sysbench.cmdline.ARG_INT },
  think = { "think time between a user's requests, seconds", 0, sysbench.cmdline.ARG_DOUBLE },
}

local GET, SET = luabench.stats.type("GET"), luabench.stats.type("SET")
local ERROR = luabench.counters.ERROR
local RESTART = { errcode = sysbench.error.RESTART_EVENT }
-- Redis's own limit on a bulk string (proto-max-bulk-len, 512 MB)
local MAX_BULK = 512 * 1048576

local function connect()
  local o = sysbench.opt
  return luabench.socket.connect(o.redis_host, o.redis_port, { timeout = 5 })
end

-- One command in RESP: an array of bulk strings.
local function command(...)
  local parts = { "*" .. select("#", ...) .. "\r\n" }
  for i = 1, select("#", ...) do
    local a = tostring(select(i, ...))
    parts[#parts + 1] = "$" .. #a .. "\r\n" .. a .. "\r\n"
  end
  return table.concat(parts)
end

-- Text on one line: control bytes shown as escapes ("\r\n", "\0" ...); a reply's start only.
local ESCAPES = { ["\r"] = "\\r", ["\n"] = "\\n", ["\t"] = "\\t" }
local function one_line(s)
  return (s:gsub("%c", function(c) return ESCAPES[c] or string.format("\\%d", c:byte()) end))
end
local function shown(reply_text) return one_line(reply_text:sub(1, 60)) end

local function malformed(what, line)
  error(string.format("redis %s:%d: malformed reply: %s (got \"%s\")", sysbench.opt.redis_host,
    sysbench.opt.redis_port, what, shown(line)), 0)
end

-- One reply: a simple string, an error (raised), an integer or a bulk string (nil when absent).
-- Anything else is not RESP from a Redis server: one error naming what was wrong.
local function reply(c)
  local line = c:receive_until("\r\n")
  local kind, rest = line:sub(1, 1), line:sub(2)
  if kind == "+" then return rest end
  if kind == "-" then error("redis: " .. rest, 0) end
  if kind == ":" then
    if not rest:match("^%-?%d+$") then malformed("an integer that is not one", line) end
    return rest
  end
  if kind == "$" then
    local n = rest:match("^%-?%d+$") and tonumber(rest)
    if not n or n < -1 or n > MAX_BULK then malformed("a bulk length that is not -1 .. 512 MB", line) end
    if n == -1 then return nil end
    local v = c:receive(n + 2)
    if v:sub(-2) ~= "\r\n" then malformed("a bulk string not ended by CRLF", v:sub(-2)) end
    return v:sub(1, n)
  end
  malformed("an unknown reply type", line)
end

-- The value of a key (one of 26, made once per Lua state), and its reply's bytes after the
-- bulk length.
local values, values_crlf, bulk_head = {}, {}, nil
local function value(key)
  local i = key % 26
  local v = values[i]
  if not v then
    v = string.rep(string.char(65 + i), sysbench.opt.value_size)
    values[i], values_crlf[i] = v, v .. "\r\n"
    bulk_head = "$" .. #v .. "\r\n"
  end
  return v
end

-- #("key:" .. k) without making that string
local function key_len(k)
  if k < 1e4 then return k < 10 and 5 or k < 100 and 6 or k < 1000 and 7 or 8 end
  if k < 1e8 then return k < 1e5 and 9 or k < 1e6 and 10 or k < 1e7 and 11 or 12 end
  return 4 + #tostring(k)
end

-- prepare: every key set, in one pipeline per 1000 keys.
function prepare()
  local c = connect()
  local n = sysbench.opt.keys
  for first = 1, n, 1000 do
    local last = math.min(first + 999, n)
    local batch = {}
    for k = first, last do batch[#batch + 1] = command("SET", "key:" .. k, value(k)) end
    c:send(table.concat(batch))
    for _ = first, last do
      if reply(c) ~= "OK" then error("redis: a SET of prepare was not answered OK", 0) end
    end
  end
  print(string.format("%d keys set", n))
  c:close()
end

function cleanup()
  local c = connect()
  c:send(command("FLUSHDB"))
  reply(c)
  c:close()
end

-- The reply to a GET of key: the value SET wrote, or none (a key not set yet, or lost by a
-- server restarted without persistence); anything else is read by reply() to say what it was.
local function get_reply(c, key)
  local o = sysbench.opt
  local v = value(key)
  if c:skip_if(bulk_head) then
    if c:skip_if(values_crlf[key % 26]) then return end
    v = c:receive(o.value_size + 2)
    if v:sub(-2) ~= "\r\n" then malformed("a bulk string not ended by CRLF", v:sub(-2)) end
    v = v:sub(1, -3)
  elseif c:skip_if("$-1\r\n") then
    return
  else
    v = reply(c)
    if not v then return end
  end
  error(string.format("GET key:%d: %d bytes that are not the value SET wrote", key, #v), 0)
end

-- One request on the user's connection, in RESP: an array of bulk strings.
local function request(u, r)
  u.conn = u.conn or connect()
  local c, k = u.conn, r.key
  if r.get then
    c:send("*2\r\n$3\r\nGET\r\n$", key_len(k), "\r\nkey:", k, "\r\n")
    get_reply(c, k)
  else
    c:send("*3\r\n$3\r\nSET\r\n$", key_len(k), "\r\nkey:", k, "\r\n$", sysbench.opt.value_size, "\r\n",
      value(k), "\r\n")
    if not c:skip_if("+OK\r\n") then
      local ok = reply(c)
      error(string.format("SET key:%d answered %s, not OK", k, shown(tostring(ok))), 0)
    end
  end
end

local alerted = false

-- A failed request: its connection dropped, the error counted (said once on stderr), a short
-- pause (no hot loop against a server that is down), and the same request again on a new
-- connection: the event's latency includes the failed attempts, as a client's would.
local function failed(u, err)
  luabench.counter_add(ERROR, 1)
  if u.conn then u.conn:close() u.conn = nil end
  if not alerted then
    alerted = true
    io.stderr:write(string.format("ALERT: %s (connection dropped, request sent again; further errors are only counted)\n",
      one_line(tostring(err))))
  end
  if not luabench.stopping() then luabench.think(0.05) end
  error(RESTART, 0)
end

function event()
  local o, u = sysbench.opt, luabench.user_data
  -- chosen at the first attempt and kept, so that a retry sends the same request
  u.req = u.req or { key = sysbench.rand.uniform(1, o.keys), get = sysbench.rand.uniform(1, 100) <= o.get_pct }
  local T = u.req.get and GET or SET
  local t0 = T:begin()
  local ok, err = pcall(request, u, u.req)
  if not ok then failed(u, err) end
  T:done(t0)
  u.req = nil
  if o.think > 0 then luabench.think(o.think) end
end

function thread_done()
  local u = luabench.user_data
  if u and u.conn then u.conn:close() u.conn = nil end
end
