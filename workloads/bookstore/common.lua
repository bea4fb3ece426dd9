-- bookstore.common: the constants of the TPC-W model (interactions, mixes, Customer Behavior
-- Graph, response-time limits, subjects, backings, ...), its random functions (DigSyl, NURand
-- without a C constant, think time, USMD), the settings read from the options, table names with
-- the optional prefix, the SQL the interactions build on the server's dialect, and the
-- workload's small configuration table (scale and counters kept in the database).
local workload = require("luabench.workload")

local M = {}

local rand = sysbench.rand
local uniform = rand.uniform
local fmt = string.format
local bor = bit.bor

-- Interactions -----------------------------------------------------------------------------------

-- Index, short code (as in DBT-1's logs), name (the statistics type), target % per mix
-- (browsing, shopping, ordering; TPC-W clause 5.2.1) and the 90th-percentile response-time limit
-- in seconds (TPC-W v1.8 clause 5.1.1.5, recalled; see doc/workloads/bookstore.md).
M.HOME, M.NEWP, M.BESS, M.PROD, M.SREQ, M.SRES, M.SHOP = 1, 2, 3, 4, 5, 6, 7
M.CREG, M.BUYR, M.BUYC, M.ORDI, M.ORDD, M.ADMR, M.ADMC = 8, 9, 10, 11, 12, 13, 14

M.INTERACTIONS = {
  { code = "HO", name = "Home",                  target = { 29.00, 16.00, 9.12 },  limit = 3 },
  { code = "NP", name = "New Products",          target = { 11.00, 5.00, 0.46 },   limit = 5 },
  { code = "BS", name = "Best Sellers",          target = { 11.00, 5.00, 0.46 },   limit = 5 },
  { code = "PD", name = "Product Detail",        target = { 21.00, 17.00, 12.35 }, limit = 3 },
  { code = "SR", name = "Search Request",        target = { 12.00, 20.00, 14.53 }, limit = 3 },
  { code = "SU", name = "Search Results",        target = { 11.00, 17.00, 13.08 }, limit = 10 },
  { code = "SC", name = "Shopping Cart",         target = { 2.00, 11.60, 13.53 },  limit = 3 },
  { code = "CR", name = "Customer Registration", target = { 0.82, 3.00, 12.86 },   limit = 3 },
  { code = "BR", name = "Buy Request",           target = { 0.75, 2.60, 12.73 },   limit = 3 },
  { code = "BC", name = "Buy Confirm",           target = { 0.69, 1.20, 10.18 },   limit = 5 },
  { code = "OI", name = "Order Inquiry",         target = { 0.30, 0.75, 0.25 },    limit = 3 },
  { code = "OD", name = "Order Display",         target = { 0.25, 0.66, 0.22 },    limit = 3 },
  { code = "AR", name = "Admin Request",         target = { 0.10, 0.10, 0.12 },    limit = 3 },
  { code = "AC", name = "Admin Confirm",         target = { 0.09, 0.09, 0.11 },    limit = 20 },
}

M.MIXES = { browsing = 1, shopping = 2, ordering = 3 }
M.MIX_NAMES = { "browsing", "shopping", "ordering" }

-- The Customer Behavior Graph (TPC-W clause 5.2.2.4): for each mix and each interaction, the
-- possible next interactions with cumulative thresholds out of 9999; the next one is the first
-- whose threshold is >= a uniform draw in [1, 9999]. Transcribed from the reference notes'
-- table, which checks each matrix against the mix by its stationary distribution.
local H, NP, BS, PD, SR, SU, SC = 1, 2, 3, 4, 5, 6, 7
local CR, BR, BC, OI, OD, AR, AC = 8, 9, 10, 11, 12, 13, 14
M.CBMG = {
  { -- browsing
    [AC] = { H, 9877, SR, 9999 },
    [AR] = { AC, 8999, H, 9999 },
    [BS] = { H, 4607, PD, 5259, SR, 9942, SC, 9999 },
    [BC] = { H, 342, SR, 9999 },
    [BR] = { BC, 9199, H, 9595, SC, 9999 },
    [CR] = { BR, 9145, H, 9619, SR, 9999 },
    [H]  = { BS, 3792, NP, 7585, OI, 7688, SR, 9559, SC, 9999 },
    [NP] = { H, 299, PD, 9867, SR, 9941, SC, 9999 },
    [OD] = { H, 802, SR, 9999 },
    [OI] = { H, 523, OD, 8856, SR, 9999 },
    [PD] = { AR, 47, H, 8346, PD, 9749, SR, 9890, SC, 9999 },
    [SR] = { H, 788, SU, 9955, SC, 9999 },
    [SU] = { H, 3674, PD, 9868, SR, 9942, SC, 9999 },
    [SC] = { CR, 4099, H, 8883, SC, 9999 },
  },
  { -- shopping
    [AC] = { H, 9952, SR, 9999 },
    [AR] = { AC, 8999, H, 9999 },
    [BS] = { H, 167, PD, 472, SR, 9927, SC, 9999 },
    [BC] = { H, 84, SR, 9999 },
    [BR] = { BC, 4614, H, 6545, SC, 9999 },
    [CR] = { BR, 8666, H, 8760, SR, 9999 },
    [H]  = { BS, 3124, NP, 6249, OI, 6718, SR, 7026, SC, 9999 },
    [NP] = { H, 156, PD, 9735, SR, 9784, SC, 9999 },
    [OD] = { H, 69, SR, 9999 },
    [OI] = { H, 72, OD, 8872, SR, 9999 },
    [PD] = { AR, 58, H, 832, PD, 1288, SR, 8603, SC, 9999 },
    [SR] = { H, 635, SU, 9135, SC, 9999 },
    [SU] = { H, 2657, PD, 9294, SR, 9304, SC, 9999 },
    [SC] = { CR, 2585, H, 9552, SC, 9999 },
  },
  { -- ordering
    [AC] = { H, 8348, SR, 9999 },
    [AR] = { AC, 8999, H, 9999 },
    [BS] = { H, 1, PD, 333, SR, 9998, SC, 9999 },
    [BC] = { H, 2, SR, 9999 },
    [BR] = { BC, 7999, H, 9453, SC, 9999 },
    [CR] = { BR, 9899, H, 9901, SR, 9999 },
    [H]  = { BS, 499, NP, 999, OI, 1269, SR, 1295, SC, 9999 },
    [NP] = { H, 504, PD, 9942, SR, 9976, SC, 9999 },
    [OD] = { H, 9939, SR, 9999 },
    [OI] = { H, 1168, OD, 9968, SR, 9999 },
    [PD] = { AR, 99, H, 3750, PD, 5621, SR, 6341, SC, 9999 },
    [SR] = { H, 815, SU, 9815, SC, 9999 },
    [SU] = { H, 486, PD, 7817, SR, 9998, SC, 9999 },
    [SC] = { CR, 9499, H, 9918, SC, 9999 },
  },
}

-- The interaction that follows `from` in mix m.
function M.next_interaction(m, from)
  local row = M.CBMG[m][from]
  local r = uniform(1, 9999)
  for k = 2, #row, 2 do
    if r <= row[k] then return row[k - 1] end
  end
  return row[#row - 1]
end

-- Population constants -----------------------------------------------------------------------

M.SUBJECTS = {
  "ARTS", "BIOGRAPHIES", "BUSINESS", "CHILDREN", "COMPUTERS", "COOKING", "HEALTH", "HISTORY",
  "HOME", "HUMOR", "LITERATURE", "MYSTERY", "NON-FICTION", "PARENTING", "POLITICS", "REFERENCE",
  "RELIGION", "ROMANCE", "SELF-HELP", "SCIENCE-NATURE", "SCIENCE-FICTION", "SPORTS", "YOUTH",
  "TRAVEL",
}
M.BACKINGS = { "HARDBACK", "PAPERBACK", "USED", "AUDIO", "LIMITED-EDITION" }
M.SHIP_TYPES = { "AIR", "UPS", "FEDEX", "SHIP", "COURIER", "MAIL" }
M.CARD_TYPES = { "VISA", "MASTERCARD", "DISCOVER", "AMEX", "DINERS" }
M.ORDER_STATUS = { "PROCESSING", "SHIPPED", "PENDING", "DENIED" }
M.ITEM_COUNTS = { [1000] = 63, [10000] = 511, [100000] = 4095, [1000000] = 32767, [10000000] = 524287 }
M.CUSTOMERS_PER_EB = 2880
M.BEST_SELLERS_WINDOW = 3333   -- most recent orders aggregated by Best Sellers
M.RELATED_WINDOW = 10000       -- most recent orders Admin Confirm looks at
M.MAX_CART_LINES = 20          -- as DBT-1 (TPC-W allows 100)
M.TAX = 0.0825

-- Random functions -------------------------------------------------------------------------------

local SYLLABLES = { [0] = "BA", "OG", "AL", "RI", "RE", "SE", "AT", "UL", "IN", "NG" }

-- DigSyl(d, n): each decimal digit of d as a syllable; n > 0 pads d to n digits with zeros.
function M.digsyl(d, n)
  local s = n and n > 0 and fmt("%0" .. n .. "d", d) or tostring(d)
  return (s:gsub("%d", function(c) return SYLLABLES[c:byte() - 48] end))
end

-- TPC-W's NURand: no run-time constant, unlike TPC-C's.
function M.nurand(A, x, y)
  return bor(uniform(0, A), uniform(x, y)) % (y - x + 1) + x
end

-- A for customer ids, by the number of customers (clause 2.1.3).
function M.customer_a(ncust)
  local bounds = { 10000, 40000, 160000, 640000, 2560000, 10240000, 40960000, 163840000 }
  local a = { 1023, 4095, 16383, 65535, 262143, 1048575, 4194303, 16777215 }
  for i, b in ipairs(bounds) do
    if ncust < b then return a[i] end
  end
  return 67108863
end

-- Search strings (clause 2.10.5.1): an author token matches ~2.5 authors, a title token ~5 items.
function M.author_token(items)
  return M.digsyl(M.nurand(M.ITEM_COUNTS[items], 1, math.floor(items / 10)), 7)
end

function M.title_token(items)
  return M.digsyl(M.nurand(M.ITEM_COUNTS[items], 1, math.floor(items / 5)), 7)
end

-- Money in integer cents, written as SQL numerics: exact sums and equalities.
function M.cents(s)
  local neg, i, f = tostring(s):match("^(%-?)(%d*)%.?(%d*)")
  local v = tonumber(i ~= "" and i or "0") * 100 + tonumber(((f or "") .. "00"):sub(1, 2))
  return neg == "-" and -v or v
end

function M.money(c)
  local neg = c < 0 and "-" or ""
  c = math.abs(c)
  return fmt("%s%d.%02d", neg, math.floor(c / 100), c % 100)
end

-- Settings ---------------------------------------------------------------------------------------

M.options = {
  items = { "Number of items: 1000, 10000, 100000, 1000000 or 10000000 (TPC-W scale)", 10000, sysbench.cmdline.ARG_INT },
  ebs = { "Number of emulated browsers the database is sized for: 2880 customers each", 10, sysbench.cmdline.ARG_INT },
  mix = { "Interaction mix: browsing, shopping or ordering", "shopping" },
  ["think-time"] = { "Mean think time in seconds (negative exponential, capped at 10 times the mean); 0 = closed loop, no think time", 7, sysbench.cmdline.ARG_DOUBLE },
  usmd = { "Mean user session minimum duration in seconds (negative exponential, capped at 4 times the mean)", 900, sysbench.cmdline.ARG_DOUBLE },
  ["table-prefix"] = { "Prefix of every table name (to keep several schemas in one database)", "" },
}

local fail = workload.fail
M.fail = fail

M.TABLES = { "country", "author", "item", "customer", "address", "orders", "order_line",
  "cc_xacts", "shopping_cart", "shopping_cart_line" }

local settings
function M.settings()
  if settings then return settings end
  local opt = sysbench.opt
  local s = { prefix = opt.table_prefix or "" }
  s.t = workload.tables(s.prefix, M.TABLES, "bookstore_config")
  s.mix = M.MIXES[tostring(opt.mix)]
  if not s.mix then fail("invalid --mix value '%s' (browsing, shopping or ordering)", tostring(opt.mix)) end
  s.mix_name = M.MIX_NAMES[s.mix]
  s.think = tonumber(opt.think_time)
  if not s.think or s.think < 0 then fail("invalid --think-time value '%s' (seconds >= 0)", tostring(opt.think_time)) end
  s.usmd = tonumber(opt.usmd)
  if not s.usmd or s.usmd < 0 then fail("invalid --usmd value '%s' (seconds >= 0)", tostring(opt.usmd)) end
  s.items = tonumber(opt.items)
  if not M.ITEM_COUNTS[s.items] then
    fail("invalid --items value '%s': TPC-W's scales are 1000, 10000, 100000, 1000000 and 10000000", tostring(opt.items))
  end
  s.ebs = tonumber(opt.ebs)
  if not s.ebs or s.ebs < 1 or s.ebs ~= math.floor(s.ebs) then fail("invalid --ebs value '%s' (an integer >= 1)", tostring(opt.ebs)) end
  s.threads = opt.threads
  settings = s
  return s
end

-- The scale of a population: row counts and id ranges.
function M.scale(items, ebs)
  local c = { items = items, ebs = ebs }
  c.authors = math.floor(items / 4)
  c.customers = M.CUSTOMERS_PER_EB * ebs
  c.addresses = 2 * c.customers
  c.orders = math.floor(c.customers * 9 / 10)
  c.countries = 92
  return c
end

-- Warm-up: statistics start after --warmup-time and after the users' ramp-up, whichever is later.
M.measured_from = workload.measured_from

-- SQL dialects -----------------------------------------------------------------------------------

local wl = workload.new("bookstore")
M.driver, M.dialect, M.open, M.session = wl.driver, wl.dialect, wl.open, wl.session
M.rows = workload.rows

-- A string literal (our generated text has no quotes, but titles travel back from the database).
function M.lit(v) return M.dialect().lit(v) end

-- INSERT that returns the new row's generated key (sequences start above the loaded rows, see
-- schema.lua).
function M.insert_id(con, sql, key) return M.dialect().insert_id(con, sql, key) end

M.table_exists = require("luabench.prepare").table_exists

-- The configuration table: name -> integer (scale, loaded maxima, counters of committed work).
function M.config_read(con)
  local s = M.settings()
  if not M.table_exists(con, s.t.config) then
    fail("no bookstore schema here (table '%s' does not exist): run 'prepare' first", s.t.config)
  end
  local cfg = {}
  for _, r in ipairs(M.rows(con, "SELECT name, value FROM " .. s.t.config)) do
    cfg[r[1]] = tonumber(r[2])
  end
  return cfg
end

function M.config_set(con, name, value)
  local s = M.settings()
  con:query(fmt("DELETE FROM %s WHERE name = '%s'", s.t.config, name))
  con:query(fmt("INSERT INTO %s (name, value) VALUES ('%s', %d)", s.t.config, name, value))
end

function M.config_add(con, name, delta)
  local s = M.settings()
  con:query(fmt("UPDATE %s SET value = value + %d WHERE name = '%s'", s.t.config, delta, name))
end

return M
