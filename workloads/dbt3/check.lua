-- dbt3.check: the `check` command. Verifies what prepare loaded and what runs must keep: the
-- row count of every table for the scale factor, key and referential consistency (every
-- lineitem has its order and a partsupp row, every order its lineitems and customer, order
-- status and total price agree with the lineitems), and the refresh functions' invariant: RF1
-- then RF2 (of a pair runs never use) leaves every table as it was. With --checksum it also
-- prints a checksum of every table's rows (in key order), which two loads with the same seed
-- and scale factor share whatever their --threads. Prints one line per check; returns false
-- (exit 1) if any fails.
local common = require("dbt3.common")
local schema = require("dbt3.schema")
local gen = require("dbt3.gen")
local run = require("dbt3.run")

local M = {}
local fmt = string.format

local CHECK_PAIR = 999999 -- refresh pair of check's own RF1/RF2 (runs use 0 .. streams)

-- A checksum of every row of table name in primary-key order: a hash of the values as the server
-- returns them, the row count and the number of bytes.
local function checksum(con, name)
  local s = common.settings()
  local rs = con:query(fmt("SELECT * FROM %s ORDER BY %s", s.t[name], schema.PRIMARY_KEY[name]))
  local h1, h2, rows, bytes = 0, 0, 0, 0
  local byte = string.byte
  local r = rs:fetch_row()
  while r do
    local line = table.concat(r, "|", 1, rs.nfields)
    for i = 1, #line do
      local b = byte(line, i)
      h1 = (h1 * 33 + b) % 4294967296
      h2 = (h2 * 65599 + b) % 4294967291
    end
    h1 = (h1 * 33 + 10) % 4294967296
    rows = rows + 1
    bytes = bytes + #line
    r = rs:fetch_row()
  end
  return fmt("%08x%08x-%d-%d", h1, h2, rows, bytes)
end

-- The figures RF1 then RF2 must leave unchanged.
local function totals(con)
  local s = common.settings()
  local o = { con:query_row(fmt("SELECT COUNT(*), SUM(o_totalprice), SUM(o_custkey) FROM %s", s.t.orders)) }
  local l = { con:query_row(fmt("SELECT COUNT(*), SUM(l_quantity), SUM(l_extendedprice), SUM(l_partkey) FROM %s", s.t.lineitem)) }
  return table.concat(o, ",") .. ";" .. table.concat(l, ",")
end

