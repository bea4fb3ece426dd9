-- oltp_update_non_index: --non-index-updates UPDATEs of the non-indexed column c per event.
require("oltp_common")

function prepare_statements()
  prepare_non_index_updates()
end

function event()
  execute_non_index_updates()
  check_reconnect()
end
