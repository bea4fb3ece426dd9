-- luabench_shim: lets a script written for luabench run unchanged on sysbench 1.0.20.
--
--   local luabench = rawget(_G, "luabench") or require("luabench_shim")
--
-- Under luabench the first half picks the real API and this file is never read. Under sysbench
-- this module stands in for the parts of the API a portable script uses, with sysbench's means:
-- per-type statistics and progress lines do nothing, shared objects are per thread (sysbench
-- has no shared memory between its Lua states), a prepare barrier does not wait. Copy it next to
-- the script (sysbench finds modules in the working directory, or set LUA_PATH); luabench
-- installs it as share/luabench/luabench_shim.lua (doc/scripting.md §13).
local ffi = require("ffi")

ffi.cdef [[
  struct lb_shim_timespec { long tv_sec; long tv_nsec; };
  int clock_gettime(int clk, struct lb_shim_timespec *ts);
  int nanosleep(const struct lb_shim_timespec *req, struct lb_shim_timespec *rem);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("struct lb_shim_timespec")

local M = {
  additions = false, -- print nothing beyond what sysbench prints
  instance = 0,
  instances = 1,
  user_data = {},    -- one table per thread: sysbench has one user per thread
  counters = { OTHER = 0, READ = 1, WRITE = 2, EVENT = 3, ERROR = 4, RECONNECT = 5,
    BYTES_READ = 6, BYTES_WRITTEN = 7, FAILED = 8 },
}

function M.time()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

function M.sleep(seconds)
  if not seconds or seconds <= 0 then return end
  local req = ffi.new("struct lb_shim_timespec", math.floor(seconds), (seconds % 1) * 1e9)
  ffi.C.nanosleep(req, nil)
end
M.think = M.sleep
M.pause = M.sleep

function M.stopping() return false end

-- Per thread here (luabench's are shared by every thread of the process).
local shared = {}
function M.shared(name, ctype, count)
  assert(type(name) == "string", "shared(): name must be a string")
  local key = name .. "\0" .. (ctype or "uint64_t")
  if not shared[key] then shared[key] = ffi.new((ctype or "uint64_t") .. "[?]", count or 1) end
  return shared[key]
end
function M.atomic_add(p, n) local old = p[0]; p[0] = p[0] + n; return old end
function M.atomic_load(p) return p[0] end
function M.atomic_cas(p, expected, desired)
  if p[0] == expected then p[0] = desired; return true end
  return false
end
function M.counter_add() end

-- Transaction types: timed by nothing, reported nowhere.
local Type = {}
Type.__index = Type
function Type:start() return M.time() end
function Type:begin() return M.time() end
function Type:attempts() return 1 end -- (nothing counts retries here)
function Type:done() end
function Type:rollback() end
function Type:error() end
function Type:retry() end
function Type:measure(f, ...) return f(...) end
M.stats = { type = function(name) return setmetatable({ name = name }, Type) end }

-- luabench.prepare: no progress lines; a barrier does not wait (each sysbench thread runs its
-- part of a parallel command on its own).
local Load = {}
Load.__index = Load
function Load:add() end
function Load:rows() return 0 end
function Load:elapsed() return M.time() - self.t0 end
function Load:tick() end
function Load:finish() end
function Load:fail() self.failed_flag = true end
function Load:failed() return self.failed_flag end
function Load:barrier() return not self.failed_flag end
function Load:phase() end
M.prepare = { new = function(name, total) return setmetatable({ name = name, total = total, t0 = M.time(), failed_flag = false }, Load) end }

return M
