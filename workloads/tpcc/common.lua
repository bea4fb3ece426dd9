-- tpcc.common: what prepare, run and check share: validated settings, table names, the
-- configuration table, connections, and the spec's random-value rules (NURand with stored C
-- constants, last-name syllables, a-strings and n-strings).
local ffi = require("ffi")
local bit = require("bit")
local workload = require("luabench.workload")

local M = {}

-- Fixed cardinalities (TPC-C clause 1.4 / 4.3).
M.DISTRICTS = 10      -- per warehouse
M.CUSTOMERS = 3000    -- per district
M.ITEMS = 100000
M.ORDERS = 3000       -- per district, at load
M.FIRST_UNDELIVERED = 2101  -- orders 2101..3000 of each district are in NEW_ORDER at load

-- Dependency order: children first (the order DROP TABLE needs when foreign keys exist).
M.TABLES = { "order_line", "new_order", "orders", "history", "customer", "district", "stock",
  "item", "warehouse" }

M.TYPES = { "NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel" }
-- 90th-percentile response-time limits in seconds (clause 5.2.5.3). Delivery runs synchronously
-- here, so it is held to the 80 s limit of the deferred part.
M.LIMITS = { NewOrder = 5, Payment = 5, OrderStatus = 5, Delivery = 80, StockLevel = 20 }
-- Keying time (fixed) and mean think time in seconds (clause 5.2.5.7).
M.KEYING = { NewOrder = 18, Payment = 3, OrderStatus = 2, Delivery = 2, StockLevel = 2 }
M.THINK = { NewOrder = 12, Payment = 12, OrderStatus = 10, Delivery = 5, StockLevel = 5 }

M.options = {
  warehouses = { "Number of warehouses. prepare: how many to load (0 = 1); run: drive warehouses 1..N of those loaded (0 = all)", 0, sysbench.cmdline.ARG_INT },
  weights = { "Transaction mix as weights of NewOrder,Payment,OrderStatus,Delivery,StockLevel (the spec's minimums: Payment 43%, the other three 4% each)", "45,43,4,4,4" },
  wait = { "Spec keying and think times (negative-exponential think, capped at 10x the mean) with 10 terminals per warehouse: --users = 10 x warehouses (emulated users over a few --threads) or --threads = 10 x warehouses", false },
  ["wait-factor"] = { "Multiply keying and think times by this factor (1 = the spec; anything else is not TPC-C timing)", 1.0 },
  isolation = { "Transaction isolation level: default (the server's), RC, RR or SER", "default" },
  procedures = { "Run each transaction as one stored procedure call (PL/pgSQL function, MySQL procedure); off: one client-side statement per step. Default: on where tpcc has procedures for the server (PostgreSQL, MySQL/MariaDB), off elsewhere (SQLite, DuckDB, other ODBC servers)", true },
  pipeline = { "With --procedures=off on PostgreSQL: send the independent statements of OrderStatus and StockLevel as pipelines (2-3 round trips instead of 4-6; a different client from the spec's statement per step)", false },
  ["use-fk"] = { "prepare: create the foreign keys of the schema", false },
  ["new-order-remote-pct"] = { "Percentage of NewOrder lines supplied by another warehouse (when there are 2 or more)", 1 },
  ["payment-remote-pct"] = { "Percentage of Payments for a customer of another warehouse (when there are 2 or more)", 15 },
  ["rollback-pct"] = { "Percentage of NewOrders whose last line has an unused item number and roll back", 1 },
  ["by-name-pct"] = { "Percentage of Payments and OrderStatus that select the customer by last name", 60 },
  ["load-threads"] = { "prepare/check: threads that load (0 = all --threads; at most --threads)", 0, sysbench.cmdline.ARG_INT },
  ["table-prefix"] = { "Prefix of every table name (to keep several schemas in one database)", "" },
}

local fail = workload.fail
M.fail = fail

