-- bookstore.schema: the ten tables (TPC-W's eight plus DBT-1's two shopping-cart tables), the
-- secondary indexes (created after the load), the sequences for the keys the run generates, and
-- dropping it all. Integer keys, NUMERIC money, no foreign keys (as DBT-1).
local common = require("bookstore.common")

local M = {}
local fmt = string.format

local MONEY = "NUMERIC(17,2)"

-- Column lists; "{id}" marks a key generated at run time (identity / AUTO_INCREMENT).
local DEFS = {
  config = { "name VARCHAR(40) NOT NULL", "value BIGINT NOT NULL", pk = "name" },
  country = {
    "co_id INTEGER NOT NULL", "co_name VARCHAR(50) NOT NULL", "co_exchange NUMERIC(12,6) NOT NULL",
    "co_currency VARCHAR(18) NOT NULL", pk = "co_id" },
  author = {
    "a_id INTEGER NOT NULL", "a_fname VARCHAR(20) NOT NULL", "a_lname VARCHAR(20) NOT NULL",
    "a_mname VARCHAR(20)", "a_dob DATE", "a_bio VARCHAR(500)", pk = "a_id" },
  item = {
    "i_id INTEGER NOT NULL", "i_title VARCHAR(60) NOT NULL", "i_a_id INTEGER NOT NULL",
    "i_pub_date DATE NOT NULL", "i_publisher VARCHAR(60)", "i_subject VARCHAR(60) NOT NULL",
    "i_desc VARCHAR(500)", "i_related1 INTEGER", "i_related2 INTEGER", "i_related3 INTEGER",
    "i_related4 INTEGER", "i_related5 INTEGER", "i_thumbnail INTEGER", "i_image INTEGER",
    "i_srp " .. MONEY .. " NOT NULL", "i_cost " .. MONEY .. " NOT NULL", "i_avail DATE",
    "i_stock INTEGER NOT NULL", "i_isbn CHAR(13)", "i_page INTEGER", "i_backing VARCHAR(15)",
    "i_dimensions VARCHAR(25)", pk = "i_id" },
  customer = {
    "c_id {id}", "c_uname VARCHAR(20) NOT NULL", "c_passwd VARCHAR(20) NOT NULL",
    "c_fname VARCHAR(15) NOT NULL", "c_lname VARCHAR(15) NOT NULL", "c_addr_id INTEGER NOT NULL",
    "c_phone VARCHAR(16)", "c_email VARCHAR(50)", "c_since DATE", "c_last_visit DATE",
    "c_login {ts}", "c_expiration {ts}", "c_discount NUMERIC(5,2) NOT NULL",
    "c_balance " .. MONEY, "c_ytd_pmt " .. MONEY, "c_birthdate DATE", "c_data VARCHAR(500)",
    pk = "c_id" },
  address = {
    "addr_id {id}", "addr_street1 VARCHAR(40) NOT NULL", "addr_street2 VARCHAR(40) NOT NULL",
    "addr_city VARCHAR(30) NOT NULL", "addr_state VARCHAR(20) NOT NULL",
    "addr_zip VARCHAR(10) NOT NULL", "addr_co_id INTEGER NOT NULL", pk = "addr_id" },
  orders = {
    "o_id {id}", "o_c_id INTEGER NOT NULL", "o_date {ts} NOT NULL",
    "o_sub_total " .. MONEY .. " NOT NULL", "o_tax " .. MONEY .. " NOT NULL",
    "o_total " .. MONEY .. " NOT NULL", "o_ship_type VARCHAR(10) NOT NULL", "o_ship_date {ts}",
    "o_bill_addr_id INTEGER NOT NULL", "o_ship_addr_id INTEGER NOT NULL",
    "o_status VARCHAR(15) NOT NULL", pk = "o_id" },
  order_line = {
    "ol_id INTEGER NOT NULL", "ol_o_id INTEGER NOT NULL", "ol_i_id INTEGER NOT NULL",
    "ol_qty INTEGER NOT NULL", "ol_discount NUMERIC(5,2) NOT NULL", "ol_comments VARCHAR(100)",
    pk = "ol_o_id, ol_id" },
  cc_xacts = {
    "cx_o_id INTEGER NOT NULL", "cx_type VARCHAR(10) NOT NULL", "cx_num BIGINT NOT NULL",
    "cx_name VARCHAR(31) NOT NULL", "cx_expiry DATE NOT NULL", "cx_auth_id CHAR(15) NOT NULL",
    "cx_xact_amt " .. MONEY .. " NOT NULL", "cx_xact_date {ts} NOT NULL",
    "cx_co_id INTEGER NOT NULL", pk = "cx_o_id" },
  shopping_cart = {
    "sc_id {id}", "sc_c_id INTEGER", "sc_date {ts} NOT NULL", "sc_sub_total " .. MONEY,
    "sc_tax " .. MONEY, "sc_ship_cost " .. MONEY, "sc_total " .. MONEY, "sc_c_fname VARCHAR(15)",
    "sc_c_lname VARCHAR(15)", "sc_c_discount NUMERIC(5,2)", pk = "sc_id" },
  shopping_cart_line = {
    "scl_sc_id INTEGER NOT NULL", "scl_i_id INTEGER NOT NULL", "scl_qty INTEGER NOT NULL",
    "scl_cost " .. MONEY .. " NOT NULL", "scl_srp " .. MONEY .. " NOT NULL",
    "scl_title VARCHAR(60) NOT NULL", "scl_backing VARCHAR(15)", pk = "scl_sc_id, scl_i_id" },
}

