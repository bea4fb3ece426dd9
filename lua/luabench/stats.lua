-- luabench.stats: named transaction types, each with its own counters and latency histogram,
-- reported per type after the usual summary and in the JSON result.
--
--   local NEW_ORDER = luabench.stats.type("NewOrder")
--   local t0 = NEW_ORDER:start()
--   ... ; NEW_ORDER:done(t0)      -- or :rollback(t0), :error(), :retry()
local ffi = require("ffi")
local C = ffi.C
local worker = sysbench.worker

local OK, ERROR, ROLLBACK, RETRY = 0, 1, 2, 3

local Type = {}
Type.__index = Type

-- The start mark for done()/rollback(): ns since the run started.
function Type:start() return C.lb_clock_ns(worker) end
function Type:done(t0) C.lb_type_record(worker, self.id, t0, OK) end
function Type:rollback(t0) C.lb_type_record(worker, self.id, t0, ROLLBACK) end
function Type:error() C.lb_type_record(worker, self.id, 0, ERROR) end
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
  return measured(self, C.lb_clock_ns(worker), pcall(f, ...))
end

local stats = {}
local types = {}

function stats.type(name)
  local t = types[name]
  if t then return t end
  local id = C.lb_type_define(worker, tostring(name))
  if id < 0 then error("too many statistics types (at most 64)", 2) end
  t = setmetatable({ id = id, name = name }, Type)
  types[name] = t
  return t
end

return stats
