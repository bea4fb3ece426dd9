-- soe.txn: the nine Order Entry transactions on prepared statements, step by step as
-- Swingbench's client-side (JDBC) version runs them, with its think times between steps. Each
-- statement is counted by kind (selects, inserts, updates, deletes) for Swingbench's DML
-- figures, commits and rollbacks where they are sent. Keys come from the sequences, as in
-- Swingbench (orders_seq.NEXTVAL FROM DUAL on Oracle).
--
-- Differences from Swingbench's statements, so that the schema stays consistent under any mix:
-- Order Products reserves each line's stock with a conditional UPDATE (quantity_on_hand >= 1)
-- and inserts the line only when it got it, at the warehouse it browsed last, in product order
-- (no deadlock between two orders); an order that got no line rolls back. Orders are priced at
-- the products' list prices. See doc/workloads/soe.md.
local common = require("soe.common")

local M = {}

local uniform = sysbench.rand.uniform
local floor = math.floor
local fmt = string.format

-- The counters (per thread) each statement kind goes to.
M.SELECTS, M.INSERTS, M.UPDATES, M.DELETES, M.COMMITS, M.ROLLBACKS = 0, 1, 2, 3, 4, 5

-- A function that sets the n parameters of st in order, counts the statement and runs it.
local binders = {}
local function binder(n)
  local f = binders[n]
  if f then return f end
  local args, sets = {}, {}
  for i = 1, n do
    args[i] = "a" .. i
    sets[i] = fmt("p[%d]:set(a%d)", i, i)
  end
  f = assert(loadstring(fmt("local st, p, count, kind = ...\nreturn function(%s) %s count(kind) return st:execute() end",
    table.concat(args, ", "), table.concat(sets, " ")), "=soe.txn(binder)"))
  binders[n] = f
  return f
end

local function cents(text) return floor(tonumber(text) * 100 + 0.5) end

-- Today minus `days`, as 'YYYY-MM-DD' (for date_value parameters).
local function days_ago(days)
  return os.date("%Y-%m-%d", os.time() - days * 86400)
end

