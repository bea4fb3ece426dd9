-- soe.common: what prepare, run and check share: the nine transactions with Swingbench's
-- short names and default weights, the options and their checks, the scale (row counts from
-- --scale), table and sequence names under --table-prefix, connections and the dialect, the
-- configuration table (integers: the scale, counters of committed work), and the names the
-- generator and the transactions both derive from a customer's number.
local workload = require("luabench.workload")

local M = {}

local fmt = string.format
local floor = math.floor

-- The transactions, in Swingbench's order: its short name (charbench's columns, -en/-di), the
-- statistics type (its transaction Id) and its weight in SOE_Server_Side_V2.xml. SQ, WQ and WA
-- ship with weight 2 but disabled there, so their default here is 0: --weights=SQ:2,WQ:2,WA:2
-- turns them on as Swingbench's -en SQ,WQ,WA does.
M.TXNS = {
  { code = "NCR", name = "Customer Registration", weight = 15 },
  { code = "UCD", name = "Update Customer Details", weight = 10 },
  { code = "BP", name = "Browse Products", weight = 50 },
  { code = "OP", name = "Order Products", weight = 40 },
  { code = "PO", name = "Process Orders", weight = 5 },
  { code = "BO", name = "Browse Orders", weight = 5 },
  { code = "SQ", name = "Sales Rep Query", weight = 0 },
  { code = "WQ", name = "Warehouse Query", weight = 0 },
  { code = "WA", name = "Warehouse Activity Query", weight = 0 },
}
M.NCR, M.UCD, M.BP, M.OP, M.PO, M.BO, M.SQ, M.WQ, M.WA = 1, 2, 3, 4, 5, 6, 7, 8, 9

M.TABLES = { "customers", "addresses", "card_details", "warehouses", "inventories",
  "product_information", "product_descriptions", "orders", "order_items", "logon" }
M.SEQUENCES = { "customer_seq", "address_seq", "card_details_seq", "orders_seq", "logon_seq" }

