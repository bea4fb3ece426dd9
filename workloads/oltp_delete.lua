-- oltp_delete: one DELETE by a random id per event (a write while the row exists, then other).
require("oltp_common")

function prepare_statements()
  prepare_for_each_table("deletes")
end

function event()
  local t = get_table_num()
  local s, p = get_statement(t, "deletes")
  p[1]:set(get_id())
  s:execute()
  check_reconnect()
end