-- The tables whose key the run generates, with the key column.
M.GENERATED = { customer = "c_id", address = "addr_id", orders = "o_id", shopping_cart = "sc_id" }

-- Secondary indexes: the union of DBT-1's and the UW kit's (reference notes §1.2), built after
-- the data. The author last-name index serves the prefix LIKE of author searches.
local INDEXES = {
  { "item", "i_subject", "i_subject" },
  { "item", "i_a_id", "i_a_id" },
  { "item", "i_title", "i_title" },
  { "author", "a_lname", "a_lname", like_prefix = true },
  { "customer", "c_uname", "c_uname" },
  { "orders", "o_c_id", "o_c_id" },
  { "order_line", "ol_i_id", "ol_i_id" },
  { "address", "addr_all", "addr_street1, addr_street2, addr_city, addr_state, addr_zip, addr_co_id" },
  { "country", "co_name", "co_name" },
  { "shopping_cart_line", "scl_i_id", "scl_i_id" },
}
M.INDEXES = INDEXES

local function create_sql(name, real)
  local d = common.dialect()
  local cols = {}
  for i, c in ipairs(DEFS[name]) do
    c = c:gsub("{id}", d.identity)
    c = c:gsub("{ts}", d.timestamp)
    cols[i] = "  " .. c
  end
  cols[#cols + 1] = "  PRIMARY KEY (" .. DEFS[name].pk .. ")"
  return fmt("CREATE TABLE %s (\n%s\n)%s", real, d.column_types(table.concat(cols, ",\n")), d.table_options)
end

-- Creates the configuration table first (it marks the schema as ours for cleanup), then the ten
-- tables. Refuses, before creating anything, when one of the names is taken.
function M.create(con)
  local s = common.settings()
  for _, name in ipairs(common.TABLES) do
    if common.table_exists(con, s.t[name]) then
      common.fail("table '%s' already exists: run 'cleanup' first, or choose another --table-prefix", s.t[name])
    end
  end
  if common.table_exists(con, s.t.config) then
    common.fail("table '%s' already exists: run 'cleanup' first", s.t.config)
  end
  con:query(create_sql("config", s.t.config))
  for _, name in ipairs(common.TABLES) do
    con:query(create_sql(name, s.t[name]))
  end
end

-- Index `k` (1-based) of INDEXES.
function M.create_index(con, k)
  local s = common.settings()
  local ix = INDEXES[k]
  local cols = ix.like_prefix and common.dialect().like_prefix_column(ix[3]) or ix[3]
  con:query(fmt("CREATE INDEX %s%s_%s ON %s (%s)", s.prefix, ix[1], ix[2], s.t[ix[1]], cols))
end

-- Starts the generated keys after the loaded maxima (§3.1.5 of the reference notes).
function M.restart_sequences(con)
  local s = common.settings()
  for name, key in pairs(M.GENERATED) do
    common.dialect().restart_keys(con, s.t[name], key)
  end
end

function M.analyze(con)
  local s = common.settings()
  for _, name in ipairs(common.TABLES) do
    con:query(common.dialect().analyze(s.t[name]))
  end
end

function M.drop(con)
  local s = common.settings()
  local names = {}
  for _, name in ipairs(common.TABLES) do names[#names + 1] = s.t[name] end
  names[#names + 1] = s.t.config
  for _, sql in ipairs(common.dialect().drop_tables(names)) do con:query(sql) end
end

return M
