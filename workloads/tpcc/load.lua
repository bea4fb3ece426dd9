-- tpcc.load: the `prepare` command. Every thread runs it (a parallel command):
--   phase 0  thread 0 creates the schema, or checks a half-loaded one it can resume;
--   phase 1  threads claim load units from a shared ticket counter: 10 slices of ITEM, then one
--            unit per district (its customers, history, orders, order lines, new orders, a
--            tenth of its warehouse's stock, plus the warehouse row for district 1). Each unit
--            is one transaction that also records itself in the configuration table, so an
--            interrupted prepare resumes where it stopped and never leaves half a unit behind;
--   phase 2  threads claim the post-load work per table (primary keys on PostgreSQL, secondary
--            indexes, statistics);
--   phase 3  thread 0 adds the foreign keys (--use-fk) and marks the schema ready.
-- Thread 0 prints a progress line every 2 seconds. Rows go in through COPY on PostgreSQL and as
-- multi-row INSERTs on MySQL.
local ffi = require("ffi")
local C = ffi.C
local common = require("tpcc.common")
local schema = require("tpcc.schema")

local M = {}

local uniform = common.uniform
local astring, nstring, data, zip = common.astring, common.nstring, common.data, common.zip
local fmt = string.format

local ITEM_UNITS = 10
local ITEMS_PER_UNIT = common.ITEMS / ITEM_UNITS
local STOCK_PER_UNIT = common.ITEMS / common.DISTRICTS
-- Rows of a district unit, for the ETA: stock slice, customers, history, orders, ~10 lines per
-- order, new orders.
local ROWS_PER_DISTRICT_UNIT = STOCK_PER_UNIT + 3 * common.CUSTOMERS + 10 * common.ORDERS + 900

local s         -- settings
local con
local tid, nthreads
local sh = {}   -- shared state of the threads of this prepare
local ld        -- luabench.prepare: rows, phases and failure of all threads
local rows_pending = 0 -- rows generated since the last ld:add()

-- Shared state ----------------------------------------------------------------------------------

local function shared_init()
  -- [0] warehouses (-1: nothing to do), [1] C for C_LAST at load, [2] use_fk, [3] units already
  -- loaded by an earlier, interrupted prepare
  sh.info = luabench.shared("tpcc.load.info", "int64_t", 4)
end

local function nunits(w) return ITEM_UNITS + w * common.DISTRICTS end

local function unit_name(i)
  if i < ITEM_UNITS then return "load:item:" .. (i + 1) end
  local k = i - ITEM_UNITS
  return fmt("load:%d:%d", math.floor(k / common.DISTRICTS) + 1, k % common.DISTRICTS + 1)
end

local function units_shared(w)
  sh.done = luabench.shared("tpcc.load.done", "uint8_t", nunits(w))
end

-- Progress --------------------------------------------------------------------------------------

-- The progress line counts warehouses whose every district is loaded; the ETA comes from the
-- rows of the units still to do.
local function progress_line(_, rows, rate)
  local W = tonumber(sh.info[0])
  local wdone = 0
  for w = 1, W do
    local all = true
    for d = 1, common.DISTRICTS do
      if sh.done[ITEM_UNITS + (w - 1) * common.DISTRICTS + d - 1] == 0 then all = false break end
    end
    if all then wdone = wdone + 1 end
  end
  local todo = 0
  for i = 0, nunits(W) - 1 do
    if sh.done[i] == 0 then
      todo = todo + (i < ITEM_UNITS and ITEMS_PER_UNIT or ROWS_PER_DISTRICT_UNIT)
    end
  end
  return fmt("[ %.0fs ] %d/%d warehouses loaded, %d rows, %.0f rows/s, ETA %.0fs", ld:elapsed(), wdone, W,
    rows, rate, rate > 0 and todo / rate or 0)
end

-- Rows ------------------------------------------------------------------------------------------

-- COPY's text format takes a fraction of the server time a multi-row INSERT does. The generated
-- strings are alphanumeric, so a row pattern written for INSERT, "(%d,'%s',NULL)", converts
-- by dropping the parentheses and quotes and putting tabs between the fields.
local use_copy
local NULL = "NULL"
local copy_form = setmetatable({}, { __index = function(t, p)
  local c = p:gsub("^%(", ""):gsub("%)$", ""):gsub("'", ""):gsub(",", "\t"):gsub("NULL", "\\N")
  t[p] = c
  return c
end })
local function P(pattern) return use_copy and copy_form[pattern] or pattern end

local bulk -- the dialect's bulk insert when there is no COPY

local function insert_start(name)
  if use_copy then
    con:copy_init(fmt("COPY %s (%s) FROM STDIN", s.t[name], schema.columns(name)))
  else
    bulk = common.dialect().bulk_insert(con, fmt("INSERT INTO %s (%s) VALUES", s.t[name], schema.columns(name)))
  end
end

local function row(text)
  if use_copy then con:copy_next(text) else bulk:next(text) end
  rows_pending = rows_pending + 1
  if rows_pending == 2000 then
    ld:add(rows_pending)
    rows_pending = 0
  end
end

local function insert_done()
  if use_copy then con:copy_done() else bulk:done() end
  ld:add(rows_pending)
  rows_pending = 0
end

local function money(cents)
  return fmt("%d.%02d", math.floor(cents / 100), cents % 100)
end

local function rate4(v) -- 0.0000 .. 0.2000 or .5000
  return fmt("0.%04d", v)
end

-- One random member of every group of 10 consecutive numbers: exactly 10%, spread evenly.
local function every_tenth(first, count)
  local pick = {}
  for g = first, first + count - 1, 10 do pick[g + uniform(0, 9)] = true end
  return pick
end

local function load_items(k, now)
  local first = (k - 1) * ITEMS_PER_UNIT + 1
  local original = every_tenth(first, ITEMS_PER_UNIT)
  insert_start("item")
  for i = first, first + ITEMS_PER_UNIT - 1 do
    row(fmt(P"(%d,%d,'%s',%s,'%s')", i, uniform(1, 10000), astring(14, 24), money(uniform(100, 10000)),
      data(original[i])))
  end
  insert_done()
end

local function address()
  return fmt(P"'%s','%s','%s','%s','%s'", astring(10, 20), astring(10, 20), astring(10, 20),
    astring(2, 2), zip())
end

local function load_district(w, d, now)
  local c_last_load = tonumber(sh.info[1])
  local LAST = common.LAST
  local nurand = common.nurand
  if d == 1 then
    insert_start("warehouse")
    row(fmt(P"(%d,'%s',%s,%s,300000.00)", w, astring(6, 10), address(), rate4(uniform(0, 2000))))
    insert_done()
  end
  insert_start("district")
  row(fmt(P"(%d,%d,'%s',%s,%s,30000.00,%d)", d, w, astring(6, 10), address(), rate4(uniform(0, 2000)),
    common.ORDERS + 1))
  insert_done()

  -- A tenth of the warehouse's stock.
  local first = (d - 1) * STOCK_PER_UNIT + 1
  local original = every_tenth(first, STOCK_PER_UNIT)
  insert_start("stock")
  for i = first, first + STOCK_PER_UNIT - 1 do
    row(fmt(P"(%d,%d,%d,'%s','%s','%s','%s','%s','%s','%s','%s','%s','%s',0,0,0,'%s')", i, w,
      uniform(10, 100), astring(24, 24), astring(24, 24), astring(24, 24), astring(24, 24),
      astring(24, 24), astring(24, 24), astring(24, 24), astring(24, 24), astring(24, 24),
      astring(24, 24), data(original[i])))
  end
  insert_done()

  local bad_credit = every_tenth(1, common.CUSTOMERS)
  insert_start("customer")
  for c = 1, common.CUSTOMERS do
    local last = c <= 1000 and LAST[c - 1] or LAST[nurand(255, 0, 999, c_last_load)]
    row(fmt(P"(%d,%d,%d,'%s','OE','%s',%s,'%s','%s','%s',50000.00,%s,-10.00,10.00,1,0,'%s')",
      c, d, w, astring(8, 16), last, address(), nstring(16), now, bad_credit[c] and "BC" or "GC",
      rate4(uniform(0, 5000)), astring(300, 500)))
  end
  insert_done()

  insert_start("history")
  for c = 1, common.CUSTOMERS do
    row(fmt(P"(%d,%d,%d,%d,%d,'%s',10.00,'%s')", c, d, w, d, w, now, astring(12, 24)))
  end
  insert_done()

  -- Orders: customers in a random permutation; the first 2100 delivered.
  local perm = {}
  for i = 1, common.ORDERS do perm[i] = i end
  for i = common.ORDERS, 2, -1 do
    local j = uniform(1, i)
    perm[i], perm[j] = perm[j], perm[i]
  end
  local ol_cnt = {}
  insert_start("orders")
  for o = 1, common.ORDERS do
    local cnt = uniform(5, 15)
    ol_cnt[o] = cnt
    local delivered = o < common.FIRST_UNDELIVERED
    row(fmt(P"(%d,%d,%d,%d,'%s',%s,%d,1)", o, d, w, perm[o], now,
      delivered and tostring(uniform(1, 10)) or NULL, cnt))
  end
  insert_done()

  insert_start("order_line")
  for o = 1, common.ORDERS do
    local delivered = o < common.FIRST_UNDELIVERED
    for n = 1, ol_cnt[o] do
      if delivered then
        row(fmt(P"(%d,%d,%d,%d,%d,%d,'%s',5,0.00,'%s')", o, d, w, n, uniform(1, common.ITEMS), w, now,
          astring(24, 24)))
      else
        row(fmt(P"(%d,%d,%d,%d,%d,%d,NULL,5,%s,'%s')", o, d, w, n, uniform(1, common.ITEMS), w,
          money(uniform(1, 999999)), astring(24, 24)))
      end
    end
  end
  insert_done()

  insert_start("new_order")
  for o = common.FIRST_UNDELIVERED, common.ORDERS do
    row(fmt(P"(%d,%d,%d)", o, d, w))
  end
  insert_done()
end

local function load_unit(i, now)
  con:query(common.dialect().begin)
  if i < ITEM_UNITS then
    load_items(i + 1, now)
  else
    local k = i - ITEM_UNITS
    load_district(math.floor(k / common.DISTRICTS) + 1, k % common.DISTRICTS + 1, now)
  end
  con:query(fmt("INSERT INTO %s (cfg_name, cfg_value) VALUES ('%s', '1')", s.t.config, unit_name(i)))
  con:query(common.dialect().commit)
  sh.done[i] = 1
end

-- Phase 0 (thread 0): create the schema or accept a half-loaded one. Returns false when there is
-- nothing left to do.
local function setup()
  local W = s.warehouses > 0 and s.warehouses or 1
  local t = s.t
  local have_config = common.table_exists(con, t.config)
  -- The warehouse count is the configuration's last value, and no unit loads before it: a
  -- configuration without one is a prepare stopped while it created the schema, which holds no
  -- data yet. It is created again.
  if have_config and not tonumber(common.config_read(con).warehouses) then
    print("A prepare stopped while it created the tpcc schema: creating it again")
    schema.drop(con)
    have_config = false
  end
  if not have_config then
    for _, name in ipairs(common.TABLES) do
      if common.table_exists(con, t[name]) then
        common.fail("table '%s' exists but was not created by tpcc prepare (no table '%s'): drop it, or load beside it with --table-prefix", t[name], t.config)
      end
    end
    print(fmt("Creating the tpcc schema for %d warehouse%s...", W, W > 1 and "s" or ""))
    schema.create_config(con)
    local c_last = uniform(0, 255)
    common.config_set(con, "schema_version", 1)
    common.config_set(con, "use_fk", s.use_fk and 1 or 0)
    -- The NURand C constants (clause 2.1.6): C_LAST's is used by the load and constrains the one
    -- of every run; C_ID's and OL_I_ID's are used by every run.
    common.config_set(con, "c_last", c_last)
    common.config_set(con, "c_id", uniform(0, 1023))
    common.config_set(con, "ol_i_id", uniform(0, 8191))
    -- Last: a configuration with a warehouse count has every other value (a prepare stopped
    -- here resumes from it).
    common.config_set(con, "warehouses", W)
    for _, name in ipairs(common.TABLES) do schema.create_table(con, name) end
    sh.info[0], sh.info[1], sh.info[2], sh.info[3] = W, c_last, s.use_fk and 1 or 0, 0
    units_shared(W)
    return true
  end
  local cfg = common.config_read(con)
  local loaded = tonumber(cfg.warehouses)
  if s.warehouses > 0 and s.warehouses ~= loaded then
    common.fail("the tpcc schema here was prepared for %d warehouses, not %d: run 'cleanup' first to load another size%s",
      loaded, s.warehouses, cfg.ready == "1" and "" or fmt(", or prepare with --warehouses=%d to finish loading it", loaded))
  end
  if (cfg.use_fk == "1") ~= s.use_fk then
    common.fail("the tpcc schema here was prepared with --use-fk=%s: run 'cleanup' first, or prepare with --use-fk=%s",
      cfg.use_fk == "1" and "on" or "off", cfg.use_fk == "1" and "on" or "off")
  end
  if cfg.ready == "1" then
    print(fmt("The tpcc schema with %d warehouse%s is already completely loaded: nothing to do (run 'cleanup' first to load it again)",
      loaded, loaded > 1 and "s" or ""))
    return false
  end
  units_shared(loaded)
  local done = 0
  for i = 0, nunits(loaded) - 1 do
    if cfg[unit_name(i)] == "1" then
      sh.done[i] = 1
      done = done + 1
    end
  end
  -- The tables are all created before any unit loads: with none loaded, a missing one is a
  -- prepare stopped while it created them (DDL commits as it goes on MySQL), finished now.
  for _, name in ipairs(common.TABLES) do
    if not common.table_exists(con, t[name]) then
      if done > 0 then
        common.fail("table '%s' is missing from a half-loaded tpcc schema: run 'cleanup', then 'prepare'", t[name])
      end
      schema.create_table(con, name)
    end
  end
  print(fmt("Resuming an interrupted prepare of %d warehouse%s: %d of %d load units were done",
    loaded, loaded > 1 and "s" or "", done, nunits(loaded)))
  sh.info[0], sh.info[1], sh.info[2], sh.info[3] = loaded, tonumber(cfg.c_last), cfg.use_fk == "1" and 1 or 0, done
  return true
end

local function body()
  if tid == 0 then
    ld.t0 = luabench.time()
    local go = setup()
    if not go then
      sh.info[0] = -1
    end
  end
  if not ld:barrier(1) then return end
  local W = tonumber(sh.info[0])
  if W < 0 then return end
  if tid ~= 0 then units_shared(W) end
  local resumed = tonumber(sh.info[3]) > 0
  local now = os.date("!%Y-%m-%d %H:%M:%S")
  local loader = tid < s.load_threads

  -- Phase 1: the data.
  if loader then
    local n = nunits(W)
    while true do
      if ld:failed() then return end
      local i = tonumber(C.lb_kernel_ticket(sysbench.worker, "tpcc.load.units"))
      if i >= n then break end
      if sh.done[i] == 0 then load_unit(i, now) end
    end
  end
  if not ld:barrier(2) then return end
  local t_data = luabench.time()
  if tid == 0 then
    ld:finish()
    print(fmt("Data loaded in %.1fs; creating indexes and collecting statistics...", t_data - ld.t0))
  end
  if not ld:barrier(3) then return end

  -- Phase 2: keys, indexes and statistics, one table at a time per thread.
  local cfg = tid == 0 and common.config_read(con) or nil
  if loader then
    local steps = schema.POST_LOAD_ORDER
    local cfg_here = common.config_read(con)
    while true do
      if ld:failed() then return end
      local i = tonumber(C.lb_kernel_ticket(sysbench.worker, "tpcc.load.steps")) + 1
      if i > #steps then break end
      local name = steps[i]
      if cfg_here["post:" .. name] ~= "1" then
        local t0 = luabench.time()
        schema.post_load(con, name, function() common.config_set(con, "post:" .. name, 1) end)
        print(fmt("  %s: indexed and analyzed in %.1fs", s.t[name], luabench.time() - t0))
      end
    end
  end
  if not ld:barrier(4) then return end

  -- Phase 3: foreign keys, then the schema is ready.
  if tid == 0 then
    if sh.info[2] == 1 and cfg["post:fk"] ~= "1" then
      local t0 = luabench.time()
      schema.foreign_keys(con, function() common.config_set(con, "post:fk", 1) end)
      print(fmt("  foreign keys added in %.1fs", luabench.time() - t0))
    end
    common.config_set(con, "ready", 1)
    local total = luabench.time() - ld.t0
    local line = fmt("Prepared %d warehouse%s in %.1fs (data %.1fs, indexes %.1fs)", W, W > 1 and "s" or "",
      total, t_data - ld.t0, total - (t_data - ld.t0))
    if not resumed then line = line .. fmt(": %.1fs per warehouse", total / W) end
    print(line)
  end
end

function M.prepare()
  s = common.settings()
  tid, nthreads = sysbench.tid, s.threads
  local d = common.dialect()
  use_copy = d.copy
  NULL = use_copy and d.copy_null or "NULL"
  shared_init()
  ld = require("luabench.prepare").new("tpcc.load", 0)
  ld.line = progress_line
  local ok, err = pcall(function()
    -- Loading and index builds, not the run: the session needs no isolation settings.
    con = common.open()
    body()
  end)
  if not ok then
    if con then
      pcall(con.query, con, common.dialect().rollback)
      con:disconnect()
    end
    -- Only now: the threads waiting at a barrier stop with "another loader thread failed", and
    -- this thread's error, the cause, must be the first one reported.
    ld:fail()
    error(err, 0)
  end
  con:disconnect()
end

return M
