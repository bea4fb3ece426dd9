-- oltp_read_only: BEGIN, point selects, range selects, COMMIT (16 queries with defaults).
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
  if not sysbench.opt.skip_trx then commit() end
  pipeline_run()
  check_reconnect()
end