local function pct(name, v)
  if type(v) ~= "number" or v < 0 or v > 100 then
    fail("invalid --%s value '%s' (expected a percentage 0..100)", name:gsub("_", "-"), tostring(v))
  end
  return v
end

local ISOLATION = {
  default = false,
  rc = "READ COMMITTED", ["read-committed"] = "READ COMMITTED", ["read_committed"] = "READ COMMITTED",
  rr = "REPEATABLE READ", ["repeatable-read"] = "REPEATABLE READ", ["repeatable_read"] = "REPEATABLE READ",
  ser = "SERIALIZABLE", serializable = "SERIALIZABLE",
}

-- The options, checked once per Lua state. Errors are one line, without a traceback.
function M.settings()
  if M.s then return M.s end
  local opt = sysbench.opt
  local s = {}
  s.warehouses = opt.warehouses
  if s.warehouses ~= math.floor(s.warehouses) or s.warehouses < 0 or s.warehouses > 100000 then
    fail("invalid --warehouses value '%s' (expected 1..100000, or 0 for the default)", tostring(opt.warehouses))
  end
  local w = {}
  for x in tostring(opt.weights):gmatch("[^,]+") do
    local v = tonumber(x)
    if not v or v < 0 then fail("invalid --weights value '%s' (expected 5 numbers >= 0)", opt.weights) end
    w[#w + 1] = v
  end
  if #w ~= 5 then fail("invalid --weights value '%s' (expected 5 comma-separated weights: NewOrder,Payment,OrderStatus,Delivery,StockLevel)", opt.weights) end
  local total = w[1] + w[2] + w[3] + w[4] + w[5]
  if total <= 0 then fail("invalid --weights value '%s' (their sum must be positive)", opt.weights) end
  s.weights, s.weight_total = w, total
  s.wait = opt.wait
  s.wait_factor = opt.wait_factor
  if type(s.wait_factor) ~= "number" or s.wait_factor < 0 then
    fail("invalid --wait-factor value '%s' (expected a number >= 0)", tostring(opt.wait_factor))
  end
  local iso = ISOLATION[tostring(opt.isolation):lower()]
  if iso == nil then
    fail("invalid --isolation value '%s' (expected default, RC, RR or SER)", tostring(opt.isolation))
  end
  s.isolation = iso
  s.use_fk = opt.use_fk
  s.procedures = opt.procedures
  s.procedures_given = select(3, sysbench._option_text("procedures")) == true
  s.pipeline = opt.pipeline
  if s.pipeline and s.procedures and s.procedures_given then
    fail("--pipeline pipelines client-side statements: give --procedures=off too")
  end
  s.remote_line_pct = pct("new_order_remote_pct", opt.new_order_remote_pct)
  s.remote_payment_pct = pct("payment_remote_pct", opt.payment_remote_pct)
  s.rollback_pct = pct("rollback_pct", opt.rollback_pct)
  s.by_name_pct = pct("by_name_pct", opt.by_name_pct)
  s.threads = opt.threads
  -- Terminals: one per thread, or the emulated users (--users) spread over the threads.
  s.users = tonumber(opt.users) or 0
  s.terminals = s.users > 0 and s.users or s.threads
  s.load_threads = workload.load_threads(opt.load_threads, s.threads, "prepare and check")
  s.prefix = opt.table_prefix
  s.t = workload.tables(s.prefix, M.TABLES, "tpcc_config")
  M.s = s
  return s
end

-- Connections -----------------------------------------------------------------------------------

-- driver(), dialect(), connect() (with the isolation level of --isolation), session(con).
local wl = workload.new("tpcc", {
  session = function(con, d)
    local s = M.settings()
    if s.isolation then con:query(d.set_isolation(s.isolation)) end
  end,
})
M.driver, M.dialect, M.connect, M.session, M.open = wl.driver, wl.dialect, wl.connect, wl.session, wl.open

-- Whether the run's transactions are stored procedure calls, and why not when they are not by
-- default: --procedures as given (=on where tpcc has no procedures for the server fails in
-- tpcc.procs, naming --procedures=off); by default on where it has them, and off elsewhere (the
-- dialect has no stored routines, or none tpcc has texts for) or with --pipeline, which asks for
-- client-side statements. Returns on, reason (nil, or why the default is off).
function M.use_procedures()
  local s = M.settings()
  if s.procedures_on == nil then
    s.procedures_on = s.procedures
    if not s.procedures_given and s.procedures then
      local d = M.dialect()
      if s.pipeline then
        s.procedures_on = false
      elseif not require("tpcc.procs").available(d) then
        s.procedures_on = false
        s.procedures_off_why = string.format("the %s dialect has no stored procedures tpcc can use", d.name)
      end
    end
  end
  return s.procedures_on, s.procedures_off_why
end

-- Does table `name` exist in the connection's current schema / database?
M.table_exists = require("luabench.prepare").table_exists

-- The configuration table: name/value pairs written by prepare (schema settings, the NURand C
-- constants used at load, which load units and steps are done).
function M.config_read(con) return workload.config_read(con, M.settings().t.config) end
function M.config_set(con, name, value) workload.config_set(con, M.settings().t.config, name, value) end

-- The configuration of a completely prepared schema, or a one-line error.
function M.ready_config(con)
  return workload.ready_config(con, "tpcc", M.settings().t.config, "run 'prepare' again to finish it",
    { "warehouses", "c_last", "c_id", "ol_i_id" })
end

-- Random values ---------------------------------------------------------------------------------

local rand = sysbench.rand
local uniform = rand.uniform
M.uniform = uniform

-- NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x   (clause 2.1.6)
function M.nurand(A, x, y, c)
  return (bit.bor(uniform(0, A), uniform(x, y)) + c) % (y - x + 1) + x
end

-- C_LAST for a run: |C_run - C_load| in 65..119 and not 96 or 112 (clause 2.1.6.1).
function M.c_last_run(c_load)
  while true do
    local c = uniform(0, 255)
    local d = math.abs(c - c_load)
    if d >= 65 and d <= 119 and d ~= 96 and d ~= 112 then return c end
  end
end

local SYLLABLES = { "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING" }
-- LAST[n] for n = 0..999: the three syllables of n's digits (clause 4.3.2.3).
M.LAST = {}
for n = 0, 999 do
  M.LAST[n] = SYLLABLES[math.floor(n / 100) + 1] .. SYLLABLES[math.floor(n / 10) % 10 + 1] ..
    SYLLABLES[n % 10 + 1]
end

-- Random strings are cut from per-state pools of random characters: one random draw per string
-- instead of one per character, which keeps the loader fast.
local ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
local POOL = 1048576
local apool, npool

local function make_pool(alphabet, size)
  local buf = ffi.new("uint8_t[?]", size)
  local n = #alphabet
  local bytes = { alphabet:byte(1, n) }
  for i = 0, size - 1 do buf[i] = bytes[uniform(1, n)] end
  return ffi.string(buf, size)
end

-- a-string (random alphanumeric) of a random length in [min, max].
function M.astring(min, max)
  apool = apool or make_pool(ALNUM, POOL)
  local n = max > min and uniform(min, max) or min
  local off = uniform(1, POOL - n + 1)
  return apool:sub(off, off + n - 1)
end

-- n-string (random digits) of length n.
function M.nstring(n)
  npool = npool or make_pool("0123456789", 65536)
  local off = uniform(1, 65536 - n + 1)
  return npool:sub(off, off + n - 1)
end

-- I_DATA / S_DATA: a-string [26..50]; with `original`, "ORIGINAL" at a random position.
function M.data(original)
  if not original then return M.astring(26, 50) end
  local n = uniform(26, 50)
  local before = uniform(0, n - 8)
  return M.astring(before, before) .. "ORIGINAL" .. M.astring(n - 8 - before, n - 8 - before)
end

function M.zip()
  return M.nstring(4) .. "11111"
end

return M
