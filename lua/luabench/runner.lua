-- The event loops, run by every worker: sysbench's thread_run (one implicit user per thread),
-- and with --users many emulated users as coroutines, woken by the worker's scheduler
-- (src/engine/user_sched.c). Both are JIT-compiled together with the script's event(); each event costs
-- one call into C, which records the previous event's latency and checks the limits.
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

-- Emulated users ------------------------------------------------------------------------------

-- State of this worker's users, shared with think() and the SQL layer (connection pool):
--   sched    the C scheduler;  current  index (0-based) of the running user
--   excluded think time (ns) spent inside each user's current event
--   release  functions called with (user, why) when a user's event ends (why nil), when it
--            thinks ("think") and after a failed attempt ("failed"): pools roll back an open
--            transaction and give the connection back
local FAILED = sb.counters.FAILED
-- A failing user waits before its next event, 1 ms doubling up to 1 s while it keeps failing.
local BACKOFF_MIN_NS, BACKOFF_MAX_NS = 1e6, 1e9

-- What a user's coroutine returns when the user is done (a wait yields nothing): the loop tells
-- an ended user by it without coroutine.status(), which the JIT cannot compile.
local USER_DONE = {}

-- Gives back what the user holds (pooled connections) with why (nil: the event ended).
local function release_all(U, i, why)
  local release = U.release
  local first = release[1]
  if not first then return end
  first(i, why)
  for k = 2, #release do release[k](i, why) end
end

-- The end of an event that succeeded, and the start of the next (-1: none). A function of its
-- own so that it is compiled alone: after the event's last statement, the user's loop runs in
-- the interpreter until its next iteration.
local function event_done(U, i, w, t)
  release_all(U, i)
  local next_t = C.lb_user_event_next(w, t, U.excluded[i])
  return next_t
end

-- The start of a user's first event (-1: none). C calls made by the interpreter need 20 free
-- stack slots above the caller's: one in the user's first steps, which the JIT has not compiled,
-- would double its coroutine's stack (40 slots) for good; a function compiled on its own needs
-- none.
local function first_event(w)
  local t = C.lb_user_event_next(w, -1, 0)
  return t
end

local function user_main(U, i, tid, event)
  local w = sb.worker
  local hooks = sb.hooks
  local uid = sb.user -- (set by the worker's loop: C.lb_users_global_id)
  local backoff_ns = 0
  local pcall = protected_call()
  if user_init then
    U.in_user_init = true -- (sql.lua: session statements there reach one pooled connection)
    user_init(uid)
    U.in_user_init = false
  end
  local t = first_event(w)
  while t >= 0 do
    U.excluded[i] = 0
    U.start[i] = t -- the event's mark, the same for its retries (stats.lua: begin())
    local ok, ret = pcall(event, tid)
    if ok and ret then
      C.lb_event_abandon(w)
      break
    end
    if ok then
      backoff_ns = 0
      if not U.any_done then
        U.any_done = true
        if U.alert then io.stderr:write(U.alert) end
        U.alert = nil
      end
      t = event_done(U, i, w, t)
    elseif is_restart(ret) then
      if not noted then note_error(ret) end
      -- The failed attempt's transaction is rolled back before the retry (its connection goes
      -- back to the pool meanwhile).
      release_all(U, i, "failed")
      if C.lb_worker_stopping(w) ~= 0 then
        if C.lb_event_abandon(w) ~= 0 then warn_cut_off("user " .. uid, ret, t) end
        break
      end
      local h = hooks.before_restart_event
      if h then h(ret) end
    else
      -- A failed interaction is counted as a failed event (not as an ignored error: nothing
      -- ignored it) and the user carries on (a failing thread would stop the whole run: users
      -- are independent customers). A run where most events fail ends as failed (run.c).
      release_all(U, i, "failed")
      local failed = sb._stats_event_failed
      if failed then failed() end
      C.lb_counter_add(w, FAILED, 1)
      if not noted then note_error(ret) end
      C.lb_event_abandon(w)
      if backoff_ns == 0 and not U.any_done then
        -- Every user of this worker failed its first event and nothing has worked yet: an
        -- error no retry can fix (a missing table, a syntax error, a script error, a wrong
        -- password). The run fails as in sysbench mode, with the same FATAL line, instead of
        -- backing off until --time is over.
        U.first_failed = U.first_failed + 1
        if U.first_failed >= U.n then error(ret, 0) end
      end
      if not U.reported then
        U.reported = true
        local msg = error_text(ret) or tostring(ret)
        local first, tb = msg:match("^(.-)(\nstack traceback:.*)$") -- (--debug)
        -- Printed once an event of the worker succeeded (or its users end): until then it may
        -- still turn out to be the run's fatal error, which is printed as in sysbench mode.
        U.alert = string.format("ALERT: user %d: %s (further user errors are only counted)%s\n",
          uid, sb.escape(first or msg), tb or "")
        if U.any_done then
          io.stderr:write(U.alert)
          U.alert = nil
        end
      end
      -- Back off: a user failing at once, every time (no wait inside the event, no think time
      -- reached), would otherwise keep the worker to itself in a hot loop of errors.
      backoff_ns = backoff_ns == 0 and BACKOFF_MIN_NS or math.min(backoff_ns * 2, BACKOFF_MAX_NS)
      C.lb_user_sched_sleep(U.sched, i, C.lb_clock_ns(w) + backoff_ns)
      coroutine.yield()
      t = C.lb_user_event_next(w, -1, 0)
    end
  end
  release_all(U, i)
  return USER_DONE
