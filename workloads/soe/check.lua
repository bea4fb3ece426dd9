-- soe.check: the `check` command, after prepare and after any runs (also after a run that a
-- server restart interrupted): every order has its items and no item lacks its order, order
-- totals equal the sum of their items, no inventory is negative, every customer's preferred
-- address and card exist, and the LOGON table holds exactly the logon rows the runs committed.
-- Prints one line per condition; returns false (exit 1) if any fails.
local common = require("soe.common")
local workload = require("luabench.workload")

local M = {}
local fmt = string.format

function M.check()
  local s = common.settings()
  local con = common.open()
  local cfg = common.ready_config(con)
  local t = s.t
  local function n(q) return tonumber(con:query_row(q)) or 0 end
  print(fmt("Checking the soe schema%s: scale %g; %d run(s) recorded %d committed logons%s",
    s.prefix ~= "" and (" '" .. s.prefix .. "'") or "", cfg.scale_ppm / 1e6, cfg.runs, cfg.logons,
    cfg.logons_in_doubt > 0 and fmt(" and %d whose commit could not be confirmed", cfg.logons_in_doubt) or ""))
  local c = workload.checks()
  c:expect("warehouses", n("SELECT COUNT(*) FROM " .. t.warehouses), cfg.warehouses)
  c:expect("products", n("SELECT COUNT(*) FROM " .. t.product_information), cfg.products)
  c:expect("customers at least as loaded", n("SELECT COUNT(*) FROM " .. t.customers) >= cfg.customers, true)
  c:expect("orders without items", n(fmt("SELECT COUNT(*) FROM %s o WHERE NOT EXISTS (SELECT 1 FROM %s i WHERE i.order_id = o.order_id)",
    t.orders, t.order_items)), 0)
  c:expect("order items without an order", n(fmt("SELECT COUNT(*) FROM %s i WHERE NOT EXISTS (SELECT 1 FROM %s o WHERE o.order_id = i.order_id)",
    t.order_items, t.orders)), 0)
  c:expect("orders whose total is not the sum of their items", n(fmt("SELECT COUNT(*) FROM %s o JOIN (SELECT order_id, " ..
    "SUM(unit_price * quantity) AS s FROM %s GROUP BY order_id) i ON i.order_id = o.order_id " ..
    "WHERE o.order_total IS NULL OR ABS(o.order_total - i.s) >= 0.005", t.orders, t.order_items)), 0)
  c:expect("inventories below zero", n(fmt("SELECT COUNT(*) FROM %s WHERE quantity_on_hand < 0", t.inventories)), 0)
  c:expect("customers whose preferred address is missing", n(fmt("SELECT COUNT(*) FROM %s c WHERE NOT EXISTS " ..
    "(SELECT 1 FROM %s a WHERE a.address_id = c.preferred_address AND a.customer_id = c.customer_id)",
    t.customers, t.addresses)), 0)
  c:expect("customers whose preferred card is missing", n(fmt("SELECT COUNT(*) FROM %s c WHERE NOT EXISTS " ..
    "(SELECT 1 FROM %s k WHERE k.card_id = c.preferred_card AND k.customer_id = c.customer_id)",
    t.customers, t.card_details)), 0)
  local logons = n("SELECT COUNT(*) FROM " .. t.logon)
  if cfg.logons_in_doubt == 0 then
    c:expect("logon rows = logons the runs committed", logons, cfg.logons)
  else
    -- a commit whose answer never came and that could not be looked up: either way
    c:expect(fmt("logon rows within the %d committed and %d in doubt", cfg.logons, cfg.logons_in_doubt),
      logons >= cfg.logons and logons <= cfg.logons + cfg.logons_in_doubt, true)
  end
  con:disconnect()
  return c:finish("conditions")
end

return M
