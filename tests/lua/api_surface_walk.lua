-- The API surface walk of tests/lua/api_surface_spec.lua (run by luabench on the null driver):
-- every object the Lua API hands out, in every state (fresh, freed, closed, of a closed or a
-- collected connection, after a reconnect, a pipeline run or open; in event() and again in
-- thread_done(), once the run is over), every field read by every name (the FFI structs'
-- members from the generated cdef texts, the keys and methods of every object: a new field is
-- walked without editing this file), every method called on its object with no arguments, with
-- arguments of the wrong kind, and on a wrong self; and every function of the API (found by
-- walking the luabench table and the 0.5-style globals: tests/fuzz/surface.lua) called with
-- arguments of the wrong kind. Each call returns, or raises an error that starts with this
-- script's line and names the call. Prints a WALK summary, one UNNAMED line per error that does
-- not start with this script's line and one UNCLEAR line per error that does not name the
-- function it came from; a crash ends the process.
local surface = dofile(os.getenv("LB_SOURCE_ROOT") .. "/tests/fuzz/surface.lua")
local SCRIPT = require("debug").getinfo(1, "S").source:match("([^/]+)$")

-- LB_WALK_INJECT=1: a function nobody listed, added to a module's table (the spec checks that the
-- walk reaches it: it raises an error of its own, not at the caller's line).
if os.getenv("LB_WALK_INJECT") then
  luabench.socket.walk_injected = function() error("an unchecked argument", 0) end
end

