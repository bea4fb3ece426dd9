-- bookstore.check: the `check` command. Verifies the population and the invariants the runs
-- must keep (reference notes §3.1.6): orders and card transactions grew by exactly the committed
-- Buy Confirms, customers by the new customers of Buy Request, every order has lines and one
-- card transaction, no orphans, no stock at or under zero, new orders' totals add up. Prints one
-- line per invariant; returns false (exit 1) if any fails.
local common = require("bookstore.common")

local M = {}
local fmt = string.format

function M.check()
  local s = common.settings()
  local con = common.open()
  local cfg = common.config_read(con)
  local t = s.t
  if cfg.loaded ~= 1 then
    print("FAIL: the load did not complete (prepare was interrupted?): run cleanup and prepare")
    con:disconnect()
    return false
  end
  local function n(q) return tonumber(con:query_row(q)) or 0 end
  local results = {}
  local function expect(desc, got, want)
    local ok = got == want
    results[#results + 1] = ok
    print(fmt("  [%s] %s: %s%s", ok and " ok " or "FAIL", desc, tostring(got), ok and "" or (" (expected " .. tostring(want) .. ")")))
  end
  local bc, newc = cfg.bc_committed or 0, cfg.new_customers or 0
  print(fmt("Checking the bookstore schema%s: %d items, %d EBs; %d run(s) recorded %d committed Buy Confirms and %d new customers",
    s.prefix ~= "" and (" '" .. s.prefix .. "'") or "", cfg.items, cfg.ebs, cfg.runs or 0, bc, newc))
  expect("countries", n("SELECT COUNT(*) FROM " .. t.country), 92)
  expect("authors (items / 4)", n("SELECT COUNT(*) FROM " .. t.author), cfg.authors)
  expect("items", n("SELECT COUNT(*) FROM " .. t.item), cfg.items)
  expect("new orders = committed Buy Confirms", n("SELECT COUNT(*) FROM " .. t.orders) - cfg.orders, bc)
  expect("new card transactions = committed Buy Confirms", n("SELECT COUNT(*) FROM " .. t.cc_xacts) - cfg.orders, bc)
  expect("new customers = Buy Requests of new customers", n("SELECT COUNT(*) FROM " .. t.customer) - cfg.customers, newc)
  expect("orders without lines", n(fmt("SELECT COUNT(*) FROM %s o WHERE NOT EXISTS (SELECT 1 FROM %s WHERE ol_o_id = o.o_id)", t.orders, t.order_line)), 0)
  expect("orders without a card transaction", n(fmt("SELECT COUNT(*) FROM %s o WHERE NOT EXISTS (SELECT 1 FROM %s WHERE cx_o_id = o.o_id)", t.orders, t.cc_xacts)), 0)
  expect("order lines without an order", n(fmt("SELECT COUNT(*) FROM %s l WHERE NOT EXISTS (SELECT 1 FROM %s WHERE o_id = l.ol_o_id)", t.order_line, t.orders)), 0)
  expect("card transactions without an order", n(fmt("SELECT COUNT(*) FROM %s c WHERE NOT EXISTS (SELECT 1 FROM %s WHERE o_id = c.cx_o_id)", t.cc_xacts, t.orders)), 0)
  expect("cart lines without a cart", n(fmt("SELECT COUNT(*) FROM %s l WHERE NOT EXISTS (SELECT 1 FROM %s WHERE sc_id = l.scl_sc_id)", t.shopping_cart_line, t.shopping_cart)), 0)
  expect("items with stock <= 0", n(fmt("SELECT COUNT(*) FROM %s WHERE i_stock <= 0", t.item)), 0)
  expect("new orders whose total is not subtotal + tax + 3.00 + 1.00 per item",
    n(fmt("SELECT COUNT(*) FROM %s o JOIN (SELECT ol_o_id, SUM(ol_qty) AS q FROM %s WHERE ol_o_id > %d GROUP BY ol_o_id) l ON l.ol_o_id = o.o_id WHERE ABS(o.o_total - (o.o_sub_total + o.o_tax + 3.00 + l.q)) >= 0.005",
      t.orders, t.order_line, cfg.max_o_id)), 0)
  expect("new orders whose card amount differs from the total",
    n(fmt("SELECT COUNT(*) FROM %s o JOIN %s c ON c.cx_o_id = o.o_id WHERE o.o_id > %d AND ABS(c.cx_xact_amt - o.o_total) >= 0.005", t.orders, t.cc_xacts, cfg.max_o_id)), 0)
  expect("new orders with more than 20 lines",
    n(fmt("SELECT COUNT(*) FROM (SELECT ol_o_id FROM %s WHERE ol_o_id > %d GROUP BY ol_o_id HAVING COUNT(*) > 20) x", t.order_line, cfg.max_o_id)), 0)
  con:disconnect()
  local failed = 0
  for _, ok in ipairs(results) do if not ok then failed = failed + 1 end end
  if failed > 0 then
    print(fmt("check: %d of %d invariants FAILED", failed, #results))
    return false
  end
  print(fmt("check: all %d invariants hold", #results))
  return true
end

return M
