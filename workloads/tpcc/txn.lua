-- tpcc.txn: the five transactions (clause 2.4-2.8) on prepared statements. Each transaction has
-- an input generator (the terminal's "keyed" screen) and a body that runs the SQL for those
-- inputs; a body may run again with the same inputs after a deadlock or serialization failure.
-- Bodies return true for an intentional rollback (NewOrder with an unused item number).
local common = require("tpcc.common")

local M = {}

local uniform = common.uniform
local nurand = common.nurand
local LAST = common.LAST
local floor = math.floor
local fmt = string.format
local sort = table.sort

local ITEMS = common.ITEMS
local UNUSED_ITEM = ITEMS + 1  -- sorts after every real item: the last line processed

local function cents(text)
  return floor(tonumber(text) * 100 + 0.5)
end

-- con:query, with BEGIN, COMMIT and ROLLBACK in the server's words (its dialect's).
local function txn_query(con)
  local d = common.dialect()
  local words = { BEGIN = d.begin, COMMIT = d.commit, ROLLBACK = d.rollback }
  return function(sql) return con:query(words[sql] or sql) end
end

-- A function that runs prepared statement `st` with parameters `ps`: f(a1, a2, ...) sets the
-- parameters in order and executes; and its twin q(pipeline, a1, a2, ...) that queues it in a
-- pipeline instead. Generated per arity, so the hot path has no varargs.
local binders = {}
function M.binder(n)
  local f = binders[n]
  if f then return f end
  local args, sets = {}, {}
  for i = 1, n do
    args[i] = "a" .. i
    sets[i] = string.format("p[%d]:set(a%d)", i, i)
  end
  local a, set = table.concat(args, ", "), table.concat(sets, " ")
  local src = string.format("local st, p = ...\nreturn function(%s) %s return st:execute() end, " ..
    "function(pl%s) %s return pl:execute(st) end", a, set, n > 0 and ", " .. a or "", set)
  f = assert(loadstring(src, "=tpcc.txn(binder)"))
  binders[n] = f
  return f
end

local function line_order(a, b)
  if a.item ~= b.item then return a.item < b.item end
  return a.supply < b.supply
end