-- Every statement, prepared on con for the settings' tables; count(kind) is called for each
-- execution.
local function statements(con, s, count)
  local D = common.dialect()
  local T = sysbench.sql.type
  local INT, BIG, VC = T.INT, T.BIGINT, T.VARCHAR
  local S = {}
  local names = {}
  for k, v in pairs(s.t) do names[k] = v end
  for k, v in pairs(s.seq) do names[k] = v end

  local function prep(kind, sql, ...)
    sql = sql:gsub("{([%w_]+)}", names)
    local st = con:prepare(sql)
    local types = { ... }
    local ps = {}
    for i = 1, #types do ps[i] = st:bind_create(types[i], types[i] == VC and 100 or nil) end
    if #ps > 0 then st:bind_param(unpack(ps)) end
    return binder(#ps)(st, ps, count, kind)
  end
  local SEL, INS, UPD = M.SELECTS, M.INSERTS, M.UPDATES

  -- Sequences: next(name...) runs the dialect's statements and returns the values.
  local seq_runs = {}
  local function seq_stmts(list)
    local key = table.concat(list, ",")
    local runs = {}
    local seqs = {}
    for i, n in ipairs(list) do seqs[i] = s.seq[n] end
    for i, sql in ipairs(D.next_values(seqs)) do runs[i] = prep(SEL, sql) end
    seq_runs[key] = runs
    return runs
  end
  function S.next(...)
    local list = { ... }
    local runs = seq_runs[table.concat(list, ",")] or seq_stmts(list)
    local out = {}
    for _, run in ipairs(runs) do
      local row = run():fetch_row()
      for _, v in ipairs(row) do out[#out + 1] = tonumber(v) end
    end
    return unpack(out)
  end
  seq_stmts({ "customer_seq", "address_seq", "card_details_seq" })
  seq_stmts({ "address_seq" })
  seq_stmts({ "orders_seq" })
  seq_stmts({ "logon_seq" })

  local CUST_COLS = "customer_id, cust_first_name, cust_last_name, nls_language, nls_territory, credit_limit, " ..
    "cust_email, account_mgr_id, customer_since, customer_class, suggestions, dob, mailshot, partner_mailshot, " ..
    "preferred_address, preferred_card"
  local PROD_COLS = "p.product_id, product_name, product_description, category_id, weight_class, warranty_period, " ..
    "supplier_id, product_status, list_price, min_price, catalog_url, quantity_on_hand"
  local ORDER_COLS = "order_id, order_date, order_mode, customer_id, order_status, order_total, sales_rep_id, " ..
    "promotion_id, warehouse_id, delivery_type, cost_of_delivery, wait_till_all_available, delivery_address_id, " ..
    "customer_class, card_id, invoice_address_id"

  S.cust = prep(SEL, "SELECT " .. CUST_COLS .. " FROM {customers} WHERE customer_id = ?", BIG)
  S.cust_by_name = prep(SEL, D.limit("SELECT " .. CUST_COLS ..
    " FROM {customers} WHERE cust_last_name = ? AND cust_first_name = ?", 4), VC, VC)
  S.addr = prep(SEL, D.limit("SELECT address_id, customer_id, date_created, house_no_or_name, street_name, town, " ..
    "county, country, post_code, zip_code FROM {addresses} WHERE customer_id = ?", 4), BIG)
  S.card = prep(SEL, D.limit("SELECT card_id, customer_id, card_type, card_number, expiry_date, is_valid, " ..
    "security_code FROM {card_details} WHERE customer_id = ?", 4), BIG)
  S.orders_of = prep(SEL, D.limit("SELECT " .. ORDER_COLS .. " FROM {orders} WHERE customer_id = ?", 4), BIG)
  S.items_of = prep(SEL, D.limit("SELECT order_id, line_item_id, product_id, unit_price, quantity, dispatch_date, " ..
    "return_date, gift_wrap, item_condition, supplier_id, estimated_delivery FROM {order_items} WHERE order_id = ?", 4), BIG)
  S.prod = prep(SEL, D.limit("SELECT " .. PROD_COLS .. " FROM {product_information} p, {inventories} i " ..
    "WHERE i.product_id = p.product_id AND p.product_id = ?", 14), INT)
  S.prod_cat = prep(SEL, D.limit("SELECT " .. PROD_COLS .. " FROM {product_information} p, {inventories} i " ..
    "WHERE p.category_id = ? AND i.product_id = p.product_id AND i.warehouse_id = ?", 3), INT, INT)

  S.ins_logon = prep(INS, "INSERT INTO {logon} (logon_id, customer_id, logon_date) VALUES (?, ?, " .. D.now .. ")",
    BIG, BIG)
  S.ins_cust = prep(INS, "INSERT INTO {customers} (" .. CUST_COLS .. ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, " ..
    D.date_value("?") .. ", ?, ?, " .. D.date_value("?") .. ", ?, ?, ?, ?)",
    BIG, VC, VC, VC, VC, INT, VC, INT, VC, VC, VC, VC, VC, VC, BIG, BIG)
  S.ins_addr = prep(INS, "INSERT INTO {addresses} (address_id, customer_id, date_created, house_no_or_name, " ..
    "street_name, town, county, country, post_code, zip_code) VALUES (?, ?, " .. D.current_date ..
    ", ?, 'Street Name', ?, ?, ?, 'Postcode', NULL)", BIG, BIG, VC, VC, VC, VC)
  S.ins_card = prep(INS, "INSERT INTO {card_details} (card_id, customer_id, card_type, card_number, expiry_date, " ..
    "is_valid, security_code) VALUES (?, ?, ?, ?, " .. D.date_value("?") .. ", ?, ?)", BIG, BIG, VC, BIG, VC, VC, INT)
  S.upd_cust_addr = prep(UPD, "UPDATE {customers} SET preferred_address = ? WHERE customer_id = ?", BIG, BIG)

  S.ins_order = prep(INS, "INSERT INTO {orders} (order_id, order_date, customer_id, warehouse_id, delivery_type, " ..
    "cost_of_delivery, wait_till_all_available) VALUES (?, " .. D.now .. ", ?, ?, 'Standard', ?, 'ship_asap')",
    BIG, BIG, INT, INT)
  S.reserve = prep(UPD, "UPDATE {inventories} SET quantity_on_hand = quantity_on_hand - ? " ..
    "WHERE product_id = ? AND warehouse_id = ? AND quantity_on_hand >= ?", INT, INT, INT, INT)
  S.ins_item = prep(INS, "INSERT INTO {order_items} (order_id, line_item_id, product_id, unit_price, quantity, " ..
    "gift_wrap, item_condition, estimated_delivery) VALUES (?, ?, ?, ? / 100.0, ?, 'None', 'New', " ..
    D.date_add(D.current_date, 3, "day") .. ")", BIG, INT, INT, INT, INT)
  S.upd_order = prep(UPD, "UPDATE {orders} SET order_mode = 'online', order_status = ?, order_total = ? / 100.0 " ..
    "WHERE order_id = ?", INT, BIG, BIG)

  S.po_select = prep(SEL, "SELECT o.order_id, oi.line_item_id, oi.product_id, oi.unit_price, oi.quantity, " ..
    "o.order_mode, o.order_status, o.order_total, o.sales_rep_id, o.promotion_id, c.customer_id, c.cust_first_name, " ..
    "c.cust_last_name, c.credit_limit, c.cust_email, o.order_date FROM (" ..
    D.limit("SELECT order_id, order_mode, order_status, order_total, sales_rep_id, promotion_id, customer_id, " ..
      "order_date FROM {orders} WHERE order_status <= 4 AND warehouse_id = ?", 9) ..
    ") o JOIN {customers} c ON c.customer_id = o.customer_id LEFT JOIN {order_items} oi ON oi.order_id = o.order_id", INT)
  S.po_update = prep(UPD, "UPDATE {orders} SET order_status = ? WHERE order_id = ?", INT, BIG)

  S.bo_item = prep(UPD, "UPDATE {order_items} SET quantity = quantity + 1 WHERE order_id = ? AND line_item_id = ?",
    BIG, INT)
  S.bo_order = prep(UPD, "UPDATE {orders} SET order_total = order_total + ? / 100.0 WHERE order_id = ?", BIG, BIG)

  S.sq = prep(SEL, "SELECT tt.order_total, tt.sales_rep_id, tt.order_date, c.cust_first_name, c.cust_last_name " ..
    "FROM (SELECT o.order_total, o.sales_rep_id, o.order_date, o.customer_id, " ..
    "RANK() OVER (ORDER BY o.order_total DESC) AS sal_rank FROM {orders} o WHERE o.sales_rep_id = ?) tt, " ..
    "{customers} c WHERE tt.sal_rank <= 10 AND c.customer_id = tt.customer_id", INT)
  -- Swingbench: GROUP BY CUBE (order_mode, warehouse_id) for one warehouse; with the warehouse
  -- fixed, ROLLUP (warehouse_id, order_mode) gives the same totals (by mode, and overall).
  local WQ_FROM = " FROM {orders} o, {warehouses} w WHERE o.warehouse_id = w.warehouse_id AND w.warehouse_id = ?"
  if D.group_by_rollup then
    S.wq = prep(SEL, "SELECT o.order_mode, o.warehouse_id, SUM(o.order_total), COUNT(*)" .. WQ_FROM .. " " ..
      D.group_by_rollup("o.warehouse_id, o.order_mode"), INT)
  else
    S.wq = prep(SEL, "SELECT o.order_mode, o.warehouse_id, SUM(o.order_total), COUNT(*)" .. WQ_FROM ..
      " GROUP BY o.warehouse_id, o.order_mode UNION ALL SELECT NULL, o.warehouse_id, SUM(o.order_total), COUNT(*)" ..
      WQ_FROM .. " GROUP BY o.warehouse_id UNION ALL SELECT NULL, NULL, SUM(o.order_total), COUNT(*)" .. WQ_FROM,
      INT, INT, INT)
  end
  S.wq_params = D.group_by_rollup and 1 or 3
  -- Swingbench builds twelve 5-minute ranges of the last hour from DUAL (CONNECT BY ROWNUM) and
  -- counts the warehouse's orders in each; here each order is put in its range.
  local cases = {}
  for k = 1, 11 do
    cases[k] = fmt("WHEN order_date >= %s THEN %d", D.date_add(D.now, -5 * k, "minute"), k)
  end
  S.wa = prep(SEL, "SELECT warehouse_id, bucket, SUM(order_total), COUNT(*) FROM (SELECT warehouse_id, order_total, " ..
    "CASE " .. table.concat(cases, " ") .. " ELSE 12 END AS bucket FROM {orders} WHERE warehouse_id = ? " ..
    "AND order_date >= " .. D.date_add(D.now, -60, "minute") .. ") x GROUP BY warehouse_id, bucket ORDER BY bucket", INT)
  return S
end

-- The bodies: body(u, x) runs one transaction for user u (luabench.user_data); x holds the
-- worker's connection (x.con) and dialect (x.D), its statements (x.S), the customers drawn from
-- (x.customers; x.loaded of them loaded, with names), x.warehouses, count(slot), pause() (the
-- think time between steps) and logon_done(). A body returns "rollback" for an intended
-- rollback.

local function q(x, sql, slot)
  if slot then x.count(slot) end
  return x.con:query(sql)
end

local function begin(x) q(x, x.D.begin) end
local function commit(x) q(x, x.D.commit, M.COMMITS) end

-- Swingbench's logon(): one row in LOGON, committed on its own. Its id is taken first and kept
-- (u.logon_id, and in the worker's x.inflight) until the COMMIT answered: a commit whose answer
-- was lost (a server restart, a statement the end of the run cut off) is looked up afterwards
-- by soe.run.
local function logon(u, x, cust)
  local S = x.S
  local id = S.next("logon_seq")
  u.logon_id = id
  x.inflight[id] = true
  begin(x)
  S.ins_logon(id, cust)
  commit(x)
  u.logon_id = nil
  x.inflight[id] = nil
  x.logon_done()
end
M.logon = logon

local function read_all(rs)
  local rows = {}
  if rs == nil then return rows end
  local r = rs:fetch_row()
  while r do
    rows[#rows + 1] = r
    r = rs:fetch_row()
  end
  return rows
end

local function customer_details(x, cust)
  local rs = x.S.cust(cust)
  return rs ~= nil and rs:fetch_row()
end

local NLS_LANG = { "us", "gb", "d", "f", "e", "i", "nl", "ja" }
local CARD_TYPE = "Visa (Debit)"

-- Customer Registration (NewCustomerProcess).
local function new_customer(u, x)
  local S = x.S
  local k = uniform(1, 3200000)
  local first, last = common.first_name(k), common.last_name(k)
  begin(x)
  local cust, addr, card = S.next("customer_seq", "address_seq", "card_details_seq")
  x.pause()
  S.ins_cust(cust, first, last, NLS_LANG[uniform(1, #NLS_LANG)], "AMERICA",
    uniform(common.MIN_CREDIT, common.MAX_CREDIT), first .. "." .. last .. "@example.com",
    uniform(common.MIN_SALES_ID, common.MAX_SALES_ID), days_ago(365 * uniform(1, 4)), "Occasional", "Music",
    days_ago(365 * uniform(18, 65)), "Y", "N", addr, card)
  S.ins_addr(addr, cust, tostring(uniform(1, common.HOUSE_NO_RANGE)), "reading", "berkshire", "united kingdom")
  S.ins_card(card, cust, CARD_TYPE, uniform(1111111111, 2147483646), days_ago(-uniform(365, 1460)), "Y",
    uniform(1111, 9999))
  commit(x)
  x.pause()
  logon(u, x, cust)
  customer_details(x, cust)
end

-- Update Customer Details (UpdateCustomerDetails): a new preferred address for the customer
-- found by name.
local function update_customer(u, x)
  local S = x.S
  local k = uniform(1, x.loaded)
  begin(x)
  local rows = read_all(S.cust_by_name(common.last_name(k), common.first_name(k)))
  x.pause()
  if #rows > 0 then
    local cust = tonumber(rows[1][1])
    local addr = S.next("address_seq")
    S.ins_addr(addr, cust, tostring(uniform(1, common.HOUSE_NO_RANGE)), "bristol", "avon", "united kingdom")
    S.upd_cust_addr(addr, cust)
  end
  commit(x)
end

-- Browse Products (BrowseProducts).
local function browse_products(u, x)
  local S = x.S
  customer_details(x, uniform(1, x.customers))
  x.pause()
  for _ = 1, uniform(1, common.MAX_BROWSE) do
    read_all(S.prod(uniform(1, common.PRODUCTS)))
    x.pause()
  end
end

local function by_product(a, b) return a.product < b.product end

-- Order Products (NewOrderProcess).
local function new_order(u, x)
  local S = x.S
  local cust = uniform(1, x.customers)
  logon(u, x, cust)
  customer_details(x, cust)
  read_all(S.addr(cust))
  read_all(S.card(cust))
  x.pause()
  local products, warehouse = {}, 1
  for _ = 1, uniform(1, common.MAX_BROWSE) do
    warehouse = uniform(1, x.warehouses)
    products = read_all(S.prod_cat(uniform(1, common.CATEGORIES), warehouse))
    x.pause()
  end
  if #products == 0 then return end
  begin(x)
  local order = S.next("orders_seq")
  x.pause()
  S.ins_order(order, cust, warehouse, uniform(1, 5))
  x.pause()
  local buy = math.min(#products, uniform(common.MIN_BUY, math.max(common.MIN_BUY, #products)))
  local lines = {}
  for i = 1, buy do lines[i] = { product = tonumber(products[i][1]), price = cents(products[i][9]) } end
  table.sort(lines, by_product)
  local total, n = 0, 0
  for _, l in ipairs(lines) do
    if S.reserve(1, l.product, warehouse, 1).affected_rows == 1 then
      n = n + 1
      S.ins_item(order, n, l.product, l.price, 1)
      total = total + l.price
    end
    x.pause()
  end
  if n == 0 then
    q(x, x.D.rollback, M.ROLLBACKS)
    return "rollback"
  end
  S.upd_order(uniform(0, common.AWAITING_PROCESSING), total, order)
  x.pause()
  x.pause()
  commit(x)
end

-- Process Orders (ProcessOrders): one of the warehouse's orders awaiting processing moves on.
local function process_orders(u, x)
  local S = x.S
  begin(x)
  local rs = S.po_select(uniform(1, x.warehouses))
  local row = rs ~= nil and rs:fetch_row()
  local order = row and tonumber(row[1])
  x.pause()
  if order then S.po_update(uniform(common.AWAITING_PROCESSING + 1, common.ORDER_PROCESSED), order) end
  commit(x)
end

-- Browse Orders (BrowseAndUpdateOrders): one more of an item of one of the customer's orders.
local function browse_orders(u, x)
  local S = x.S
  local cust = uniform(1, x.customers)
  logon(u, x, cust)
  begin(x)
  customer_details(x, cust)
  read_all(S.addr(cust))
  local orders = read_all(S.orders_of(cust))
  if #orders > 0 then
    local order = tonumber(orders[uniform(1, #orders)][1])
    local rs = S.items_of(order)
    local item = rs ~= nil and rs:fetch_row()
    if item then
      local line, price = tonumber(item[2]), cents(item[4])
      read_all(rs)
      S.bo_item(order, line)
      S.bo_order(price, order)
    end
  end
  commit(x)
end

local function sales_rep_query(u, x) read_all(x.S.sq(uniform(1, common.SALES_REPS))) end

local function warehouse_query(u, x)
  local w = uniform(1, x.warehouses)
  if x.S.wq_params == 1 then read_all(x.S.wq(w)) else read_all(x.S.wq(w, w, w)) end
end

local function warehouse_activity(u, x) read_all(x.S.wa(uniform(1, x.warehouses))) end

M.BODIES = { new_customer, update_customer, browse_products, new_order, process_orders, browse_orders,
  sales_rep_query, warehouse_query, warehouse_activity }

M.statements = statements

return M
