-- bookstore.load: `prepare`. Thread 0 creates the tables; then every thread loads its slice of
-- each table's key range with multi-row INSERTs (authors, items, customers, addresses, and
-- orders with their lines and card transactions), thread 0 printing the progress of all; then
-- the secondary indexes are built in parallel, the generated keys restarted above the loaded
-- maxima, the statistics refreshed and the scale recorded in the configuration table.
local common = require("bookstore.common")
local schema = require("bookstore.schema")
local text = require("bookstore.text")

local M = {}

local fmt = string.format
local uniform = sysbench.rand.uniform
local floor = math.floor

-- The 92 countries: name, currency, units per US dollar (approximate).
local COUNTRIES = {
  { "United States", "Dollars", 1 }, { "United Kingdom", "Pounds", 0.79 },
  { "Canada", "Dollars", 1.36 }, { "Germany", "Euro", 0.92 }, { "France", "Euro", 0.92 },
  { "Japan", "Yen", 151.3 }, { "Netherlands", "Euro", 0.92 }, { "Italy", "Euro", 0.92 },
  { "Switzerland", "Francs", 0.9 }, { "Australia", "Dollars", 1.52 },
  { "Algeria", "Dinars", 134.5 }, { "Argentina", "Pesos", 870 }, { "Armenia", "Dram", 388 },
  { "Austria", "Euro", 0.92 }, { "Azerbaijan", "Manat", 1.7 }, { "Bahamas", "Dollars", 1 },
  { "Bahrain", "Dinar", 0.376 }, { "Bangladesh", "Taka", 110 }, { "Barbados", "Dollars", 2 },
  { "Belarus", "Rubles", 3.27 }, { "Belgium", "Euro", 0.92 }, { "Bermuda", "Dollars", 1 },
  { "Bolivia", "Bolivianos", 6.91 }, { "Botswana", "Pula", 13.7 }, { "Brazil", "Reais", 5.05 },
  { "Bulgaria", "Lev", 1.8 }, { "Cameroon", "CFA Francs", 604 }, { "Chile", "Pesos", 950 },
  { "China", "Yuan Renminbi", 7.23 }, { "Colombia", "Pesos", 3900 },
  { "Costa Rica", "Colones", 505 }, { "Croatia", "Euro", 0.92 }, { "Cyprus", "Euro", 0.92 },
  { "Czech Republic", "Koruny", 23.4 }, { "Denmark", "Kroner", 6.88 },
  { "Dominican Republic", "Pesos", 59 }, { "Ecuador", "Dollars", 1 }, { "Egypt", "Pounds", 47 },
  { "Estonia", "Euro", 0.92 }, { "Ethiopia", "Birr", 57 }, { "Fiji", "Dollars", 2.26 },
  { "Finland", "Euro", 0.92 }, { "Ghana", "Cedis", 13.4 }, { "Greece", "Euro", 0.92 },
  { "Guatemala", "Quetzales", 7.8 }, { "Hong Kong", "Dollars", 7.82 },
  { "Hungary", "Forint", 365 }, { "Iceland", "Kronur", 138 }, { "India", "Rupees", 83.4 },
  { "Indonesia", "Rupiahs", 15900 }, { "Ireland", "Euro", 0.92 },
  { "Israel", "New Shekels", 3.7 }, { "Jamaica", "Dollars", 155 }, { "Jordan", "Dinars", 0.709 },
  { "Kazakhstan", "Tenge", 447 }, { "Kenya", "Shillings", 131 }, { "South Korea", "Won", 1340 },
  { "Kuwait", "Dinars", 0.307 }, { "Latvia", "Euro", 0.92 }, { "Lebanon", "Pounds", 89500 },
  { "Lithuania", "Euro", 0.92 }, { "Luxembourg", "Euro", 0.92 }, { "Malaysia", "Ringgits", 4.74 },
  { "Malta", "Euro", 0.92 }, { "Mauritius", "Rupees", 46 }, { "Mexico", "Pesos", 16.6 },
  { "Morocco", "Dirhams", 10.1 }, { "New Zealand", "Dollars", 1.67 },
  { "Nigeria", "Nairas", 1300 }, { "Norway", "Kroner", 10.8 }, { "Oman", "Rials", 0.385 },
  { "Pakistan", "Rupees", 278 }, { "Panama", "Balboa", 1 }, { "Paraguay", "Guarani", 7350 },
  { "Peru", "Nuevos Soles", 3.72 }, { "Philippines", "Pesos", 56.5 },
  { "Poland", "Zlotych", 3.98 }, { "Portugal", "Euro", 0.92 }, { "Qatar", "Riyals", 3.64 },
  { "Romania", "Lei", 4.58 }, { "Saudi Arabia", "Riyals", 3.75 },
  { "Singapore", "Dollars", 1.35 }, { "Slovakia", "Euro", 0.92 },
  { "South Africa", "Rand", 18.7 }, { "Spain", "Euro", 0.92 }, { "Sri Lanka", "Rupees", 300 },
  { "Sweden", "Kronor", 10.6 }, { "Taiwan", "New Dollars", 32 }, { "Thailand", "Baht", 36.5 },
  { "Turkey", "Lira", 32.3 }, { "Ukraine", "Hryvnia", 39.2 }, { "Uruguay", "Pesos", 38.5 },
}
assert(#COUNTRIES == 92)
M.COUNTRIES = COUNTRIES

-- Dates ------------------------------------------------------------------------------------------

local NOW = os.time()
local DAY = 86400
local date_cache = {}
-- The date `d` days before today.
local function days_ago(d)
  local s = date_cache[d]
  if not s then
    s = os.date("%Y-%m-%d", NOW - d * DAY)
    date_cache[d] = s
  end
  return s
end
local function stamp(seconds_ago)
  return os.date("%Y-%m-%d %H:%M:%S", NOW - seconds_ago)
end
-- Days from these years' 1 January to today.
local since = {}
for _, y in ipairs({ 1800, 1880, 1930, 1990 }) do
  since[y] = floor((NOW - os.time({ year = y, month = 1, day = 1, hour = 12 })) / DAY)
end
local function since_year(y)
  return since[y]
end

-- Shared progress and phases -----------------------------------------------------------------

-- ld (luabench.prepare): rows and phases of all threads; phase 1 = tables created, 2 = data
-- loaded, 3 = indexes built. lines: order lines loaded per thread.
local ld, lines

local function sum_lines()
  local n = 0
  for t = 0, ld.threads - 1 do n = n + tonumber(lines[t]) end
  return n
end

-- The slice [lo, hi] of 1..n loaded by thread t.
local function slice(n, t, threads)
  return floor(n * t / threads) + 1, floor(n * (t + 1) / threads)
end

-- Bulk loaders ---------------------------------------------------------------------------------

local con, s, sc

-- The dialect's bulk insert into table_name. The keys of the tables whose key the run generates
-- come from the load here: where the server needs leave for that (explicit_keys), it is taken
-- for the load and given back at done().
local function bulk_open(table_name, columns)
  local d = common.dialect()
  local t = s.t[table_name]
  local keys_on = schema.GENERATED[table_name] and d.explicit_keys(t, true)
  if keys_on then con:query(keys_on) end
  local b = d.bulk_insert(con, fmt("INSERT INTO %s (%s) VALUES", t, columns))
  return {
    next = function(_, r) b:next(r) end,
    done = function()
      b:done()
      if keys_on then con:query(d.explicit_keys(t, false)) end
    end,
  }
end

local function bulk(table_name, columns, lo, hi, row)
  if hi < lo then return end
  local b = bulk_open(table_name, columns)
  local pending = 0
  for id = lo, hi do
    b:next(row(id))
    pending = pending + 1
    if pending == 500 then
      ld:add(500)
      pending = 0
    end
  end
  b:done()
  ld:add(pending)
end

local function load_countries()
  local b = bulk_open("country", "co_id, co_name, co_exchange, co_currency")
  for i, c in ipairs(COUNTRIES) do
    b:next(fmt("(%d,'%s',%.6f,'%s')", i, c[1], c[3], c[2]))
  end
  b:done()
  ld:add(#COUNTRIES)
end

local function author_row(a_id)
  local dob = since_year(1800) - uniform(0, since_year(1800) - since_year(1990))
  return fmt("(%d,'%s','%s','%s','%s','%s')", a_id, text.name(3, 20), text.author_lname(a_id, sc.items),
    text.name(1, 20), days_ago(dob), text.text(125, 500))
end

local SUBJECTS, BACKINGS = common.SUBJECTS, common.BACKINGS

local function item_row(i_id)
  local n = sc.items
  local a_id = i_id <= sc.authors and i_id or uniform(1, sc.authors)
  local rel, seen = {}, { [i_id] = true }
  while #rel < 5 do
    local r = uniform(1, n)
    if not seen[r] then
      seen[r] = true
      rel[#rel + 1] = r
    end
  end
  local pub = uniform(0, since_year(1930))
  local avail = math.max(pub - uniform(1, 30), 0)
  local srp = uniform(100, 999999)
  local cost = floor(srp * (100 - uniform(0, 50)) / 100)
  return fmt("(%d,'%s',%d,'%s','%s','%s','%s',%d,%d,%d,%d,%d,%d,%d,%s,%s,'%s',%d,'%s',%d,'%s','%.2fx%.2fx%.2f')",
    i_id, text.title(i_id, n), a_id, days_ago(pub), text.text(14, 60), SUBJECTS[uniform(1, 24)],
    text.text(100, 500), rel[1], rel[2], rel[3], rel[4], rel[5], i_id, i_id, common.money(srp),
    common.money(cost), days_ago(avail), uniform(10, 30), text.digits(13), uniform(20, 9999),
    BACKINGS[uniform(1, #BACKINGS)], uniform(1, 9999) / 100, uniform(1, 9999) / 100,
    uniform(1, 9999) / 100)
end

local login_at, expires_at
local function customer_row(c_id)
  local uname = common.digsyl(c_id, 0)
  local since = uniform(1, 730)
  local visit = math.max(since - uniform(0, 60), 0)
  return fmt("(%d,'%s','%s','%s','%s',%d,'%s','%s@%s.com','%s','%s','%s','%s',%s,%s,%s,'%s','%s')",
    c_id, uname, uname:lower(), text.name(8, 15), text.name(8, 15), uniform(1, sc.addresses),
    text.digits(uniform(9, 16)), uname, text.letters(4, 20), days_ago(since), days_ago(visit),
    login_at, expires_at, common.money(uniform(0, 50)), "0.00", common.money(uniform(0, 99999)),
    days_ago(uniform(0, since_year(1880))), text.text(100, 500))
end

local function address_row(addr_id)
  local s1, s2, city, state, zip, co = text.address()
  return fmt("(%d,'%s','%s','%s','%s','%s',%d)", addr_id, s1, s2, city, state, zip, co)
end

local SHIP, CARDS, STATUS = common.SHIP_TYPES, common.CARD_TYPES, common.ORDER_STATUS

-- Orders with their lines and card transactions, in batches (one bulk INSERT per table each).
local function load_orders(lo, hi)
  local BATCH = 500
  local t = sysbench.tid
  for b = lo, hi, BATCH do
    local last = math.min(b + BATCH - 1, hi)
    local orows, lrows, crows = {}, {}, {}
    for o_id = b, last do
      local nlines = uniform(1, 5)
      local qty = 0
      for l = 1, nlines do
        local q = uniform(1, 300)
        qty = qty + q
        lrows[#lrows + 1] = fmt("(%d,%d,%d,%d,%s,'%s')", l, o_id, uniform(1, sc.items), q,
          common.money(uniform(0, 3)), text.text(20, 100))
      end
      local ago = uniform(DAY, 60 * DAY)
      local date = stamp(ago)
      local sub = uniform(1000, 999999)
      local tax = floor((sub * 825 + 5000) / 10000)
      local total = sub + tax + 300 + 100 * qty
      orows[#orows + 1] = fmt("(%d,%d,'%s',%s,%s,%s,'%s','%s',%d,%d,'%s')", o_id,
        uniform(1, sc.customers), date, common.money(sub), common.money(tax), common.money(total),
        SHIP[uniform(1, #SHIP)], stamp(math.max(ago - uniform(0, 7) * DAY, 0)),
        uniform(1, sc.addresses), uniform(1, sc.addresses), STATUS[uniform(1, #STATUS)])
      crows[#crows + 1] = fmt("(%d,'%s',%s,'%s %s','%s','%s',%s,'%s',%d)", o_id,
        CARDS[uniform(1, #CARDS)], text.digits(16), text.name(5, 15), text.name(5, 15),
        days_ago(-uniform(10, 730)), text.letters(15, 15):upper(), common.money(total), date,
        uniform(1, 92))
    end
    local function put(tbl, cols, rows)
      local b = bulk_open(tbl, cols)
      for _, r in ipairs(rows) do b:next(r) end
      b:done()
    end
    put("orders", "o_id, o_c_id, o_date, o_sub_total, o_tax, o_total, o_ship_type, o_ship_date, o_bill_addr_id, o_ship_addr_id, o_status", orows)
    put("order_line", "ol_id, ol_o_id, ol_i_id, ol_qty, ol_discount, ol_comments", lrows)
    put("cc_xacts", "cx_o_id, cx_type, cx_num, cx_name, cx_expiry, cx_auth_id, cx_xact_amt, cx_xact_date, cx_co_id", crows)
    lines[t] = lines[t] + #lrows
    ld:add(#orows + #lrows + #crows)
  end
end

-- prepare ----------------------------------------------------------------------------------------

local function load_slice(tid, threads)
  if tid == 0 then load_countries() end
  local lo, hi = slice(sc.authors, tid, threads)
  bulk("author", "a_id, a_fname, a_lname, a_mname, a_dob, a_bio", lo, hi, author_row)
  lo, hi = slice(sc.items, tid, threads)
  bulk("item", "i_id, i_title, i_a_id, i_pub_date, i_publisher, i_subject, i_desc, i_related1, i_related2, i_related3, i_related4, i_related5, i_thumbnail, i_image, i_srp, i_cost, i_avail, i_stock, i_isbn, i_page, i_backing, i_dimensions",
    lo, hi, item_row)
  login_at, expires_at = stamp(0), stamp(-7200)
  lo, hi = slice(sc.customers, tid, threads)
  bulk("customer", "c_id, c_uname, c_passwd, c_fname, c_lname, c_addr_id, c_phone, c_email, c_since, c_last_visit, c_login, c_expiration, c_discount, c_balance, c_ytd_pmt, c_birthdate, c_data",
    lo, hi, customer_row)
  lo, hi = slice(sc.addresses, tid, threads)
  bulk("address", "addr_id, addr_street1, addr_street2, addr_city, addr_state, addr_zip, addr_co_id", lo, hi, address_row)
  lo, hi = slice(sc.orders, tid, threads)
  load_orders(lo, hi)
end

function M.prepare()
  s = common.settings()
  sc = common.scale(s.items, s.ebs)
  local tid, threads = sysbench.tid, s.threads
  ld = require("luabench.prepare").new("bookstore.load",
    sc.countries + sc.authors + sc.items + sc.customers + sc.addresses + 5 * sc.orders)
  lines = luabench.shared("bookstore.load.lines", "uint64_t", threads)
  con = common.open()
  local ok, err = pcall(function()
    if tid == 0 then
      print(fmt("Creating the bookstore tables%s: %d items, %d EBs (%d customers, %d orders)...",
        s.prefix ~= "" and (" (prefix '" .. s.prefix .. "')") or "", sc.items, sc.ebs, sc.customers, sc.orders))
      schema.create(con)
      common.config_set(con, "loaded", 0)
      common.config_set(con, "items", sc.items)
      common.config_set(con, "ebs", sc.ebs)
    end
    ld:phase(1)
    load_slice(tid, threads)
    ld:phase(2)
    if tid == 0 then
      ld:finish()
      print("Creating secondary indexes...")
    end
    for k = tid + 1, #schema.INDEXES, threads do
      schema.create_index(con, k)
    end
    ld:phase(3)
    if tid == 0 then
      schema.restart_sequences(con)
      print("Analyzing the tables...")
      schema.analyze(con)
      local values = {
        customers = sc.customers, addresses = sc.addresses, orders = sc.orders,
        order_lines = sum_lines(), authors = sc.authors, countries = sc.countries,
        max_o_id = sc.orders, max_c_id = sc.customers, max_addr_id = sc.addresses,
        bc_committed = 0, new_customers = 0, runs = 0,
      }
      for k, v in pairs(values) do common.config_set(con, k, v) end
      common.config_set(con, "loaded", 1)
      print(fmt("Loaded %d rows in %.1f s", ld:rows(), luabench.time() - ld.t0))
    end
  end)
  if not ok then
    con:disconnect()
    ld:fail() -- after the cleanup: this thread's error, the cause, is reported first
    error(err, 0)
  end
  con:disconnect()
end

return M