-- The input generators: what a terminal keys in for each transaction (clause 2.4.1, 2.5.1,
-- 2.6.1, 2.7.1, 2.8.1). Each returns a table that it reuses (the body may run it again). Every
-- input carries the terminal's home warehouse `w` (Stock-Level's also its district `d`), so one
-- set of bodies and prepared statements serves all the terminals (emulated users) of a worker.
-- ctx: w (home warehouse), sl_d (the terminal's district for Stock-Level), warehouses_all (how
-- many the database holds: remote lines and payments go to any of them), c_id / ol_i_id /
-- c_last (this run's NURand C constants), s (settings).
function M.generators(ctx)
  local s = ctx.s
  local W, home = ctx.warehouses_all, ctx.w
  local C_ID, C_OL, C_LAST = ctx.c_id, ctx.ol_i_id, ctx.c_last
  local tx = {}

  -- True with probability pct percent (hundredths of a percent resolution).
  local function chance(pct)
    return uniform(1, 10000) <= pct * 100
  end

  -- Another warehouse of the database, uniformly (clause 2.4.1.5, 2.5.1.2).
  local function other_warehouse()
    local r = uniform(1, W - 1)
    return r >= home and r + 1 or r
  end

  local function pick_customer(inp)
    if chance(s.by_name_pct) then
      inp.c_id = nil
      inp.c_last = LAST[nurand(255, 0, 999, C_LAST)]
    else
      inp.c_id = nurand(1023, 1, common.CUSTOMERS, C_ID)
      inp.c_last = nil
    end
  end

  -- New-Order --------------------------------------------------------------------------------

  local NO = { w = home, lines = {}, order = {} }
  for i = 1, 15 do NO.lines[i] = {} end

  function tx.gen_new_order()
    local inp = NO
    inp.d = uniform(1, common.DISTRICTS)
    inp.c = nurand(1023, 1, common.CUSTOMERS, C_ID)
    local n = uniform(5, 15)
    inp.n = n
    local rollback = chance(s.rollback_pct)
    local all_local = 1
    for i = 1, n do
      local l = inp.lines[i]
      l.number = i
      l.item = nurand(8191, 1, ITEMS, C_OL)
      if W > 1 and chance(s.remote_line_pct) then
        l.supply = other_warehouse()
        all_local = 0
      else
        l.supply = home
      end
      l.qty = uniform(1, 10)
    end
    if rollback then inp.lines[n].item = UNUSED_ITEM end
    inp.all_local = all_local
    -- Lines are processed in (item, supplying warehouse) order, so that concurrent NewOrders
    -- lock stock rows in one global order and cannot deadlock each other. Each keeps its
    -- ol_number; the unused item number sorts last, so the rollback still happens on the last
    -- line.
    local order = inp.order
    for i = 1, 15 do order[i] = nil end
    for i = 1, n do order[i] = inp.lines[i] end
    sort(order, line_order)
    return inp
  end

  -- Payment -----------------------------------------------------------------------------------

  local PAY = { w = home }

  function tx.gen_payment()
    local inp = PAY
    inp.d = uniform(1, common.DISTRICTS)
    if W > 1 and chance(s.remote_payment_pct) then
      inp.c_w = other_warehouse()
      inp.c_d = uniform(1, common.DISTRICTS)
    else
      inp.c_w = home
      inp.c_d = inp.d
    end
    pick_customer(inp)
    inp.amount = uniform(100, 500000) -- cents: 1.00 .. 5000.00
    return inp
  end

  -- Order-Status ------------------------------------------------------------------------------

  local OS = { w = home }

  function tx.gen_order_status()
    local inp = OS
    inp.d = uniform(1, common.DISTRICTS)
    pick_customer(inp)
    return inp
  end

  -- Delivery ----------------------------------------------------------------------------------

  local DL = { w = home, skipped = 0 }

  function tx.gen_delivery()
    DL.carrier = uniform(1, 10)
    return DL
  end

  -- Stock-Level -------------------------------------------------------------------------------

  local SL = { w = home, d = ctx.sl_d }

  function tx.gen_stock_level()
    SL.threshold = uniform(10, 20)
    return SL
  end

  return tx
end

-- Every statement of the five transactions, prepared on con for tables t: S.<name>(a, b, ...)
-- runs one. The transactions below take theirs as upvalues.
-- The pipeline twin of each statement function (see M.binder).
local queues = setmetatable({}, { __mode = "k" })

local function statements(con, t)
  local INT, VARCHAR = sysbench.sql.type.INT, sysbench.sql.type.VARCHAR
  local S = {}
  local D = common.dialect()

  -- A prepared statement with parameters of the given types; st(a, b, ...) runs it.
  local function prep(sql, ...)
    sql = sql:gsub("{([%w_]+)}", t)
    local st = con:prepare(sql)
    local types = { ... }
    local ps = {}
    for i = 1, #types do ps[i] = st:bind_create(types[i], types[i] == VARCHAR and 500 or nil) end
    if #ps > 0 then st:bind_param(unpack(ps)) end
    local run, queue = M.binder(#ps)(st, ps)
    queues[run] = queue
    return run
  end

  S.no_cust = prep([[SELECT c_discount, c_last, c_credit, w_tax FROM {customer}, {warehouse}
    WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?]], INT, INT, INT)
  S.no_dist = prep(D.for_update([[SELECT d_next_o_id, d_tax FROM {district} WHERE d_w_id = ? AND d_id = ?]]), INT, INT)
  S.no_dist_upd = prep([[UPDATE {district} SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?]], INT, INT, INT)
  S.no_order = prep([[INSERT INTO {orders} (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, NULL, ?, ?)]], INT, INT, INT, INT, INT, INT)
  S.no_new = prep([[INSERT INTO {new_order} (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)]], INT, INT, INT)
  S.no_item = prep([[SELECT i_price, i_name, i_data FROM {item} WHERE i_id = ?]], INT)
  S.no_stock = {}
  for d = 1, common.DISTRICTS do
    S.no_stock[d] = prep(D.for_update(fmt([[SELECT s_quantity, s_data, s_dist_%02d FROM {stock} WHERE s_i_id = ? AND s_w_id = ?]], d)), INT, INT)
  end
  S.no_stock_upd = prep([[UPDATE {stock} SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1,
    s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?]], INT, INT, INT, INT, INT)
  S.no_line = prep([[INSERT INTO {order_line} (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
    ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ? / 100.0, ?)]],
    INT, INT, INT, INT, INT, INT, INT, INT, VARCHAR)

  S.pay_w_upd = prep([[UPDATE {warehouse} SET w_ytd = w_ytd + ? / 100.0 WHERE w_id = ?]], INT, INT)
  S.pay_w = prep([[SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM {warehouse} WHERE w_id = ?]], INT)
  S.pay_d_upd = prep([[UPDATE {district} SET d_ytd = d_ytd + ? / 100.0 WHERE d_w_id = ? AND d_id = ?]], INT, INT, INT)
  S.pay_d = prep([[SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM {district}
    WHERE d_w_id = ? AND d_id = ?]], INT, INT)
  S.by_name = prep([[SELECT c_id FROM {customer} WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first]],
    INT, INT, VARCHAR)
  S.pay_c = prep(D.for_update([[SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
    c_since, c_credit, c_credit_lim, c_discount, c_balance FROM {customer}
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?]]), INT, INT, INT)
  S.pay_c_data = prep([[SELECT c_data FROM {customer} WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?]], INT, INT, INT)
  S.pay_c_upd = prep([[UPDATE {customer} SET c_balance = c_balance - ? / 100.0,
    c_ytd_payment = c_ytd_payment + ? / 100.0, c_payment_cnt = c_payment_cnt + 1
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?]], INT, INT, INT, INT, INT)
  S.pay_c_upd_bc = prep([[UPDATE {customer} SET c_balance = c_balance - ? / 100.0,
    c_ytd_payment = c_ytd_payment + ? / 100.0, c_payment_cnt = c_payment_cnt + 1, c_data = ?
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?]], INT, INT, VARCHAR, INT, INT, INT)
  S.pay_h = prep([[INSERT INTO {history} (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, ? / 100.0, ?)]], INT, INT, INT, INT, INT, INT, VARCHAR)

  S.os_c = prep([[SELECT c_balance, c_first, c_middle, c_last FROM {customer}
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?]], INT, INT, INT)
  S.os_o = prep(D.limit([[SELECT o_id, o_entry_d, o_carrier_id FROM {orders}
    WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC]], 1), INT, INT, INT)
  S.os_ol = prep([[SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM {order_line}
    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?]], INT, INT, INT)

  S.dl_no = prep(D.first_locked([[SELECT no_o_id FROM {new_order} WHERE no_w_id = ? AND no_d_id = ?
    ORDER BY no_o_id]], 1), INT, INT)
  S.dl_no_peek = prep(D.limit([[SELECT no_o_id FROM {new_order} WHERE no_w_id = ? AND no_d_id = ?
    ORDER BY no_o_id]], 1), INT, INT)
  S.dl_del = prep([[DELETE FROM {new_order} WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?]], INT, INT, INT)
  S.dl_o = prep([[SELECT o_c_id FROM {orders} WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?]], INT, INT, INT)
  S.dl_o_upd = prep([[UPDATE {orders} SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?]],
    INT, INT, INT, INT)
  S.dl_ol_upd = prep([[UPDATE {order_line} SET ol_delivery_d = CURRENT_TIMESTAMP
    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?]], INT, INT, INT)
  S.dl_ol_sum = prep([[SELECT SUM(ol_amount) FROM {order_line} WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?]],
    INT, INT, INT)
  S.dl_c_upd = prep([[UPDATE {customer} SET c_balance = c_balance + ? / 100.0, c_delivery_cnt = c_delivery_cnt + 1
    WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?]], INT, INT, INT, INT)

  S.sl_d = prep([[SELECT d_next_o_id FROM {district} WHERE d_w_id = ? AND d_id = ?]], INT, INT)
  S.sl_count = prep([[SELECT COUNT(DISTINCT s_i_id) FROM {order_line}, {stock}
    WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ?
      AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?]], INT, INT, INT, INT, INT, INT)
  return S
end

-- The customer of a by-name selection: the one at position ceil(n/2) of those with that last
-- name, ordered by first name (clause 2.5.2.2).
local function customer_by_name(by_name, w, d, last)
  local rs = by_name(w, d, last) -- also a pipeline's result (nrows, fetch_row)
  local n = rs.nrows
  if n == 0 then return nil end
  local pick = floor((n + 1) / 2)
  local row
  for _ = 1, pick do row = rs:fetch_row() end
  return tonumber(row[1])
end

-- New-Order (clause 2.4).
local function new_order_body(S, con)
  local no_cust = S.no_cust
  local no_dist = S.no_dist
  local no_dist_upd = S.no_dist_upd
  local no_order = S.no_order
  local no_new = S.no_new
  local no_item = S.no_item
  local no_stock = S.no_stock
  local no_stock_upd = S.no_stock_upd
  local no_line = S.no_line
  local q = txn_query(con)
  return function(inp)
    local home, d = inp.w, inp.d
    q("BEGIN")
    local rs = no_cust(home, d, inp.c)
    local row = rs:fetch_row()
    local discount, w_tax = tonumber(row[1]), tonumber(row[4])
    rs = no_dist(home, d)
    row = rs:fetch_row()
    local o_id, d_tax = tonumber(row[1]), tonumber(row[2])
    no_dist_upd(o_id + 1, home, d)
    no_order(o_id, d, home, inp.c, inp.n, inp.all_local)
    no_new(o_id, d, home)
    local stock = no_stock[d]
    local total = 0
    local order = inp.order
    for k = 1, inp.n do
      local l = order[k]
      rs = no_item(l.item)
      row = rs:fetch_row()
      if not row then
        -- "Item number is not valid": the whole transaction rolls back (clause 2.4.2.3).
        q("ROLLBACK")
        return true
      end
      local price, i_data = cents(row[1]), row[3]
      rs = stock(l.item, l.supply)
      row = rs:fetch_row()
      local qty = l.qty
      local s_quantity = tonumber(row[1])
      if s_quantity >= qty + 10 then
        s_quantity = s_quantity - qty
      else
        s_quantity = s_quantity - qty + 91
      end
      local s_data, dist = row[2], row[3]
      no_stock_upd(s_quantity, qty, l.supply ~= home and 1 or 0, l.item, l.supply)
      local amount = qty * price
      total = total + amount
      -- Brand/generic indicator, shown on the terminal only.
      l.bg = (i_data:find("ORIGINAL", 1, true) and s_data:find("ORIGINAL", 1, true)) and "B" or "G"
      no_line(o_id, d, home, l.number, l.item, l.supply, qty, amount, dist)
    end
    q("COMMIT")
    inp.total = total * (1 - discount) * (1 + w_tax + d_tax) / 100
    return false
  end
end

-- Payment (clause 2.5).
local function payment_body(S, con)
  local pay_w_upd = S.pay_w_upd
  local pay_w = S.pay_w
  local pay_d_upd = S.pay_d_upd
  local pay_d = S.pay_d
  local by_name = S.by_name
  local pay_c = S.pay_c
  local pay_c_data = S.pay_c_data
  local pay_c_upd = S.pay_c_upd
  local pay_c_upd_bc = S.pay_c_upd_bc
  local pay_h = S.pay_h
  local q = txn_query(con)
  return function(inp)
    local home, d, amount = inp.w, inp.d, inp.amount
    q("BEGIN")
    pay_w_upd(amount, home)
    local w_name = pay_w(home):fetch_row()[1]
    pay_d_upd(amount, home, d)
    local d_name = pay_d(home, d):fetch_row()[1]
    local c_w, c_d = inp.c_w, inp.c_d
    local c_id = inp.c_id or customer_by_name(by_name, c_w, c_d, inp.c_last)
    if not c_id then
      error(fmt("no customer with last name %s in warehouse %d district %d", inp.c_last, c_w, c_d), 0)
    end
    local row = pay_c(c_w, c_d, c_id):fetch_row()
    if row[11] == "BC" then
      local c_data = pay_c_data(c_w, c_d, c_id):fetch_row()[1] or ""
      c_data = fmt("%d %d %d %d %d %d.%02d|", c_id, c_d, c_w, d, home, floor(amount / 100), amount % 100) .. c_data
      if #c_data > 500 then c_data = c_data:sub(1, 500) end
      pay_c_upd_bc(amount, amount, c_data, c_w, c_d, c_id)
    else
      pay_c_upd(amount, amount, c_w, c_d, c_id)
    end
    pay_h(c_id, c_d, c_w, d, home, amount, w_name .. "    " .. d_name)
    q("COMMIT")
    return false
  end
end

-- Order-Status (clause 2.6).
local function order_status_body(S, con)
  local by_name = S.by_name
  local os_c = S.os_c
  local os_o = S.os_o
  local os_ol = S.os_ol
  local q = txn_query(con)
  return function(inp)
    local home, d = inp.w, inp.d
    q("BEGIN")
    local c_id = inp.c_id or customer_by_name(by_name, home, d, inp.c_last)
    if not c_id then
      error(fmt("no customer with last name %s in warehouse %d district %d", inp.c_last, home, d), 0)
    end
    os_c(home, d, c_id):fetch_row()
    local row = os_o(home, d, c_id):fetch_row()
    if row then
      local rs = os_ol(home, d, tonumber(row[1]))
      while rs:fetch_row() do end
    end
    q("COMMIT")
    return false
  end
end

-- Delivery (clause 2.7), run by the terminal itself, all ten districts in one transaction.
local function delivery_body(S, con, dialect)
  local dl_no = S.dl_no
  local dl_no_peek = S.dl_no_peek
  local dl_del = S.dl_del
  local dl_o = S.dl_o
  local dl_o_upd = S.dl_o_upd
  local dl_ol_upd = S.dl_ol_upd
  local dl_ol_sum = S.dl_ol_sum
  local dl_c_upd = S.dl_c_upd
  local q = txn_query(con)
  -- The oldest undelivered order of a district, locked; nil if there is none.
  local function oldest_new_order(home, d)
    for _ = 1, 100 do
      local row = dl_no(home, d):fetch_row()
      if row then
        local o_id = tonumber(row[1])
        dl_del(home, d, o_id)
        if con.rs.nrows == 1 then return o_id end
        -- Delivered by a concurrent Delivery between our read and our delete: take the next.
      elseif not dialect.locking_read_can_miss or not dl_no_peek(home, d):fetch_row() then
        return nil
      end
      -- PostgreSQL, READ COMMITTED: the row we waited for was deleted by the Delivery that
      -- held it, and FOR UPDATE with LIMIT then returns nothing; look again.
    end
    return nil
  end

  return function(inp)
    local home = inp.w
    q("BEGIN")
    local skipped = 0
    for d = 1, common.DISTRICTS do
      local o_id = oldest_new_order(home, d)
      if o_id then
        local c_id = tonumber(dl_o(home, d, o_id):fetch_row()[1])
        dl_o_upd(inp.carrier, home, d, o_id)
        dl_ol_upd(home, d, o_id)
        local sum = dl_ol_sum(home, d, o_id):fetch_row()[1]
        dl_c_upd(sum and cents(sum) or 0, home, d, c_id)
      else
        skipped = skipped + 1
      end
    end
    q("COMMIT")
    inp.skipped = inp.skipped + skipped
    return false
  end
end

-- Stock-Level (clause 2.8).
local function stock_level_body(S, con)
  local sl_d = S.sl_d
  local sl_count = S.sl_count
  local q = txn_query(con)
  return function(inp)
    local home, d = inp.w, inp.d
    q("BEGIN")
    local next_o = tonumber(sl_d(home, d):fetch_row()[1])
    sl_count(home, d, next_o, next_o - 20, home, inp.threshold):fetch_row()
    q("COMMIT")
    return false
  end
end

-- --pipeline (PostgreSQL): the same statements with the same inputs, but those that do not
-- depend on each other's results go as one pipeline, BEGIN and COMMIT with them.
local function order_status_piped(S, con)
  local by_name, os_c, os_o, os_ol = queues[S.by_name], queues[S.os_c], queues[S.os_o], queues[S.os_ol]
  return function(inp)
    local home, d = inp.w, inp.d
    local p = con:pipeline()
    p:query("BEGIN")
    local c_id = inp.c_id
    if not c_id then
      by_name(p, home, d, inp.c_last)
      c_id = customer_by_name(function() return p:run()[2] end)
      if not c_id then
        error(fmt("no customer with last name %s in warehouse %d district %d", inp.c_last, home, d), 0)
      end
      p = con:pipeline()
    end
    os_c(p, home, d, c_id)
    local n = os_o(p, home, d, c_id)
    local res = p:run()
    res[n - 1]:fetch_row()
    local row = res[n]:fetch_row()
    p = con:pipeline()
    if row then os_ol(p, home, d, tonumber(row[1])) end
    p:query("COMMIT")
    res = p:run()
    if row then while res[1]:fetch_row() do end end
    return false
  end
end

local function stock_level_piped(S, con)
  local sl_d, sl_count = queues[S.sl_d], queues[S.sl_count]
  return function(inp)
    local home, d = inp.w, inp.d
    local p = con:pipeline()
    p:query("BEGIN")
    sl_d(p, home, d)
    local next_o = tonumber(p:run()[2]:fetch_row()[1])
    p = con:pipeline()
    sl_count(p, home, d, next_o, next_o - 20, home, inp.threshold)
    p:query("COMMIT")
    p:run()[1]:fetch_row()
    return false
  end
end

-- The bodies: the SQL of each transaction for given inputs, one statement per step of the
-- specification, for any terminal (the warehouse comes with the inputs). ctx: con and s.
function M.bodies(ctx)
  local con = ctx.con
  local S = statements(con, ctx.s.t)
  local piped = ctx.s.pipeline
  if piped and not con.driver:supports("pipeline") then
    common.fail("--pipeline needs PostgreSQL (--db-driver=pgsql); the %s driver cannot pipeline statements",
      con.driver:name())
  end
  return {
    new_order = new_order_body(S, con),
    payment = payment_body(S, con),
    order_status = (piped and order_status_piped or order_status_body)(S, con),
    delivery = delivery_body(S, con, common.dialect()),
    stock_level = (piped and stock_level_piped or stock_level_body)(S, con),
  }
end

return M
