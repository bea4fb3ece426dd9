-- luabench.init: builds the scripting API in this Lua state. It runs once per state (control,
-- each worker, the reporter), before the user's script, and leaves behind what sysbench 1.0.20
-- leaves: the `sysbench` table (also reachable as `luabench`), the global `ffi`, the default
-- `thread_run`, and the 0.5-style legacy globals.
local ffi = require("ffi")
local C_ = __luabench_c
__luabench_c = nil

-- Parses one embedded block of FFI declarations (luabench.cdef and the cdef_* modules) and lets
-- its text go: require's cache would keep 7-11 KiB of it in every state for nothing.
local function cdef(name)
  ffi.cdef(require(name))
  package.loaded[name] = nil
end
cdef("luabench.cdef")
_G.ffi = ffi

-- Runs a module that builds a part of the API (a factory, run once per state) without letting
-- require's cache keep the factory's code in every state.
local function build(name, ...)
  local make = require(name)
  package.loaded[name] = nil
  return make(...)
end

local C = ffi.C
local worker = ffi.cast("struct lb_worker *", C_.worker)

local sb = {
  version = C_.api_version,
  version_string = C_.version_string or ("sysbench " .. C_.api_version .. " (luabench " .. C_.version .. ")"),
  luabench_version = C_.version,
  luajit_version = C_.luajit_version,
  tid = C_.tid,
  role = C_.role,
  threads = C_.threads,
  additions = C_.additions, -- false when running as sysbench: print only what sysbench prints
  _log = C_.log, -- _log(level, line): sysbench's log (0 FATAL .. 5 DEBUG), filtered by --verbosity
  _tracebacks = C_.tracebacks, -- --debug (not as sysbench): event errors carry a traceback
  _dialect_file = C_.dialect_file ~= "" and C_.dialect_file or nil, -- --db-dialect-file (luabench.dialect)
  error = { NONE = 0, RESTART_EVENT = 1 },
  hooks = {},
  worker = worker,
  _cdef = cdef,
}
sysbench = sb
luabench = sb

-- --db-dialect-file: its dialects exist before the script asks for one, and a bad file fails now.
if sb._dialect_file then require("luabench.dialect").load_option_file() end

-- Misuse of a call is raised at the script's line, naming the call and its rule (api_check.bad).
-- luabench.api_check loads on the first use of one of its functions: a state whose script
-- misuses nothing does not carry it.
local api = setmetatable({}, { __index = function(_, k) return require("luabench.api_check")[k] end })
sb._api = api

sb.cmdline = build("luabench.cmdline", C_)
sb.rand = build("luabench.rand", worker)

