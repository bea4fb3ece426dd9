-- dbt3.queries: the 22 queries (TPC-H clause 2.4) as templates, and their substitution
-- parameters drawn per stream. Templates name tables as $lineitem and parameters as $date; date
-- arithmetic is done here, on the client, so the SQL carries plain DATE literals that every
-- server reads alike. What still differs between servers (LIMIT, the statement timeout) comes
-- from the dialect.
local common = require("dbt3.common")
local gen = require("dbt3.gen")
local text = require("dbt3.text")

local M = {}

local fmt = string.format

-- The query order of the first streams (TPC-H Appendix A); stream s uses row s mod 9.
M.ORDER = {
  [0] = { 14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12 },
  { 21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4 },
  { 6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21 },
  { 8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3 },
  { 5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20 },
  { 21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9 },
  { 10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21 },
  { 18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12 },
  { 19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11 },
}

function M.order(stream) return M.ORDER[stream % 9] end

-- Dates ---------------------------------------------------------------------------------------

local function ymd(d) return tonumber(d:sub(1, 4)), tonumber(d:sub(6, 7)), tonumber(d:sub(9, 10)) end

local function add_months(d, n)
  local y, m, day = ymd(d)
  m = m - 1 + n
  return fmt("%04d-%02d-%02d", y + math.floor(m / 12), m % 12 + 1, day)
end

local DAYNUM = {}
for n, s in pairs(gen.DAYS) do DAYNUM[s] = n end
local function add_days(d, n) return gen.DAYS[DAYNUM[d] + n] end
M.add_days, M.add_months = add_days, add_months

-- Substitution parameters ----------------------------------------------------------------------

local rnd, pick = gen.rnd, gen.pick

local function nation() return text.NATIONS[rnd(0, 24)][1] end
local function year_start() return fmt("%04d-01-01", rnd(1993, 1997)) end
local function month_start(first_y, first_m, months)
  return add_months(fmt("%04d-%02d-01", first_y, first_m), rnd(0, months - 1))
