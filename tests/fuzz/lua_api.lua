-- The Lua API fuzz harness (tests/fuzz/fuzz_lua_api.c runs it): the input bytes are read as a
-- program of up to 48 calls. Each call is to a function of the sysbench/luabench table (found by
-- walking it, every level, and the 0.5-style globals: tests/fuzz/surface.lua; plus sysbench's C
-- names scripts declare), or a method of
-- an object an earlier call returned (connections, statements, parameters, result sets, files,
-- queues, buffers, histograms, statistics types), with arguments of every type: nil, booleans,
-- numbers (NaN, infinities, huge, negative, fractions), strings (empty, with NULs, long, SQL,
-- names the API knows), tables (empty, lists, option tables, a table that contains itself),
-- functions (that return nothing, or raise), cdata, and the objects themselves, closed or not.
-- Besides calls, a program reads fields of the objects it holds, by every name the API has: the
-- members of every struct of the FFI declarations (tests/fuzz/surface.lua reads them from the
-- generated cdef texts, so a new field is covered without editing this file), the keys and
-- methods of every object seen. After the program, every field of every object is read again,
-- then every object is closed (close, disconnect, free, abort) and every field read once more:
-- each object is walked fresh or in whatever state the calls left it, and closed.
-- A Lua error is an acceptable outcome of any call or read; a crash or a sanitizer report is not.
--
-- An input whose first byte (the Lua state, as for any input) is followed by "#calls" is a
-- program written as text (a seed that reproduces a past crash is readable that way), one step a
-- line after that first one ("1#calls" runs it in a worker's state):
--   sql.driver "null"          a function with arguments: numbers, "strings", nil, true, false,
--   $1:connect                 a method of the first object kept ($N: the N-th), and its arguments
--   $2:query "UPDATE t SET a = 1"
--   $3.nrows                   a field read
--
-- What the harness keeps out, and why (these are not the API's contract to defend):
--  - the process and the file system: paths given to luabench.io are reduced to plain names in
--    the target's private directory, and file sizes to at most 1 MiB;
--  - time: durations of sleep/think/pause are cut to a millisecond (a long sleep is not a fault);
--  - sizes that are only a way to ask for gigabytes (rand.string/varstring lengths, buffer,
--    histogram and shared memory sizes) are cut to about 1 MiB;
--  - the pgsql, mysql and odbc drivers (they would connect to whatever listens on localhost): the
--    null driver stands in;
--  - luabench.socket (loaded on first use, which the harness never makes): it would connect to
--    whatever listens on the machine, and resolve names through DNS;
--  - sb_rand_uniq(a, b), which draws until a value falls in [a, b] (as sysbench's): a narrow or
--    empty range takes billions of draws, or forever;
--  - raw pointers: a buffer is only passed with a length it holds (the io.* and rand.fill
--    functions take a pointer and a length, like memcpy, and cannot know the buffer's size);
--    a pointer read from a field (rs.row.values, rs.conn) is not kept, nor indexed: that is
--    reading raw memory through the FFI, which every script can do anyway (ffi.cast).
local ffi = require("ffi")
pcall(ffi.cdef, "const uint8_t *lb_fuzz_input(size_t *len);")
-- sysbench 1.0.20's C names, declared the way scripts declare them.
pcall(ffi.cdef, [[
void sb_counter_inc(int thread_id, int type);
uint64_t sb_counter_val(int thread_id, int type);
bool sb_more_events(int thread_id);
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
uint32_t sb_rand_uniform(uint32_t a, uint32_t b);
uint32_t sb_rand_gaussian(uint32_t a, uint32_t b);
uint32_t sb_rand_special(uint32_t a, uint32_t b);
uint32_t sb_rand_pareto(uint32_t a, uint32_t b);
uint32_t sb_rand_zipfian(uint32_t a, uint32_t b);
uint32_t sb_rand_default(uint32_t a, uint32_t b);
uint32_t sb_rand_unique(void);
]])
local C = ffi.C
local surface = dofile(require("debug").getinfo(1, "S").source:match("^@(.*/)") .. "surface.lua")

local MAX_CALLS, MAX_POOL, MIB = 48, 24, 1048576

-- The input as a stream of bytes; past its end every read is 0.
local data, pos
local function byte()
  pos = pos + 1
  return data:byte(pos) or 0
end
local function pick(list)
  return list[byte() % #list + 1]
end

local NUMBERS = { 0, 1, -1, 2, 3, 7, 16, 255, 4096, 65536, 2 ^ 31 - 1, 2 ^ 31, -2 ^ 31, 2 ^ 32,
  2 ^ 53, 2 ^ 63, -2 ^ 63, 2 ^ 64, 1e308, -1e308, 1 / 0, -1 / 0, 0 / 0, 0.5, -0.5, 1e-300, -0.0,
  100.25, 1e15 }
local STRINGS = { "", "\0", "a\0b", "x", "'", "\\", "?", "??", "%s%n%d", "../x", "/", "null",
  "pgsql", "mysql", "psync", "io_uring", "libaio", "mmap", "direct", "create", "rdonly",
  "read", "write", "fsync", "SELECT 1", "SELECT ?", "SELECT ?, ?", "INSERT INTO t VALUES (?)",
  "UPDATE t SET c = ? WHERE id = ?", "BEGIN", "COMMIT", "-1", "1e309", "nan", "inf", "0x10",
  "###-###", "@@@", "{}", "[1,2", '{"a":[1,{"b":null}]}', "\255\254", "ÿ", "tpcc", "on", "off" }
local KEYS = { "engine", "depth", "fallback", "batch", "check", "event", "quiet", "direct", "block",
  "check_block", "start", "progress", "every", "id", "name", 1, 2, "type", "cap" }

local pool = {}   -- objects earlier calls returned
local methods = {} -- names of every method seen, for calls on any object
local method_seen = {}
local fields, field_seen = {}, {} -- names to read: struct members, keys and methods seen

local function remember_methods(v)
  local mt = type(v) == "table" and getmetatable(v)
  local idx = type(mt) == "table" and rawget(mt, "__index")
  if type(idx) == "table" then
    local names = {}
    for k, f in pairs(idx) do
      if type(k) == "string" and type(f) == "function" and not method_seen[k] then names[#names + 1] = k end
    end
    table.sort(names)
    for _, k in ipairs(names) do
      method_seen[k] = true
      methods[#methods + 1] = k
    end
  end
end

local function keep(v)
  local t = type(v)
  if (t == "table" or t == "cdata" or t == "function" or t == "userdata") and #pool < MAX_POOL then
    pool[#pool + 1] = v
    remember_methods(v)
    surface.names_of(v, fields, field_seen)
  end
end

local value
local function table_value(depth)
  local k = byte() % 5
  if k == 0 then return {} end
  if k == 1 then
    local t = {}
    for i = 1, byte() % 5 do t[i] = value(depth + 1) end
    return t
  end
  if k == 2 then
    local t = {}
    for _ = 1, byte() % 5 do t[pick(KEYS)] = value(depth + 1) end
    return t
  end
  if k == 3 then
    local t = { 1 }
    t.self, t[2] = t, t
    return t
  end
  return setmetatable({}, { __index = function() error("index trap") end,
    __tostring = function() error("tostring trap") end })
end

function value(depth)
  depth = depth or 0
  local k = byte() % 14
  if depth > 3 and k >= 7 then k = k % 7 end
  if k == 0 then return nil end
  if k == 1 then return byte() % 2 == 0 end
  if k == 2 then return byte() - 128 end
  if k == 3 or k == 4 then return pick(NUMBERS) end
  if k == 5 then
    local n = byte()
    local s = data:sub(pos + 1, pos + n)
    pos = pos + n
    return s
  end
  if k == 6 then
    local s = pick(STRINGS)
    if byte() % 8 == 0 then s = s:rep(1 + byte() * 64) end
    return s
  end
  if k == 7 or k == 8 then return table_value(depth) end
  if k == 9 then return function() end end
  if k == 10 then return function() error("callback error") end end
  if k == 11 or k == 12 then
    if #pool > 0 then return pool[byte() % #pool + 1] end
    return nil
  end
  local c = byte() % 4
  if c == 0 then return ffi.new("int64_t", byte() - 128) end
  if c == 1 then return ffi.new("uint64_t", -1) end
  if c == 2 then return ffi.cast("void *", nil) end
  return ffi.new("double[1]", 0)
end

-- The functions: name -> function, sorted so that a given input always calls the same one.
local functions = {}
-- (a 64-bit integer cdata is a size too: 2^64-1 as uint64_t asked for a 16 EiB file)
local function limit(v, max)
  if type(v) == "cdata" then v = tonumber(v) or v end
  if type(v) == "number" and v == v and v > max then return max end
  return v
end

-- A size in bytes: also a negative one, which C reads as a huge unsigned number.
local function size_limit(v, max)
  if type(v) == "cdata" then v = tonumber(v) or v end
  if type(v) == "number" and (v ~= v or v < 0 or v > max) then return max end
  return v
end

local function at_least(v, min)
  if type(v) == "cdata" then v = tonumber(v) or v end
  if type(v) == "number" and v == v and v < min then return min end
  return v
end

-- Plain file names in the target's directory (see the top of this file).
local FILES = assert(os.getenv("LB_FUZZ_FILES"), "LB_FUZZ_FILES is not set")
-- One of four names, whatever the value (luabench.io turns a non-string into a path with
-- tostring(), nil into "nil"): at most 4 files of at most 1 MiB each, however long the run.
local function plain_name(v)
  local s = type(v) == "string" and v or tostring(select(2, pcall(tostring, v)))
  local h = 0
  for i = 1, math.min(#s, 64) do h = h + s:byte(i) end
  return FILES .. "/f" .. h % 4
end

local tame = {}
-- false when the arguments could not be tamed (a table whose fields raise): the call is skipped
local function tame_args(name, args)
  local f = tame[name]
  return not f or pcall(f, args)
end
tame["sleep"] = function(a) a[1] = limit(a[1], 0.001) end
tame["think"] = function(a) a[1], a[2] = limit(a[1], 0.001), limit(a[2], 0.001) end
tame["pause"] = tame["think"]
tame["rand.string"] = function(a) if type(a[1]) == "string" then a[1] = a[1]:sub(1, MIB) end end
tame["rand.varstring"] = function(a) a[1], a[2] = limit(a[1], MIB), limit(a[2], MIB) end
tame["histogram.new"] = function(a) a[1] = limit(a[1], MIB) end
tame["shared"] = function(a) a[3] = limit(a[3], 65536) end
tame["io.buffer"] = function(a) a[1], a[2] = size_limit(a[1], MIB), size_limit(a[2], MIB) end
tame["io.open"] = function(a) a[1] = plain_name(a[1]) end
-- libaio's contexts come from a limit of the whole machine (fs.aio-max-nr, 65536 I/Os): a few
-- queues of depth 65536 would leave none for anyone else
tame["io.queue"] = function(a) if type(a[1]) == "table" then a[1].depth = size_limit(a[1].depth, 64) end end
tame["io.prepare"] = function(a)
  a[1], a[2] = plain_name(a[1]), size_limit(a[2], MIB)
  if type(a[3]) == "table" then
    -- a block of one byte is a million writes per MiB: slow, not wrong
    a[3].block = at_least(size_limit(a[3].block, MIB), 4096)
    a[3].check_block = at_least(size_limit(a[3].check_block, MIB), 512)
  end
end
-- a range that holds few of the unique sequence's 2^32 values takes billions of draws: slow, not
-- wrong (a range that holds none, or is empty, stays: it must be refused in one line)
tame["sb_rand_uniq"] = function(a)
  local lo, hi = a[1], a[2]
  if type(lo) == "number" and type(hi) == "number" and lo <= hi and hi >= 0 and lo <= 4294967295 then
    a[1], a[2] = 0, 4294967295
  end
end
tame["sql.driver"] = function(a) if a[1] == "pgsql" or a[1] == "mysql" or a[1] == "odbc" then a[1] = "null" end end
-- Sizes of the buffers io.buffer returned; a pointer of unknown size gets 8 bytes (a double[1]).
local sizes = setmetatable({}, { __mode = "k" })
local function room(buf)
  if type(buf) == "string" then return #buf end
  return sizes[buf] or 8
end
local function tame_buffer(a) a[2] = size_limit(a[2], room(a[1])) end
for _, n in ipairs({ "io.crc32c", "io.block_fill", "io.block_verify", "io.pattern_fill", "io.pattern_check" }) do
  tame[n] = tame_buffer
end
tame["rand.fill"] = function(a)
  if a[3] == nil and type(a[1]) == "string" then a[3] = #a[1] end
  a[3] = size_limit(a[3], room(a[2]))
end
-- Methods: the same limits, by method name.
local tame_method = {
  pread = function(a) a[2] = size_limit(a[2], room(a[1])) end,
  pwrite = function(a) a[2] = size_limit(a[2], room(a[1])) end,
  read = function(a) a[3] = size_limit(a[3], room(a[2])) end,
  write = function(a) a[3] = size_limit(a[3], room(a[2])) end,
  reap = function(a) a[3] = limit(a[3], 0.001) end,
  set_rand_str = function(a) if type(a[1]) == "string" then a[1] = a[1]:sub(1, MIB) end end,
  bind_create = function(a) a[2] = size_limit(a[2], MIB) end,
}

local function collect()
  -- Every function of the API, found by walking the sysbench table and the 0.5-style globals at
  -- run time (surface.functions): a function added later is fuzzed without being listed here.
  -- luabench.socket is left out (see the top of this file).
  for _, e in ipairs(surface.functions(sysbench, "")) do
    if not e.name:find("^socket%.") then functions[#functions + 1] = { e.name, e.f } end
  end
  for _, n in ipairs({ "sb_counter_inc", "sb_counter_val", "sb_more_events", "sb_event_start", "sb_event_stop",
    "sb_rand_uniform", "sb_rand_gaussian", "sb_rand_special", "sb_rand_pareto", "sb_rand_zipfian",
    "sb_rand_default", "sb_rand_unique" }) do
    functions[#functions + 1] = { "C." .. n, C[n] }
  end
  remember_methods(setmetatable({}, sysbench.io.File))
  remember_methods(setmetatable({}, sysbench.io.Queue))
  for _, k in ipairs(surface.struct_fields()) do
    if not field_seen[k] then
      field_seen[k] = true
      fields[#fields + 1] = k
    end
  end
  for _, k in ipairs(methods) do
    if not field_seen[k] then
      field_seen[k] = true
      fields[#fields + 1] = k
    end
  end
  for _, m in ipairs({ "fetch_row", "free", "close", "query", "prepare", "connect", "name", "id", "start", "done" }) do
    if not method_seen[m] then
      method_seen[m] = true
      methods[#methods + 1] = m
    end
  end
end

local function args_list()
  local n = byte() % 6
  local a = {}
  for i = 1, n do a[i] = value() end
  return a, n
end

-- LB_FUZZ_TRACE=1 prints each call on stderr (to see what a finding did).
local trace = os.getenv("LB_FUZZ_TRACE") and function(name, a, n)
  local parts = {}
  for i = 1, n do
    local v = a[i]
    parts[i] = type(v) == "string" and string.format("%q", #v > 40 and v:sub(1, 40) .. "..." or v) or
      select(2, pcall(tostring, v)) -- (a table whose __tostring raises is an argument too)
  end
  io.stderr:write("call ", name, "(", table.concat(parts, ", "), ")\n")
end
local function call(f, a, n, name)
  if trace then trace(name, a, n) end
  local r = { pcall(f, unpack(a, 1, n)) }
  if r[1] then
    if name == "io.buffer" and type(r[2]) == "cdata" then sizes[r[2]] = math.floor(tonumber(a[1]) or 0) end
    for i = 2, math.min(#r, 4) do keep(r[i]) end
  end
end

-- Reads field k of obj, as a script would (and turns the value into text, as print would); a
-- value that is an object is kept, a raw pointer is not (see the top of this file).
local function read_field(obj, k)
  if trace then io.stderr:write("read .", tostring(k), "\n") end
  local ok, v = surface.read(obj, k)
  if ok then
    pcall(tostring, v)
    if surface.safe_value(v) and type(v) ~= "function" then keep(v) end
  end
end

local function step()
  local op = byte() % 5
  if op == 4 and #pool > 0 then
    return read_field(pool[byte() % #pool + 1], fields[(byte() * 256 + byte()) % #fields + 1])
  end
  if op < 3 or #pool == 0 then
    local entry = functions[(byte() * 256 + byte()) % #functions + 1]
    local a, n = args_list()
    if not tame_args(entry[1], a) then return end
    return call(entry[2], a, n, entry[1])
  end
  -- A method of a kept object (or of another one: self of the wrong kind).
  local obj = pool[byte() % #pool + 1]
  local name = pick(methods)
  local ok, f = pcall(function() return obj[name] end)
  if not ok or (type(f) ~= "function" and type(f) ~= "cdata") then return end
  local a, n = args_list()
  if tame_method[name] and not pcall(tame_method[name], a) then return end
  local self = obj
  if byte() % 8 == 0 then self = value() end
  table.insert(a, 1, self)
  return call(f, a, n + 1, ":" .. name)
end

-- A program written as text (see the top of this file).
local by_name
local function text_value(tok)
  if tok == "nil" then return nil end
  if tok == "true" or tok == "false" then return tok == "true" end
  local k = tok:match("^%$(%d+)$")
  if k then return pool[tonumber(k)] end
  return tonumber(tok)
end

local function text_step(line)
  local head, rest = line:match('^%s*(%S+)%s*(.*)$')
  if not head then return end
  local a, n, i = {}, 0, 1
  while true do
    local str, j = rest:match('^%s*"([^"]*)"()', i)
    local tok
    if not str then tok, j = rest:match("^%s*(%S+)()", i) end
    if not j then break end
    n, i = n + 1, j
    if str then a[n] = str else a[n] = text_value(tok) end
  end
  local k, sep, name = head:match("^%$(%d+)([.:])([%w_]+)$")
  if k then
    local obj = pool[tonumber(k)]
    if obj == nil then return end
    if sep == "." then return read_field(obj, name) end
    local ok, f = surface.read(obj, name)
    if not ok or (type(f) ~= "function" and type(f) ~= "cdata") then return end
    if tame_method[name] and not pcall(tame_method[name], a) then return end
    table.insert(a, 1, obj)
    return call(f, a, n + 1, ":" .. name)
  end
  if not by_name then
    by_name = {}
    for _, e in ipairs(functions) do by_name[e[1]] = e[2] end
  end
  local f = by_name[head]
  if not f then return end
  if not tame_args(head, a) then return end
  return call(f, a, n, head)
end

-- Every field of every object held, by every name (see the top of this file).
local function read_all()
  for i = 1, #pool do
    for _, k in ipairs(fields) do read_field(pool[i], k) end
  end
end

local CLOSERS = { "free", "close", "disconnect", "abort" }
local function close_all()
  for i = 1, #pool do
    for _, m in ipairs(CLOSERS) do
      local ok, f = surface.read(pool[i], m)
      if ok and (type(f) == "function" or type(f) == "cdata") then pcall(f, pool[i]) end
    end
  end
end

function fuzz_one()
  local len = ffi.new("size_t[1]")
  local p = C.lb_fuzz_input(len)
  data, pos = ffi.string(p, len[0]), 1 -- byte 0 chose the Lua state (fuzz_lua_api.c)
  if #functions == 0 then collect() end
  if data:sub(2, 7) == "#calls" then
    local steps = 0
    for line in data:sub(8):gmatch("[^\n]+") do
      steps = steps + 1
      if steps > MAX_CALLS then break end
      text_step(line)
    end
  else
    for _ = 1, MAX_CALLS do
      if pos >= #data then break end
      step()
    end
  end
  read_all()
  close_all()
  read_all()
  -- What a script leaves behind is collected: finalizers of connections, statements, files,
  -- queues and buffers run here, whatever state the calls left them in.
  pool = {}
  collectgarbage()
  collectgarbage()
  -- and its files go: writes at any offset would otherwise add up from one input to the next
  for i = 0, 3 do os.remove(FILES .. "/f" .. i) end
end