-- A built-in sysbench test's options read as sysbench reads them (an empty number, a size or a
-- real number that does not parse: 0), so the test's own check answers first with sysbench's
-- message ("Invalid value for file-total-size: 0"); a value the check then accepts is refused
-- here all the same (doc/sysbench.md, strict-values). option_text gives the value as given
-- (nil for an empty one, sysbench's NULL).
sb._option_text = C_.option_text
sb._sysbench_help = C_.sysbench_help -- run as sysbench, a built-in test's `help` text
function sb._strict_options()
  local names = {}
  for name in pairs(type(sb.cmdline.options) == "table" and sb.cmdline.options or {}) do
    names[#names + 1] = name
  end
  table.sort(names)
  for _, name in ipairs(names) do
    local text, coerced = C_.option_text(name)
    if coerced then
      error(string.format("Invalid value for the '%s' option: '%s'", (name:gsub("-", "_")), text or ""), 0)
    end
  end
end

-- luabench-only API --------------------------------------------------------------------------

local function bad(call, rule, v) api.bad(call, rule, v) end

local json_encode, json_decode = C_.json_encode, C_.json_decode
sb.json = {
  encode = function(value) return json_encode(value) end,
  decode = function(text)
    if type(text) ~= "string" then bad("luabench.json.decode(text)", "text must be a string", text) end
    return json_decode(text)
  end,
  null = C_.json_null,
}

-- Control characters of a text shown as escapes, for one-line messages (api_check.lua).
function sb.escape(text) return api.escape(text) end

-- Seconds since the run started (monotonic clock).
function sb.time()
  return C.lb_clock_ns(worker) / 1e9
end

-- (NaN and negative seconds do not wait, as think's)
function sb.sleep(seconds)
  if type(seconds) ~= "number" then bad("luabench.sleep(seconds)", "seconds must be a number", seconds) end
  C.lb_sleep_ns(seconds * 1e9)
end

-- True once the run is stopping: scripts with long loops inside event() should poll it.
function sb.stopping()
  return C.lb_worker_stopping(worker) ~= 0
end

-- Memory shared by every thread's Lua state: luabench.shared(name, ctype, count) returns a
-- pointer to `count` zero-initialised `ctype` elements, created on first use.
local SHARED = "luabench.shared(name, ctype [, count])"
function sb.shared(name, ctype, count)
  if type(name) ~= "string" then bad(SHARED, "name must be a string", name) end
  local ok, ct = pcall(ffi.typeof, ctype)
  local elem = ok and ffi.sizeof(ct)
  if not elem or elem == 0 then bad(SHARED, "ctype must be a C type of a known size (\"uint64_t\")", ctype) end
  if count == nil then
    count = 1
  elseif not (type(count) == "number" and count >= 1 and count % 1 == 0 and count * elem < 2 ^ 40) then
    bad(SHARED, "count must be a whole number >= 1 (of at most 1 TiB in all)", count)
  end
  local size = elem * count
  local p = C.lb_shared_bytes(worker, name, size)
  if p == nil then
    api.raise(string.format("%s: shared object '%s' exists with another size (asked %d bytes)", SHARED,
      api.escape(name), size))
  end
  return ffi.cast(ffi.typeof("$ *", ct), p)
end

-- Atomic operations on luabench.shared("name", "uint64_t", n) memory; each returns the value
-- before the operation: luabench.atomic_add(p + i, 1) hands out tickets across threads.
-- (A nil pointer, a misspelt variable most likely, is an error here rather than a crash in C.)
local atomic_add, atomic_load, atomic_cas = C.lb_atomic_add, C.lb_atomic_load, C.lb_atomic_cas
local POINTER = "p must be a pointer into luabench.shared(name, \"uint64_t\", n) memory"
local function integer(v) return type(v) == "number" or type(v) == "cdata" end
function sb.atomic_add(p, n)
  if type(p) ~= "cdata" or p == nil then bad("luabench.atomic_add(p, n)", POINTER, p) end
  if not integer(n) then bad("luabench.atomic_add(p, n)", "n must be a number", n) end
  return atomic_add(p, n)
end
function sb.atomic_load(p)
  if type(p) ~= "cdata" or p == nil then bad("luabench.atomic_load(p)", POINTER, p) end
  return atomic_load(p)
end
function sb.atomic_cas(p, expected, desired)
  if type(p) ~= "cdata" or p == nil then bad("luabench.atomic_cas(p, expected, desired)", POINTER, p) end
  if not integer(expected) then bad("luabench.atomic_cas(p, expected, desired)", "expected must be a number", expected) end
  if not integer(desired) then bad("luabench.atomic_cas(p, expected, desired)", "desired must be a number", desired) end
  return atomic_cas(p, expected, desired)
end

local NCOUNTERS = 9 -- LB_CNT_MAX (engine/stats.h): luabench.counters below
function sb.counter_add(counter, n)
  if not (type(counter) == "number" and counter >= 0 and counter < NCOUNTERS and counter % 1 == 0) then
    bad("luabench.counter_add(counter [, n])", "counter must be one of luabench.counters", counter)
  end
  if n == nil then
    n = 1
  elseif not (integer(n) and n >= 0) then
    bad("luabench.counter_add(counter [, n])", "n must be a number >= 0", n)
  end
  C.lb_counter_add(worker, counter, n)
end

sb.counters = {
  OTHER = 0, READ = 1, WRITE = 2, EVENT = 3, ERROR = 4, RECONNECT = 5, BYTES_READ = 6,
  BYTES_WRITTEN = 7, FAILED = 8,
}

-- Named metrics: luabench.counter(name [, options]), .rate, .gauge (luabench.named_metrics,
-- loaded by the first declaration).
for _, kind in ipairs({ "counter", "rate", "gauge" }) do
  sb[kind] = function(...)
    local declare = require("luabench.named_metrics")[kind]
    sb[kind] = declare
    return declare(...)
  end
end

-- Modules loaded on first use keep every Lua state small (one per thread).
local lazy = {}
-- luabench.instance / luabench.instances: this process's index (0-based) and the number of
-- processes of a distributed run (--instance=i/n; 0 and 1 when not given). Read from the option
-- on use, since options are exported after this file runs.
local function instance_field(t, k)
  local i, n = tostring(rawget(t, "opt") and t.opt.instance or ""):match("^(%d+)/(%d+)$")
  if k == "instance" then return tonumber(i) or 0 end
  return tonumber(n) or 1
end

setmetatable(sb, {
  __index = function(t, k)
    local m = lazy[k]
    if m then
      local v = type(m) == "function" and m() or require(m)
      rawset(t, k, v)
      return v
    end
    if k == "instance" or k == "instances" then return instance_field(t, k) end
  end,
})
sb._lazy = lazy
lazy.sql = "luabench.sql"
lazy.stats = "luabench.stats"
lazy.io = "luabench.io"
lazy.prepare = "luabench.prepare"
lazy.socket = "luabench.socket"
lazy.histogram = "luabench.histogram"
for _, name in ipairs({ "default", "csv", "json" }) do
  lazy["report_" .. name] = function() return require("luabench.report")[name] end
end

-- print() as Lua's, but each line goes out in one write: Lua's writes every argument, tab and
-- the newline separately, so lines printed by several threads at once came out mixed.
do
  local select, concat, stdout = select, table.concat, io.stdout
  function print(...)
    local n = select("#", ...)
    local parts = {}
    for i = 1, n do parts[i] = _G.tostring((select(i, ...))) end
    stdout:write(concat(parts, "\t", 1, n) .. "\n")
  end
end

-- LuaJIT control, as `luajit -j<cmd>` (e.g. --luajit-cmd=off).
local jcmd = C_.luajit_cmd
if jcmd and jcmd ~= "" then
  local name, args = jcmd:match("^([%w_]+)=?(.*)$")
  if name == "on" or name == "off" or name == "flush" then
    jit[name]()
  elseif name == "opt" then
    require("jit.opt").start(args ~= "" and args or nil)
  elseif name then
    -- The jit.* modules (v, dump, p ...); a name that is none of them gets one line, not
    -- require's list of every file it tried.
    local ok, mod = pcall(require, "jit." .. name)
    if not ok and tostring(mod):find("module 'jit." .. name .. "' not found", 1, true) then
      error("--luajit-cmd: unknown LuaJIT command '" .. name .. "'", 0)
    elseif not ok or type(mod) ~= "table" or type(mod.start) ~= "function" then
      error("--luajit-cmd: LuaJIT command '" .. name .. "' cannot be started: " ..
        (ok and "the module has no start()" or tostring(mod):match("^[^\n]*")), 0)
    end
    mod.start(args ~= "" and args or nil)
  else
    error("--luajit-cmd: invalid value '" .. jcmd .. "'", 0)
  end
end

require("luabench.runner")
build("luabench.compat", C_)