end

local function users_loop(tid, n)
  local w = sb.worker
  local event = get_event()
  local sched = C.lb_user_sched_new(w, n)
  if sched == nil then error("cannot create the user scheduler (epoll)", 0) end
  sched = ffi.gc(sched, C.lb_user_sched_free)
  local U = sb._users
  U.sched, U.n, U.first_failed = sched, n, 0
  local cos = {}
  for i = 0, n - 1 do
    cos[i] = coroutine.create(user_main)
    U.data[i] = {}
    C.lb_user_sched_sleep(sched, i, C.lb_users_start_ns(w, C.lb_users_global_id(w, i)))
  end
  local bits = ffi.new("uint32_t[1]")
  local step_rs, step_fn = U.step_rs, U.step_fn
  local alive, first = n, {}
  while alive > 0 do
    local i = C.lb_user_sched_next(sched, bits)
    if i < 0 then break end
    local co = cos[i]
    U.current = i
    sb.user = C.lb_users_global_id(w, i)
    sb.user_data = U.data[i]
    local ok, err
    local rs = step_rs[i]
    if rs then
      -- a statement the user waits for (sql.lua): stepped here, the user gets the answer
      step_rs[i] = nil
      ok, err = coroutine.resume(co, step_fn[i](w, rs, bits[0]))
    elseif not first[i] then
      first[i] = true
      ok, err = coroutine.resume(co, U, i, tid, event)
    else
      ok, err = coroutine.resume(co, bits[0])
    end
    -- -1 whenever no user runs: the SQL layer and think() tell a user's code by it alone
    U.current = -1
    if not ok then error(err, 0) end
    if err == USER_DONE then
      alive = alive - 1
    elseif C.lb_user_sched_waiting(sched, i) == 0 then
      error("a user yielded without waiting for anything (coroutine.yield() inside event()?)", 0)
    end
  end
  U.current = -1
  -- (a worker whose events only failed, in a run another worker's fatal error ended, says nothing
  -- more: the FATAL line is the run's message, as in sysbench mode)
  if U.alert and C.lb_run_failed(w) == 0 then io.stderr:write(U.alert) end
  U.alert = nil
  -- Users the end of the run left waiting for a statement (cut off: lb_user_sched_next): named.
  for i = 0, n - 1 do
    if U.waiting[i] and C.lb_run_failed(w) == 0 then warn_cut_off("user " .. C.lb_users_global_id(w, i), { query = U.waiting[i] }, U.start[i]) end
  end
end

-- Created with the state so thread_init can already open pooled connections.
if C.lb_users_here(sb.worker) > 0 then
  sb._users = { current = -1, excluded = {}, release = {}, data = {}, start = {}, txn = {}, waiting = {},
    step_rs = {}, step_fn = {} }
else
  -- one user per thread: its data is the thread's, so scripts need no fallback
  sb.user_data = {}
end

function thread_run(tid)
  local n = C.lb_users_here(sb.worker)
  if n > 0 then
    return users_loop(tid, n)
  end
  return thread_loop(tid)
end
-- So the CLI can tell a script's own thread_run from this one (a script needs one or event()).
sb._default_thread_run = thread_run

-- Think time: parks the user (or sleeps the thread) and leaves the time out of the event's
-- latency, so response times stay response times.
local bad = require("luabench.api_check").bad

function sb.think(seconds)
  if type(seconds) ~= "number" then
    if seconds == nil then return end
    bad("luabench.think(seconds)", "seconds must be a number", seconds)
  end
  if not (seconds > 0) then return end
  local U = sb._users
  local w = sb.worker
  if U and U.current >= 0 then
    local i = U.current
    -- Thinking ends an interaction: pooled connections go back before the user parks.
    release_all(U, i, "think")
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
    bad("luabench.pause(seconds)", "seconds must be a number", seconds)
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
