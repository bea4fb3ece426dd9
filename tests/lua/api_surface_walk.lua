-- The API surface walk of tests/lua/api_surface_spec.lua (run by luabench on the null driver):
-- every object the Lua API hands out, in every state (fresh, freed, closed, of a closed or a
-- collected connection, after a reconnect, a pipeline run or open; in event() and again in
-- thread_done(), once the run is over), every field read by every name (the FFI structs'
-- members from the generated cdef texts, the keys and methods of every object: a new field is
-- walked without editing this file), every method called on its object with no arguments and on
-- a wrong self. Prints a WALK summary and one UNNAMED line per error that does not name this
-- script's line; a crash ends the process.
local surface = dofile(os.getenv("LB_SOURCE_ROOT") .. "/tests/fuzz/surface.lua")
local SCRIPT = require("debug").getinfo(1, "S").source:match("([^/]+)$")

local names, seen = {}, {}
for _, n in ipairs(surface.struct_fields()) do names[#names + 1] = n; seen[n] = true end
-- methods of the result cdata: an FFI metatype's table is not reachable through getmetatable
for _, n in ipairs({ "fetch_row", "fetch_values", "next", "get", "free" }) do
  if not seen[n] then names[#names + 1] = n; seen[n] = true end
end

local TRACE = os.getenv("WALK_TRACE") -- WALK_TRACE=1: each read and call on stderr
local objects = {}
local function add(label, v)
  objects[#objects + 1] = { label, v }
  surface.names_of(v, names, seen)
end

local WRONG = { 42, {}, "x", false }
local report = { reads = 0, calls = 0, unnamed = {} }

local function named(e)
  if type(e) == "table" then return true end -- an error descriptor (RESTART_EVENT)
  return tostring(e):find(SCRIPT .. ":%d+:") ~= nil
end

local function walk(when)
  table.sort(names)
  for _, o in ipairs(objects) do
    local label, obj = o[1], o[2]
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
  -- last: on a pooled connection (--users) the pipeline holds the one physical connection
  add("pipeline-open", drv:connect():pipeline())
end

function event()
  build()
  walk("event")
end

function thread_done()
  walk("thread_done")
  print(string.format("WALK reads=%d calls=%d unnamed=%d objects=%d names=%d", report.reads, report.calls,
    #report.unnamed, #objects, #names))
  for _, l in ipairs(report.unnamed) do print("UNNAMED " .. l) end
end
