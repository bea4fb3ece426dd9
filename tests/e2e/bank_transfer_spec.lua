-- examples/bank_transfer.lua (doc/scripting.md §11.6, the users-safe example) on both servers, with
-- threads and with emulated users sharing a Lua state, under contention that forces retries:
-- the money is all there afterwards, the history has exactly one row per committed transfer
-- (a retry never commits a failed attempt's writes), and the transfer type is timed from its
-- first attempt, its retries counted.
local h = require("helpers")

local EX = h.q(h.root .. "/examples/bank_transfer.lua")
local ACCOUNTS, BALANCE = 5, 1000

local modes = {
  { name = "threads", args = "--threads=4" },
  { name = "--users", args = "--users=8 --threads=2 --connections=4" },
}

describe("examples/bank_transfer.lua", function()
  h.each_driver("on %s", function(driver, db)
    local base = EX .. " " .. db .. " --accounts=" .. ACCOUNTS
    -- PostgreSQL: SERIALIZABLE refuses a transfer whose rows changed (40001) at once;
    -- MariaDB: locks taken in transfer order deadlock (1213), detected at once.
    local contention = driver == "pgsql" and " --isolation=serializable" or " --lock-order=random"

    for _, m in ipairs(modes) do
      it("keeps the money and one history row per transfer, retried (" .. m.name .. ")", function()
        local _, err, rc = h.run(base .. " cleanup")
        assert.are.equal(0, rc, err)
        _, err, rc = h.run(base .. " prepare")
        assert.are.equal(0, rc, err)
        local json = h.tmpdir() .. "/bank-" .. driver .. "-" .. m.name:gsub("%W", "") .. ".json"
        local out
        out, err, rc = h.run(base .. " " .. m.args .. contention .. " --time=2 --output=" .. json .. " run")
        assert.are.equal(0, rc, err .. out)
        local r = h.json(h.read(json))
        local t = r.types.transfer
        assert.is_true(t.count > 0 and r.types.balance_report.count > 0, out)
        assert.is_true(t.retries > 0, "contention made no retry: " .. out)
        -- each retry is a failed attempt the driver ignored (and rolled back)
        assert.is_true(r.counters.errors >= t.retries, out)
        -- timed from the first attempt: the transfers' latencies add up to the time of their
        -- events, failed attempts included (timed per attempt, they would fall short)
        local rep = r.types.balance_report
        local ratio = t.latency_ms.avg * t.count / (r.latency_ms.sum - rep.latency_ms.avg * rep.count)
        assert.is_true(ratio > 0.95 and ratio < 1.01, "transfer time / its events' time = " .. ratio)
        assert.are.same({ tostring(ACCOUNTS * BALANCE) }, h.sql(db, "SELECT sum(balance) FROM bank_account"))
        assert.are.same({ tostring(t.count) }, h.sql(db, "SELECT count(*) FROM bank_history"))
        out, err, rc = h.run(base .. " check")
        assert.are.equal(0, rc, err .. out)
        assert.is_truthy(out:find("check: " .. ACCOUNTS .. " accounts, balances sum to " .. ACCOUNTS * BALANCE ..
          " (expected " .. ACCOUNTS * BALANCE .. "), " .. t.count .. " transfers in the history\ncheck: ok", 1, true), out)
      end)
    end

    it("check fails when money was lost", function()
      h.sql(db, "UPDATE bank_account SET balance = balance - 1 WHERE id = 1")
      local out, err, rc = h.run(base .. " check")
      assert.are.equal(1, rc, err .. out)
      assert.is_truthy(out:find("check: FAILED: money was created or lost", 1, true), out)
      _, err, rc = h.run(base .. " cleanup")
      assert.are.equal(0, rc, err)
    end)
  end)
end)
