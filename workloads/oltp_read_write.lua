-- oltp_read_write: sysbench's OLTP read/write transaction: BEGIN, point selects, range selects,
-- an index update, a non-index update, a delete + insert, COMMIT (20 queries with defaults:
-- 14 reads, 4 writes, 2 other).
require("oltp_common")

function prepare_statements()
  if not sysbench.opt.skip_trx then
    prepare_begin()
    prepare_commit()
  end
  prepare_point_selects()
  if sysbench.opt.range_selects then
    prepare_simple_ranges()
    prepare_sum_ranges()
    prepare_order_ranges()
    prepare_distinct_ranges()
  end
  prepare_index_updates()
  prepare_non_index_updates()
  prepare_delete_inserts()
end

function event()
  pipeline_open("all")
  if not sysbench.opt.skip_trx then begin() end
  if sysbench.opt.pipeline == "on" then pipeline_open("on") end
  execute_point_selects()
  if sysbench.opt.range_selects then
    execute_simple_ranges()
    execute_sum_ranges()
    execute_order_ranges()
    execute_distinct_ranges()
  end
  if sysbench.opt.pipeline == "on" then pipeline_run() end
  execute_index_updates()
  execute_non_index_updates()
  execute_delete_inserts()
  if not sysbench.opt.skip_trx then commit() end
  pipeline_run()
  check_reconnect()
end
