-- tpcc.check: the `check` command. The consistency conditions of TPC-C clause 3.3.2 (1-10 and
-- 12; 11 only holds before the first Delivery), plus two that prove no write of a rolled-back
-- NewOrder survived and no row lost its order. Each condition is one query that returns the
-- offending rows, grouped per warehouse or district; the conditions are shared out over the
-- threads and printed in order by thread 0. Any failure makes the command fail (exit code 1).
local ffi = require("ffi")
local C = ffi.C
local common = require("tpcc.common")

local M = {}

local LIMIT = 1000  -- offending rows fetched per condition

-- { number, what is checked, column labels of an offending row, query }
local CONDITIONS = {
  { "1", "W_YTD = sum(D_YTD)", { "w_id", "w_ytd", "sum(d_ytd)" }, [[
SELECT w_id, w_ytd, d.s FROM {warehouse}
  LEFT JOIN (SELECT d_w_id, SUM(d_ytd) s FROM {district} GROUP BY d_w_id) d ON d.d_w_id = w_id
WHERE d.s IS NULL OR ABS(w_ytd - d.s) >= 0.005 ORDER BY 1]] },
  { "2", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", { "d_w_id", "d_id", "d_next_o_id", "max(o_id)", "max(no_o_id)" }, [[
SELECT d_w_id, d_id, d_next_o_id, o.m, n.m FROM {district}
  LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) m FROM {orders} GROUP BY o_w_id, o_d_id) o
    ON o.o_w_id = d_w_id AND o.o_d_id = d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) m FROM {new_order} GROUP BY no_w_id, no_d_id) n
    ON n.no_w_id = d_w_id AND n.no_d_id = d_id
WHERE o.m IS NULL OR d_next_o_id - 1 <> o.m OR (n.m IS NOT NULL AND n.m <> o.m) ORDER BY 1, 2]] },
  { "3", "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW_ORDER", { "no_w_id", "no_d_id", "max-min+1", "rows" }, [[
SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM {new_order}
GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*) ORDER BY 1, 2]] },
  { "4", "sum(O_OL_CNT) = rows in ORDER_LINE", { "w_id", "d_id", "sum(o_ol_cnt)", "order lines" }, [[
SELECT o.o_w_id, o.o_d_id, o.s, l.c
FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) s FROM {orders} GROUP BY o_w_id, o_d_id) o
  LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) c FROM {order_line} GROUP BY ol_w_id, ol_d_id) l
    ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id
WHERE l.c IS NULL OR o.s <> l.c ORDER BY 1, 2]] },
  { "5", "O_CARRIER_ID is NULL iff the order is in NEW_ORDER", { "o_w_id", "o_d_id", "o_id", "o_carrier_id", "in new_order" }, [[
SELECT o_w_id, o_d_id, o_id, o_carrier_id, CASE WHEN no_o_id IS NULL THEN 'no' ELSE 'yes' END
FROM {orders} LEFT JOIN {new_order} ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL)
ORDER BY 1, 2, 3]] },
  { "6", "O_OL_CNT = order lines of the order", { "o_w_id", "o_d_id", "o_id", "o_ol_cnt", "order lines" }, [[
SELECT o_w_id, o_d_id, o_id, o_ol_cnt, COUNT(ol_o_id)
FROM {orders} LEFT JOIN {order_line} ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
GROUP BY o_w_id, o_d_id, o_id, o_ol_cnt HAVING COUNT(ol_o_id) <> o_ol_cnt ORDER BY 1, 2, 3]] },
  { "7", "OL_DELIVERY_D is NULL iff O_CARRIER_ID is NULL", { "ol_w_id", "ol_d_id", "ol_o_id", "ol_number", "o_carrier_id", "ol_delivery_d" }, [[
SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, o_carrier_id, ol_delivery_d
FROM {orders} JOIN {order_line} ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
WHERE (ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL)
ORDER BY 1, 2, 3, 4]] },
  { "8", "W_YTD = sum(H_AMOUNT) of the warehouse", { "w_id", "w_ytd", "sum(h_amount)" }, [[
SELECT w_id, w_ytd, h.s FROM {warehouse}
  LEFT JOIN (SELECT h_w_id, SUM(h_amount) s FROM {history} GROUP BY h_w_id) h ON h.h_w_id = w_id
WHERE h.s IS NULL OR ABS(w_ytd - h.s) >= 0.005 ORDER BY 1]] },
  { "9", "D_YTD = sum(H_AMOUNT) of the district", { "d_w_id", "d_id", "d_ytd", "sum(h_amount)" }, [[
SELECT d_w_id, d_id, d_ytd, h.s FROM {district}
  LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM {history} GROUP BY h_w_id, h_d_id) h
    ON h.h_w_id = d_w_id AND h.h_d_id = d_id
WHERE h.s IS NULL OR ABS(d_ytd - h.s) >= 0.005 ORDER BY 1, 2]] },
  -- Amounts differ by a cent or more (they have two decimals) rather than <>: SQLite keeps
  -- NUMERIC(12,2) values as binary doubles, whose sums are off by far less than a cent.
  -- 10 and 12 sum, per customer, one signed row per customer, history row and delivered order
  -- line: a single aggregation instead of joins of aggregates (which MariaDB runs slowly).
  { "10", "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", { "c_w_id", "c_d_id", "c_id", "c_balance", "delivered", "paid" }, [[
SELECT w, d, c, SUM(bal), SUM(delivered), SUM(paid) FROM (
  SELECT c_w_id w, c_d_id d, c_id c, c_balance bal, 0 delivered, 0 paid FROM {customer}
  UNION ALL
  SELECT h_c_w_id, h_c_d_id, h_c_id, 0, 0, h_amount FROM {history}
  UNION ALL
  SELECT o_w_id, o_d_id, o_c_id, 0, ol_amount, 0
  FROM {orders} JOIN {order_line} ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  WHERE ol_delivery_d IS NOT NULL) x
GROUP BY w, d, c HAVING ABS(SUM(bal) - (SUM(delivered) - SUM(paid))) >= 0.005 ORDER BY 1, 2, 3]] },
  { "12", "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", { "c_w_id", "c_d_id", "c_id", "c_balance + c_ytd_payment", "delivered" }, [[
SELECT w, d, c, SUM(bal), SUM(delivered) FROM (
  SELECT c_w_id w, c_d_id d, c_id c, c_balance + c_ytd_payment bal, 0 delivered FROM {customer}
  UNION ALL
  SELECT o_w_id, o_d_id, o_c_id, 0, ol_amount
  FROM {orders} JOIN {order_line} ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  WHERE ol_delivery_d IS NOT NULL) x
GROUP BY w, d, c HAVING ABS(SUM(bal) - SUM(delivered)) >= 0.005 ORDER BY 1, 2, 3]] },
  { "R1", "no order line of a rolled-back NewOrder (OL_I_ID not in ITEM)", { "ol_w_id", "ol_d_id", "ol_o_id", "ol_number", "ol_i_id" }, [[
SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id FROM {order_line}
WHERE ol_i_id NOT IN (SELECT i_id FROM {item}) ORDER BY 1, 2, 3, 4]] },
  { "R2", "every NEW_ORDER and ORDER_LINE row has its order", { "table", "w_id", "d_id", "o_id" }, [[
SELECT 'new_order', no_w_id, no_d_id, no_o_id FROM {new_order}
WHERE NOT EXISTS (SELECT 1 FROM {orders} WHERE o_w_id = no_w_id AND o_d_id = no_d_id AND o_id = no_o_id)
UNION ALL
SELECT 'order_line', ol_w_id, ol_d_id, ol_o_id FROM {order_line}
WHERE NOT EXISTS (SELECT 1 FROM {orders} WHERE o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id)
ORDER BY 2, 3, 4]] },
}

