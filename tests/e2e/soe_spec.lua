-- The soe workload (Swingbench's Order Entry) end to end on PostgreSQL, MariaDB and SQLite, at
-- scale 0.002 (2000 customers, 10 warehouses): prepare's rows and progress, the load's
-- independence from --threads, check (and that it catches a broken invariant), 200 emulated
-- users with long and with short sessions, threads with the mix held to the weights, the
-- report, bad options, cleanup. The server-restart case is in faults_spec.lua.
local h = require("helpers")

local common = require("soe.common")

local function suite(db, extra)
  local base = "soe " .. db .. " " .. (extra or "")
  local function run(args)
    local out, err, rc = h.run(base .. " " .. args)
    assert.are.equal(0, rc, err .. out)
    return out, err
  end
  local function one(q) return h.sql(db, q)[1] end
  local function count(t, where)
    return tonumber(one("SELECT COUNT(*) FROM " .. t .. (where and (" WHERE " .. where) or "")))
  end
  local function check_ok()
    local out = run("check")
    assert.is_truthy(out:find("check: all 10 conditions passed", 1, true), out)
    return out
  end
  -- The engine's events are the transactions of the per-type figures, and the sum of the types.
  local function run_json(args)
    local doc = h.json((run(args .. " --format=json run")))
    local ws = doc.workload_stats
    local sum = 0
    for _, e in ipairs(ws.by_type) do sum = sum + e.count end
    assert.are.equal(ws.transactions, sum)
    assert.are.equal(doc.counters.events, ws.transactions)
    assert.are.equal(0, ws.errors)
    assert.is_true(ws.transactions > 0)
    assert.is_true(math.abs(ws.tpm - 60 * ws.tps) < 1e-6 * ws.tpm + 1e-9)
    return doc, ws
  end

  it("prepare loads scale 0.002 in parallel, with progress and rate; check holds", function()
    h.run(base .. " cleanup")
    local out = run("--scale=0.002 --threads=2 prepare")
    assert.is_truthy(out:match("Progress: %d+/%d+ rows %(%d+%%%), %d+ rows/s, ETA %d+s"), out)
    assert.is_truthy(out:match("Prepared scale 0.002 in [%d.]+s %(data [%d.]+s, indexes and statistics [%d.]+s%): %d+ rows, %d+ rows/s of data"), out)
    assert.are.equal(2000, count("customers"))
    assert.are.equal(3000, count("addresses"))
    assert.are.equal(3000, count("card_details"))
    assert.are.equal(2860, count("orders"))
    assert.are.equal(10, count("warehouses"))
    assert.are.equal(1000, count("product_information"))
    assert.are.equal(3000, count("product_descriptions"))
    assert.are.equal(0, count("logon"))
    local inv, items = count("inventories"), count("order_items")
    assert.is_true(inv > 8500 and inv < 9500, "inventories " .. inv)
    assert.is_true(items > 4.5 * 2860 and items < 5.5 * 2860, "order items " .. items)
    -- names are the ones Update Customer Details searches for
    assert.are.equal(common.last_name(1234), one("SELECT cust_last_name FROM customers WHERE customer_id = 1234"))
    assert.are.equal(common.first_name(1234), one("SELECT cust_first_name FROM customers WHERE customer_id = 1234"))
    check_ok()
  end)

  it("refuses to prepare over a loaded schema, in one line", function()
    local _, err, rc = h.run(base .. " --scale=0.002 prepare")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("an soe schema is already loaded here (scale 0.002): run 'cleanup' first", 1, true), err)
  end)

  it("check fails on a broken invariant, and holds again when it is mended", function()
    local w = one("SELECT MIN(warehouse_id) FROM inventories WHERE product_id = 7")
    local q = one("SELECT quantity_on_hand FROM inventories WHERE product_id = 7 AND warehouse_id = " .. w)
    h.sql(db, "UPDATE inventories SET quantity_on_hand = -3 WHERE product_id = 7 AND warehouse_id = " .. w)
    h.sql(db, "UPDATE orders SET order_total = order_total + 1 WHERE order_id = 11")
    h.sql(db, "UPDATE soe_config SET cfg_value = cfg_value + 2 WHERE cfg_name = 'logons'")
    local out, _, rc = h.run(base .. " check")
    assert.are.equal(1, rc)
    assert.is_truthy(out:find("[FAIL] inventories below zero: 1 (expected 0)", 1, true), out)
    assert.is_truthy(out:find("[FAIL] orders whose total is not the sum of their items: 1 (expected 0)", 1, true), out)
    assert.is_truthy(out:find("[FAIL] logon rows = logons the runs committed: 0 (expected 2)", 1, true), out)
    assert.is_truthy(out:find("check: 3 of 10 conditions FAILED", 1, true), out)
    h.sql(db, "UPDATE inventories SET quantity_on_hand = " .. q .. " WHERE product_id = 7 AND warehouse_id = " .. w)
    h.sql(db, "UPDATE orders SET order_total = order_total - 1 WHERE order_id = 11")
    h.sql(db, "UPDATE soe_config SET cfg_value = cfg_value - 2 WHERE cfg_name = 'logons'")
    check_ok()
  end)

  -- (--end-grace: 200 users' last transactions may take long on a busy machine; none is cut off)
  it("runs 200 users with long sessions, then with a session per transaction; check holds after each", function()
    local _, ws = run_json("--users=200 --threads=2 --time=2 --end-grace=120 --logon=once")
    local sessions = ws.logons_per_s * ws.measured_s
    assert.is_true(sessions <= 200.5, "sessions " .. sessions)
    assert.is_true(ws.logon_rows > 0 and ws.commits_per_s > 0 and ws.selects_per_s > 0, luabench.json.encode(ws))
    check_ok()
    _, ws = run_json("--users=200 --threads=2 --time=2 --end-grace=120 --logon=per-transaction")
    sessions = ws.logons_per_s * ws.measured_s
    -- every transaction had a session of its own; at most the users' last ones are extra
    assert.is_true(sessions >= ws.transactions - 0.01 and sessions <= ws.transactions + 200.01,
      string.format("%g sessions for %d transactions", sessions, ws.transactions))
    check_ok()
  end)

  it("records the logons of a run whose end cut transactions off: check holds", function()
    local out, err, rc = h.run(base .. " --users=100 --threads=2 --time=1 --end-grace=0.05 run")
    assert.is_true(rc == 0 or rc == 3, err .. out) -- 3: statements were cut off (the usual case here)
    assert.is_falsy(err:find("ALERT: could not record", 1, true), err)
    check_ok()
  end)

  it("runs threads as sysbench users expect: the report, and the mix within a deck of the weights", function()
    local out = run("--threads=2 --time=2 --weights=SQ:2,WQ:2,WA:2 run")
    assert.is_truthy(out:find("Swingbench Order Entry (SOE-like): scale 0.002 (2000 customers, 10 warehouses)", 1, true), out)
    assert.is_truthy(out:find("weights NCR:15,UCD:10,BP:50,OP:40,PO:5,BO:5,SQ:2,WQ:2,WA:2", 1, true), out)
    assert.is_truthy(out:find("Order Entry results (Swingbench SOE-like; response times in ms):", 1, true), out)
    for _, line in ipairs({ "transactions per minute %(TPM%):%s+[%d.]+", "DML per second:%s+selects [%d.]+, inserts [%d.]+, " ..
      "updates [%d.]+, deletes [%d.]+, commits [%d.]+, rollbacks [%d.]+", "logons per second:%s+[%d.]+ database sessions opened" }) do
      assert.is_truthy(out:find(line), line .. "\n" .. out)
    end
    -- each worker deals whole decks of the weights: a type's count is off its share of the
    -- total by at most its weight per thread (the deck dealt in part), plus the transactions
    -- the end of the run left unfinished (one per thread)
    local w = { NCR = 15, UCD = 10, BP = 50, OP = 40, PO = 5, BO = 5, SQ = 2, WQ = 2, WA = 2 }
    local total, n, all = 131, {}, 0
    for code in pairs(w) do
      local c = tonumber(out:match("%(" .. code .. "%)%s+(%d+)"))
      n[code] = c
      all = all + c
    end
    for code, weight in pairs(w) do
      assert.is_true(math.abs(n[code] - all * weight / total) <= 2 * weight + 2,
        string.format("%s: %d of %d", code, n[code], all))
    end
    check_ok()
  end)

  it("refuses bad options in one line", function()
    for _, c in ipairs({
      { "--weights=XX:3 run", "invalid --weights item 'XX:3' (expected NAME:N with NAME one of NCR, UCD, BP, OP, PO, BO, SQ, WQ, WA)" },
      { "--inter-min=10 --inter-max=5 run", "--inter-max=5 is less than --inter-min=10" },
      { "--scale=0 prepare", "invalid --scale value '0' (a number > 0: 1 is about Swingbench's 1 GB, 0.01 about 10 MB)" },
    }) do
      local _, err, rc = h.run(base .. " " .. c[1])
      assert.are.equal(1, rc, err)
      assert.is_truthy(err:find(c[2], 1, true), err)
    end
  end)

  it("cleanup drops the tables and the sequences; run then says to prepare", function()
    run("cleanup")
    local _, err, rc = h.run(base .. " --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("no soe schema here (table 'soe_config' does not exist): run 'prepare' first", 1, true), err)
  end)
end

describe("soe", function()
  h.each_driver("on %s", function(driver, db) suite(db) end)

  describe("on sqlite", function()
    local out = h.run("--db-driver=help oltp_read_write help")
    if not out:find("\n  sqlite ", 1, true) then
      if os.getenv("CI") == "true" then error("the sqlite driver is not built (CI=true)") end
      pending("the sqlite driver is not built")
      return
    end
    -- writers queue at BEGIN (a deferred transaction that read would fail on a stale snapshot)
    suite("--db-driver=sqlite --sqlite-db=" .. h.q(h.tmpdir() .. "/soe.db"), "--sqlite-begin=immediate --sqlite-synchronous=off")
  end)

  describe("on pgsql, beyond the common cases", function()
    local db = h.db("pgsql")
    if not db then pending("the pgsql sandbox is not running") return end
    local base = "soe " .. db .. " --table-prefix=soex_ "
    setup(function()
      h.run(base .. "cleanup")
      local _, err, rc = h.run(base .. "--scale=0.001 --threads=2 prepare")
      assert.are.equal(0, rc, err)
    end)
    teardown(function() h.run(base .. "cleanup") end)

    it("thinks between transactions outside their response time, and between steps inside it", function()
      local out, err, rc = h.run(base .. "--threads=2 --time=1 --inter-min=2 --inter-max=4 --intra-min=3 --intra-max=3 " ..
        "--weights=BP:1,NCR:0,UCD:0,OP:0,PO:0,BO:0 --format=json run")
      assert.are.equal(0, rc, err)
      local ws = h.json(out).workload_stats
      -- one think drawn after each transaction, within the bounds
      assert.is_true(ws.inter_think_ms.drawn >= ws.transactions and ws.inter_think_ms.drawn <= ws.transactions + 2,
        luabench.json.encode(ws.inter_think_ms))
      assert.is_true(ws.inter_think_ms.mean >= 2 and ws.inter_think_ms.mean <= 4)
      -- Browse Products pauses after its customer and after each of its 1..24 products: at least
      -- twice 3 ms in each response time
      local bp = ws.by_type[3]
      assert.are.equal("BP", bp.code)
      assert.are.equal(ws.transactions, bp.count)
      assert.is_true(bp.avg_ms >= 6 and bp.p90_ms >= 6, luabench.json.encode(bp))
      assert.is_true(ws.intra_think_ms.drawn >= 2 * bp.count and ws.intra_think_ms.mean == 3)
    end)

    it("processes started together with --instance merge into one result", function()
      local dir = h.tmpdir()
      local files, outputs = h.run_together(dir, "soe", 2, function() return base .. "--users=10 --threads=2 --time=2" end)
      local total, users, logon_rows = 0, 0, 0
      for i = 0, 1 do
        local d = h.json(h.read(files[i + 1]))
        assert.are.equal("ok", d.status, h.read(outputs[i + 1]))
        total = total + d.workload_stats.transactions
        users = users + d.workload_stats.users
        logon_rows = logon_rows + d.workload_stats.logon_rows
      end
      local out, err, rc = h.run("merge " .. files[1] .. " " .. files[2] .. " --output=" .. dir .. "/m.json")
      assert.are.equal(0, rc, err)
      local m = h.json(h.read(dir .. "/m.json"))
      local w = m.workload_stats
      assert.is_table(w, "the merged result has the workload's figures")
      assert.are.same({ 20, total, logon_rows }, { w.users, w.transactions, w.logon_rows })
      assert.is_true(math.abs(w.tps - total / m.time_s) < 1e-6 * w.tps, "TPS over the merged window")
      assert.is_truthy(out:find("processes merged:                    2, 20 users in all", 1, true), out)
      assert.is_truthy(out:find(string.format("transactions per second (TPS):       %.2f", w.tps), 1, true), out)
      local _, _, crc = h.run(base .. "check")
      assert.are.equal(0, crc)
    end)
  end)

  it("generate writes the rows prepare loads to files, one per table and thread", function()
    local dir = h.tmpdir() .. "/soe_gen"
    os.execute("mkdir -p " .. h.q(dir))
    local out, err, rc = h.run("soe --scale=0.002 --threads=2 --generate-dir=" .. h.q(dir) .. " generate")
    assert.are.equal(0, rc, err)
    assert.is_truthy(out:match("Generated scale 0.002 into .- in [%d.]+s: (%d+) rows"), out)
    local first = {}
    local function lines(t)
      local n = 0
      for tid = 0, 1 do
        local f = io.open(string.format("%s/%s.%d.tsv", dir, t, tid))
        if f then
          for l in f:lines() do
            n = n + 1
            first[t] = first[t] or l
          end
          f:close()
        end
      end
      return n
    end
    assert.are.same({ 2000, 3000, 3000, 2860, 10, 1000, 3000 }, { lines("customers"), lines("addresses"),
      lines("card_details"), lines("orders"), lines("warehouses"), lines("product_information"),
      lines("product_descriptions") })
    assert.are.equal(16, select(2, first.customers:gsub("\t", "")) + 1, first.customers) -- its 16 columns
    _, err, rc = h.run("soe generate")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("generate needs --generate-dir=DIR (a directory for the table files)", 1, true), err)
  end)

  it("loads the same rows with any number of threads", function()
    local db = h.db("pgsql")
    if not db then pending("the pgsql sandbox is not running") return end
    local function fingerprint(prefix, threads)
      local base = "soe " .. db .. " --table-prefix=" .. prefix .. " --scale=0.002 "
      h.run(base .. "cleanup")
      local _, err, rc = h.run(base .. "--threads=" .. threads .. " prepare")
      assert.are.equal(0, rc, err)
      local f = h.sql(db, string.format("SELECT CONCAT((SELECT SUM(order_total) FROM %sorders), ' ', " ..
        "(SELECT SUM(quantity_on_hand) FROM %sinventories), ' ', (SELECT SUM(LENGTH(cust_email)) FROM %scustomers), ' ', " ..
        "(SELECT SUM(product_id * line_item_id) FROM %sorder_items))", prefix, prefix, prefix, prefix))[1]
      h.run(base .. "cleanup")
      return f
    end
    local a, b = fingerprint("soe1_", 1), fingerprint("soe3_", 3)
    assert.is_truthy(a:match("^[%d.]+ %d+ %d+ %d+$"), a)
    assert.are.equal(a, b)
  end)
end)
