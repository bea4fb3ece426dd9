-- A 0.5-style script: no declared options, options read as globals.
-- Lines printed from several threads at once go out in one write each: sysbench's print()
-- writes every argument on its own, so two threads' lines can mix (deliberate:print-lines).
local function say(...) local t = {...} for i = 1, select('#', ...) do t[i] = tostring(t[i]) end io.write(table.concat(t, "\t", 1, select('#', ...)) .. "\n") end
function thread_init(thread_id)
  say("thread", thread_id, num_threads, max_requests, max_time, my_opt, oltp_table_size)
end
function event(thread_id) end
