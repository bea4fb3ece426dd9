-- select_random_points: SELECT id, k, c, pad FROM sbtest1 WHERE k IN (...) with
-- --random-points values drawn from a per-thread slice of the k range.
require("oltp_common")

sysbench.cmdline.options.random_points = { "Number of random points in the IN() clause in generated SELECTs", 10 }

local stmt, params, rlen

function prepare_statements()
  assert(sysbench.opt.tables == 1, "select_random_points works on one table only (--tables=1)")
  local n = sysbench.opt.random_points
  local marks = string.rep("?, ", n - 1) .. "?"
  stmt = get_connection():prepare(string.format("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (%s)", marks))
  params = {}
  for i = 1, n do params[i] = stmt:bind_create(sysbench.sql.type.INT) end
  stmt:bind_param(unpack(params))
  rlen = math.floor(sysbench.opt.table_size / sysbench.opt.threads)
end

local rand = sysbench.rand

function event()
  local lo = rlen * sysbench.tid
  for i = 1, #params do params[i]:set(rand.default(lo, lo + rlen)) end
  -- The result stays buffered until the next statement (as in sysbench): a dry run has none
  -- to free.
  stmt:execute()
  check_reconnect()
end
