-- The default event loop (sysbench's thread_run), run by every worker. It is JIT-compiled
-- together with the script's event(); each event costs one call into C (lb_event_next), which
-- records the previous event's latency and decides whether to start another.
-- Scripts may replace the global thread_run, as with sysbench.
local ffi = require("ffi")
local C = ffi.C
local sb = sysbench
local RESTART_EVENT = sb.error.RESTART_EVENT

function thread_run(tid)
  local w = sb.worker
  local event = _G.event
  if type(event) ~= "function" then
    error("the script defines no event() function", 0)
  end
  local next_event = C.lb_event_next
  local hooks = sb.hooks
  local t = next_event(w, -1)
  while t >= 0 do
    local ok, ret = pcall(event, tid)
    if ok then
      if ret then
        -- A non-nil/false return stops this thread; that event is not counted.
        C.lb_event_abandon(w)
        return
      end
      t = next_event(w, t)
    elseif type(ret) == "table" and ret.errcode == RESTART_EVENT then
      -- Retried inside the same latency sample, as sysbench; but never past the end of the run.
      if C.lb_worker_stopping(w) ~= 0 then
        C.lb_event_abandon(w)
        return
      end
      local h = hooks.before_restart_event
      if h then h(ret) end
    else
      C.lb_event_abandon(w)
      error(ret, 0)
    end
  end
end
