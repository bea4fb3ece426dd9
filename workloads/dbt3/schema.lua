-- dbt3.schema: the eight TPC-H tables (clause 1.4), their primary keys, and the secondary
-- indexes the DBT-3 kit adds (the foreign-key columns, the lineitem dates).
local common = require("dbt3.common")

local M = {}

local COLUMNS = {
  region = { "r_regionkey INTEGER NOT NULL", "r_name CHAR(25) NOT NULL", "r_comment VARCHAR(152) NOT NULL" },
  nation = { "n_nationkey INTEGER NOT NULL", "n_name CHAR(25) NOT NULL", "n_regionkey INTEGER NOT NULL",
    "n_comment VARCHAR(152) NOT NULL" },
  part = { "p_partkey INTEGER NOT NULL", "p_name VARCHAR(55) NOT NULL", "p_mfgr CHAR(25) NOT NULL",
    "p_brand CHAR(10) NOT NULL", "p_type VARCHAR(25) NOT NULL", "p_size INTEGER NOT NULL",
    "p_container CHAR(10) NOT NULL", "p_retailprice DECIMAL(15,2) NOT NULL", "p_comment VARCHAR(23) NOT NULL" },
  supplier = { "s_suppkey INTEGER NOT NULL", "s_name CHAR(25) NOT NULL", "s_address VARCHAR(40) NOT NULL",
    "s_nationkey INTEGER NOT NULL", "s_phone CHAR(15) NOT NULL", "s_acctbal DECIMAL(15,2) NOT NULL",
    "s_comment VARCHAR(101) NOT NULL" },
  partsupp = { "ps_partkey INTEGER NOT NULL", "ps_suppkey INTEGER NOT NULL", "ps_availqty INTEGER NOT NULL",
    "ps_supplycost DECIMAL(15,2) NOT NULL", "ps_comment VARCHAR(199) NOT NULL" },
  customer = { "c_custkey INTEGER NOT NULL", "c_name VARCHAR(25) NOT NULL", "c_address VARCHAR(40) NOT NULL",
    "c_nationkey INTEGER NOT NULL", "c_phone CHAR(15) NOT NULL", "c_acctbal DECIMAL(15,2) NOT NULL",
    "c_mktsegment CHAR(10) NOT NULL", "c_comment VARCHAR(117) NOT NULL" },
  orders = { "o_orderkey BIGINT NOT NULL", "o_custkey INTEGER NOT NULL", "o_orderstatus CHAR(1) NOT NULL",
    "o_totalprice DECIMAL(15,2) NOT NULL", "o_orderdate DATE NOT NULL", "o_orderpriority CHAR(15) NOT NULL",
    "o_clerk CHAR(15) NOT NULL", "o_shippriority INTEGER NOT NULL", "o_comment VARCHAR(79) NOT NULL" },
  lineitem = { "l_orderkey BIGINT NOT NULL", "l_partkey INTEGER NOT NULL", "l_suppkey INTEGER NOT NULL",
    "l_linenumber INTEGER NOT NULL", "l_quantity DECIMAL(15,2) NOT NULL", "l_extendedprice DECIMAL(15,2) NOT NULL",
    "l_discount DECIMAL(15,2) NOT NULL", "l_tax DECIMAL(15,2) NOT NULL", "l_returnflag CHAR(1) NOT NULL",
    "l_linestatus CHAR(1) NOT NULL", "l_shipdate DATE NOT NULL", "l_commitdate DATE NOT NULL",
    "l_receiptdate DATE NOT NULL", "l_shipinstruct CHAR(25) NOT NULL", "l_shipmode CHAR(10) NOT NULL",
    "l_comment VARCHAR(44) NOT NULL" },
}

M.PRIMARY_KEY = {
  region = "r_regionkey", nation = "n_nationkey", part = "p_partkey", supplier = "s_suppkey",
  partsupp = "ps_partkey, ps_suppkey", customer = "c_custkey", orders = "o_orderkey",
  lineitem = "l_orderkey, l_linenumber",
}

-- The DBT-3 kit's secondary indexes: every foreign-key column, and the date columns the
-- queries restrict.
local INDEXES = {
  nation = { { "i_n_regionkey", "n_regionkey" } },
  supplier = { { "i_s_nationkey", "s_nationkey" } },
  partsupp = { { "i_ps_suppkey", "ps_suppkey" } },
  customer = { { "i_c_nationkey", "c_nationkey" } },
  orders = { { "i_o_custkey", "o_custkey" }, { "i_o_orderdate", "o_orderdate" } },
  lineitem = { { "i_l_partkey_suppkey", "l_partkey, l_suppkey" }, { "i_l_suppkey", "l_suppkey" },
    { "i_l_shipdate", "l_shipdate" }, { "i_l_receiptdate", "l_receiptdate" },
    { "i_l_commitdate", "l_commitdate" } },
}

-- The columns of a table in order, for COPY and INSERT.
function M.columns(name)
  local out = {}
  for i, c in ipairs(COLUMNS[name]) do out[i] = c:match("^(%S+)") end
  return table.concat(out, ", ")
end

-- Per column of a table, whether an INSERT quotes its values (text and dates).
function M.quoted(name)
  local out = {}
  for i, c in ipairs(COLUMNS[name]) do out[i] = c:match("^%S+ (%S+)"):match("CHAR") ~= nil or c:match(" DATE ") ~= nil end
  return out
end

function M.create_table(con, name)
  local s = common.settings()
  local d = common.dialect()
  -- A clustered table is stored in key order: its key comes with it, not after the load.
  local pk = d.clustered and (",\n  PRIMARY KEY (" .. M.PRIMARY_KEY[name] .. ")") or ""
  con:query(string.format("CREATE TABLE %s (\n  %s%s\n)%s", s.t[name], table.concat(COLUMNS[name], ",\n  "),
    pk, d.table_options))
end

function M.create_config(con)
  local s = common.settings()
  con:query(string.format("CREATE TABLE %s (cfg_name VARCHAR(64) NOT NULL PRIMARY KEY, cfg_value VARCHAR(255))%s",
    s.t.config, common.dialect().table_options))
end

-- Largest first, so that parallel threads finish together.
M.POST_LOAD_ORDER = { "lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region" }

-- The post-load work for one table: primary key (where not clustered), indexes, statistics.
function M.post_load(con, name)
  local s = common.settings()
  local d = common.dialect()
  local t = s.t[name]
  if not d.clustered then
    con:query(string.format("ALTER TABLE %s ADD PRIMARY KEY (%s)", t, M.PRIMARY_KEY[name]))
  end
  -- A columnar engine prunes scans by its own per-block statistics: the kit's secondary indexes
  -- would only cost memory and refresh time.
  for _, ix in ipairs(d.columnar and {} or INDEXES[name] or {}) do
    local ixname = d.index_names_per_table and ix[1] or s.prefix .. ix[1]
    con:query(d.create_index(ixname, t, ix[2]))
  end
  con:query(d.analyze_after_load(t))
end

-- Drops Q15's views a killed run left (PostgreSQL drops no table a view depends on), every
-- dbt3 table, children first, and the configuration table last.
function M.drop(con)
  local s = common.settings()
  if common.table_exists(con, s.t.config) then common.drop_q15_views(con) end
  for _, name in ipairs(common.TABLES) do
    con:query("DROP TABLE IF EXISTS " .. s.t[name])
  end
  con:query("DROP TABLE IF EXISTS " .. s.t.config)
end

return M
