-- bookstore.interactions: the database work of TPC-W's 14 web interactions, as plain SQL (one
-- statement text per call; the values are our own integers and generated letters, quoted by
-- common.lit when they come back from the database). Each function gets the user's session `u`
-- (customer, cart, last list, last item) and the worker's context `x` (connection, tables,
-- scale, counters) and raises on failure; the caller times it, retries deadlocks and rolls back.
local common = require("bookstore.common")
local text = require("bookstore.text")

local M = {}

local fmt = string.format
local uniform = sysbench.rand.uniform
local floor = math.floor
local rows, lit, money, cents = common.rows, common.lit, common.money, common.cents
local SUBJECTS = common.SUBJECTS

-- SELECT sql with at most n rows / expr n units later / today, in the server's words.
local function limit(sql, n) return common.dialect().limit(sql, n) end
local function later(expr, n, unit) return common.dialect().date_add(expr, n, unit) end
local function today() return common.dialect().current_date end

-- Counters kept by the session layer (slots of the per-worker statistics array).
M.EMPTY_AUTHOR, M.EMPTY_TITLE, M.EMPTY_SUBJECT = 8, 9, 10
M.SEARCH_AUTHOR, M.SEARCH_TITLE, M.SEARCH_SUBJECT = 11, 12, 13

-- u.in_txn tells the caller to roll back after an error (users of a worker share x).
local function begin(u, x)
  u.in_txn = true
  x.con:query(common.dialect().begin)
end

local function commit(u, x)
  x.con:query(common.dialect().commit)
  u.in_txn = false
end

-- The promotional strip: the five related items of a random item, with their thumbnails.
local function promo(x)
  local t = x.t.item
  rows(x.con, fmt("SELECT j.i_id, j.i_thumbnail FROM %s i JOIN %s j ON j.i_id IN (i.i_related1, i.i_related2, i.i_related3, i.i_related4, i.i_related5) WHERE i.i_id = %d",
    t, t, uniform(1, x.items)))
end

-- A list page (New Products, Best Sellers, Search Results): remember the item ids for Product
-- Detail.
local function keep_list(u, list)
  local ids = {}
  for i, r in ipairs(list) do ids[i] = tonumber(r[1]) end
  u.list = ids
  return #ids
end

local function item_detail(x, i_id)
  return rows(x.con, fmt("SELECT i_id, i_title, a_fname, a_lname, i_pub_date, i_publisher, i_subject, i_desc, i_image, i_cost, i_srp, i_avail, i_isbn, i_page, i_backing, i_dimensions, i_stock FROM %s JOIN %s ON a_id = i_a_id WHERE i_id = %d",
    x.t.item, x.t.author, i_id))
end

-- 1. Home: greet a known customer; promotions.
function M.home(u, x)
  if u.c_id > 0 then
    rows(x.con, fmt("SELECT c_fname, c_lname FROM %s WHERE c_id = %d", x.t.customer, u.c_id))
  end
  promo(x)
end

