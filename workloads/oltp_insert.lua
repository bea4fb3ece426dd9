-- oltp_insert: one plain (not prepared) INSERT per event. With --auto-inc the database assigns
-- ids; without it ids come from sysbench.rand.unique() and `prepare` creates empty tables.
require("oltp_common")

function prepare_rows()
  return sysbench.opt.auto_inc and sysbench.opt.table_size or 0
end

function prepare_statements()
end

local rand = sysbench.rand

-- MySQL numbers a 0 key itself (sysbench's text); elsewhere the key column is left out. Asked
-- once per thread, not per event.
local zero

function event()
  local con = get_connection()
  if zero == nil then
    local d, why = require("luabench.dialect").of(con.driver:name())
    if not d then error(why, 0) end
    zero = d.auto_key_zero
  end
  local t = get_table_num()
  local k, c, pad = rand.default(1, sysbench.opt.table_size), get_c_value(), get_pad_value()
  if sysbench.opt.auto_inc then
    if zero then
      con:query(string.format("INSERT INTO sbtest%d (id, k, c, pad) VALUES (0, %d, '%s', '%s')", t, k, c, pad))
    else
      con:query(string.format("INSERT INTO sbtest%d (k, c, pad) VALUES (%d, '%s', '%s')", t, k, c, pad))
    end
  else
    con:query(string.format("INSERT INTO sbtest%d (id, k, c, pad) VALUES (%d, %d, '%s', '%s')", t,
      rand.unique() - 2147483648, k, c, pad))
  end
  check_reconnect()
end
