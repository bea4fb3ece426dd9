-- soe.gen: the data generator. The rows are cut into units (the catalog: warehouses, products
-- and their descriptions; inventories for a block of products; a block of customers with their
-- addresses, cards, orders and order items), and each unit draws from a random stream of its
-- own seeded from (table, unit). Which thread makes a unit, and in what order, changes nothing:
-- a scale gives the same rows for any --threads. Dates count from a fixed day, not from today.
--
-- Rows come out as text for COPY (tab-separated, \N for NULL) or for a multi-row INSERT
-- ("(1,'x',NULL)"); no generated string holds a quote, tab or backslash.
local common = require("soe.common")
local schema = require("soe.schema")

local M = {}

local floor = math.floor
local fmt = string.format

M.CUSTOMERS_PER_UNIT = 1000
M.PRODUCTS_PER_UNIT = 100

-- The stream: Park and Miller's minimal standard generator with multiplier 48271, exact in
-- doubles. seed() starts the stream of (table, unit).
local MOD = 2147483647
local S = 1

local function seed(table_id, unit)
  local s = (table_id * 7919 + unit * 104729 + 12345) % MOD
  for _ = 1, 4 do s = (s * 48271 + unit % 65536 + table_id) % MOD end
  S = s == 0 and 1 or s
end
M.seed = seed

-- A uniform integer in [lo, hi].
local function rnd(lo, hi)
  S = S * 48271 % MOD
  return lo + floor(S / MOD * (hi - lo + 1))
end
M.rnd = rnd

