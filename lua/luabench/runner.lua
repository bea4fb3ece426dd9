-- The event loops, run by every worker: sysbench's thread_run (one implicit user per thread),
-- and with --users many emulated users as coroutines (luabench.users). Both are JIT-compiled
-- together with the script's event(); each event costs one call into C, which records the
-- previous event's latency and checks the limits.
-- Scripts may replace the global thread_run, as with sysbench.
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench
local RESTART_EVENT = sb.error.RESTART_EVENT

local function get_event()
  local event = _G.event
  if type(event) ~= "function" then
    error("the script defines no event() function", 0)
  end
  return event
end

local function is_restart(ret)
  return type(ret) == "table" and ret.errcode == RESTART_EVENT
end

-- The text of an error object: a string, or a table's sql_errmsg or message (nil if none).
local function error_text(ret)
  if type(ret) == "table" then ret = ret.sql_errmsg or ret.message end
  return ret ~= nil and tostring(ret) or nil
end

-- The worker keeps the text of its first counted error (a run that completes no event names
-- it: engine/verdict.c). Retried or failed events only: the error path, once per thread.
local noted = false
local function note_error(ret)
  if noted then return end
  local text = error_text(ret)
  if not text then return end
  noted = true
  text = text:match("^(.-)\nstack traceback:") or text -- (--debug)
  C.lb_error_note(sb.worker, text, #text)
end

-- How event() is called. With --debug a failing event's message carries the traceback taken
-- where it failed (the script's frames), not where the loop re-raises it; error objects
-- (RESTART_EVENT descriptors) pass unchanged. Without --debug, a plain pcall: nothing to pay.
local traceback = require("debug").traceback -- (the global `debug` may be the --debug option)
local function add_traceback(err)
  if type(err) ~= "string" then return err end
  local text = traceback(err, 2) -- level 2: from the failing function (not a tail call)
  return text
end
local function call_with_traceback(f, ...)
  return xpcall(f, add_traceback, ...)
end
local function protected_call()
  return sb._tracebacks and call_with_traceback or pcall
end

-- A statement the end of the run cut off (--end-grace) is named: which thread, which statement,
-- how long its event had run (the report only counts them). Not as sysbench.
local function warn_cut_off(who, ret, start_ns)
  if not sb.additions then return end
  local q = tostring(type(ret) == "table" and ret.query or "?")
  if #q > 200 then q = q:sub(1, 200) .. "..." end
  q = sb.escape(q) -- (a statement written over several lines: one line here)
  io.stderr:write(string.format("WARNING: %s: statement cut off at the end of the run, its event "
    .. "running for %.1f s: %s\n", who, (C.lb_clock_ns(sb.worker) - start_ns) / 1e9, q))
end

local function thread_loop(tid)
  local w = sb.worker
  local event = get_event()
  local next_event = C.lb_event_next
  local hooks = sb.hooks
  local pcall = protected_call()
  local t = next_event(w, -1)
  while t >= 0 do
    local ok, ret = pcall(event, tid)
    if ok then
      if ret then
        -- A non-nil/false return stops this thread; that event is not counted.
        C.lb_event_abandon(w)
        return
      end
      -- The SQL layer, once loaded, checks for a transaction left open (sql.lua).
      local s = sb._sql_loop
      if s then s.after_event() end
      t = next_event(w, t)
    elseif is_restart(ret) then
      if not noted then note_error(ret) end
      -- The failed attempt's transaction goes first: the retry must not commit its writes.
      local s = sb._sql_loop
      if s then s.before_retry() end
      -- Retried inside the same latency sample, as sysbench; but never past the end of the run.
      if C.lb_worker_stopping(w) ~= 0 then
        if C.lb_event_abandon(w) ~= 0 then warn_cut_off("thread " .. tid, ret, t) end
        return
      end
      local h = hooks.before_restart_event
      if h then h(ret) end
    else
      local failed = sb._stats_event_failed
      if failed then failed() end
      C.lb_event_abandon(w)
      error(ret, 0)
    end
  end
end

-- Emulated users (--users): their loop is luabench.users, loaded by the states that run users
-- only (a state is made for every thread). Created with the state so thread_init can already
-- open pooled connections.
local users
if C.lb_users_here(sb.worker) > 0 then
  sb._users = { current = -1, excluded = {}, release = {}, data = {}, start = {}, txn = {}, waiting = {},
    step_rs = {}, step_fn = {} }
  users = require("luabench.users")({ get_event = get_event, is_restart = is_restart, error_text = error_text,
    note_error = note_error, protected_call = protected_call, warn_cut_off = warn_cut_off })
else
  -- one user per thread: its data is the thread's, so scripts need no fallback
  sb.user_data = {}
end

function thread_run(tid)
  local n = C.lb_users_here(sb.worker)
  if n > 0 then
    return users.loop(tid, n)
  end
  return thread_loop(tid)
end
-- So the CLI can tell a script's own thread_run from this one (a script needs one or event()).
sb._default_thread_run = thread_run

-- Think time: parks the user (or sleeps the thread) and leaves the time out of the event's
-- latency, so response times stay response times.
local api = sb._api

function sb.think(seconds)
  if type(seconds) ~= "number" then
    if seconds == nil then return end
    api.bad("luabench.think(seconds)", "seconds must be a number", seconds)
  end
  if not (seconds > 0) then return end
  local U = sb._users
  local w = sb.worker
  if U and U.current >= 0 then
    local i = U.current
    -- Thinking ends an interaction: pooled connections go back before the user parks.
    users.release_all(U, i, "think")
    local t0 = C.lb_clock_ns(w)
    C.lb_user_sched_sleep(U.sched, i, t0 + seconds * 1e9)
    coroutine.yield()
    U.excluded[i] = U.excluded[i] + (C.lb_clock_ns(w) - t0)
  else
    C.lb_think_ns(w, seconds * 1e9)
  end
end

-- A pause inside an interaction (client-side work: a payment gateway's answer, rendering):
-- parks the user on a timer *without* giving back its connections or ending its transaction,
-- and the time is part of the event's latency (it is response time, unlike think time).
-- Without --users the thread sleeps.
function sb.pause(seconds)
  if type(seconds) ~= "number" then
    if seconds == nil then return end
    api.bad("luabench.pause(seconds)", "seconds must be a number", seconds)
  end
  if not (seconds > 0) then return end
  local U = sb._users
  local w = sb.worker
  if U and U.current >= 0 then
    C.lb_user_sched_pause(U.sched, U.current, C.lb_clock_ns(w) + seconds * 1e9)
    coroutine.yield()
  else
    C.lb_sleep_ns(seconds * 1e9)
  end
end