local function refresh(con, cfg, kind)
  local s = common.settings()
  local g = gen.new(cfg.seed, cfg.scale, false)
  local out = { orders = {}, lineitem = {} }
  local keys = g.refresh_orders(CHECK_PAIR, out)
  if kind == "rf1" then run.mark_pending(con, CHECK_PAIR) end
  con:query("BEGIN")
  if kind == "rf1" then
    for _, name in ipairs({ "orders", "lineitem" }) do
      local rows = out[name]
      for i = 1, #rows, 1000 do
        con:query(fmt("INSERT INTO %s (%s) VALUES %s", s.t[name], schema.columns(name),
          table.concat(rows, ",", i, math.min(#rows, i + 999))))
      end
    end
  else
    for i = 1, #keys, 1000 do
      local list = table.concat(keys, ",", i, math.min(#keys, i + 999))
      con:query(fmt("DELETE FROM %s WHERE l_orderkey IN (%s)", s.t.lineitem, list))
      con:query(fmt("DELETE FROM %s WHERE o_orderkey IN (%s)", s.t.orders, list))
    end
  end
  con:query("COMMIT")
  if kind == "rf2" then run.unmark_pending(con, CHECK_PAIR) end
  return #keys, #out.lineitem
end

function M.check()
  local s = common.settings()
  local con = common.driver():connect()
  local cfg = common.ready_config(con)
  local t = s.t
  local z = common.sizes(cfg.scale)
  z.lineitem = tonumber(cfg.lineitem_rows)
  local function n(q) return tonumber(con:query_row(q)) or 0 end
  local checks = require("luabench.workload").checks()
  local function expect(desc, got, want) checks:expect(desc, got, want) end
  print(fmt("Checking the dbt3 schema%s: scale factor %s, seed %d", s.prefix ~= "" and (" '" .. s.prefix .. "'") or "",
    common.sf_text(cfg.scale), cfg.seed))
  for i = #common.TABLES, 1, -1 do
    local name = common.TABLES[i]
    expect("rows in " .. name, n("SELECT COUNT(*) FROM " .. t[name]), z[name])
  end
  local function none(desc, sql) expect(desc, n(sql), 0) end
  none("lineitems without their order", fmt("SELECT COUNT(*) FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s WHERE o_orderkey = l_orderkey)", t.lineitem, t.orders))
  none("orders without lineitems", fmt("SELECT COUNT(*) FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s WHERE l_orderkey = o_orderkey)", t.orders, t.lineitem))
  none("lineitems without a partsupp row", fmt("SELECT COUNT(*) FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s WHERE ps_partkey = l_partkey AND ps_suppkey = l_suppkey)", t.lineitem, t.partsupp))
  none("partsupp rows without their part or supplier", fmt("SELECT COUNT(*) FROM %s WHERE NOT EXISTS (SELECT 1 FROM %s WHERE p_partkey = ps_partkey) OR NOT EXISTS (SELECT 1 FROM %s WHERE s_suppkey = ps_suppkey)", t.partsupp, t.part, t.supplier))
  none("orders without their customer, or of a customer key divisible by 3", fmt("SELECT COUNT(*) FROM %s WHERE o_custkey %% 3 = 0 OR NOT EXISTS (SELECT 1 FROM %s WHERE c_custkey = o_custkey)", t.orders, t.customer))
  none("customers, suppliers and nations without their nation or region",
    fmt("SELECT (SELECT COUNT(*) FROM %s WHERE c_nationkey NOT IN (SELECT n_nationkey FROM %s)) + (SELECT COUNT(*) FROM %s WHERE s_nationkey NOT IN (SELECT n_nationkey FROM %s)) + (SELECT COUNT(*) FROM %s WHERE n_regionkey NOT IN (SELECT r_regionkey FROM %s))",
      t.customer, t.nation, t.supplier, t.nation, t.nation, t.region))
  -- Loaded keys are the first 8 of every 32 (luabench's from 1, dbgen's from 0): none may be
  -- where the refresh functions put theirs.
  none("order keys in the refresh functions' key space (the 9th to 16th of every 32)", fmt("SELECT COUNT(*) FROM %s WHERE (o_orderkey - 1) %% 32 BETWEEN 8 AND 15", t.orders))
  none("orders whose status disagrees with their lineitems' (F: all shipped, O: none, P: some)",
    fmt("SELECT COUNT(*) FROM %s JOIN (SELECT l_orderkey, SUM(CASE WHEN l_linestatus = 'F' THEN 1 ELSE 0 END) AS f, COUNT(*) AS c FROM %s GROUP BY l_orderkey) x ON x.l_orderkey = o_orderkey WHERE o_orderstatus <> CASE WHEN f = c THEN 'F' WHEN f = 0 THEN 'O' ELSE 'P' END",
      t.orders, t.lineitem))
  -- dbgen rounds each lineitem's charge to the cent in two steps before adding them up.
  local dbgen = cfg.source == "dbgen"
  none(dbgen and "orders whose total price is not the sum of their lineitems' charges (to 2 cents a lineitem: dbgen's rounding)"
      or "orders whose total price is not the sum of their lineitems' charges (to the cent)",
    fmt("SELECT COUNT(*) FROM %s JOIN (SELECT l_orderkey, SUM(l_extendedprice * (1 + l_tax) * (1 - l_discount)) AS v, COUNT(*) AS c FROM %s GROUP BY l_orderkey) x ON x.l_orderkey = o_orderkey WHERE ABS(o_totalprice - x.v) > %s",
      t.orders, t.lineitem, dbgen and "0.02 * x.c" or "0.01"))
  local before = totals(con)
  local added, lines = refresh(con, cfg, "rf1")
  expect("orders after RF1 (loaded + refresh orders)", n("SELECT COUNT(*) FROM " .. t.orders), z.orders + added)
  expect("lineitems after RF1", n("SELECT COUNT(*) FROM " .. t.lineitem), z.lineitem + lines)
  refresh(con, cfg, "rf2")
  expect("orders and lineitems after RF2 as loaded (count and sums)", totals(con), before)
  if s.checksum then
    for i = #common.TABLES, 1, -1 do
      local name = common.TABLES[i]
      print(fmt("  checksum %s: %s", name, checksum(con, name)))
    end
  end
  con:disconnect()
  return checks:finish("checks")
end

return M
