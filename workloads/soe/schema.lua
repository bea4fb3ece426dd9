-- soe.schema: Swingbench's Order Entry schema (its ten tables, their keys, the secondary indexes
-- its wizard builds, the five sequences), created, indexed and dropped through the server's
-- dialect. Column lists are Swingbench's, with two changes: order_items.condition is
-- item_condition (CONDITION is a reserved word in MySQL/MariaDB), and warranty_period is a
-- number of months (Oracle's INTERVAL YEAR TO MONTH has no portable twin).
local common = require("soe.common")

local M = {}
local fmt = string.format

local MONEY = "NUMERIC(12,2)"
local PRICE = "NUMERIC(8,2)"

-- Columns: name, type ({ts}: the dialect's timestamp), and how a loaded value is written: d an
-- integer, x a number's text, s a string or a date (quoted in an INSERT), N always NULL.
M.COLUMNS = {
  customers = {
    { "customer_id", "BIGINT NOT NULL", "d" }, { "cust_first_name", "VARCHAR(40) NOT NULL", "s" },
    { "cust_last_name", "VARCHAR(40) NOT NULL", "s" }, { "nls_language", "VARCHAR(3)", "s" },
    { "nls_territory", "VARCHAR(30)", "s" }, { "credit_limit", "NUMERIC(9,2)", "x" },
    { "cust_email", "VARCHAR(100)", "s" }, { "account_mgr_id", "INTEGER", "d" },
    { "customer_since", "DATE", "s" }, { "customer_class", "VARCHAR(40)", "s" },
    { "suggestions", "VARCHAR(40)", "s" }, { "dob", "DATE", "s" }, { "mailshot", "VARCHAR(1)", "s" },
    { "partner_mailshot", "VARCHAR(1)", "s" }, { "preferred_address", "BIGINT", "d" },
    { "preferred_card", "BIGINT", "d" },
    pk = "customer_id" },
  addresses = {
    { "address_id", "BIGINT NOT NULL", "d" }, { "customer_id", "BIGINT NOT NULL", "d" },
    { "date_created", "DATE NOT NULL", "s" }, { "house_no_or_name", "VARCHAR(60)", "s" },
    { "street_name", "VARCHAR(60)", "s" }, { "town", "VARCHAR(60)", "s" }, { "county", "VARCHAR(60)", "s" },
    { "country", "VARCHAR(60)", "s" }, { "post_code", "VARCHAR(12)", "s" }, { "zip_code", "VARCHAR(12)", "N" },
    pk = "address_id" },
  card_details = {
    { "card_id", "BIGINT NOT NULL", "d" }, { "customer_id", "BIGINT NOT NULL", "d" },
    { "card_type", "VARCHAR(30) NOT NULL", "s" }, { "card_number", "BIGINT NOT NULL", "d" },
    { "expiry_date", "DATE NOT NULL", "s" }, { "is_valid", "VARCHAR(1) NOT NULL", "s" },
    { "security_code", "INTEGER", "d" },
    pk = "card_id" },
  warehouses = {
    { "warehouse_id", "INTEGER NOT NULL", "d" }, { "warehouse_name", "VARCHAR(35)", "s" },
    { "location_id", "INTEGER", "d" },
    pk = "warehouse_id" },
  product_information = {
    { "product_id", "INTEGER NOT NULL", "d" }, { "product_name", "VARCHAR(50)", "s" },
    { "product_description", "VARCHAR(2000)", "s" }, { "category_id", "INTEGER NOT NULL", "d" },
    { "weight_class", "INTEGER", "d" }, { "warranty_period", "INTEGER", "d" },
    { "supplier_id", "INTEGER", "d" }, { "product_status", "VARCHAR(20)", "s" },
    { "list_price", PRICE, "x" }, { "min_price", PRICE, "x" }, { "catalog_url", "VARCHAR(50)", "s" },
    pk = "product_id" },
  product_descriptions = {
    { "product_id", "INTEGER NOT NULL", "d" }, { "language_id", "VARCHAR(3) NOT NULL", "s" },
    { "translated_name", "VARCHAR(50) NOT NULL", "s" }, { "translated_description", "VARCHAR(2000) NOT NULL", "s" },
    pk = "product_id, language_id" },
  inventories = {
    { "product_id", "INTEGER NOT NULL", "d" }, { "warehouse_id", "INTEGER NOT NULL", "d" },
    { "quantity_on_hand", "INTEGER NOT NULL", "d" },
    pk = "product_id, warehouse_id" },
  orders = {
    { "order_id", "BIGINT NOT NULL", "d" }, { "order_date", "{ts} NOT NULL", "s" },
    { "order_mode", "VARCHAR(8)", "s" }, { "customer_id", "BIGINT NOT NULL", "d" },
    { "order_status", "INTEGER", "d" }, { "order_total", MONEY, "x" }, { "sales_rep_id", "INTEGER", "d" },
    { "promotion_id", "INTEGER", "d" }, { "warehouse_id", "INTEGER", "d" },
    { "delivery_type", "VARCHAR(15)", "s" }, { "cost_of_delivery", "INTEGER", "d" },
    { "wait_till_all_available", "VARCHAR(15)", "s" }, { "delivery_address_id", "BIGINT", "d" },
    { "customer_class", "VARCHAR(30)", "s" }, { "card_id", "BIGINT", "d" },
    { "invoice_address_id", "BIGINT", "d" },
    pk = "order_id" },
  order_items = {
    { "order_id", "BIGINT NOT NULL", "d" }, { "line_item_id", "INTEGER NOT NULL", "d" },
    { "product_id", "INTEGER NOT NULL", "d" }, { "unit_price", PRICE, "x" }, { "quantity", "INTEGER", "d" },
    { "dispatch_date", "DATE", "s" }, { "return_date", "DATE", "N" }, { "gift_wrap", "VARCHAR(20)", "s" },
    { "item_condition", "VARCHAR(20)", "s" }, { "supplier_id", "INTEGER", "d" },
    { "estimated_delivery", "DATE", "s" },
    pk = "order_id, line_item_id" },
  logon = {
    { "logon_id", "BIGINT NOT NULL", "d" }, { "customer_id", "BIGINT NOT NULL", "d" },
    { "logon_date", "{ts}", "s" },
    pk = "logon_id" },
}

-- Swingbench's secondary indexes (its wizard's list), built after the load. Customer names are
-- stored in lower case and searched as they are: a plain index on (last, first) serves what
-- Swingbench's function-based index on LOWER() does, on every server.
M.INDEXES = {
  { "addresses", "address_cust_ix", "customer_id" },
  { "card_details", "carddetails_cust_ix", "customer_id" },
  { "customers", "cust_account_manager_ix", "account_mgr_id" },
  { "customers", "cust_dob_ix", "dob" },
  { "customers", "cust_email_ix", "cust_email" },
  { "customers", "cust_name_ix", "cust_last_name, cust_first_name" },
  { "inventories", "inv_product_ix", "product_id" },
  { "inventories", "inv_warehouse_ix", "warehouse_id" },
  { "order_items", "item_order_ix", "order_id" },
  { "order_items", "item_product_ix", "product_id" },
  { "orders", "ord_sales_rep_ix", "sales_rep_id" },
  { "orders", "ord_customer_ix", "customer_id" },
  { "orders", "ord_order_date_ix", "order_date" },
  { "orders", "ord_warehouse_ix", "warehouse_id, order_status" },
  { "product_descriptions", "prod_name_ix", "translated_name" },
  { "product_information", "prod_supplier_ix", "supplier_id" },
  { "product_information", "prod_category_ix", "category_id" },
  { "warehouses", "whs_location_ix", "location_id" },
}

-- The column names of a table, in order, for COPY and INSERT.
function M.columns(name)
  local out = {}
  for i, c in ipairs(M.COLUMNS[name]) do out[i] = c[1] end
  return table.concat(out, ", ")
end

local function create_sql(name, real)
  local d = common.dialect()
  local cols = {}
  for i, c in ipairs(M.COLUMNS[name]) do cols[i] = "  " .. c[1] .. " " .. c[2]:gsub("{ts}", d.timestamp) end
  cols[#cols + 1] = "  PRIMARY KEY (" .. M.COLUMNS[name].pk .. ")"
  return fmt("CREATE TABLE %s (\n%s\n)%s", real, d.column_types(table.concat(cols, ",\n")), d.table_options)
end

-- Creates the configuration table (it marks the schema as ours for cleanup), then the tables.
-- Refuses, before creating anything, when one of the names is taken.
function M.create(con)
  local s = common.settings()
  for _, name in ipairs(common.TABLES) do
    if common.table_exists(con, s.t[name]) then
      common.fail("table '%s' already exists: run 'cleanup' first, or choose another --table-prefix", s.t[name])
    end
  end
  con:query(common.dialect().column_types(fmt("CREATE TABLE %s (cfg_name VARCHAR(40) NOT NULL, cfg_value BIGINT NOT NULL, PRIMARY KEY (cfg_name))%s",
    s.t.config, common.dialect().table_options)))
  for _, name in ipairs(common.TABLES) do con:query(create_sql(name, s.t[name])) end
end

-- Index k (1-based) of INDEXES. Index names take the prefix: PostgreSQL and Oracle keep them in
-- the schema's namespace.
function M.create_index(con, k)
  local s = common.settings()
  local ix = M.INDEXES[k]
  con:query(common.dialect().create_index(s.prefix .. ix[2], s.t[ix[1]], ix[3]))
end

-- The sequences, each starting above the largest key loaded (starts: name -> first value).
function M.create_sequences(con, starts)
  local s = common.settings()
  local d = common.dialect()
  for _, name in ipairs(common.SEQUENCES) do
    local ok, err = pcall(con.query, con, d.create_sequence(s.seq[name], starts[name]))
    if not ok then
      if d.name == "mysql" then
        common.fail("soe needs sequences, which this server refuses (MariaDB 10.3 and later has them; MySQL does not): %s",
          tostring(type(err) == "table" and err.sql_errmsg or err))
      end
      error(err, 0)
    end
  end
end

function M.analyze(con)
  local s = common.settings()
  for _, name in ipairs(common.TABLES) do
    con:query(common.dialect().analyze_after_load(s.t[name]))
  end
end

function M.drop(con)
  local s = common.settings()
  local d = common.dialect()
  local names = {}
  for _, name in ipairs(common.TABLES) do names[#names + 1] = s.t[name] end
  names[#names + 1] = s.t.config
  for _, sql in ipairs(d.drop_tables(names)) do con:query(sql) end
  for _, name in ipairs(common.SEQUENCES) do con:query(d.drop_sequence(s.seq[name])) end
end

return M
