#!/usr/bin/env luabench
-- user_journey.lua: a custom customer journey with emulated users and think times.
--
-- Each emulated user visits a small shop: lands on the home page, looks at a few products
-- (thinking between pages), and in one visit out of four buys what it looked at last. Every
-- page is one event, timed as its own interaction type; the think time after it is not part
-- of its response time. Users share a small pool of connections.
--
--   luabench user_journey.lua --db-driver=pgsql ... prepare
--   luabench user_journey.lua --db-driver=pgsql ... --users=500 --connections=8 --threads=2 \
--       --ramp-up=10 --time=60 run
--   luabench user_journey.lua --db-driver=pgsql ... cleanup
sysbench.cmdline.options = {
  products = { "Number of products", 1000, sysbench.cmdline.ARG_INT },
  think = { "Mean think time between pages, seconds (negative exponential)", 2.0 },
}

local uniform = sysbench.rand.uniform

function prepare()
  local con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE journey_product (id INTEGER PRIMARY KEY, name VARCHAR(40), stock INTEGER)")
  con:query("CREATE TABLE journey_order (user_id INTEGER, product_id INTEGER, qty INTEGER)")
  con:bulk_insert_init("INSERT INTO journey_product (id, name, stock) VALUES")
  for i = 1, sysbench.opt.products do
    con:bulk_insert_next(string.format("(%d, 'product %d', 1000000)", i, i))
  end
  con:bulk_insert_done()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS journey_product")
  con:query("DROP TABLE IF EXISTS journey_order")
end

-- One type per page: each gets its own count, latency percentiles and errors in the report.
local HOME = luabench.stats.type("Home page")
local PRODUCT = luabench.stats.type("Product page")
local BUY = luabench.stats.type("Checkout")

local con
function thread_init()
  -- With --users this is a pooled connection: each statement runs on a physical connection the
  -- user holds until its event ends or it thinks.
  con = sysbench.sql.driver():connect()
end

-- Called in each user's coroutine before its first event: the session state lives in
-- luabench.user_data, one table per user.
function user_init(uid)
  luabench.user_data.page = "home"
end

local function think()
  local mean = sysbench.opt.think
  luabench.think(math.min(sysbench.rand.exp(mean), 10 * mean))
end

function event()
  local u = luabench.user_data
  if u.page == "home" then
    local t0 = HOME:start()
    con:query("SELECT id, name FROM journey_product ORDER BY id LIMIT 10")
    HOME:done(t0)
    u.viewed, u.page = 0, "product"
  elseif u.page == "product" then
    local t0 = PRODUCT:start()
    u.product = uniform(1, sysbench.opt.products)
    con:query_row("SELECT name, stock FROM journey_product WHERE id = " .. u.product)
    PRODUCT:done(t0)
    u.viewed = u.viewed + 1
    if u.viewed >= uniform(2, 5) then
      u.page = uniform(1, 4) == 1 and "buy" or "home"
    end
  else
    -- A transaction stays on one connection: it is held until the event ends, so never call
    -- luabench.think() between BEGIN and COMMIT.
    local t0 = BUY:start()
    con:query("BEGIN")
    con:query("UPDATE journey_product SET stock = stock - 1 WHERE id = " .. u.product)
    con:query(string.format("INSERT INTO journey_order VALUES (%d, %d, 1)", luabench.user, u.product))
    con:query("COMMIT")
    BUY:done(t0)
    u.page = "home"
  end
  think()
end

-- Printed at the end of the report.
function luabench.hooks.report_footer(stat)
  local buy, home = stat.types["Checkout"], stat.types["Home page"]
  if not (buy and home) or home.count == 0 then return nil end
  return string.format("Visits ending with a purchase: %.1f %%\n", 100 * buy.count / home.count)
end