-- Named metrics are declared before the run starts (lua-api.md §5.11): here, for build().
local metrics = {}
for _, kind in ipairs({ "counter", "rate", "gauge" }) do metrics[#metrics + 1] = { kind, luabench[kind]("walk_" .. kind) } end

local names, seen = {}, {}
for _, n in ipairs(surface.struct_fields()) do names[#names + 1] = n; seen[n] = true end
-- methods of the FFI objects (result sets, histograms): a metatype's table is not reachable
-- through getmetatable; their modules keep it as _methods
for _, n in ipairs(surface.ffi_methods(luabench)) do
  if not seen[n] then names[#names + 1] = n; seen[n] = true end
end

local TRACE = os.getenv("WALK_TRACE") -- WALK_TRACE=1: each read and call on stderr
local objects = {}
local function add(label, v)
  objects[#objects + 1] = { label, v }
  surface.names_of(v, names, seen)
end

local WRONG = { 42, {}, "x", false }
-- Argument lists of the wrong kind (for a few calls, the right one): what a mistyped call passes.
local BAD_ARGS = { {}, { nil }, { 42 }, { "x" }, { {} }, { true }, { -1 }, { 0 / 0 }, { 1.5 }, { "x", "x" },
  { {}, {} }, { 42, 42, 42 }, { function() end }, { 1 / 0 } }
-- Calls whose valid arguments take time: a duration is cut to a millisecond (sleep(42) is not
-- a fault), and sb_rand_uniq(a, b) draws until a value falls in [a, b] (as sysbench's: a narrow
-- range takes billions of draws), so it only gets arguments of the wrong type.
local function tamed(name, args)
  if name:find("sleep$") or name:find("think$") or name:find("pause$") or name:find("settimeout$") then
    local a = {}
    for i = 1, table.maxn(args) do
      local v = args[i]
      a[i] = (type(v) == "number" and v > 0.001) and 0.001 or v
    end
    return a
  end
  if name == "sb_rand_uniq" and type(args[1]) == "number" and type(args[2]) == "number" then return nil end
  return args
end
local report = { reads = 0, calls = 0, unnamed = {}, unclear = {}, functions = 0 }
local says_call

-- An error at this script's line (with its path before the name), with no line of the library's
-- own inside (a wrapper's "db_query() failed: luabench/sql.lua:12: ..." is not named).
local AT_SCRIPT = "^[^\n]-" .. SCRIPT:gsub("%p", "%%%0") .. ":%d+: "
-- The run-time errors of a call whose arguments are right name what failed, not a line
-- (lua-api.md §2, §3, §5.9): luabench.socket's the peer (the walk's socket talks to
-- 127.0.0.1:9), luabench.io's the file (the walk's string argument "x" is a file that does not
-- exist), a loader's phase() that another thread failed (the walk's loader was failed).
local IO_ERRORS = { "^[%a ]+ 127%.0%.0%.1:9: ", "^open x: ", "^another loader thread failed$" }
local function named(e)
  if type(e) == "table" then return true end -- an error descriptor (RESTART_EVENT)
  e = tostring(e)
  for _, p in ipairs(IO_ERRORS) do
    if e:find(p) then return true end
  end
  return e:find(AT_SCRIPT) ~= nil and not e:find("luabench/[%w_]+%.lua:%d+:")
end

local function describe(args)
  local parts = {}
  for i = 1, table.maxn(args) do
    local v = args[i]
    parts[i] = type(v) == "string" and string.format("%q", v) or type(v) == "number" and tostring(v) or type(v)
  end
  return table.concat(parts, ", ")
end

-- sysbench 1.0.20's own messages, kept as they are (lua-api.md §1).
local SYSBENCH_TEXTS = { "SQL API error: attempt to use an already closed connection", "Unsupported argument type: " }
-- The names each API function goes by (sb_rand is sysbench.rand.default): a message may name any.
local aliases = {}
-- Whether error e says which call it is about: the called function's name (its last part), or
-- an alias's; sysbench's own messages as they are.
function says_call(e, name, f)
  for _, t in ipairs(SYSBENCH_TEXTS) do
    if e:find(t, 1, true) then return true end
  end
  for _, n in ipairs(aliases[f] or { name }) do
    if e:find(n:match("([%w_]+)$"), 1, true) then return true end
  end
  return false
end

-- Calls f(args...) (with self first when given); an error must start with this script's line
-- and say the name of what was called (its last part: "receive" for luabench.socket's).
local function check_call(label, name, f, self, args)
  args = tamed(name, args)
  if not args then return end
  report.calls = report.calls + 1
  if TRACE then io.stderr:write(label, " ", name, "(", describe(args), ")\n") end
  local n = table.maxn(args)
  local ok, e
  if self ~= nil then
    ok, e = pcall(function() local r = f(self, unpack(args, 1, n)) return r end)
  else
    ok, e = pcall(function() local r = f(unpack(args, 1, n)) return r end)
  end
  if ok or type(e) == "table" then return end
  -- (a call that raises what it is given, luabench.workload.fail("x"), did what it says)
  if n >= 1 and type(args[1]) == "string" and e == args[1] then return end
  local what = string.format("%s %s(%s): %s", label, name, describe(args), tostring(e):gsub("\n.*", ""))
  e = tostring(e)
  if not named(e) then
    report.unnamed[#report.unnamed + 1] = what
  elseif (e:find("(got ", 1, true) or e:find(" must be ", 1, true) or e:find("bad argument", 1, true)
      or e:find("cannot convert", 1, true) or e:find("attempt to ", 1, true))
      and not says_call(e, name, f) then
    -- a complaint about an argument that does not say which call it is about
    report.unclear[#report.unclear + 1] = what
  end
end

-- Methods that end an object: called with wrong arguments after the others, which see it open.
local CLOSERS = { close = true, disconnect = true, free = true, abort = true }

local function bad_args_calls(when, label, obj, closers)
  for _, k in ipairs(names) do
    local ok, v = surface.read(obj, k)
    if ok and type(v) == "function" and k ~= "think" and (CLOSERS[k] or false) == closers then
      for _, args in ipairs(BAD_ARGS) do
        check_call(when .. " " .. label, k, v, obj, args)
        if label == "socket" and rawget(obj, "timeout") then obj.timeout = 0.01 end
      end
    end
  end
end

local function walk(when)
  table.sort(names)
  for _, o in ipairs(objects) do
    local label, obj = o[1], o[2]
    bad_args_calls(when, label, obj, false)
    bad_args_calls(when, label, obj, true)
    for _, k in ipairs(names) do
      if TRACE then io.stderr:write(when, " ", label, ".", k, "\n") end
      local ok, v = surface.read(obj, k)
      report.reads = report.reads + 1
      if ok then pcall(tostring, v) end
      if ok and type(v) == "function" and k ~= "think" then
        local selves = { obj }
        for _, w in ipairs(WRONG) do selves[#selves + 1] = w end
        for i, self in ipairs(selves) do
          report.calls = report.calls + 1
          if TRACE then io.stderr:write(when, " ", label, ":", k, "(", type(self), ")\n") end
          local ok2, e = pcall(function() local r = v(self) return r end)
          if not ok2 and not named(e) then
            report.unnamed[#report.unnamed + 1] = string.format("%s %s:%s(%s): %s", when, label, k,
              i == 1 and "self" or type(self), tostring(e))
          end
        end
      end
    end
  end
end

-- Every function of the API with arguments of the wrong kind.
local function call_functions(when)
  local list = surface.functions(luabench)
  for _, m in ipairs(surface.required_modules(os.getenv("LB_SOURCE_ROOT"))) do
    for _, e in ipairs(surface.functions(m.module, m.name .. ".")) do list[#list + 1] = e end
  end
  report.functions = #list
  for _, e in ipairs(list) do
    aliases[e.f] = aliases[e.f] or {}
    table.insert(aliases[e.f], e.name)
  end
  for _, e in ipairs(list) do
    for _, args in ipairs(BAD_ARGS) do check_call(when, e.name, e.f, nil, args) end
  end
end

local function build()
  local drv = sysbench.sql.driver()
  add("driver", drv)
  local con = drv:connect()
  add("connection", con)
  add("result-rows", con:query("SELECT 1"))
  local rs_none = con:query("UPDATE t SET a = 1")
  add("result-none", rs_none)
  local freed_con = drv:connect()
  local freed = freed_con:query("SELECT 1")
  freed:free()
  add("result-freed", freed)
  local st = con:prepare("SELECT ?")
  local p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
  add("statement", st)
  add("parameter", p)
  local st_closed = con:prepare("SELECT 1")
  st_closed:close()
  add("statement-closed", st_closed)
  local pipe = con:pipeline()
  pipe:query("UPDATE t SET a = 1")
  pipe:query("SELECT 1")
  local res = pipe:run()
  add("pipeline-run", pipe)
  add("pipeline-result", res[1])
  add("pipeline-result-rows", res[2])
  local closed = drv:connect()
  local closed_rs = closed:query("SELECT 1")
  local closed_st = closed:prepare("SELECT 1")
  closed:disconnect()
  add("connection-closed", closed)
  add("result-of-closed", closed_rs)
  add("statement-of-closed", closed_st)
  -- a result kept past its connection (collected)
  add("result-of-collected", drv:connect():query("SELECT 1"))
  add("result-none-of-collected", drv:connect():query("BEGIN"))
  collectgarbage()
  collectgarbage()
  local rc = drv:connect()
  rc:reconnect()
  add("connection-reconnected", rc)
  add("result-after-reconnect", rc:query("UPDATE t SET a = 2"))
  local dir = os.getenv("LB_WALK_DIR")
  local f = luabench.io.open(dir .. "/walk.dat", "create")
  add("file", f)
  local fc = luabench.io.open(dir .. "/walk2.dat", "create")
  fc:close()
  add("file-closed", fc)
  local q = luabench.io.queue({ engine = "psync", depth = 2 })
  add("queue", q)
  local qc = luabench.io.queue({ engine = "psync", depth = 2 })
  qc:close()
  add("queue-closed", qc)
  add("buffer", luabench.io.buffer(4096))
  add("histogram", sysbench.histogram.new(100, 1, 1000))
  add("stats-type", luabench.stats.type("walk"))
  add("shared", luabench.shared("walk.slot", "int64_t", 4))
  add("user-data", luabench.user_data)
  add("loader", luabench.prepare.new("walk.load", 10))
  for _, m in ipairs(metrics) do add("metric-" .. m[1], m[2]) end
  -- a UDP socket needs no server: its calls check their arguments before they send or wait
  add("socket", luabench.socket.connect("127.0.0.1", 9, { udp = true, timeout = 0.01 }))
  -- last: on a pooled connection (--users) the pipeline holds the one physical connection
  add("pipeline-open", drv:connect():pipeline())
end

function event()
  build()
  walk("event")
  call_functions("event")
end

function thread_done()
  walk("thread_done")
  print(string.format("WALK reads=%d calls=%d unnamed=%d unclear=%d objects=%d names=%d functions=%d", report.reads,
    report.calls, #report.unnamed, #report.unclear, #objects, #names, report.functions))
  for _, l in ipairs(report.unnamed) do print("UNNAMED " .. l) end
  for _, l in ipairs(report.unclear) do print("UNCLEAR " .. l) end
end
