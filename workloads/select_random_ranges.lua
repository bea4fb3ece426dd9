-- select_random_ranges: SELECT count(k) FROM sbtest1 WHERE k BETWEEN ? AND ? OR ... with
-- --number-of-ranges ranges of width --delta drawn from a per-thread slice of the k range.
require("oltp_common")

sysbench.cmdline.options.number_of_ranges = { "Number of random BETWEEN ranges per SELECT", 10 }
sysbench.cmdline.options.delta = { "Size of BETWEEN ranges", 5 }

local stmt, params, rlen

function prepare_statements()
  assert(sysbench.opt.tables == 1, "select_random_ranges works on one table only (--tables=1)")
  local n = sysbench.opt.number_of_ranges
  local ranges = string.rep("k BETWEEN ? AND ? OR ", n - 1) .. "k BETWEEN ? AND ?"
  stmt = get_connection():prepare("SELECT count(k) FROM sbtest1 WHERE " .. ranges)
  params = {}
  for i = 1, 2 * n do params[i] = stmt:bind_create(sysbench.sql.type.INT) end
  stmt:bind_param(unpack(params))
  rlen = math.floor(sysbench.opt.table_size / sysbench.opt.threads)
end

local rand = sysbench.rand

function event()
  local lo = rlen * sysbench.tid
  for i = 1, #params, 2 do
    local v = rand.default(lo, lo + rlen)
    params[i]:set(v)
    params[i + 1]:set(v + sysbench.opt.delta)
  end
  -- The result stays buffered until the next statement (as in sysbench): a dry run has none
  -- to free.
  stmt:execute()
  check_reconnect()
end