-- 2. New Products: the 50 most recently published items of a subject.
function M.new_products(u, x)
  local list = rows(x.con, limit(fmt("SELECT i_id, i_title, a_fname, a_lname FROM %s JOIN %s ON a_id = i_a_id WHERE i_subject = '%s' ORDER BY i_pub_date DESC, i_title",
    x.t.item, x.t.author, SUBJECTS[uniform(1, #SUBJECTS)]), 50))
  keep_list(u, list)
  promo(x)
end

-- The smallest o_id among the n most recent orders (o_id grows with time: identity/sequence).
local function recent_orders_from(x, n)
  return tonumber(x.con:query_row(fmt("SELECT MIN(o_id) FROM (%s) r",
    limit(fmt("SELECT o_id FROM %s ORDER BY o_id DESC", x.t.orders), n)))) or 0
end

-- 3. Best Sellers: the 50 items of a subject sold in the largest quantities over the order
-- lines of the 3,333 most recent orders.
function M.best_sellers(u, x)
  local from = recent_orders_from(x, common.BEST_SELLERS_WINDOW)
  local list = rows(x.con, limit(fmt("SELECT i_id, i_title, a_fname, a_lname, SUM(ol_qty) AS sold FROM %s JOIN %s ON i_id = ol_i_id JOIN %s ON a_id = i_a_id WHERE ol_o_id >= %d AND i_subject = '%s' GROUP BY i_id, i_title, a_fname, a_lname ORDER BY sold DESC, i_id",
    x.t.order_line, x.t.item, x.t.author, from, SUBJECTS[uniform(1, #SUBJECTS)]), 50))
  keep_list(u, list)
  promo(x)
end

-- 4. Product Detail: an item of the last list shown (Product Detail -> Product Detail picks
-- another item of the same list).
function M.product_detail(u, x)
  local list = u.list
  local i_id = list and #list > 0 and list[uniform(1, #list)] or uniform(1, x.items)
  item_detail(x, i_id)
  u.item = i_id
end

-- 5. Search Request: the search form, with promotions.
function M.search_request(u, x)
  promo(x)
end

-- 6. Search Results: by author (last-name token, prefix match), title (token anywhere in the
-- title) or subject, 50 items ordered by title.
function M.search_results(u, x)
  local kind = uniform(1, 3)
  local where
  if kind == 1 then
    where = fmt("a_lname LIKE '%s%%'", common.author_token(x.items))
  elseif kind == 2 then
    where = fmt("i_title LIKE '%%%s%%'", common.title_token(x.items))
  else
    where = fmt("i_subject = '%s'", SUBJECTS[uniform(1, #SUBJECTS)])
  end
  local list = rows(x.con, limit(fmt("SELECT i_id, i_title, a_fname, a_lname FROM %s JOIN %s ON a_id = i_a_id WHERE %s ORDER BY i_title",
    x.t.item, x.t.author, where), 50))
  x.count(M.SEARCH_AUTHOR + kind - 1, 1)
  if keep_list(u, list) == 0 then x.count(M.EMPTY_AUTHOR + kind - 1, 1) end
  promo(x)
end

-- Shopping carts --------------------------------------------------------------------------------

local function cart_lines(x, sc_id)
  return rows(x.con, fmt("SELECT scl_i_id, scl_qty, scl_cost, scl_srp, scl_title, scl_backing FROM %s WHERE scl_sc_id = %d ORDER BY scl_i_id",
    x.t.shopping_cart_line, sc_id))
end

-- Puts one of item i_id in the cart at the item's current price (read without locking the item:
-- Buy Confirm locks items, and an INSERT ... SELECT would take shared locks on MySQL).
local function add_item(x, sc_id, i_id)
  local it = rows(x.con, fmt("SELECT i_cost, i_srp, i_title, i_backing FROM %s WHERE i_id = %d", x.t.item, i_id))[1]
  if not it then return end
  x.con:query(fmt("INSERT INTO %s (scl_sc_id, scl_i_id, scl_qty, scl_cost, scl_srp, scl_title, scl_backing) VALUES (%d, %d, 1, %s, %s, %s, %s)",
    x.t.shopping_cart_line, sc_id, i_id, it[1], it[2], lit(it[3]), lit(it[4] or "")))
end

-- An empty cart gets one item: the first related item of a random item (TPC-W clause 2.4.2).
local function fill_empty(x, sc_id)
  local r = tonumber(x.con:query_row(fmt("SELECT i_related1 FROM %s WHERE i_id = %d", x.t.item, uniform(1, x.items))))
  add_item(x, sc_id, r or uniform(1, x.items))
end

-- Creates the session's cart (copying a known customer's name and discount). The user's cart of
-- a previous session, abandoned, is deleted in the same transaction, so carts do not pile up.
local function create_cart(u, x)
  local sql
  if u.c_id > 0 then
    sql = fmt("INSERT INTO %s (sc_c_id, sc_date, sc_sub_total, sc_tax, sc_ship_cost, sc_total, sc_c_fname, sc_c_lname, sc_c_discount) SELECT c_id, CURRENT_TIMESTAMP, 0, 0, 0, 0, c_fname, c_lname, c_discount FROM %s WHERE c_id = %d",
      x.t.shopping_cart, x.t.customer, u.c_id)
  else
    sql = fmt("INSERT INTO %s (sc_c_id, sc_date, sc_sub_total, sc_tax, sc_ship_cost, sc_total, sc_c_discount) VALUES (NULL, CURRENT_TIMESTAMP, 0, 0, 0, 0, 0)",
      x.t.shopping_cart)
  end
  local id = common.insert_id(x.con, sql, "sc_id")
  if not id then error("could not create a shopping cart", 0) end
  if u.old_sc and u.old_sc > 0 then
    x.con:query(fmt("DELETE FROM %s WHERE scl_sc_id = %d", x.t.shopping_cart_line, u.old_sc))
    x.con:query(fmt("DELETE FROM %s WHERE sc_id = %d", x.t.shopping_cart, u.old_sc))
  end
  u.old_sc = nil
  return id
end

local function lock_cart(x, sc_id)
  return x.con:query_row(common.dialect().for_update(fmt("SELECT sc_id FROM %s WHERE sc_id = %d", x.t.shopping_cart, sc_id))) ~= nil
end

-- The cart of the session, created (or re-created if it vanished) and locked.
local function session_cart(u, x)
  if u.sc_id > 0 and lock_cart(x, u.sc_id) then return u.sc_id end
  u.sc_id = create_cart(u, x)
  return u.sc_id
end

-- 7. Shopping Cart: after Product Detail, add that item (one more if it is in the cart); after
-- Shopping Cart, change the quantities of some lines (0 deletes); otherwise view. An empty cart
-- gets a random item. Then the subtotal is updated and the cart shown.
function M.shopping_cart(u, x, prev)
  begin(u, x)
  local sc_id = session_cart(u, x)
  local T = x.t.shopping_cart_line
  local lines = cart_lines(x, sc_id)
  if prev == common.PROD and u.item then
    local have
    for _, l in ipairs(lines) do
      if tonumber(l[1]) == u.item then have = true end
    end
    if have then
      x.con:query(fmt("UPDATE %s SET scl_qty = scl_qty + 1 WHERE scl_sc_id = %d AND scl_i_id = %d", T, sc_id, u.item))
    elseif #lines < common.MAX_CART_LINES then
      add_item(x, sc_id, u.item)
    end
  elseif prev == common.SHOP and #lines > 0 then
    -- refresh: one line gets a quantity 1..10; otherwise 1..n random lines get a new quantity
    -- 0..9 different from the current one (0 removes the line)
    if #lines == 1 then
      x.con:query(fmt("UPDATE %s SET scl_qty = %d WHERE scl_sc_id = %d AND scl_i_id = %s", T, uniform(1, 10), sc_id, lines[1][1]))
    else
      local n = uniform(1, #lines)
      for k = 1, n do
        local j = uniform(k, #lines)
        lines[k], lines[j] = lines[j], lines[k]
        local cur = tonumber(lines[k][2])
        local q = uniform(0, 8)
        if q >= cur then q = q + 1 end
        if q == 0 then
          x.con:query(fmt("DELETE FROM %s WHERE scl_sc_id = %d AND scl_i_id = %s", T, sc_id, lines[k][1]))
        else
          x.con:query(fmt("UPDATE %s SET scl_qty = %d WHERE scl_sc_id = %d AND scl_i_id = %s", T, q, sc_id, lines[k][1]))
        end
      end
    end
  end
  lines = cart_lines(x, sc_id)
  if #lines == 0 then
    fill_empty(x, sc_id)
    lines = cart_lines(x, sc_id)
  end
  local sub = 0
  for _, l in ipairs(lines) do sub = sub + cents(l[3]) * tonumber(l[2]) end
  x.con:query(fmt("UPDATE %s SET sc_date = CURRENT_TIMESTAMP, sc_sub_total = %s WHERE sc_id = %d",
    x.t.shopping_cart, money(sub), sc_id))
  commit(u, x)
  promo(x)
end

-- 8. Customer Registration: the registration form; no database work (as DBT-1). A known
-- customer will log in at Buy Request, an unknown one will register there.
function M.customer_registration(u, x)
end

-- Finds an address or inserts it; returns its id.
local function find_or_insert_address(x)
  local s1, s2, city, state, zip, co = text.address()
  local id = x.con:query_row(fmt("SELECT addr_id FROM %s WHERE addr_street1 = '%s' AND addr_street2 = '%s' AND addr_city = '%s' AND addr_state = '%s' AND addr_zip = '%s' AND addr_co_id = %d",
    x.t.address, s1, s2, city, state, zip, co))
  if id then return tonumber(id) end
  return common.insert_id(x.con, fmt("INSERT INTO %s (addr_street1, addr_street2, addr_city, addr_state, addr_zip, addr_co_id) VALUES ('%s', '%s', '%s', '%s', '%s', %d)",
    x.t.address, s1, s2, city, state, zip, co), "addr_id")
end

-- A new customer (with a new or existing address); returns c_id, fname, lname, discount. The
-- user name is DigSyl(c_id), which needs the id first: a sequence value on PostgreSQL, the
-- AUTO_INCREMENT value then an UPDATE on MySQL.
local function new_customer(x)
  local addr = find_or_insert_address(x)
  local fname, lname = text.name(8, 15), text.name(8, 15)
  local disc = uniform(0, 50)
  local cols = "c_uname, c_passwd, c_fname, c_lname, c_addr_id, c_phone, c_email, c_since, c_last_visit, c_login, c_expiration, c_discount, c_balance, c_ytd_pmt, c_birthdate, c_data"
  local function values(uname)
    return fmt("'%s', '%s', '%s', '%s', %d, '%s', '%s@%s.com', %s, %s, CURRENT_TIMESTAMP, %s, %s, 0, 0, '%04d-%02d-%02d', '%s'",
      uname, uname:lower(), fname, lname, addr, text.digits(uniform(9, 16)), uname, text.letters(4, 20),
      today(), today(), later("CURRENT_TIMESTAMP", 2, "hour"), money(disc), uniform(1900, 2005), uniform(1, 12), uniform(1, 28), text.text(100, 500))
  end
  local c_id
  local next_key = common.dialect().next_key(x.t.customer, "c_id")
  if next_key then
    -- The key first, so that the row goes in whole with the user name made from it.
    c_id = tonumber(x.con:query_row(next_key))
    x.con:query(fmt("INSERT INTO %s (c_id, %s) VALUES (%d, %s)", x.t.customer, cols, c_id, values(common.digsyl(c_id, 0))))
  else
    c_id = common.insert_id(x.con, fmt("INSERT INTO %s (%s) VALUES (%s)", x.t.customer, cols, values("")), "c_id")
    local uname = common.digsyl(c_id, 0)
    x.con:query(fmt("UPDATE %s SET c_uname = '%s', c_passwd = '%s', c_email = '%s@example.com' WHERE c_id = %d",
      x.t.customer, uname, uname:lower(), uname, c_id))
  end
  return c_id, fname, lname, disc
end

-- Cart totals in cents: subtotal after the customer's discount (in hundredths), 8.25 % tax,
-- shipping 3.00 + 1.00 per item.
local function totals(lines, disc)
  local gross, qty = 0, 0
  for _, l in ipairs(lines) do
    local q = tonumber(l[2])
    gross = gross + cents(l[3]) * q
    qty = qty + q
  end
  local sub = floor((gross * (100 - disc) + 50) / 100)
  local tax = floor((sub * 825 + 5000) / 10000)
  local ship = 300 + 100 * qty
  return sub, tax, ship, sub + tax + ship, qty
end

-- 9. Buy Request: a returning customer logs in (name and password checked, login time and
-- expiry updated), an unknown one registers (address, customer); the cart is attached to the
-- customer, repriced at the items' current cost and its totals computed.
function M.buy_request(u, x)
  begin(u, x)
  local fname, lname, disc
  if u.c_id > 0 then
    local uname = common.digsyl(u.c_id, 0)
    local r = rows(x.con, fmt("SELECT c_id, c_passwd, c_fname, c_lname, c_discount, addr_street1, addr_street2, addr_city, addr_state, addr_zip, co_name FROM %s JOIN %s ON addr_id = c_addr_id JOIN %s ON co_id = addr_co_id WHERE c_uname = '%s'",
      x.t.customer, x.t.address, x.t.country, uname))[1]
    if not r or r[2] ~= uname:lower() then error("Buy Request: login failed for " .. uname, 0) end
    fname, lname, disc = r[3], r[4], cents(r[5])
    x.con:query(fmt("UPDATE %s SET c_login = CURRENT_TIMESTAMP, c_expiration = %s WHERE c_id = %d",
      x.t.customer, later("CURRENT_TIMESTAMP", 2, "hour"), u.c_id))
  else
    local c_id
    c_id, fname, lname, disc = new_customer(x)
    u.c_id = c_id
    u.new_customer = true
  end
  local sc_id = session_cart(u, x)
  local T = x.t.shopping_cart_line
  -- reprice at the current cost (read, then written: no shared locks on items)
  local costs = rows(x.con, fmt("SELECT scl_i_id, i_cost FROM %s JOIN %s ON i_id = scl_i_id WHERE scl_sc_id = %d AND scl_cost <> i_cost",
    T, x.t.item, sc_id))
  for _, c in ipairs(costs) do
    x.con:query(fmt("UPDATE %s SET scl_cost = %s WHERE scl_sc_id = %d AND scl_i_id = %s", T, c[2], sc_id, c[1]))
  end
  local lines = cart_lines(x, sc_id)
  if #lines == 0 then
    fill_empty(x, sc_id)
    lines = cart_lines(x, sc_id)
  end
  local sub, tax, ship, total = totals(lines, disc)
  x.con:query(fmt("UPDATE %s SET sc_c_id = %d, sc_c_fname = %s, sc_c_lname = %s, sc_c_discount = %s, sc_sub_total = %s, sc_tax = %s, sc_ship_cost = %s, sc_total = %s, sc_date = CURRENT_TIMESTAMP WHERE sc_id = %d",
    x.t.shopping_cart, u.c_id, lit(fname), lit(lname), money(disc), money(sub), money(tax), money(ship), money(total), sc_id))
  if u.new_customer then x.counted(u, "new_customer") end
  commit(u, x)
end

local SHIP, CARDS = common.SHIP_TYPES, common.CARD_TYPES

-- 10. Buy Confirm, one transaction: the order (customer's address, or a new shipping address in
-- 5 %), its lines at the cart's prices with the customer's discount, each item's stock reduced
-- (restocked by 21 when it would fall under 10), the card transaction for the order's total, and
-- the cart emptied. Items are updated in id order, so two Buy Confirms cannot deadlock.
function M.buy_confirm(u, x)
  if u.c_id == 0 then error("Buy Confirm without a customer", 0) end
  begin(u, x)
  local c = rows(x.con, fmt("SELECT c_discount, c_addr_id, addr_co_id, c_fname, c_lname FROM %s JOIN %s ON addr_id = c_addr_id WHERE c_id = %d",
    x.t.customer, x.t.address, u.c_id))[1]
  if not c then error("Buy Confirm: no customer " .. u.c_id, 0) end
  local disc, bill, co = cents(c[1]), tonumber(c[2]), tonumber(c[3])
  local sc_id = session_cart(u, x)
  local lines = cart_lines(x, sc_id)
  if #lines == 0 then
    fill_empty(x, sc_id)
    lines = cart_lines(x, sc_id)
  end
  while #lines > common.MAX_CART_LINES do table.remove(lines) end
  local ship_addr = bill
  if uniform(1, 100) <= 5 then ship_addr = find_or_insert_address(x) end
  local sub, tax, ship, total = totals(lines, disc)
  local o_id = common.insert_id(x.con, fmt("INSERT INTO %s (o_c_id, o_date, o_sub_total, o_tax, o_total, o_ship_type, o_ship_date, o_bill_addr_id, o_ship_addr_id, o_status) VALUES (%d, CURRENT_TIMESTAMP, %s, %s, %s, '%s', %s, %d, %d, 'PENDING')",
    x.t.orders, u.c_id, money(sub), money(tax), money(total), SHIP[uniform(1, #SHIP)], later("CURRENT_TIMESTAMP", uniform(1, 7), "day"), bill, ship_addr), "o_id")
  local ol = {}
  for k, l in ipairs(lines) do
    ol[k] = fmt("(%d, %d, %s, %s, %s, '%s')", k, o_id, l[1], l[2], money(disc), text.text(20, 100))
  end
  for _, sql in ipairs(common.dialect().insert_values(fmt("INSERT INTO %s (ol_id, ol_o_id, ol_i_id, ol_qty, ol_discount, ol_comments) VALUES",
    x.t.order_line), ol)) do
    x.con:query(sql)
  end
  for _, l in ipairs(lines) do -- ordered by item id (cart_lines)
    x.con:query(fmt("UPDATE %s SET i_stock = CASE WHEN i_stock - %s < 10 THEN i_stock - %s + 21 ELSE i_stock - %s END WHERE i_id = %s",
      x.t.item, l[2], l[2], l[2], l[1]))
  end
  x.con:query(fmt("INSERT INTO %s (cx_o_id, cx_type, cx_num, cx_name, cx_expiry, cx_auth_id, cx_xact_amt, cx_xact_date, cx_co_id) VALUES (%d, '%s', %s, %s, %s, '%s', %s, CURRENT_TIMESTAMP, %d)",
    x.t.cc_xacts, o_id, CARDS[uniform(1, #CARDS)], text.digits(16), lit((c[4] .. " " .. c[5]):sub(1, 31)),
    later(today(), uniform(1, 730), "day"), text.letters(15, 15):upper(), money(total), co))
  x.con:query(fmt("DELETE FROM %s WHERE scl_sc_id = %d", x.t.shopping_cart_line, sc_id))
  x.con:query(fmt("UPDATE %s SET sc_sub_total = 0, sc_tax = 0, sc_ship_cost = 0, sc_total = 0, sc_date = CURRENT_TIMESTAMP WHERE sc_id = %d",
    x.t.shopping_cart, sc_id))
  x.counted(u, "order")
  commit(u, x)
  u.committed_order = o_id
end

-- 11. Order Inquiry: the form, with a known customer's user name filled in.
function M.order_inquiry(u, x)
  if u.c_id > 0 then
    rows(x.con, fmt("SELECT c_uname FROM %s WHERE c_id = %d", x.t.customer, u.c_id))
  end
end

-- 12. Order Display: log in (an unknown visitor uses a random returning customer's name without
-- becoming that customer), then the customer's most recent order with its card transaction,
-- addresses and lines.
function M.order_display(u, x)
  local c_id = u.c_id > 0 and u.c_id or common.nurand(x.customer_a, 1, x.customers)
  local uname = common.digsyl(c_id, 0)
  local c = rows(x.con, fmt("SELECT c_id, c_passwd FROM %s WHERE c_uname = '%s'", x.t.customer, uname))[1]
  if not c or c[2] ~= uname:lower() then error("Order Display: login failed for " .. uname, 0) end
  local o = rows(x.con, limit(fmt("SELECT o_id, o_date, o_sub_total, o_tax, o_total, o_ship_type, o_ship_date, o_status, o_bill_addr_id, o_ship_addr_id, cx_type, cx_auth_id FROM %s JOIN %s ON cx_o_id = o_id WHERE o_c_id = %s ORDER BY o_date DESC, o_id DESC",
    x.t.orders, x.t.cc_xacts, c[1]), 1))[1]
  if not o then return end
  rows(x.con, fmt("SELECT addr_id, addr_street1, addr_street2, addr_city, addr_state, addr_zip, co_name FROM %s JOIN %s ON co_id = addr_co_id WHERE addr_id IN (%s, %s)",
    x.t.address, x.t.country, o[9], o[10]))
  rows(x.con, fmt("SELECT ol_i_id, i_title, i_publisher, i_cost, ol_qty, ol_discount, ol_comments FROM %s JOIN %s ON i_id = ol_i_id WHERE ol_o_id = %s ORDER BY ol_id",
    x.t.order_line, x.t.item, o[1]))
end

-- 13. Admin Request: the item of the last Product Detail, for editing.
function M.admin_request(u, x)
  u.item = u.item or uniform(1, x.items)
  item_detail(x, u.item)
end

-- 14. Admin Confirm: a new cost, image and thumbnail for the item, publication date today, and
-- its related items recomputed: the 5 items bought in the largest quantities, within the 10,000
-- most recent orders, by the customers who bought this item in those orders (slots without a
-- candidate keep their related item).
function M.admin_confirm(u, x)
  local i_id = u.item or uniform(1, x.items)
  local from = recent_orders_from(x, common.RELATED_WINDOW)
  local related = rows(x.con, limit(fmt("SELECT l.ol_i_id FROM %s o JOIN %s l ON l.ol_o_id = o.o_id WHERE o.o_id >= %d AND l.ol_i_id <> %d AND o.o_c_id IN (SELECT o2.o_c_id FROM %s o2 JOIN %s l2 ON l2.ol_o_id = o2.o_id WHERE o2.o_id >= %d AND l2.ol_i_id = %d) GROUP BY l.ol_i_id ORDER BY SUM(l.ol_qty) DESC, l.ol_i_id",
    x.t.orders, x.t.order_line, from, i_id, x.t.orders, x.t.order_line, from, i_id), 5))
  local it = rows(x.con, fmt("SELECT i_srp, i_related1, i_related2, i_related3, i_related4, i_related5 FROM %s WHERE i_id = %d",
    x.t.item, i_id))[1]
  if not it then error("Admin Confirm: no item " .. i_id, 0) end
  local rel, seen = {}, {}
  for _, r in ipairs(related) do
    rel[#rel + 1] = r[1]
    seen[r[1]] = true
  end
  for k = 2, 6 do
    if #rel >= 5 then break end
    if it[k] and not seen[it[k]] then
      rel[#rel + 1] = it[k]
      seen[it[k]] = true
    end
  end
  for k = #rel + 1, 5 do rel[k] = it[k + 1] or "NULL" end
  local cost = floor(cents(it[1]) * (100 - uniform(0, 50)) / 100)
  x.con:query(fmt("UPDATE %s SET i_cost = %s, i_image = %d, i_thumbnail = %d, i_pub_date = %s, i_related1 = %s, i_related2 = %s, i_related3 = %s, i_related4 = %s, i_related5 = %s WHERE i_id = %d",
    x.t.item, money(cost), uniform(1, x.items), uniform(1, x.items), common.dialect().current_date, rel[1], rel[2], rel[3], rel[4], rel[5], i_id))
  item_detail(x, i_id)
end

M.BY_INDEX = {
  M.home, M.new_products, M.best_sellers, M.product_detail, M.search_request, M.search_results,
  M.shopping_cart, M.customer_registration, M.buy_request, M.buy_confirm, M.order_inquiry,
  M.order_display, M.admin_request, M.admin_confirm,
}

return M
