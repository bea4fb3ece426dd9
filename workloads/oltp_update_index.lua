-- oltp_update_index: --index-updates UPDATEs of the indexed column k per event.
require("oltp_common")

function prepare_statements()
  prepare_index_updates()
end

function event()
  execute_index_updates()
  check_reconnect()
end
