-- The emulated users' loop (--users): each user a coroutine, woken by the worker's scheduler
-- (src/engine/user_sched.c). Loaded by luabench.runner in the states that run users, given the
-- runner's helpers; returns { loop = function(tid, n), release_all = function(U, i, why) }.
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench
sb._cdef("luabench.cdef_users")

return function(R)
  local get_event, is_restart, error_text = R.get_event, R.is_restart, R.error_text
  local note_error, protected_call, warn_cut_off = R.note_error, R.protected_call, R.warn_cut_off

  -- State of this worker's users, shared with think() and the SQL layer (connection pool):
  --   sched    the C scheduler;  current  index (0-based) of the running user
  --   excluded think time (ns) spent inside each user's current event
  --   release  functions called with (user, why) when a user's event ends (why nil), when it
  --            thinks ("think") and after a failed attempt ("failed"): pools roll back an open
  --            transaction and give the connection back
  local FAILED = sb.counters.FAILED
  -- A failing user waits before its next event, 1 ms doubling up to 1 s while it keeps failing.
  local BACKOFF_MIN_NS, BACKOFF_MAX_NS = 1e6, 1e9
  -- Failures in a row of every user of a worker, before any of its events worked, that fail the
  -- run at once: one each would fail a run whose events fail at random (a payment refused one
  -- time in four) by chance, 1 run in 200 with 4 users.
  local FATAL_FAILURES = 3

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
    local backoff_ns, failures = 0, 0
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
        note_error(ret)
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
        note_error(ret)
        C.lb_event_abandon(w)
        failures = failures + 1
        if failures == FATAL_FAILURES and not U.any_done then
          -- Every user of this worker failed its first events and nothing has worked yet: an
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
      if U.waiting[i] and C.lb_run_failed(w) == 0 then
        warn_cut_off("user " .. C.lb_users_global_id(w, i), { query = U.waiting[i] }, U.start[i])
      end
    end
  end

  return { loop = users_loop, release_all = release_all }
end
