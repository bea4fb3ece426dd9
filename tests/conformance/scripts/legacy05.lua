-- A 0.5-style script: no declared options, options read as globals.
function thread_init(thread_id)
  print("thread", thread_id, num_threads, max_requests, max_time, my_opt, oltp_table_size)
end
function event(thread_id) end