-- Swingbench's value ranges (OrderEntryProcess): products 1..1000 in categories 1..199,
-- account managers 145..171, credit limits 1000..50000, 2..6 products bought, house numbers.
M.PRODUCTS = 1000
M.CATEGORIES = 199
M.MAX_BROWSE = 24
M.MIN_SALES_ID, M.MAX_SALES_ID = 145, 171
M.MIN_CREDIT, M.MAX_CREDIT = 1000, 50000
M.MIN_BUY, M.MAX_BUY = 2, 6
M.HOUSE_NO_RANGE = 200
M.AWAITING_PROCESSING, M.ORDER_PROCESSED = 4, 10
M.SALES_REPS = 1000  -- the range Sales Rep Query draws from (and the loader's sales_rep_id)

M.options = {
  scale = { "prepare: size of the schema; 1 is about Swingbench's scale 1 (1 GB: 1,000,000 customers, 1,430,000 orders); fractions allowed", 1, sysbench.cmdline.ARG_DOUBLE },
  weights = { "Transaction mix as NAME:N,... over the defaults (NCR:15, UCD:10, BP:50, OP:40, PO:5, BO:5, SQ:0, WQ:0, WA:0); NAME is Swingbench's short name or the transaction's name", "" },
  ["inter-min"] = { "Think time between transactions: minimum in milliseconds (Swingbench InterMinDelay)", 0, sysbench.cmdline.ARG_INT },
  ["inter-max"] = { "Think time between transactions: maximum in milliseconds (Swingbench InterMaxDelay)", 0, sysbench.cmdline.ARG_INT },
  ["intra-min"] = { "Think time between the steps of a transaction: minimum in milliseconds, part of its response time (Swingbench MinDelay)", 0, sysbench.cmdline.ARG_INT },
  ["intra-max"] = { "Think time between the steps of a transaction: maximum in milliseconds (Swingbench MaxDelay)", 0, sysbench.cmdline.ARG_INT },
  ["table-prefix"] = { "Prefix of every table and sequence name (to keep several schemas in one database)", "" },
  ["generate-dir"] = { "generate: the directory the table files go to (<table>.<thread>.tsv, COPY's text format)", "" },
}

local fail = workload.fail
M.fail = fail

-- A transaction's index from its short name or name (case, spaces, '_' and '-' ignored).
local function squash(s) return (s:lower():gsub("[%s_%-]", "")) end
local BY_NAME = {}
for i, t in ipairs(M.TXNS) do
  BY_NAME[squash(t.code)] = i
  BY_NAME[squash(t.name)] = i
end

-- --weights: the defaults with the pairs given replacing theirs. Weights are integers >= 0,
-- adding up to 1 .. 100000 (the mix chooser deals them from a deck).
function M.parse_weights(text)
  local w = {}
  for i, t in ipairs(M.TXNS) do w[i] = t.weight end
  text = tostring(text or "")
  for item in text:gmatch("[^,]+") do
    local name, n = item:match("^%s*(.-)%s*:%s*(%S+)%s*$")
    local k = name and BY_NAME[squash(name)]
    if not k then
      local codes = {}
      for _, t in ipairs(M.TXNS) do codes[#codes + 1] = t.code end
      fail("invalid --weights item '%s' (expected NAME:N with NAME one of %s)", item, table.concat(codes, ", "))
    end
    local v = tonumber(n)
    if not v or v < 0 or v ~= floor(v) then
      fail("invalid --weights item '%s' (the weight is an integer >= 0)", item)
    end
    w[k] = v
  end
  local total = 0
  for _, v in ipairs(w) do total = total + v end
  if total <= 0 or total > 100000 then
    fail("invalid --weights value '%s' (the weights must add up to 1 .. 100000, not %d)", text, total)
  end
  return w, total
end

local function ms(name, v)
  if type(v) ~= "number" or v < 0 or v ~= floor(v) then
    fail("invalid --%s value '%s' (milliseconds, an integer >= 0)", name, tostring(v))
  end
  return v
end

-- The options, checked once per Lua state. Errors are one line, without a traceback.
function M.settings()
  if M.s then return M.s end
  local opt = sysbench.opt
  local s = {}
  s.scale = tonumber(opt.scale)
  if not s.scale or s.scale <= 0 or s.scale > 100000 then
    fail("invalid --scale value '%s' (a number > 0: 1 is about Swingbench's 1 GB, 0.01 about 10 MB)", tostring(opt.scale))
  end
  s.weights, s.weight_total = M.parse_weights(opt.weights)
  s.inter_min, s.inter_max = ms("inter-min", opt.inter_min), ms("inter-max", opt.inter_max)
  s.intra_min, s.intra_max = ms("intra-min", opt.intra_min), ms("intra-max", opt.intra_max)
  if s.inter_max < s.inter_min then
    fail("--inter-max=%d is less than --inter-min=%d", s.inter_max, s.inter_min)
  end
  if s.intra_max < s.intra_min then
    fail("--intra-max=%d is less than --intra-min=%d", s.intra_max, s.intra_min)
  end
  s.threads = opt.threads
  s.users = (tonumber(opt.users) or 0) > 0 and tonumber(opt.users) or s.threads
  s.logon = tostring(opt.logon or "once")
  s.prefix = opt.table_prefix or ""
  s.t = workload.tables(s.prefix, M.TABLES, "soe_config")
  s.seq = {}
  for _, name in ipairs(M.SEQUENCES) do s.seq[name] = s.prefix .. name end
  M.s = s
  return s
end

-- Row counts at a scale: Swingbench's scale 1 holds 1,000,000 customers, 1,500,000 addresses and
-- cards, 1,429,790 orders of about 5 items, 1000 products in 1000 warehouses (900,260
-- inventories). Below scale 1 the warehouses shrink with it (at least 10), so that a small
-- schema keeps Swingbench's inventory rows per warehouse.
function M.scale(scale)
  local c = {}
  c.customers = math.max(10, floor(1000000 * scale + 0.5))
  c.products = M.PRODUCTS
  c.warehouses = math.max(10, math.min(1000, floor(1000 * scale + 0.5)))
  return c
end

-- A customer's addresses, cards and orders at load: numbers in [first, last] derived from the
-- customer's number, so that any thread generates any customer's rows (1 or 2 addresses and
-- cards each, 1.5 on average; 1 or 2 orders, 1.43 on average).
function M.range(per, c)
  return floor(per * (c - 1)) + 1, floor(per * c)
end
M.ADDRESSES_PER, M.CARDS_PER, M.ORDERS_PER = 1.5, 1.5, 1.43

-- Customer names: lower case (Swingbench's name files are), two syllables for the first name
-- and three for the last, distinct for the first 3,200,000 customers. Customer k is loaded with
-- first_name(k) and last_name(k); Update Customer Details draws a loaded number and searches
-- for that name, so it finds a customer at every scale.
local SYL = { "ba", "ke", "lo", "mi", "ra", "ten", "su", "vo", "da", "ny", "pe", "ri", "ga", "hol",
  "an", "ber", "co", "di", "el", "fa" }
local NS = #SYL
function M.first_name(k)
  return SYL[k % NS + 1] .. SYL[floor(k / NS) % NS + 1]
end
function M.last_name(k)
  local h = floor(k / (NS * NS))
  return SYL[h % NS + 1] .. SYL[floor(h / NS) % NS + 1] .. SYL[floor(h / (NS * NS)) % NS + 1]
end

-- Warm-up: statistics start after --warmup-time and after the users' ramp-up.
M.measured_from = workload.measured_from

-- Connections -----------------------------------------------------------------------------------

local wl = workload.new("soe")
M.driver, M.dialect, M.open, M.connect = wl.driver, wl.dialect, wl.open, wl.connect
M.rows = workload.rows
M.table_exists = require("luabench.prepare").table_exists

-- The configuration table (cfg_name, cfg_value BIGINT): the scale and counts written by prepare,
-- the counters of committed work added by each run (atomically: processes started together
-- with --instance add theirs side by side).
function M.config_read(con)
  local cfg = {}
  for k, v in pairs(workload.config_read(con, M.settings().t.config)) do cfg[k] = tonumber(v) end
  return cfg
end
function M.config_set(con, name, value) workload.config_set(con, M.settings().t.config, name, value) end
function M.config_add(con, name, delta)
  con:query(fmt("UPDATE %s SET cfg_value = cfg_value + %d WHERE cfg_name = '%s'", M.settings().t.config, delta, name))
end

-- The configuration of a completely prepared schema, or a one-line error.
function M.ready_config(con)
  local s = M.settings()
  if not M.table_exists(con, s.t.config) then
    fail("no soe schema here (table '%s' does not exist): run 'prepare' first", s.t.config)
  end
  local cfg = M.config_read(con)
  if cfg.ready ~= 1 then
    fail("the soe schema is not completely loaded (an interrupted prepare?): run 'cleanup', then 'prepare'")
  end
  return cfg
end

return M
