-- luabench.stats: named transaction types, each with its own counters and latency histogram,
-- reported per type after the usual summary and in the JSON result.
--
--   local NEW_ORDER = luabench.stats.type("NewOrder")
--   local t0 = NEW_ORDER:begin()  -- first attempt's start: a retried event gets the same mark
--   ... ; NEW_ORDER:done(t0)      -- or :rollback(t0), :error(); retries are counted by begin()
--
-- start() is the older mark (each attempt starts anew: retried time is left out).
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench
local worker = sb.worker

local api = require("luabench.api_check")
local OK, ERROR, ROLLBACK, RETRY = 0, 1, 2, 3

local function callable(f)
  local mt = type(f) ~= "function" and getmetatable(f)
  return type(f) == "function" or (type(mt) == "table" and mt.__call ~= nil)
end

local Type = {}
Type.__index = Type

-- The start mark for done()/rollback(): ns since the run started.
function Type:start() return C.lb_clock_ns(worker) end

-- Where begin() keeps each type's open transaction: per user (users of one worker share this
-- Lua state), in tables keyed by type id. mark: the event's start, the same for every attempt
-- of one event (a retry restarts event() but not the event), so a new event is told from a
-- retry without any work in the event loop.
-- open: the types begun in the event and not yet ended (done, rollback, error), which a failed
-- event counts as errors.
local thread_open = { mark = {}, t0 = {}, attempts = {}, open = {} }

local function open_of()
  local U = sb._users
  if U and U.current >= 0 then
    local i = U.current
    local o = U.txn[i]
    if not o then
      o = { mark = {}, t0 = {}, attempts = {}, open = {} }
      U.txn[i] = o
    end
    return o, U.start[i] or -1 -- (user_init: before its first event)
  end
  return thread_open, C.lb_event_start_ns(worker)
end

-- The start mark of this type's transaction in the current event: now at its first attempt;
-- on a retry of the same event, the first attempt's mark again (and the retry is counted).
function Type:begin()
  local o, mark = open_of()
  local id = self.id
  if mark < 0 then mark = nil end -- outside an event: no retry to tell apart
  if mark and o.mark[id] == mark then
    o.attempts[id] = o.attempts[id] + 1
    C.lb_type_record(worker, id, 0, RETRY)
    return o.t0[id]
  end
  local t0 = C.lb_clock_ns(worker)
  o.mark[id], o.t0[id], o.attempts[id] = mark, t0, 1
  if mark then o.open[id] = mark end
  return t0
end

-- Attempts of this type's transaction in the current event so far (1 = first try, 0 = none).
function Type:attempts()
  local o, mark = open_of()
  return mark >= 0 and o.mark[self.id] == mark and o.attempts[self.id] or 0
end

-- The mark done()/rollback() use when given none: begin()'s, in this event.
local function open_t0(self)
  local o, mark = open_of()
  if mark < 0 then mark = nil end
  if not mark or o.mark[self.id] ~= mark then
    api.raise(string.format("%s: done()/rollback() without a start mark (call begin() or start() first)",
      tostring(self.name)))
  end
  return o.t0[self.id]
end

local function ended(self)
  local o = open_of()
  o.open[self.id] = nil
end

-- A start mark given to done()/rollback(): what begin() or start() returned.
local function check_t0(what, t0)
  if t0 ~= nil and type(t0) ~= "number" then
    api.bad("T:" .. what .. "([t0])", "t0 must be a start mark from T:begin() or T:start()", t0)
  end
end

function Type:done(t0)
  if type(t0) ~= "number" then check_t0("done", t0) end
  C.lb_type_record(worker, self.id, t0 or open_t0(self), OK)
  ended(self)
end
function Type:rollback(t0)
  if type(t0) ~= "number" then check_t0("rollback", t0) end
  C.lb_type_record(worker, self.id, t0 or open_t0(self), ROLLBACK)
  ended(self)
end
function Type:error()
  C.lb_type_record(worker, self.id, 0, ERROR)
  ended(self)
end
function Type:retry() C.lb_type_record(worker, self.id, 0, RETRY) end

-- Runs f(...) and records it: done when it returns (with all of f's results, not just the first
-- three), error when it raises (the error goes on).
local function measured(self, t0, ok, ...)
  if ok then
    C.lb_type_record(worker, self.id, t0, OK)
    return ...
  end
  C.lb_type_record(worker, self.id, 0, ERROR)
  error((...), 0)
end

function Type:measure(f, ...)
  if not callable(f) then api.raise("measure() needs a function to run, got " .. type(f)) end
  return measured(self, C.lb_clock_ns(worker), pcall(f, ...))
end

api.guard_methods(Type, "a statistics type from luabench.stats.type()")

local stats = {}
local types = {}

-- Called by the event loop (runner.lua) when an event fails (an error other than a retry):
-- a transaction begun in it and not ended is that type's error, so the type's errors add up to
-- the failed events (and a type whose every transaction fails stays in the report).
sb._stats_event_failed = function()
  local o, mark = open_of()
  if mark < 0 then return end
  for id, m in pairs(o.open) do
    if m == mark then C.lb_type_record(worker, id, 0, ERROR) end
    o.open[id] = nil
  end
end

function stats.type(name)
  local t = types[name]
  if t then return t end
  if type(name) ~= "string" or name == "" then api.bad("luabench.stats.type(name)", "name must be a string", name) end
  local id = C.lb_type_define(worker, name)
  if id < 0 then api.raise("luabench.stats.type(name): too many statistics types (at most 64)") end
  t = setmetatable({ id = id, name = name }, Type)
  types[name] = t
  return t
end

return stats
