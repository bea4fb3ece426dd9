-- oltp_point_select: one primary-key SELECT per event, no transaction.
require("oltp_common")

function prepare_statements()
  -- One point select per event, whatever --point-selects says (as sysbench).
  sysbench.opt.point_selects = 1
  prepare_point_selects()
end

function event()
  execute_point_selects()
  check_reconnect()
end
