-- Helpers for a workload's parallel `prepare`: every thread loads its share, thread 0 prints the
-- progress of all of them, and the threads meet at numbered phases (tables created, data loaded,
-- indexes built). The state lives in luabench.shared() memory under a name, so every thread's
-- Lua state that calls prepare.new() with the same name sees the same counters.
local api = require("luabench.api_check")
local M = {}
local Load = {}
Load.__index = Load

local PRINT_EVERY_S = 2
local POLL_S = 0.05

-- prepare.new(name, total): `total` is the number of rows expected (for the percentage and ETA);
-- 0 when unknown.
function M.new(name, total)
  if type(name) ~= "string" or name == "" then api.bad("luabench.prepare.new(name [, total])", "name must be a string", name) end
  if total ~= nil and not (type(total) == "number" and total >= 0 and total < 2 ^ 53) then
    api.bad("luabench.prepare.new(name [, total])", "total must be a number of rows >= 0", total)
  end
  local threads = sysbench.opt.threads
  local now = luabench.time()
  return setmetatable({
    threads = threads, tid = sysbench.tid, total = total or 0, t0 = now, last = now, printed = 0,
    rows_of = luabench.shared(name .. ".rows", "uint64_t", threads),
    phase_of = luabench.shared(name .. ".phase", "uint32_t", threads),
    failed_flag = luabench.shared(name .. ".failed", "uint32_t", 1),
  }, Load)
end

-- This thread loaded `n` more rows.
function Load:add(n)
  if not (type(n) == "number" and n >= 0 and n < 2 ^ 53) then api.bad("L:add(n)", "n must be a number of rows >= 0", n) end
  local t = self.tid
  self.rows_of[t] = self.rows_of[t] + n
  self:tick(false)
end

-- Rows loaded by all threads so far.
function Load:rows()
  local n = 0
  for t = 0, self.threads - 1 do n = n + tonumber(self.rows_of[t]) end
  return n
end

function Load:elapsed()
  return math.max(luabench.time() - self.t0, 1e-3)
end

-- The default progress line; a workload with its own units passes `line(self, rows, rate)`.
local function rows_line(self, n, rate)
  local total = math.max(self.total, n)
  return string.format("Progress: %d/%d rows (%.0f%%), %.0f rows/s, ETA %.0fs", n, total,
    total > 0 and 100 * n / total or 100, rate, rate > 0 and (total - n) / rate or 0)
end

-- Thread 0 prints the progress line, at most every 2 s unless `force`; with `if_moved`, only
-- when rows were loaded since the last line (waiting for index builds prints nothing).
function Load:tick(force, if_moved)
  -- running as sysbench, prepare is as quiet as sysbench's
  if self.tid ~= 0 or not luabench.additions then return end
  local now = luabench.time()
  if not force and now - self.last < PRINT_EVERY_S then return end
  local n = self:rows()
  if if_moved and not force and n == self.printed then return end
  self.last, self.printed, self.printed_total = now, n, self.total
  print((self.line or rows_line)(self, n, n / self:elapsed()))
end

-- All rows are in: thread 0 prints the final line with the real count (an estimated total
-- becomes exact), unless a barrier already printed exactly that line's figures.
function Load:finish()
  if self.tid ~= 0 then return end
  local n = self:rows()
  self.total = n
  if n ~= self.printed or self.printed_total ~= n then self:tick(true) end
end

-- Marks the load failed: the other threads stop at their next phase or check. Call it last,
-- after this thread's cleanup, just before raising: threads are reported in the order they fail.
function Load:fail()
  self.failed_flag[0] = 1
end

function Load:failed()
  return self.failed_flag[0] ~= 0
end

-- Waits until every thread has reached `phase` (numbered from 1, increasing), thread 0 printing
-- the progress of the others meanwhile; false if a thread failed.
function Load:barrier(phase)
  if type(phase) ~= "number" or phase % 1 ~= 0 or phase < 1 or phase > 4294967295 then
    api.raise("barrier(): phases are numbered 1, 2, 3 ... (got " .. tostring(phase) .. ")")
  end
  self.phase_of[self.tid] = phase
  while true do
    if self:failed() then return false end
    local all = true
    for t = 0, self.threads - 1 do
      if self.phase_of[t] < phase then all = false break end
    end
    if all then return true end
    self:tick(false, true)
    luabench.sleep(POLL_S)
  end
end

-- barrier() that raises "another loader thread failed" instead of returning false.
function Load:phase(phase)
  if not self:barrier(phase) then error("another loader thread failed", 0) end
end

api.guard_methods(Load, "a loader from luabench.prepare.new()")

-- Does table `name` exist in the connection's current schema (its dialect's table_exists)?
function M.table_exists(con, name)
  local CALL = "luabench.prepare.table_exists(con, name)"
  local driver = type(con) == "table" and rawget(con, "driver") or (type(con) == "table" and con.driver)
  if type(driver) ~= "table" or type(driver.name) ~= "function" then
    api.bad(CALL, "con must be a connection from sysbench.sql.driver():connect()", con)
  end
  if type(name) ~= "string" or name == "" then api.bad(CALL, "name must be a table name", name) end
  local d, why = require("luabench.dialect").of(driver:name())
  if not d then api.raise(CALL .. ": " .. why) end
  return con:query_row(d.table_exists(name)) ~= nil
end

return M