local MSG = 480

-- A query that survives one lost connection: the SQL layer has reconnected by the time it
-- raises RESTART_EVENT (a server restart during check), so the condition is asked again.
local function query_again_once(con, sql)
  local ok, rs = pcall(con.query, con, sql)
  if ok then return rs end
  if type(rs) == "table" and rs.errcode == sysbench.error.RESTART_EVENT then return con:query(sql) end
  error(rs, 0)
end

function M.check()
  local s = common.settings()
  local tid, nthreads = sysbench.tid, s.threads
  local n = #CONDITIONS
  local status = luabench.shared("tpcc.check.status", "uint8_t", n)   -- 1 pass, 2 fail
  local count = luabench.shared("tpcc.check.count", "int32_t", n)
  local secs = luabench.shared("tpcc.check.secs", "double", n)
  local msg = luabench.shared("tpcc.check.msg", "char", n * MSG)
  local finished = luabench.shared("tpcc.check.finished", "uint8_t", nthreads)
  local failed = luabench.shared("tpcc.check.failed", "uint8_t", 1)
  local info = luabench.shared("tpcc.check.info", "int32_t", 1)

  local con
  local ok, err = pcall(function()
    con = common.open()
    local cfg = common.ready_config(con)
    if tid == 0 then
      info[0] = cfg.warehouses
      print(string.format("Checking the consistency of the tpcc schema (%d warehouse%s)...", cfg.warehouses,
        cfg.warehouses > 1 and "s" or ""))
    end
    if tid >= s.load_threads then return end
    while failed[0] == 0 do
      local i = tonumber(C.lb_kernel_ticket(sysbench.worker, "tpcc.check.next")) + 1
      if i > n then break end
      local c = CONDITIONS[i]
      local t0 = luabench.time()
      local sql = common.dialect().limit((c[4]:gsub("{([%w_]+)}", s.t)), LIMIT)
      local rs = query_again_once(con, sql)
      local rows = rs.nrows
      if rows == 0 then
        status[i - 1] = 1
      else
        local row = rs:fetch_row()
        local parts = {}
        for k, label in ipairs(c[3]) do parts[k] = label .. "=" .. tostring(row[k] or "NULL") end
        local text = table.concat(parts, " "):sub(1, MSG - 1)
        ffi.copy(msg + (i - 1) * MSG, text)
        count[i - 1] = rows
        status[i - 1] = 2
      end
      secs[i - 1] = luabench.time() - t0
    end
  end)
  finished[tid] = 1
  if con then con:disconnect() end
  if not ok then
    failed[0] = 1
    error(err, 0)
  end
  if tid ~= 0 then return end
  while true do
    local all = true
    for t = 0, nthreads - 1 do
      if finished[t] == 0 then all = false break end
    end
    if all then break end
    luabench.sleep(0.05)
  end
  if failed[0] ~= 0 then return end
  local bad = 0
  for i, c in ipairs(CONDITIONS) do
    local st = status[i - 1]
    local line = string.format("  [%3s] %-62s %s  (%.2fs)", c[1], c[2], st == 1 and "PASS" or "FAIL", secs[i - 1])
    if st ~= 1 then
      bad = bad + 1
      local rows = count[i - 1]
      line = line .. string.format("\n        %s%d offending row%s; first: %s", rows >= LIMIT and "at least " or "",
        rows, rows == 1 and "" or "s", ffi.string(msg + (i - 1) * MSG))
    end
    print(line)
  end
  if bad > 0 then
    common.fail("%d of %d consistency checks failed", bad, #CONDITIONS)
  end
  print(string.format("All %d consistency checks passed.", #CONDITIONS))
end

return M