local function pick(list) return list[rnd(1, #list)] end

local T_CATALOG, T_INVENTORY, T_CUSTOMERS = 1, 2, 3

-- Dates: day numbers counted back from 2025-01-01 (day 0), as 'YYYY-MM-DD'.
local BASE = os.time({ year = 2025, month = 1, day = 1, hour = 12 })
local day_text = {}
local function day(n)
  local t = day_text[n]
  if not t then
    t = os.date("%Y-%m-%d", BASE - n * 86400)
    day_text[n] = t
  end
  return t
end
M.day = day

-- Row formats per table, from the schema's column kinds: COPY's text format or an INSERT tuple.
local formats = {}
local function format_of(name, copy)
  local key = name .. (copy and "/copy" or "/insert")
  local f = formats[key]
  if f then return f end
  local parts = {}
  for i, c in ipairs(schema.COLUMNS[name]) do
    local k = c[3]
    if copy then
      parts[i] = k == "d" and "%d" or k == "N" and "\\N" or "%s"
    else
      parts[i] = k == "d" and "%d" or k == "x" and "%s" or k == "N" and "NULL" or "'%s'"
    end
  end
  f = copy and table.concat(parts, "\t") or "(" .. table.concat(parts, ",") .. ")"
  formats[key] = f
  return f
end
M.format_of = format_of

local function money(cents) return fmt("%d.%02d", floor(cents / 100), cents % 100) end
M.money = money

-- Word lists for the text columns.
local WORDS = { "alpha", "delta", "prime", "nova", "compact", "digital", "wireless", "classic",
  "smart", "ultra", "home", "office", "travel", "studio", "outdoor", "premium", "basic", "pro",
  "mini", "max", "light", "heavy", "rapid", "silent" }
local TOWNS = { "reading", "bristol", "leeds", "york", "bath", "oxford", "cambridge", "exeter",
  "chester", "durham", "norwich", "lincoln", "salisbury", "wells", "ely", "truro" }
local COUNTIES = { "berkshire", "devon", "kent", "essex", "surrey", "norfolk", "suffolk", "dorset",
  "cornwall", "somerset", "cumbria", "durham" }
local COUNTRIES = { "united kingdom", "united states", "germany", "france", "spain", "italy",
  "netherlands", "canada", "australia", "japan" }
local NLS = { { "us", "AMERICA" }, { "gb", "UNITED KINGDOM" }, { "d", "GERMANY" }, { "f", "FRANCE" },
  { "e", "SPAIN" }, { "i", "ITALY" }, { "nl", "THE NETHERLANDS" }, { "ja", "JAPAN" } }
local CLASSES = { "Occasional", "Regular", "Business", "Prime" }
local SUGGESTIONS = { "Music", "Books", "Electronics", "Sports", "Garden", "Toys" }
local CARD_TYPES = { "Visa (Debit)", "Visa (Credit)", "Mastercard", "American Express" }
local STATUSES = { "orderable", "planned", "development", "obsolete" }
local DELIVERY = { "Standard", "Express", "Collection" }
local WAIT = { "ship_asap", "ship_when_all" }
local MODES = { "direct", "online" }
local LANGUAGES = { "US", "GB", "D" }
M.TOWNS, M.COUNTIES, M.COUNTRIES, M.NLS, M.CARD_TYPES = TOWNS, COUNTIES, COUNTRIES, NLS, CARD_TYPES

local function words(n)
  local w = {}
  for i = 1, n do w[i] = pick(WORDS) end
  return table.concat(w, " ")
end

-- A product's price in cents: its list price, which order items are sold at. The same for
-- every caller (the product's own stream), so each thread can make the table of them.
local prices
function M.prices()
  if prices then return prices end
  prices = {}
  for p = 1, common.PRODUCTS do
    seed(T_CATALOG, p)
    prices[p] = rnd(500, 250000)
  end
  return prices
end

-- The catalog: warehouses, products (in categories 1..199), one description per product and
-- language. out[table] receives the rows.
function M.catalog(c, out, copy)
  local f = format_of("warehouses", copy)
  local rows = out.warehouses
  for w = 1, c.warehouses do
    seed(T_CATALOG, 100000 + w)
    rows[#rows + 1] = fmt(f, w, "warehouse number " .. w, rnd(1, 9999))
  end
  local price = M.prices()
  local fp, fd = format_of("product_information", copy), format_of("product_descriptions", copy)
  for p = 1, c.products do
    local list = price[p]
    seed(T_CATALOG, 200000 + p)
    local name = words(2) .. " " .. p
    out.product_information[#out.product_information + 1] = fmt(fp, p, name, words(12), rnd(1, common.CATEGORIES),
      rnd(1, 5), rnd(0, 36), rnd(100, 999), pick(STATUSES), money(list), money(floor(list * rnd(70, 95) / 100)),
      "http://www.example.com/p/" .. p)
    for _, lang in ipairs(LANGUAGES) do
      out.product_descriptions[#out.product_descriptions + 1] = fmt(fd, p, lang, name .. " " .. lang:lower(), words(10))
    end
  end
end

-- Inventories of products [lo, hi]: each product is stocked in about 90 % of the warehouses.
function M.inventories(c, unit, out, copy)
  local f = format_of("inventories", copy)
  local rows = out.inventories
  local lo = unit * M.PRODUCTS_PER_UNIT + 1
  local hi = math.min(c.products, lo + M.PRODUCTS_PER_UNIT - 1)
  seed(T_INVENTORY, unit)
  for p = lo, hi do
    for w = 1, c.warehouses do
      if rnd(1, 10) <= 9 then rows[#rows + 1] = fmt(f, p, w, rnd(100, 1000)) end
    end
  end
end

-- Customers of block `unit` with their addresses, cards, orders and order items. Every order's
-- total is the sum of its items (unit price x quantity).
function M.customers(c, unit, out, copy)
  local lo = unit * M.CUSTOMERS_PER_UNIT + 1
  local hi = math.min(c.customers, lo + M.CUSTOMERS_PER_UNIT - 1)
  local price = M.prices()
  local fc, fa, fk = format_of("customers", copy), format_of("addresses", copy), format_of("card_details", copy)
  local fo, fi = format_of("orders", copy), format_of("order_items", copy)
  local C, A, K, O, I = out.customers, out.addresses, out.card_details, out.orders, out.order_items
  local range = common.range
  seed(T_CUSTOMERS, unit)
  for k = lo, hi do
    local first, last = common.first_name(k), common.last_name(k)
    local a1, a2 = range(common.ADDRESSES_PER, k)
    local c1, c2 = range(common.CARDS_PER, k)
    local nls = pick(NLS)
    local class = pick(CLASSES)
    C[#C + 1] = fmt(fc, k, first, last, nls[1], nls[2], money(100 * rnd(common.MIN_CREDIT, common.MAX_CREDIT)),
      first .. "." .. last .. k .. "@example.com", rnd(common.MIN_SALES_ID, common.MAX_SALES_ID),
      day(rnd(1, 1460)), class, pick(SUGGESTIONS), day(rnd(18 * 365, 65 * 365)),
      rnd(0, 1) == 1 and "Y" or "N", rnd(0, 1) == 1 and "Y" or "N", a1, c1)
    for a = a1, a2 do
      A[#A + 1] = fmt(fa, a, k, day(rnd(1, 1460)), tostring(rnd(1, common.HOUSE_NO_RANGE)), "street " .. rnd(1, 500),
        pick(TOWNS), pick(COUNTIES), pick(COUNTRIES), "PC" .. rnd(1000, 9999))
    end
    for cd = c1, c2 do
      K[#K + 1] = fmt(fk, cd, k, pick(CARD_TYPES), rnd(1111111111, 2147483646), day(-rnd(30, 1460)), "Y", rnd(1111, 9999))
    end
    local o1, o2 = range(common.ORDERS_PER, k)
    for o = o1, o2 do
      local age = rnd(0, 5 * 365)
      local n = rnd(1, 9)
      local total = 0
      for line = 1, n do
        local p = rnd(1, common.PRODUCTS)
        local q = rnd(1, 3)
        total = total + price[p] * q
        I[#I + 1] = fmt(fi, o, line, p, money(price[p]), q, day(age - rnd(1, 10)), "None", "New", rnd(100, 999),
          day(age - rnd(3, 14)))
      end
      O[#O + 1] = fmt(fo, o, fmt("%s %02d:%02d:%02d", day(age), rnd(0, 23), rnd(0, 59), rnd(0, 59)), pick(MODES), k,
        rnd(0, common.ORDER_PROCESSED), money(total), rnd(1, common.SALES_REPS), rnd(1, 100), rnd(1, c.warehouses),
        pick(DELIVERY), rnd(1, 5), pick(WAIT), a1, class, c1, a1)
    end
  end
end

-- The units of a load at row counts c: { kind, number } (customer blocks first: the bulk).
function M.units(c)
  local list = {}
  for u = 0, floor((c.customers - 1) / M.CUSTOMERS_PER_UNIT) do list[#list + 1] = { "customers", u } end
  for u = 0, floor((c.products - 1) / M.PRODUCTS_PER_UNIT) do list[#list + 1] = { "inventories", u } end
  list[#list + 1] = { "catalog", 0 }
  return list
end

M.OUT_TABLES = {
  customers = { "customers", "addresses", "card_details", "orders", "order_items" },
  inventories = { "inventories" },
  catalog = { "warehouses", "product_information", "product_descriptions" },
}

-- The rows of one unit, by table.
function M.unit(c, u, copy)
  local out = {}
  for _, t in ipairs(M.OUT_TABLES[u[1]]) do out[t] = {} end
  if u[1] == "customers" then M.customers(c, u[2], out, copy)
  elseif u[1] == "inventories" then M.inventories(c, u[2], out, copy)
  else M.catalog(c, out, copy) end
  return out
end

-- The rows a load makes (order items estimated: 5 per order), for progress and ETA; and the
-- largest keys it gives (the sequences start above them).
function M.expected_rows(c)
  local orders = floor(common.ORDERS_PER * c.customers)
  return c.customers + 2 * floor(common.ADDRESSES_PER * c.customers) + 6 * orders +
    floor(0.9 * c.products * c.warehouses) + c.warehouses + 4 * c.products
end

function M.max_keys(c)
  return {
    customer_seq = c.customers, address_seq = floor(common.ADDRESSES_PER * c.customers),
    card_details_seq = floor(common.CARDS_PER * c.customers), orders_seq = floor(common.ORDERS_PER * c.customers),
    logon_seq = 0,
  }
end

return M
