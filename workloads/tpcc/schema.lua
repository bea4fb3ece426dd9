-- tpcc.schema: the nine tables (clause 1.3), their keys, the secondary indexes for the by-name
-- and order-status lookups, and the optional foreign keys. PostgreSQL tables get their primary
-- keys after the load (building an index once is cheaper than maintaining it row by row);
-- InnoDB tables are clustered on the primary key, so they get it at creation.
local common = require("tpcc.common")

local M = {}

-- Columns in the order the loader writes them.
local COLUMNS = {
  warehouse = [[
  w_id INT NOT NULL,
  w_name VARCHAR(10),
  w_street_1 VARCHAR(20),
  w_street_2 VARCHAR(20),
  w_city VARCHAR(20),
  w_state CHAR(2),
  w_zip CHAR(9),
  w_tax DECIMAL(4,4),
  w_ytd DECIMAL(12,2)]],
  district = [[
  d_id INT NOT NULL,
  d_w_id INT NOT NULL,
  d_name VARCHAR(10),
  d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20),
  d_city VARCHAR(20),
  d_state CHAR(2),
  d_zip CHAR(9),
  d_tax DECIMAL(4,4),
  d_ytd DECIMAL(12,2),
  d_next_o_id INT]],
  customer = [[
  c_id INT NOT NULL,
  c_d_id INT NOT NULL,
  c_w_id INT NOT NULL,
  c_first VARCHAR(16),
  c_middle CHAR(2),
  c_last VARCHAR(16),
  c_street_1 VARCHAR(20),
  c_street_2 VARCHAR(20),
  c_city VARCHAR(20),
  c_state CHAR(2),
  c_zip CHAR(9),
  c_phone CHAR(16),
  c_since %TS%,
  c_credit CHAR(2),
  c_credit_lim DECIMAL(12,2),
  c_discount DECIMAL(4,4),
  c_balance DECIMAL(12,2),
  c_ytd_payment DECIMAL(12,2),
  c_payment_cnt INT,
  c_delivery_cnt INT,
  c_data VARCHAR(500)]],
  history = [[
  h_c_id INT,
  h_c_d_id INT,
  h_c_w_id INT,
  h_d_id INT,
  h_w_id INT,
  h_date %TS%,
  h_amount DECIMAL(6,2),
  h_data VARCHAR(24)]],
  new_order = [[
  no_o_id INT NOT NULL,
  no_d_id INT NOT NULL,
  no_w_id INT NOT NULL]],
  orders = [[
  o_id INT NOT NULL,
  o_d_id INT NOT NULL,
  o_w_id INT NOT NULL,
  o_c_id INT,
  o_entry_d %TS%,
  o_carrier_id INT,
  o_ol_cnt INT,
  o_all_local INT]],
  order_line = [[
  ol_o_id INT NOT NULL,
  ol_d_id INT NOT NULL,
  ol_w_id INT NOT NULL,
  ol_number INT NOT NULL,
  ol_i_id INT,
  ol_supply_w_id INT,
  ol_delivery_d %TS%,
  ol_quantity INT,
  ol_amount DECIMAL(6,2),
  ol_dist_info CHAR(24)]],
  item = [[
  i_id INT NOT NULL,
  i_im_id INT,
  i_name VARCHAR(24),
  i_price DECIMAL(5,2),
  i_data VARCHAR(50)]],
  stock = [[
  s_i_id INT NOT NULL,
  s_w_id INT NOT NULL,
  s_quantity INT,
  s_dist_01 CHAR(24),
  s_dist_02 CHAR(24),
  s_dist_03 CHAR(24),
  s_dist_04 CHAR(24),
  s_dist_05 CHAR(24),
  s_dist_06 CHAR(24),
  s_dist_07 CHAR(24),
  s_dist_08 CHAR(24),
  s_dist_09 CHAR(24),
  s_dist_10 CHAR(24),
  s_ytd INT,
  s_order_cnt INT,
  s_remote_cnt INT,
  s_data VARCHAR(50)]],
}

M.PRIMARY_KEY = {
  warehouse = "w_id",
  district = "d_w_id, d_id",
  customer = "c_w_id, c_d_id, c_id",
  new_order = "no_w_id, no_d_id, no_o_id",
  orders = "o_w_id, o_d_id, o_id",
  order_line = "ol_w_id, ol_d_id, ol_o_id, ol_number",
  item = "i_id",
  stock = "s_w_id, s_i_id",
}

-- Secondary indexes: customer by last name (Payment, Order-Status), a customer's latest order
-- (Order-Status).
local INDEXES = {
  customer = { { "idx_customer", "c_w_id, c_d_id, c_last, c_first" } },
  orders = { { "idx_orders", "o_w_id, o_d_id, o_c_id, o_id" } },
}

