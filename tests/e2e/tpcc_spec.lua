-- The tpcc workload against both sandbox servers: the population rules after prepare, resuming
-- and refusing half-loaded or foreign schemas, each transaction's effects in the database (with
-- client-side statements and with stored procedures), the full mix followed by `check`, remote
-- order lines and payments with two warehouses, the report's tpmC/NOPM figures, --wait mode.
local h = require("helpers")

-- Every table name gets a prefix of its own, so that concurrent test runs and other workloads
-- in the same sandbox database never meet these tables.
local function new_prefix()
  local seed = h.tmpdir():match("([%w]+)$"):lower():gsub("[^a-z0-9]", "")
  return "t5" .. seed:sub(-6) .. tostring(os.time() % 100000) .. "_"
end

-- Runs several queries in one luabench process; returns, per query, its first row as an array
-- of strings ("NULL" for NULL, {} when there is no row).
local function query(db, queries)
  local src = { "local c = sysbench.sql.driver():connect()" }
  for i, q in ipairs(queries) do
    src[#src + 1] = string.format([[
do
  local rs = c:query(%q)
  local row = rs ~= nil and rs:fetch_row() or nil
  local t = {}
  if row then for k = 1, rs.nfields do t[k] = row[k] or "NULL" end end
  print("ROW%d\t" .. table.concat(t, "\t"))
end]], q, i)
  end
  local out, err, rc = h.run("- --verbosity=1 " .. db, { stdin = table.concat(src, "\n") })
  assert(rc == 0, "SQL failed: " .. err)
  local rows = {}
  for i = 1, #queries do
    local line = out:match("ROW" .. i .. "\t([^\n]*)") or ""
    local row = {}
    for v in (line .. "\t"):gmatch("([^\t]*)\t") do if v ~= "" then row[#row + 1] = v end end
    rows[i] = row
  end
  return rows
end

local function num(v) return tonumber(v) end

h.each_driver("tpcc on %s", function(driver, db)
  local pg = driver == "pgsql"
  local P = new_prefix()
  local base = string.format("tpcc %s --table-prefix=%s", db, P)
  local function T(name) return P .. name end
  local initial_lines -- order lines after the load

  local function run_json(args)
    local out, err, rc = h.run(base .. " --format=json " .. args .. " run")
    assert.are.equal(0, rc, err)
    return h.json(out)
  end

  local function check()
    local out, err, rc = h.run(base .. " --threads=2 check")
    assert.are.equal(0, rc, out .. err)
    assert.is_truthy(out:find("All 13 consistency checks passed.", 1, true), out)
    return out
  end

  -- Totals that the transactions move.
  local function totals()
    local r = query(db, {
      "SELECT SUM(d_next_o_id), SUM(d_ytd) FROM " .. T("district"),
      "SELECT SUM(w_ytd) FROM " .. T("warehouse"),
      "SELECT COUNT(*) FROM " .. T("orders"),
      "SELECT COUNT(*) FROM " .. T("new_order"),
      "SELECT COUNT(*), SUM(ol_quantity) FROM " .. T("order_line"),
      "SELECT COUNT(*), SUM(h_amount) FROM " .. T("history"),
      "SELECT SUM(s_order_cnt), SUM(s_ytd), SUM(s_remote_cnt) FROM " .. T("stock"),
      "SELECT SUM(c_payment_cnt), SUM(c_delivery_cnt), SUM(c_balance), SUM(c_ytd_payment) FROM " .. T("customer"),
      "SELECT COUNT(*) FROM " .. T("orders") .. " WHERE o_carrier_id IS NOT NULL",
    })
    return {
      next_o_id = num(r[1][1]), d_ytd = num(r[1][2]), w_ytd = num(r[2][1]), orders = num(r[3][1]),
      new_orders = num(r[4][1]), lines = num(r[5][1]), line_qty = num(r[5][2]), history = num(r[6][1]),
      h_amount = num(r[6][2]), s_order_cnt = num(r[7][1]), s_ytd = num(r[7][2]), s_remote = num(r[7][3]),
      payment_cnt = num(r[8][1]), delivery_cnt = num(r[8][2]), balance = num(r[8][3]), ytd_payment = num(r[8][4]),
      delivered = num(r[9][1]),
    }
  end

  local function near(a, b) return math.abs(a - b) < 0.005 end

  teardown(function()
    h.run(base .. " cleanup")
  end)

  -- Starts a prepare, kills it (SIGKILL) `delay` seconds after `line` appears in its output,
  -- and returns that output.
  local function prepare_killed(line, delay)
    local log = h.tmpdir() .. "/" .. P .. "prepare.log"
    local pidf = h.tmpdir() .. "/" .. P .. "prepare.pid"
    os.execute(string.format("(%s %s --warehouses=2 --use-fk --threads=2 prepare >%s 2>&1 & echo $! >%s)",
      h.bin, base, log, pidf))
    local pid = h.read(pidf):match("%d+")
    -- however long the load takes on a busy machine (the prepare ends by itself if it misses)
    local seen
    repeat
      os.execute("sleep 0.05")
      seen = (h.read(log) or ""):find(line, 1, true)
    until seen or os.execute("kill -0 " .. pid .. " 2>/dev/null") ~= 0
    os.execute(string.format("sleep %g; kill -9 %s 2>/dev/null; while kill -0 %s 2>/dev/null; do sleep 0.1; done",
      delay, pid, pid))
    local first = h.read(log)
    assert.is_truthy(seen, "'" .. line .. "' never printed: " .. first)
    assert.is_truthy(first:find("Creating the tpcc schema for 2 warehouses", 1, true), first)
    assert.is_falsy(first:find("Prepared 2 warehouses", 1, true), "killed before the end")
    local _, err, rc = h.run(base .. " --threads=2 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("not completely loaded", 1, true), err)
    return first
  end

  local function resume()
    local out, err, rc = h.run(base .. " --warehouses=2 --use-fk --threads=2 prepare")
    assert.are.equal(0, rc, err)
    local done = tonumber(out:match("Resuming an interrupted prepare of 2 warehouses: (%d+) of 30 load units were done"))
    assert.is_truthy(done, out)
    assert.is_truthy(out:match("%[ %d+s %] 2/2 warehouses loaded, %d+ rows, %d+ rows/s, ETA 0s"), out)
    assert.is_truthy(out:match("Prepared 2 warehouses in [%d.]+s %(data [%d.]+s, indexes [%d.]+s%)"), out)
    assert.is_truthy(out:find("foreign keys added", 1, true), out)
    return done, out
  end

  it("prepare loads two warehouses in parallel, survives being killed, and resumes", function()
    -- Killed while keys and indexes are built (a half-built step is built again).
    prepare_killed("indexed and analyzed", 0)
    assert.are.equal(30, (resume()))
    h.run(base .. " cleanup")
    -- Killed while loading rows: the units in flight roll back and are loaded again.
    prepare_killed("Creating the tpcc schema", 0.4)
    local done = resume()
    assert.is_true(done < 30, "killed while loading")
  end)

  it("the population follows the rules of the specification", function()
    local r = query(db, {
      "SELECT COUNT(*), SUM(w_ytd) FROM " .. T("warehouse"),
      "SELECT COUNT(*), MIN(d_next_o_id), MAX(d_next_o_id), SUM(d_ytd) FROM " .. T("district"),
      "SELECT COUNT(*) FROM " .. T("customer"),
      "SELECT COUNT(*) FROM " .. T("customer") .. " WHERE c_balance = -10.00 AND c_ytd_payment = 10.00 AND c_payment_cnt = 1 AND c_delivery_cnt = 0 AND c_middle = 'OE' AND c_credit_lim = 50000.00",
      "SELECT COUNT(*) FROM " .. T("customer") .. " WHERE c_credit = 'BC'",
      "SELECT COUNT(*), SUM(h_amount) FROM " .. T("history"),
      "SELECT COUNT(*), SUM(o_ol_cnt), MIN(o_ol_cnt), MAX(o_ol_cnt) FROM " .. T("orders"),
      "SELECT COUNT(*) FROM " .. T("orders") .. " WHERE o_carrier_id IS NULL",
      "SELECT COUNT(*) FROM " .. T("order_line"),
      "SELECT COUNT(*) FROM " .. T("order_line") .. " WHERE ol_delivery_d IS NULL",
      "SELECT SUM(o_ol_cnt) FROM " .. T("orders") .. " WHERE o_id >= 2101",
      "SELECT MIN(c), MAX(c), COUNT(*) FROM (SELECT COUNT(*) c FROM " .. T("new_order") .. " GROUP BY no_w_id, no_d_id) x",
      "SELECT MIN(no_o_id), MAX(no_o_id) FROM " .. T("new_order"),
      "SELECT COUNT(*), MIN(i_price), MAX(i_price) FROM " .. T("item"),
      "SELECT COUNT(*) FROM " .. T("item") .. " WHERE i_data LIKE '%ORIGINAL%'",
      "SELECT COUNT(*), MIN(s_quantity), MAX(s_quantity), SUM(s_ytd) + SUM(s_order_cnt) + SUM(s_remote_cnt) FROM " .. T("stock"),
      "SELECT COUNT(*) FROM " .. T("stock") .. " WHERE s_data LIKE '%ORIGINAL%'",
      "SELECT c_last FROM " .. T("customer") .. " WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = 372",
      "SELECT c_last FROM " .. T("customer") .. " WHERE c_w_id = 2 AND c_d_id = 10 AND c_id = 1",
      "SELECT COUNT(DISTINCT c_last) FROM " .. T("customer") .. " WHERE c_id <= 1000",
      "SELECT COUNT(*) FROM " .. T("tpcc_config") .. " WHERE cfg_name IN ('c_last', 'c_id', 'ol_i_id')",
      "SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY' AND table_name LIKE '" ..
        P:gsub("_", "\\_") .. "%'" .. (pg and "" or " AND table_schema = DATABASE()"),
    })
    assert.are.same({ "2", "600000.00" }, r[1])
    assert.are.same({ "20", "3001", "3001", "600000.00" }, r[2])
    assert.are.equal("60000", r[3][1])
    assert.are.equal("60000", r[4][1], "c_balance -10.00, c_ytd_payment 10.00, ... for every customer")
    assert.are.equal("6000", r[5][1], "10% bad credit")
    assert.are.same({ "60000", "600000.00" }, r[6])
    assert.are.equal("60000", r[7][1])
    assert.are.same({ "5", "15" }, { r[7][3], r[7][4] })
    assert.are.equal("18000", r[8][1], "orders 2101..3000 undelivered")
    assert.are.equal(r[7][2], r[9][1], "one order line per o_ol_cnt")
    assert.is_true(num(r[9][1]) > 570000 and num(r[9][1]) < 630000)
    assert.are.equal(r[11][1], r[10][1], "undelivered orders' lines have no delivery date")
    assert.are.same({ "900", "900", "20" }, r[12], "900 NEW_ORDER rows per district")
    assert.are.same({ "2101", "3000" }, r[13])
    assert.are.same({ "100000", "1.00", "100.00" }, { r[14][1], string.format("%.2f", num(r[14][2])), string.format("%.2f", num(r[14][3])) })
    assert.are.equal("10000", r[15][1], "10% of items carry ORIGINAL")
    assert.are.same({ "200000", "10", "100", "0" }, r[16])
    assert.are.equal("20000", r[17][1], "10% of stock carries ORIGINAL")
    assert.are.equal("PRICALLYOUGHT", r[18][1], "c_last of c_id 372 (syllables of 371)")
    assert.are.equal("BARBARBAR", r[19][1])
    assert.are.equal("1000", r[20][1], "c_id 1..1000 cover every last name")
    assert.are.equal("3", r[21][1], "NURand C constants stored")
    assert.are.equal("10", r[22][1], "--use-fk: the schema's 10 foreign keys")
    initial_lines = num(r[9][1])
    check() -- the population is consistent
  end)

  it("prepare refuses what it cannot resume, and never touches foreign tables", function()
    local out, err, rc
    out, err, rc = h.run(base .. " --use-fk prepare")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("already completely loaded: nothing to do", 1, true), out)
    out, err, rc = h.run(base .. " --warehouses=3 prepare")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("prepared for 2 warehouses, not 3", 1, true), err)
    out, err, rc = h.run(base .. " --warehouses=2 prepare")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("prepared with --use-fk=on", 1, true), err)

    -- A table of the same name that tpcc did not create is never touched.
    local other = P .. "x_"
    query(db, { "CREATE TABLE " .. other .. "item (i_id INT)" })
    local obase = string.format("tpcc %s --table-prefix=%s", db, other)
    out, err, rc = h.run(obase .. " prepare")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("table '" .. other .. "item' exists but was not created by tpcc prepare", 1, true), err)
    out, err, rc = h.run(obase .. " cleanup")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:find("nothing to drop", 1, true))
    assert.are.equal("0", query(db, { "SELECT COUNT(*) FROM " .. other .. "item" })[1][1])
    query(db, { "DROP TABLE " .. other .. "item" })
  end)

  for _, procs in ipairs({ "off", "on" }) do
    local mode = " --procedures=" .. procs

    it("NewOrder alone (procedures " .. procs .. "): committed orders only, stock rules, rollbacks leave nothing", function()
      local before = totals()
      local j = run_json(mode .. " --weights=100,0,0,0,0 --rollback-pct=20 --threads=2 --events=60")
      local no = j.types.NewOrder
      assert.are.equal(60, no.count)
      assert.is_true(no.rollbacks > 0, "some NewOrders rolled back")
      local committed = no.count - no.rollbacks
      local after = totals()
      assert.are.equal(committed, after.next_o_id - before.next_o_id, "d_next_o_id advanced by committed NewOrders only")
      assert.are.equal(committed, after.orders - before.orders)
      assert.are.equal(committed, after.new_orders - before.new_orders)
      assert.are.equal(committed, j.workload_stats.new_orders_committed, "NOPM's count from d_next_o_id")
      assert.is_true(after.lines - before.lines >= 5 * committed and after.lines - before.lines <= 15 * committed)
      assert.are.equal(after.lines - before.lines, after.s_order_cnt - before.s_order_cnt, "s_order_cnt + 1 per line")
      assert.are.equal(after.line_qty - before.line_qty, after.s_ytd - before.s_ytd, "s_ytd + quantity per line")
      assert.are.equal(0, after.history - before.history)
      assert.are.equal(before.d_ytd, after.d_ytd)
      local r = query(db, {
        "SELECT COUNT(*) FROM " .. T("order_line") .. " WHERE ol_i_id NOT BETWEEN 1 AND 100000",
        "SELECT COUNT(*) FROM " .. T("stock") .. " WHERE s_quantity < 1 OR s_quantity > 100",
        "SELECT COUNT(*) FROM " .. T("orders") .. " o WHERE o_id > 3000 AND o_ol_cnt <> (SELECT COUNT(*) FROM " .. T("order_line") .. " WHERE ol_w_id = o.o_w_id AND ol_d_id = o.o_d_id AND ol_o_id = o.o_id)",
      })
      assert.are.equal("0", r[1][1], "no line of a rolled-back order")
      assert.are.equal("0", r[2][1], "the +91 rule keeps stock within 1..100")
      assert.are.equal("0", r[3][1])
    end)

    it("Payment alone (procedures " .. procs .. "): YTDs, balances and history move together", function()
      local before = totals()
      local j = run_json(mode .. " --weights=0,100,0,0,0 --threads=2 --events=60")
      assert.are.equal(60, j.types.Payment.count)
      local after = totals()
      local paid = after.h_amount - before.h_amount
      assert.is_true(paid >= 60)
      assert.are.equal(60, after.history - before.history, "one history row per payment")
      assert.are.equal(60, after.payment_cnt - before.payment_cnt)
      assert.is_true(near(paid, after.w_ytd - before.w_ytd))
      assert.is_true(near(paid, after.d_ytd - before.d_ytd))
      assert.is_true(near(paid, after.ytd_payment - before.ytd_payment))
      assert.is_true(near(-paid, after.balance - before.balance))
      assert.are.equal(before.next_o_id, after.next_o_id)
      assert.are.equal(before.orders, after.orders)
    end)

    it("OrderStatus and StockLevel alone (procedures " .. procs .. ") change nothing", function()
      local before = totals()
      local j = run_json(mode .. " --weights=0,0,100,0,0 --threads=2 --events=40")
      assert.are.equal(40, j.types.OrderStatus.count)
      j = run_json(mode .. " --weights=0,0,0,0,100 --threads=2 --events=40")
      assert.are.equal(40, j.types.StockLevel.count)
      assert.are.same(before, totals())
    end)

    it("Delivery alone (procedures " .. procs .. "): the oldest new order of every district", function()
      local before = totals()
      local oldest = query(db, { "SELECT MIN(no_o_id) FROM " .. T("new_order") .. " WHERE no_w_id = 1" })[1][1]
      local j = run_json(mode .. " --weights=0,0,0,100,0 --threads=1 --events=3")
      assert.are.equal(3, j.types.Delivery.count)
      assert.are.equal(0, j.workload_stats.delivery_skipped_districts)
      local after = totals()
      assert.are.equal(-30, after.new_orders - before.new_orders, "10 districts x 3 deliveries")
      assert.are.equal(30, after.delivered - before.delivered, "delivered orders get a carrier")
      assert.are.equal(30, after.delivery_cnt - before.delivery_cnt)
      assert.is_true(after.balance > before.balance, "customers are charged the delivered amounts")
      local r = query(db, {
        "SELECT COUNT(*) FROM " .. T("orders") .. " JOIN " .. T("order_line") .. " ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE o_carrier_id IS NOT NULL AND ol_delivery_d IS NULL",
        "SELECT MIN(no_o_id) FROM " .. T("new_order") .. " WHERE no_w_id = 1",
      })
      assert.are.equal("0", r[1][1], "delivered orders' lines have a delivery date")
      assert.are.equal(num(oldest) + 3, num(r[2][1]), "the oldest orders went first")
    end)

    it("the full mix with 4 terminals (procedures " .. procs .. "): tpmC, NOPM and d_next_o_id agree", function()
      local before = totals()
      local out, err, rc = h.run(base .. mode .. " --threads=4 --events=400 run")
      assert.are.equal(0, rc, err)
      local after = totals()
      local n, rb = out:match("\n    NewOrder%s+(%d+)%s+[%d.]+%s+[%d.]+" .. string.rep("%s+[%d.]+", 6) .. "%s+%d+%s+(%d+)")
      assert.is_truthy(n, out)
      assert.are.equal(tonumber(n) - tonumber(rb), after.next_o_id - before.next_o_id,
        "reported NewOrders = committed (d_next_o_id) + rollbacks")
      local pay = out:match("\n    Payment%s+(%d+)%s")
      assert.are.equal(tonumber(pay), after.history - before.history, "reported Payments = new history rows")
      assert.is_truthy(out:find("TPC-C-like results (not audited; not comparable with published TPC-C results):", 1, true))
      assert.is_truthy(out:match("tpmC %(NewOrders per minute%):%s+[%d.]+"))
      assert.is_truthy(out:match("tpmTotal %(transactions per minute%):%s+[%d.]+"))
      assert.is_truthy(out:match("efficiency %(of 12.86 tpmC per W%):%s+[%d.]+%%"))
      assert.is_truthy(out:find(string.format("NOPM (from sum of d_next_o_id):"), 1, true))
      assert.is_truthy(out:find(string.format("(%d committed NewOrders in", after.next_o_id - before.next_o_id), 1, true), out)
      assert.is_truthy(out:match("NewOrder%s+[%d.]+%s+limit%s+5000%s+pass"))
      assert.is_truthy(out:match("StockLevel%s+[%d.]+%s+limit%s+20000%s+pass"))
    end)
  end

  it("with two warehouses, remote order lines and remote payments happen", function()
    local t = totals()
    local r = query(db, {
      "SELECT COUNT(*) FROM " .. T("order_line") .. " WHERE ol_supply_w_id <> ol_w_id",
      "SELECT COUNT(*) FROM " .. T("orders") .. " WHERE o_all_local = 0",
      "SELECT COUNT(*) FROM " .. T("history") .. " WHERE h_c_w_id <> h_w_id",
    })
    assert.is_true(num(r[1][1]) > 0, "remote order lines")
    assert.are.equal(num(r[1][1]), t.s_remote, "s_remote_cnt + 1 per remote line")
    assert.is_true(num(r[2][1]) > 0, "orders not all local")
    assert.is_true(num(r[3][1]) > 0, "payments for customers of the other warehouse")
    assert.are.equal(t.lines - initial_lines, t.s_order_cnt, "every line ordered since the load is counted in stock")
  end)

  it("the full mix at an isolation level, with the retries it may cost, then check passes", function()
    local j = run_json(string.format("--isolation=%s --threads=4 --events=200", pg and "SER" or "RC"))
    assert.are.equal(pg and "SERIALIZABLE" or "READ COMMITTED", j.workload_stats.isolation)
    local n = 0
    for _, ty in pairs(j.types) do
      n = n + ty.count
      assert.are.equal(0, ty.errors)
    end
    assert.are.equal(200, n)
    check() -- after every run above: no committed write lost, no rolled-back write kept

    -- And check does fail: one customer's balance off by one cent.
    query(db, { "UPDATE " .. T("customer") .. " SET c_balance = c_balance + 0.01 WHERE c_w_id = 2 AND c_d_id = 4 AND c_id = 77" })
    local out, err, rc = h.run(base .. " --threads=2 check")
    assert.are.equal(1, rc, out)
    assert.is_truthy(err:find("2 of 13 consistency checks failed", 1, true), err)
    assert.is_truthy(out:match("%[ 10%] C_BALANCE = sum%(delivered OL_AMOUNT%) %- sum%(H_AMOUNT%) +FAIL"), out)
    assert.is_truthy(out:find("1 offending row; first: c_w_id=2 c_d_id=4 c_id=77 ", 1, true), out)
    assert.is_truthy(out:match("%[  1%] W_YTD = sum%(D_YTD%) +PASS"), out)
    query(db, { "UPDATE " .. T("customer") .. " SET c_balance = c_balance - 0.01 WHERE c_w_id = 2 AND c_d_id = 4 AND c_id = 77" })
    check()
  end)

  it("--wait runs 10 terminals per warehouse with keying and think times, as threads or emulated users", function()
    local out, err, rc = h.run(base .. " --wait --threads=4 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("use --users=20 (emulated users over a few --threads) or --threads=20 for 2 warehouses", 1, true), err)
    -- --isolation under --users: the connection hook sets it on every pooled connection
    -- (tests/e2e/connection_hook_spec.lua counts the events that see it)
    out, err, rc = h.run(base .. " --users=6 --threads=2 --connections=3 --isolation=SER --time=1 --format=json run")
    assert.are.equal(0, rc, err)
    assert.are.equal("SERIALIZABLE", h.json(out).workload_stats.isolation)
    -- Keying + think average about 21 s per transaction in the specification's mix; x 0.005
    -- that is 105 ms, so 20 terminals run at most 20 / 0.105 s = 190 transactions/s (less the
    -- response times). Without the waits they would run thousands.
    local cycle_s = 21 * 0.005
    for _, mode in ipairs({ "--threads=20", "--users=20 --threads=2 --connections=4" }) do
      out, err, rc = h.run(base .. " --wait --wait-factor=0.005 --time=2 " .. mode .. " run")
      assert.are.equal(0, rc, err)
      assert.is_truthy(out:find("terminals:                           20, spec keying and think times x 0.005 (not TPC-C timing)", 1, true), out)
      local tpm = tonumber(out:match("tpmTotal %(transactions per minute%):%s+([%d.]+)"))
      assert.is_true(tpm > 60 * 20 / (cycle_s * 6) and tpm < 60 * 20 / (cycle_s * 0.75), mode .. ": tpmTotal " .. tostring(tpm))
      if mode:find("users", 1, true) then
        assert.is_truthy(out:find("users / threads / connections:       20 / 2 / 4", 1, true), out)
      end
    end
    check() -- emulated users share prepared statements and connections: nothing may leak between them
  end)

  it("processes started together with --instance merge into one TPC-C result", function()
    local dir = h.tmpdir()
    local before = totals()
    local files, outputs = h.run_together(dir, "tp", 2, function() return base .. " --threads=2 --events=100 --time=0" end)
    local new_orders, rollbacks, events = 0, 0, 0
    for i = 0, 1 do
      local d = h.json(h.read(files[i + 1]))
      assert.are.equal("ok", d.status, h.read(outputs[i + 1]))
      assert.are.equal(2, d.workload_stats.terminals)
      new_orders = new_orders + d.types.NewOrder.count
      rollbacks = rollbacks + d.workload_stats.new_order_rollbacks
      events = events + d.counters.events
    end
    assert.are.equal(200, events)
    assert.are.equal(new_orders - rollbacks, totals().next_o_id - before.next_o_id)
    local out, err, rc = h.run("merge " .. files[1] .. " " .. files[2] .. " --output=" .. dir .. "/m.json")
    assert.are.equal(0, rc, err)
    local m = h.json(h.read(dir .. "/m.json"))
    local w = m.workload_stats
    assert.is_table(w, "the merged result has the workload's figures")
    assert.are.equal(2, w.instances)
    assert.are.equal(4, w.terminals)
    assert.are.equal(2, w.warehouses)
    assert.are.equal(new_orders, w.new_orders)
    assert.are.equal(rollbacks, w.new_order_rollbacks)
    assert.are.equal(m.time_s, w.measured_seconds)
    assert.is_true(math.abs(w.tpmC - new_orders / (m.time_s / 60)) < 1e-6 * w.tpmC, "tpmC over the merged window")
    assert.is_true(math.abs(w.tpm_total - 200 / (m.time_s / 60)) < 1e-6 * w.tpm_total)
    assert.are.equal(2, w.nopm_instances)
    assert.is_truthy(out:find("processes merged:                    2 (terminals add; tpmC over the merged window)", 1, true), out)
    assert.is_truthy(out:find(string.format("tpmC (NewOrders per minute):         %.2f", w.tpmC), 1, true), out)
    assert.is_truthy(out:find("(mean of 2 processes, each counting the whole database)", 1, true), out)
    -- the merged result merges again to the same figures (the hook sees the original inputs)
    out, err, rc = h.run("merge " .. dir .. "/m.json --format=json")
    assert.are.equal(0, rc, err)
    assert.are.same(w, h.json(out).workload_stats)
    check()
  end)

  it("rejects bad options with one line", function()
    local cases = {
      { "--weights=1,2", "invalid --weights value '1,2'" },
      { "--weights=0,0,0,0,0", "their sum must be positive" },
      { "--isolation=chaos", "invalid --isolation value 'chaos'" },
      { "--rollback-pct=101", "invalid --rollback-pct value '101'" },
      { "--warehouses=9", "--warehouses=9, but only 2 are loaded" },
    }
    for _, c in ipairs(cases) do
      local out, err, rc = h.run(base .. " " .. c[1] .. " --events=1 run")
      assert.are.equal(1, rc, c[1])
      assert.is_truthy(err:find(c[2], 1, true), c[1] .. ": " .. err)
      assert.is_falsy(err:find("traceback", 1, true))
    end
    local out, err, rc = h.run(string.format("tpcc %s --table-prefix=Bad-Name run", db))
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("invalid --table-prefix value 'Bad-Name'", 1, true), err)
  end)

  it("cleanup drops every table and procedure", function()
    local out, err, rc = h.run(base .. " cleanup")
    assert.are.equal(0, rc, err)
    local like = P:gsub("_", "\\_") .. "%"
    local r = query(db, {
      pg and ("SELECT COUNT(*) FROM pg_tables WHERE tablename LIKE '" .. like .. "'")
        or ("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE '" .. like .. "'"),
      pg and ("SELECT COUNT(*) FROM pg_proc WHERE proname LIKE '" .. like .. "'")
        or ("SELECT COUNT(*) FROM information_schema.routines WHERE routine_schema = DATABASE() AND routine_name LIKE '" .. like .. "'"),
    })
    assert.are.same({ { "0" }, { "0" } }, r)
  end)

end)