end
local function brand() return fmt("Brand#%d%d", rnd(1, 5), rnd(1, 5)) end
local function distinct(n, lo, hi)
  local out, seen = {}, {}
  while #out < n do
    local v = rnd(lo, hi)
    if not seen[v] then seen[v] = true; out[#out + 1] = v end
  end
  return out
end

-- The parameters of query q (clause 2.4.q.3), drawn from the current generator stream.
local DRAW = {
  [1] = function() return { date = add_days("1998-12-01", -rnd(60, 120)) } end,
  [2] = function() return { size = rnd(1, 50), type = pick(text.TYPE_S3), rname = text.REGIONS[rnd(0, 4)] } end,
  [3] = function() return { segment = pick(text.SEGMENTS), date = fmt("1995-03-%02d", rnd(1, 31)) } end,
  [4] = function() return { date = month_start(1993, 1, 58) } end,
  [5] = function() return { rname = text.REGIONS[rnd(0, 4)], date = year_start() } end,
  [6] = function() return { date = year_start(), discount = fmt("0.%02d", rnd(2, 9)), quantity = rnd(24, 25) } end,
  [7] = function()
    local a = rnd(0, 24)
    local b = rnd(0, 24)
    while b == a do b = rnd(0, 24) end
    return { nation1 = text.NATIONS[a][1], nation2 = text.NATIONS[b][1] }
  end,
  [8] = function()
    local n = text.NATIONS[rnd(0, 24)]
    return { nname = n[1], rname = text.REGIONS[n[2]],
      type = pick(text.TYPE_S1) .. " " .. pick(text.TYPE_S2) .. " " .. pick(text.TYPE_S3) }
  end,
  [9] = function() return { color = pick(text.COLORS) } end,
  [10] = function() return { date = month_start(1993, 2, 24) } end,
  [11] = function() return { nname = nation() } end,
  [12] = function()
    local a = rnd(1, 7)
    local b = rnd(1, 7)
    while b == a do b = rnd(1, 7) end
    return { shipmode1 = text.MODES[a], shipmode2 = text.MODES[b], date = year_start() }
  end,
  [13] = function()
    return { word1 = ({ "special", "pending", "unusual", "express" })[rnd(1, 4)],
      word2 = ({ "packages", "requests", "accounts", "deposits" })[rnd(1, 4)] }
  end,
  [14] = function() return { date = month_start(1993, 1, 60) } end,
  [15] = function() return { date = month_start(1993, 1, 58) } end,
  [16] = function()
    local sizes = distinct(8, 1, 50)
    return { brand = brand(), type = pick(text.TYPE_S1) .. " " .. pick(text.TYPE_S2), sizes = table.concat(sizes, ", ") }
  end,
  [17] = function() return { brand = brand(), container = pick(text.CONTAINER_S1) .. " " .. pick(text.CONTAINER_S2) } end,
  [18] = function() return { quantity = rnd(312, 315) } end,
  [19] = function()
    return { quantity1 = rnd(1, 10), quantity2 = rnd(10, 20), quantity3 = rnd(20, 30),
      brand1 = brand(), brand2 = brand(), brand3 = brand() }
  end,
  [20] = function() return { color = pick(text.COLORS), date = year_start(), nname = nation() } end,
  [21] = function() return { nname = nation() } end,
  [22] = function()
    local codes = distinct(7, 10, 34)
    for i, c in ipairs(codes) do codes[i] = "'" .. c .. "'" end
    return { codes = table.concat(codes, ", ") }
  end,
}

-- The specification's validation parameters (clause 2.4.q.4), for comparing with its answer set
-- at SF 1 (--qualification).
local QUALIFICATION = {
  [1] = { date = add_days("1998-12-01", -90) },
  [2] = { size = 15, type = "BRASS", rname = "EUROPE" },
  [3] = { segment = "BUILDING", date = "1995-03-15" },
  [4] = { date = "1993-07-01" },
  [5] = { rname = "ASIA", date = "1994-01-01" },
  [6] = { date = "1994-01-01", discount = "0.06", quantity = 24 },
  [7] = { nation1 = "FRANCE", nation2 = "GERMANY" },
  [8] = { nname = "BRAZIL", rname = "AMERICA", type = "ECONOMY ANODIZED STEEL" },
  [9] = { color = "green" },
  [10] = { date = "1993-10-01" },
  [11] = { nname = "GERMANY" },
  [12] = { shipmode1 = "MAIL", shipmode2 = "SHIP", date = "1994-01-01" },
  [13] = { word1 = "special", word2 = "requests" },
  [14] = { date = "1995-09-01" },
  [15] = { date = "1996-01-01" },
  [16] = { brand = "Brand#45", type = "MEDIUM POLISHED", sizes = "49, 14, 23, 45, 19, 3, 36, 9" },
  [17] = { brand = "Brand#23", container = "MED BOX" },
  [18] = { quantity = 300 },
  [19] = { quantity1 = 1, quantity2 = 10, quantity3 = 20, brand1 = "Brand#12", brand2 = "Brand#23", brand3 = "Brand#34" },
  [20] = { color = "forest", date = "1994-01-01", nname = "CANADA" },
  [21] = { nname = "SAUDI ARABIA" },
  [22] = { codes = "'13', '31', '23', '29', '30', '18', '17'" },
}

-- Templates ------------------------------------------------------------------------------------

local Q = {}
Q[1] = [[
SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty, SUM(l_extendedprice) AS sum_base_price,
  SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
  SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, AVG(l_quantity) AS avg_qty,
  AVG(l_extendedprice) AS avg_price, AVG(l_discount) AS avg_disc, COUNT(*) AS count_order
FROM $lineitem WHERE l_shipdate <= DATE '$date'
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus]]
Q[2] = [[
SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
FROM $part, $supplier, $partsupp, $nation, $region
WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = $size AND p_type LIKE '%$type'
  AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = '$rname'
  AND ps_supplycost = (SELECT MIN(ps_supplycost) FROM $partsupp, $supplier, $nation, $region
    WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND s_nationkey = n_nationkey
      AND n_regionkey = r_regionkey AND r_name = '$rname')
ORDER BY s_acctbal DESC, n_name, s_name, p_partkey$limit100]]
Q[3] = [[
SELECT l_orderkey, SUM(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM $customer, $orders, $lineitem
WHERE c_mktsegment = '$segment' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < DATE '$date' AND l_shipdate > DATE '$date'
GROUP BY l_orderkey, o_orderdate, o_shippriority
ORDER BY revenue DESC, o_orderdate, l_orderkey$limit10]]
Q[4] = [[
SELECT o_orderpriority, COUNT(*) AS order_count FROM $orders
WHERE o_orderdate >= DATE '$date' AND o_orderdate < DATE '$date_3m'
  AND EXISTS (SELECT * FROM $lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority ORDER BY o_orderpriority]]
Q[5] = [[
SELECT n_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue
FROM $customer, $orders, $lineitem, $supplier, $nation, $region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = '$rname' AND o_orderdate >= DATE '$date' AND o_orderdate < DATE '$date_1y'
GROUP BY n_name ORDER BY revenue DESC, n_name]]
Q[6] = [[
SELECT SUM(l_extendedprice * l_discount) AS revenue FROM $lineitem
WHERE l_shipdate >= DATE '$date' AND l_shipdate < DATE '$date_1y'
  AND l_discount BETWEEN $discount - 0.01 AND $discount + 0.01 AND l_quantity < $quantity]]
Q[7] = [[
SELECT supp_nation, cust_nation, l_year, SUM(volume) AS revenue FROM (
  SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation, EXTRACT(YEAR FROM l_shipdate) AS l_year,
    l_extendedprice * (1 - l_discount) AS volume
  FROM $supplier, $lineitem, $orders, $customer, $nation n1, $nation n2
  WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND c_custkey = o_custkey
    AND s_nationkey = n1.n_nationkey AND c_nationkey = n2.n_nationkey
    AND ((n1.n_name = '$nation1' AND n2.n_name = '$nation2') OR (n1.n_name = '$nation2' AND n2.n_name = '$nation1'))
    AND l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31') shipping
GROUP BY supp_nation, cust_nation, l_year ORDER BY supp_nation, cust_nation, l_year]]
Q[8] = [[
SELECT o_year, SUM(CASE WHEN nation = '$nname' THEN volume ELSE 0 END) / SUM(volume) AS mkt_share FROM (
  SELECT EXTRACT(YEAR FROM o_orderdate) AS o_year, l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation
  FROM $part, $supplier, $lineitem, $orders, $customer, $nation n1, $nation n2, $region
  WHERE p_partkey = l_partkey AND s_suppkey = l_suppkey AND l_orderkey = o_orderkey AND o_custkey = c_custkey
    AND c_nationkey = n1.n_nationkey AND n1.n_regionkey = r_regionkey AND r_name = '$rname'
    AND s_nationkey = n2.n_nationkey AND o_orderdate BETWEEN DATE '1995-01-01' AND DATE '1996-12-31'
    AND p_type = '$type') all_nations
GROUP BY o_year ORDER BY o_year]]
Q[9] = [[
SELECT nation, o_year, SUM(amount) AS sum_profit FROM (
  SELECT n_name AS nation, EXTRACT(YEAR FROM o_orderdate) AS o_year,
    l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity AS amount
  FROM $part, $supplier, $lineitem, $partsupp, $orders, $nation
  WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey AND p_partkey = l_partkey
    AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey AND p_name LIKE '%$color%') profit
GROUP BY nation, o_year ORDER BY nation, o_year DESC]]
Q[10] = [[
SELECT c_custkey, c_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal, n_name, c_address,
  c_phone, c_comment
FROM $customer, $orders, $lineitem, $nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate >= DATE '$date'
  AND o_orderdate < DATE '$date_3m' AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
ORDER BY revenue DESC, c_custkey$limit20]]
Q[11] = [[
SELECT ps_partkey, SUM(ps_supplycost * ps_availqty) AS value FROM $partsupp, $supplier, $nation
WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = '$nname'
GROUP BY ps_partkey HAVING SUM(ps_supplycost * ps_availqty) > (
  SELECT SUM(ps_supplycost * ps_availqty) * $fraction FROM $partsupp, $supplier, $nation
  WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = '$nname')
ORDER BY value DESC, ps_partkey]]
Q[12] = [[
SELECT l_shipmode,
  SUM(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high_line_count,
  SUM(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
FROM $orders, $lineitem
WHERE o_orderkey = l_orderkey AND l_shipmode IN ('$shipmode1', '$shipmode2') AND l_commitdate < l_receiptdate
  AND l_shipdate < l_commitdate AND l_receiptdate >= DATE '$date' AND l_receiptdate < DATE '$date_1y'
GROUP BY l_shipmode ORDER BY l_shipmode]]
Q[13] = [[
SELECT c_count, COUNT(*) AS custdist FROM (
  SELECT c_custkey, COUNT(o_orderkey) AS c_count
  FROM $customer LEFT OUTER JOIN $orders ON c_custkey = o_custkey AND o_comment NOT LIKE '%$word1%$word2%'
  GROUP BY c_custkey) c_orders
GROUP BY c_count ORDER BY custdist DESC, c_count DESC]]
Q[14] = [[
SELECT 100.00 * SUM(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
  / SUM(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM $lineitem, $part
WHERE l_partkey = p_partkey AND l_shipdate >= DATE '$date' AND l_shipdate < DATE '$date_1m']]
-- Q15 is three statements: the view, the query, the view dropped ($view: one per stream).
Q[15] = {
  [[
CREATE VIEW $view (supplier_no, total_revenue) AS
  SELECT l_suppkey, SUM(l_extendedprice * (1 - l_discount)) FROM $lineitem
  WHERE l_shipdate >= DATE '$date' AND l_shipdate < DATE '$date_3m' GROUP BY l_suppkey]],
  [[
SELECT s_suppkey, s_name, s_address, s_phone, total_revenue FROM $supplier, $view
WHERE s_suppkey = supplier_no AND total_revenue = (SELECT MAX(total_revenue) FROM $view)
ORDER BY s_suppkey]],
  [[DROP VIEW $view]],
}
Q[16] = [[
SELECT p_brand, p_type, p_size, COUNT(DISTINCT ps_suppkey) AS supplier_cnt FROM $partsupp, $part
WHERE p_partkey = ps_partkey AND p_brand <> '$brand' AND p_type NOT LIKE '$type%' AND p_size IN ($sizes)
  AND ps_suppkey NOT IN (SELECT s_suppkey FROM $supplier WHERE s_comment LIKE '%Customer%Complaints%')
GROUP BY p_brand, p_type, p_size ORDER BY supplier_cnt DESC, p_brand, p_type, p_size]]
Q[17] = [[
SELECT SUM(l_extendedprice) / 7.0 AS avg_yearly FROM $lineitem, $part
WHERE p_partkey = l_partkey AND p_brand = '$brand' AND p_container = '$container'
  AND l_quantity < (SELECT 0.2 * AVG(l_quantity) FROM $lineitem WHERE l_partkey = p_partkey)]]
Q[18] = [[
SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, SUM(l_quantity) AS sum_qty
FROM $customer, $orders, $lineitem
WHERE o_orderkey IN (SELECT l_orderkey FROM $lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > $quantity)
  AND c_custkey = o_custkey AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate, o_orderkey$limit100]]
Q[19] = [[
SELECT SUM(l_extendedprice * (1 - l_discount)) AS revenue FROM $lineitem, $part
WHERE (p_partkey = l_partkey AND p_brand = '$brand1' AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
    AND l_quantity >= $quantity1 AND l_quantity <= $quantity1 + 10 AND p_size BETWEEN 1 AND 5
    AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
  OR (p_partkey = l_partkey AND p_brand = '$brand2' AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
    AND l_quantity >= $quantity2 AND l_quantity <= $quantity2 + 10 AND p_size BETWEEN 1 AND 10
    AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
  OR (p_partkey = l_partkey AND p_brand = '$brand3' AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
    AND l_quantity >= $quantity3 AND l_quantity <= $quantity3 + 10 AND p_size BETWEEN 1 AND 15
    AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')]]
Q[20] = [[
SELECT s_name, s_address FROM $supplier, $nation
WHERE s_suppkey IN (
    SELECT ps_suppkey FROM $partsupp
    WHERE ps_partkey IN (SELECT p_partkey FROM $part WHERE p_name LIKE '$color%')
      AND ps_availqty > (SELECT 0.5 * SUM(l_quantity) FROM $lineitem
        WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey
          AND l_shipdate >= DATE '$date' AND l_shipdate < DATE '$date_1y'))
  AND s_nationkey = n_nationkey AND n_name = '$nname'
ORDER BY s_name]]
Q[21] = [[
SELECT s_name, COUNT(*) AS numwait FROM $supplier, $lineitem l1, $orders, $nation
WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
  AND l1.l_receiptdate > l1.l_commitdate
  AND EXISTS (SELECT * FROM $lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
  AND NOT EXISTS (SELECT * FROM $lineitem l3 WHERE l3.l_orderkey = l1.l_orderkey
    AND l3.l_suppkey <> l1.l_suppkey AND l3.l_receiptdate > l3.l_commitdate)
  AND s_nationkey = n_nationkey AND n_name = '$nname'
GROUP BY s_name ORDER BY numwait DESC, s_name$limit100]]
Q[22] = [[
SELECT cntrycode, COUNT(*) AS numcust, SUM(c_acctbal) AS totacctbal FROM (
  SELECT SUBSTRING(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal FROM $customer
  WHERE SUBSTRING(c_phone FROM 1 FOR 2) IN ($codes)
    AND c_acctbal > (SELECT AVG(c_acctbal) FROM $customer WHERE c_acctbal > 0.00
      AND SUBSTRING(c_phone FROM 1 FOR 2) IN ($codes))
    AND NOT EXISTS (SELECT * FROM $orders WHERE o_custkey = c_custkey)) custsale
GROUP BY cntrycode ORDER BY cntrycode]]
M.TEMPLATES = Q

-- The parameters of every query of stream `stream` (a table q -> parameters), drawn from the
-- stream's own generator stream: the same seed gives the same parameters on every server.
function M.params(seed, stream, qualification)
  local out = {}
  if qualification then
    for q = 1, 22 do out[q] = QUALIFICATION[q] end
    return out
  end
  gen.stream(seed, gen.T_QGEN, stream)
  for q = 1, 22 do out[q] = DRAW[q]() end
  return out
end

-- The SQL statements of query q (a list: Q15 has three) for table names t, parameters p, the
-- scale factor sf, dialect d and stream number stream.
function M.render(q, t, p, sf, d, stream)
  local v = {}
  for k, x in pairs(t) do v[k] = x end
  for k, x in pairs(p) do
    if t[k] then error("dbt3: parameter $" .. k .. " of Q" .. q .. " has a table's name", 0) end
    v[k] = x
  end
  if p.date then
    v.date_1m, v.date_3m, v.date_1y = add_months(p.date, 1), add_months(p.date, 3), add_months(p.date, 12)
  end
  v.fraction = fmt("%.10f", 0.0001 / sf)
  v.view = common.q15_view(t, stream)
  local tmpl = Q[q]
  if type(tmpl) == "string" then tmpl = { tmpl } end
  local out = {}
  for i, sql in ipairs(tmpl) do
    -- A template ending in $limitN keeps its first N rows, in the dialect's words.
    local limit = tonumber(sql:match("%$limit(%d+)$"))
    if limit then sql = sql:gsub("%$limit%d+$", "") end
    local text = sql:gsub("%$([%w_]+)", function(name)
      local x = v[name]
      if x == nil then error("dbt3: no value for $" .. name .. " in Q" .. q, 0) end
      return tostring(x)
    end)
    out[i] = limit and d.limit(text, limit) or text
  end
  return out
end

-- A one-line summary of a query's parameters (for the report and --verbosity=5).
function M.describe(p)
  local keys = {}
  for k in pairs(p) do keys[#keys + 1] = k end
  table.sort(keys)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. tostring(p[k]) end
  return table.concat(out, " ")
end

return M