-- Foreign keys (clause 1.3), by referencing table.
local FOREIGN_KEYS = {
  { "district", "d_w_id", "warehouse", "w_id" },
  { "customer", "c_w_id, c_d_id", "district", "d_w_id, d_id" },
  { "history", "h_c_w_id, h_c_d_id, h_c_id", "customer", "c_w_id, c_d_id, c_id" },
  { "history", "h_w_id, h_d_id", "district", "d_w_id, d_id" },
  { "new_order", "no_w_id, no_d_id, no_o_id", "orders", "o_w_id, o_d_id, o_id" },
  { "orders", "o_w_id, o_d_id, o_c_id", "customer", "c_w_id, c_d_id, c_id" },
  { "order_line", "ol_w_id, ol_d_id, ol_o_id", "orders", "o_w_id, o_d_id, o_id" },
  { "order_line", "ol_supply_w_id, ol_i_id", "stock", "s_w_id, s_i_id" },
  { "stock", "s_w_id", "warehouse", "w_id" },
  { "stock", "s_i_id", "item", "i_id" },
}

-- The column list of a table, for INSERT statements.
function M.columns(name)
  local cols = {}
  for c in ("\n" .. COLUMNS[name]):gmatch("\n  ([%w_]+) ") do cols[#cols + 1] = c end
  return table.concat(cols, ", ")
end

function M.create_table(con, name)
  local s = common.settings()
  local d = common.dialect()
  local cols = d.column_types((COLUMNS[name]:gsub("%%TS%%", d.timestamp)))
  -- A clustered table is stored in key order: its key comes with it, not after the load.
  local pk = d.clustered and M.PRIMARY_KEY[name] and (",\n  PRIMARY KEY (" .. M.PRIMARY_KEY[name] .. ")") or ""
  con:query(string.format("CREATE TABLE %s (\n%s%s\n)%s", s.t[name], cols, pk, d.table_options))
end

function M.create_config(con)
  local s = common.settings()
  local d = common.dialect()
  con:query(string.format("CREATE TABLE %s (%s)%s", s.t.config,
    d.column_types("cfg_name VARCHAR(64) NOT NULL PRIMARY KEY, cfg_value VARCHAR(255)"), d.table_options))
end

-- The post-load work for one table: primary key (PostgreSQL), secondary indexes, statistics.
-- Largest tables first, so that parallel threads finish together.
M.POST_LOAD_ORDER = { "order_line", "stock", "customer", "orders", "history", "new_order", "item",
  "district", "warehouse" }

local function exists(con, sql)
  return con:query(sql):fetch_row() ~= nil
end

-- mark() records the step as done. A prepare killed half-way through a step runs it again on
-- resume, so each step must be repeatable: with transactional DDL (PostgreSQL) the key, the
-- indexes and the mark commit together; without (MySQL), an index already there is skipped.
function M.post_load(con, name, mark)
  local s = common.settings()
  local d = common.dialect()
  local t = s.t[name]
  if d.transactional_ddl then con:query(d.begin) end
  if not d.clustered and M.PRIMARY_KEY[name] then
    con:query(string.format("ALTER TABLE %s ADD PRIMARY KEY (%s)", t, M.PRIMARY_KEY[name]))
  end
  for _, ix in ipairs(INDEXES[name] or {}) do
    local ixname = d.index_names_per_table and ix[1] or s.prefix .. ix[1]
    if d.transactional_ddl or not exists(con, d.index_exists(t, ixname)) then
      con:query(d.create_index(ixname, t, ix[2]))
    end
  end
  if d.transactional_ddl then
    mark()
    con:query(d.commit)
    con:query(d.analyze_after_load(t))
  else
    con:query(d.analyze_after_load(t))
    mark()
  end
end

-- mark() as for post_load: with transactional DDL every key and the mark commit together;
-- without, a key an interrupted prepare added is skipped.
function M.foreign_keys(con, mark)
  local s = common.settings()
  local d = common.dialect()
  if d.transactional_ddl then con:query(d.begin) end
  if d.foreign_key_checks then con:query(d.foreign_key_checks(false)) end
  for i, fk in ipairs(FOREIGN_KEYS) do
    local cname = string.format("%sfk_%d", s.prefix, i)
    if d.transactional_ddl or not exists(con, d.constraint_exists(cname)) then
      con:query(string.format("ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)",
        s.t[fk[1]], cname, fk[2], s.t[fk[3]], fk[4]))
    end
  end
  mark()
  if d.transactional_ddl then con:query(d.commit) end
  if d.foreign_key_checks then con:query(d.foreign_key_checks(true)) end
end

-- Drops every tpcc table, children first, and the configuration table last (so an interrupted
-- cleanup can be run again).
function M.drop(con)
  local s = common.settings()
  local names = {}
  for _, name in ipairs(common.TABLES) do names[#names + 1] = s.t[name] end
  names[#names + 1] = s.t.config
  for _, sql in ipairs(common.dialect().drop_tables(names)) do con:query(sql) end
end

return M
