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
-- One connection per user (luabench.user_data), opened on its first event, kept afterwards.
sysbench.cmdline.options = {
  ["redis-host"] = { "Redis server address", "127.0.0.1" },
  ["redis-port"] = { "Redis server port", 6379, sysbench.cmdline.ARG_INT },
  keys = { "number of keys", 10000, sysbench.cmdline.ARG_INT },
  ["value-size"] = { "bytes per value", 100, sysbench.cmdline.ARG_INT },
  ["get-pct"] = { "share of GETs among the requests, %", 90, sysbench.cmdline.ARG_INT },
  think = { "think time between a user's requests, seconds", 0, sysbench.cmdline.ARG_DOUBLE },
}

local GET, SET = luabench.stats.type("GET"), luabench.stats.type("SET")

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

-- One reply: a simple string, an error (raised), an integer or a bulk string (nil when absent).
local function reply(c)
  local line = c:receive_until("\r\n")
  local kind, rest = line:sub(1, 1), line:sub(2)
  if kind == "+" or kind == ":" then return rest end
  if kind == "-" then error("redis: " .. rest, 0) end
  if kind == "$" then
    local n = tonumber(rest)
    if n < 0 then return nil end
    local v = c:receive(n + 2)
    return v:sub(1, n)
  end
  error("redis: unexpected reply " .. line, 0)
end

local function value(key)
  return string.rep(string.char(65 + key % 26), sysbench.opt.value_size)
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
    for _ = first, last do reply(c) end
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

function event()
  local o, u = sysbench.opt, sysbench.user_data
  u.conn = u.conn or connect()
  local key = sysbench.rand.uniform(1, o.keys)
  if sysbench.rand.uniform(1, 100) <= o.get_pct then
    local t0 = GET:start()
    u.conn:send(command("GET", "key:" .. key))
    local v = reply(u.conn)
    if v and #v ~= o.value_size then error("GET key:" .. key .. ": " .. #v .. " bytes", 0) end
    GET:done(t0)
  else
    local t0 = SET:start()
    u.conn:send(command("SET", "key:" .. key, value(key)))
    reply(u.conn)
    SET:done(t0)
  end
  if o.think > 0 then luabench.think(o.think) end
end
