-- luabench.counter, luabench.rate, luabench.gauge: a script's own figures, declared by name and
-- reported beside luabench's (the text report, --report-metrics lines, JSON, CSV, Prometheus,
-- merge, compare, --threshold).
--
--   local MISS = luabench.counter("cache_miss", { better = "lower" })
--   local HIT = luabench.rate("hit_rate", { better = "higher" })
--   local QUEUE = luabench.gauge("queue_depth")
--   function event() ... MISS:add(); HIT:add(found); QUEUE:set(#pending) end
--
-- Each worker has a slot per metric in its statistics (engine/named_metrics.h) and writes only
-- its own: add() stores to that slot from Lua (one or two stores), without a call into C, a lock
-- or an atomic read-modify-write; the reporter adds the workers' slots up. A gauge's set() is a
-- call (it reads the clock, so that the latest value over all threads is the gauge's, and keeps
-- the window's minimum and maximum).
--
-- Declaring: the same name is the same metric in every thread, so declare at the top of the
-- script (its main chunk runs in every thread). A declaration repeated with the same kind and
-- options returns the metric again (in any hook: a lookup); a new name is refused once the run
-- has started (the report's columns are fixed by then), and so is a name declared before as
-- another kind or with another direction.
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench
local worker = sb.worker
local api = require("luabench.api_check")

local floor, type, fmt = math.floor, type, string.format
local raise = api.raise

local KINDS = { counter = 0, rate = 1, gauge = 2 }
local KIND_NAMES = { [0] = "counter", "rate", "gauge" }
local BETTER = { neutral = 0, higher = 1, lower = 2 }
local BETTER_NAMES = { [0] = "neutral", "higher", "lower" }
-- --threshold's own figures (output/thresholds.c): a metric of one of these names could not be
-- named there. pNN (a 'p' and a digit) is refused by the pattern below.
local RESERVED = { avg = true, min = true, max = true, tps = true, qps = true, errors = true,
                   events = true, reconnects = true }
local NAME_MAX = 47 -- LB_METRIC_NAME_BYTES - 1
local WHOLE_MAX = 2 ^ 53 -- sums are doubles: whole numbers are exact below this

local M = {}

-- A value as a message shows it: numbers and strings as written, other values by their type.
local function shown(v)
  if type(v) == "string" then return (fmt("%q", v):gsub("\\\n", "\\n")) end
  if type(v) == "number" then return tostring(v) end
  return type(v)
end

local function wrong_self(call, self, kind)
  raise(fmt("%s: called on %s, not on this %s from luabench.%s() (call it with ':')", call, type(self), kind, kind))
end

-- Each object carries its own method, a closure over the object and its slot: a call in an
-- event loop is then a constant-key lookup, a comparison and the stores (the JIT folds the
-- rest), where a class method looked up through a metatable cost several hash lookups.
local function counter(m, s)
  -- c:add([n]): adds n (a whole number >= 0, 1 if not given) to the counter.
  function m.add(self, n)
    if self ~= m then wrong_self("counter:add(n)", self, "counter") end
    if n == nil then
      n = 1
    elseif type(n) ~= "number" or not (n >= 0 and n < WHOLE_MAX) or n ~= floor(n) then
      raise("counter:add(n): n must be a whole number >= 0 (below 2^53), got " .. shown(n))
    end
    s.sum = s.sum + n
  end
end

local function rate(m, s)
  -- r:add(outcome): records one outcome, true or false.
  function m.add(self, outcome)
    if self ~= m then wrong_self("rate:add(outcome)", self, "rate") end
    if outcome == true then
      -- all outcomes before the true ones: a reader never sees more true outcomes than outcomes
      s.count = s.count + 1
      s.sum = s.sum + 1
    elseif outcome == false then
      s.count = s.count + 1
    else
      raise("rate:add(outcome): outcome must be true or false, got " .. shown(outcome))
    end
  end
end

local set = C.lb_metric_set
local function gauge(m, _, id)
  -- g:set(value): the gauge's value is now value (a finite number).
  function m.set(self, value)
    if self ~= m then wrong_self("gauge:set(value)", self, "gauge") end
    if type(value) ~= "number" or value ~= value or value == 1 / 0 or value == -1 / 0 then
      raise("gauge:set(value): value must be a finite number, got " .. shown(value))
    end
    set(worker, id, value)
  end
end

local METHODS = { [0] = counter, rate, gauge }

-- This state's metrics by name (a repeated declaration returns the same object).
local declared = {}

local function check_name(call, name)
  if type(name) ~= "string" or #name == 0 or #name > NAME_MAX or not name:find("^[%a_][%w_]*$")
      or name:find("^p%d") then
    raise(fmt("%s: name must be letters, digits and '_' (at most %d, not starting with a digit or "
      .. "with 'p' and a digit), got %s", call, NAME_MAX, shown(name)))
  end
  if RESERVED[name] then
    raise(fmt("%s: %q is one of luabench's own figures in --threshold (avg, min, max, tps, qps, "
      .. "errors, events, reconnects): choose another name", call, name))
  end
end

local function check_options(call, options)
  if options == nil then return 0 end
  if type(options) ~= "table" then
    raise(fmt("%s: options must be a table, got %s", call, shown(options)))
  end
  for k in pairs(options) do
    if k ~= "better" then
      raise(fmt("%s: unknown option %s (options: better)", call, shown(k)))
    end
  end
  local better = options.better
  if better == nil then return 0 end
  if type(better) ~= "string" or not BETTER[better] then
    raise(fmt("%s: options.better must be \"higher\", \"lower\" or \"neutral\", got %s", call, shown(better)))
  end
  return BETTER[better]
end

local function declare(kind_name, name, options)
  local call = fmt("luabench.%s(name%s)", kind_name, options ~= nil and ", options" or "")
  check_name(call, name)
  local better = check_options(call, options)
  local kind = KINDS[kind_name]
  local m = declared[name]
  local id = m and m.id or C.lb_metric_define(worker, name, kind, better)
  if id == -1 then raise(fmt("%s: too many named metrics (at most 64)", call)) end
  if id == -2 then
    raise(fmt("%s: %q is not declared, and the run has started: declare metrics at the top of the "
      .. "script (or in init or thread_init)", call, name))
  end
  local k, b = C.lb_metric_kind(worker, id), C.lb_metric_better(worker, id)
  if k ~= kind then
    raise(fmt("%s: %q is declared already as a %s", call, name, KIND_NAMES[k]))
  end
  if b ~= better then
    raise(fmt("%s: %q is declared already with better = %q", call, name, BETTER_NAMES[b]))
  end
  if not m then
    local slot = C.lb_metric_slot(worker, id)
    m = { id = id, name = name, kind = kind_name, _slot = slot } -- (_slot: for tests)
    METHODS[kind](m, slot, id)
    declared[name] = m
  end
  return m
end

function M.counter(name, options) return declare("counter", name, options) end
function M.rate(name, options) return declare("rate", name, options) end
function M.gauge(name, options) return declare("gauge", name, options) end

return M
