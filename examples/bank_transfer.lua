#!/usr/bin/env luabench
-- bank_transfer.lua: money moves between accounts; the total never changes.
--
-- A transfer locks its two accounts (SELECT ... FOR UPDATE), moves an amount and writes a
-- history row, in one transaction. One event in ten is a balance report instead. It is written
-- to be correct in every mode luabench runs it:
--   * retries: a deadlock or a lock wait timeout (in the drivers' default ignore lists) restarts
--     the event; luabench rolls back the failed attempt first (scripting.md §4), and the retry
--     moves the same amount between the same accounts, chosen at the first attempt and kept in
--     luabench.user_data; a retry is told from a new event by attempts() (0 in a new event,
--     also after one that failed);
--   * per-type timing from the first attempt: TRANSFER:begin() gives a retry the first
--     attempt's start mark and counts the retry, so the transfer's latency includes the failed
--     attempts (as the event's does);
--   * --users: users of one worker share its Lua state, so nothing per user lives in file
--     locals — only in luabench.user_data (one table per user; one per thread without --users).
--
--   luabench bank_transfer.lua --db-driver=pgsql ... --accounts=1000 prepare
--   luabench bank_transfer.lua --db-driver=pgsql ... --accounts=1000 --threads=8 --time=60 run
--   luabench bank_transfer.lua --db-driver=pgsql ... --accounts=1000 --users=200 --threads=2 \
--       --connections=16 --think=0.01 --time=60 run
--   luabench bank_transfer.lua --db-driver=pgsql ... --accounts=1000 check    (exit 1 if wrong)
--   luabench bank_transfer.lua --db-driver=pgsql ... cleanup
-- --lock-order=random locks the two accounts in the order of the transfer instead of by key
-- (deadlocks: MariaDB detects them at once, PostgreSQL after its deadlock_timeout, 1 s), and
-- --isolation=serializable makes PostgreSQL refuse a transfer whose rows changed under it
-- (40001): both are retried, and the check still passes.
sysbench.cmdline.options = {
  accounts = { "Number of accounts", 100, sysbench.cmdline.ARG_INT },
  balance = { "Opening balance of each account", 1000, sysbench.cmdline.ARG_INT },
  think = { "Think time between events, seconds (--users)", 0 },
  lock_order = { "Lock the two accounts by key ('key': no deadlocks) or in transfer order ('random')", "key" },
  isolation = { "Isolation level of a transfer: default (the server's), repeatable_read or serializable", "default" },
}

local uniform = sysbench.rand.uniform

local function opt_check()
  local o = sysbench.opt
  if o.lock_order ~= "key" and o.lock_order ~= "random" then
    error("--lock-order must be 'key' or 'random' (got '" .. tostring(o.lock_order) .. "')", 0)
  end
  if o.accounts < 2 then error("--accounts must be at least 2 (a transfer needs two)", 0) end
  if o.isolation ~= "default" and o.isolation ~= "repeatable_read" and o.isolation ~= "serializable" then
    error("--isolation must be default, repeatable_read or serializable (got '" .. tostring(o.isolation) .. "')", 0)
  end
end

-- The statements that open a transfer's transaction at the chosen isolation level: PostgreSQL
-- takes it in BEGIN, MySQL/MariaDB before it (SET TRANSACTION: the next transaction only).
local function begin_statements()
  local level = sysbench.opt.isolation
  if level == "default" then return { "BEGIN" } end
  level = level:upper():gsub("_", " ")
  if sysbench.opt.db_driver == "pgsql" then return { "BEGIN ISOLATION LEVEL " .. level } end
  return { "SET TRANSACTION ISOLATION LEVEL " .. level, "BEGIN" }
end

function prepare()
  opt_check()
  local con = sysbench.sql.driver():connect()
  con:query("CREATE TABLE bank_account (id INTEGER PRIMARY KEY, balance BIGINT NOT NULL)")
  con:query("CREATE TABLE bank_history (src INTEGER NOT NULL, dst INTEGER NOT NULL, amount INTEGER NOT NULL)")
  con:bulk_insert_init("INSERT INTO bank_account (id, balance) VALUES")
  for i = 1, sysbench.opt.accounts do
    con:bulk_insert_next(string.format("(%d, %d)", i, sysbench.opt.balance))
  end
  con:bulk_insert_done()
end

function cleanup()
  local con = sysbench.sql.driver():connect()
  con:query("DROP TABLE IF EXISTS bank_history")
  con:query("DROP TABLE IF EXISTS bank_account")
end

-- check: the money is all there, and every transfer left one history row.
local function check()
  local con = sysbench.sql.driver():connect()
  local o = sysbench.opt
  local accounts = tonumber(con:query_row("SELECT count(*) FROM bank_account"))
  local total = tonumber(con:query_row("SELECT sum(balance) FROM bank_account"))
  local moved = tonumber(con:query_row("SELECT count(*) FROM bank_history"))
  local want = o.accounts * o.balance
  print(string.format("check: %d accounts, balances sum to %d (expected %d), %d transfers in the history",
    accounts, total, want, moved))
  if accounts ~= o.accounts or total ~= want then
    print("check: FAILED: money was created or lost")
    return false
  end
  print("check: ok")
end

sysbench.cmdline.commands = { check = { check } }

-- One type per transaction: count, latency percentiles, errors and retries of each.
local TRANSFER = luabench.stats.type("transfer")
local REPORT = luabench.stats.type("balance_report")

local con, begin_sql
function thread_init()
  opt_check()
  begin_sql = begin_statements()
  -- With --users a pooled connection: a user holds a physical connection for its event.
  con = sysbench.sql.driver():connect()
end

local function transfer(u)
  local t0 = TRANSFER:begin()          -- the first attempt's mark, kept across retries
  if TRANSFER:attempts() == 1 then
    -- A new transfer: chosen once, so a retry repeats the same one (user_data, not a local:
    -- with --users another user of this worker runs between the attempts).
    local n = sysbench.opt.accounts
    u.src = uniform(1, n)
    u.dst = uniform(1, n - 1)
    if u.dst >= u.src then u.dst = u.dst + 1 end
    u.amount = uniform(1, 100)
  end
  local first, second = u.src, u.dst
  if sysbench.opt.lock_order == "key" and first > second then first, second = second, first end
  for _, q in ipairs(begin_sql) do con:query(q) end
  -- two statements, one lock each, in the chosen order
  con:query(string.format("SELECT balance FROM bank_account WHERE id = %d FOR UPDATE", first))
  con:query(string.format("SELECT balance FROM bank_account WHERE id = %d FOR UPDATE", second))
  con:query(string.format("UPDATE bank_account SET balance = balance - %d WHERE id = %d", u.amount, u.src))
  con:query(string.format("UPDATE bank_account SET balance = balance + %d WHERE id = %d", u.amount, u.dst))
  con:query(string.format("INSERT INTO bank_history (src, dst, amount) VALUES (%d, %d, %d)", u.src, u.dst, u.amount))
  con:query("COMMIT")
  TRANSFER:done(t0)                    -- from the first attempt to the commit
  u.transfers = (u.transfers or 0) + 1
end

local function report()
  local t0 = REPORT:begin()
  local rs = con:query("SELECT count(*), sum(balance) FROM bank_account")
  local row = rs:fetch_row()
  if tonumber(row[2]) ~= sysbench.opt.accounts * sysbench.opt.balance then
    error(string.format("balance report: the total is %s, expected %d", tostring(row[2]),
      sysbench.opt.accounts * sysbench.opt.balance), 0)
  end
  REPORT:done(t0)
end

function event()
  local u = luabench.user_data
  -- A retry of this event (its transaction was begun: attempts() > 0) repeats what failed
  -- (event() starts again from here); anything else is a new event, also after an event that
  -- failed (with --users the user goes on): chosen anew, so a failing transfer is not repeated
  -- forever.
  if TRANSFER:attempts() == 0 and REPORT:attempts() == 0 then
    u.kind = uniform(1, 10) == 1 and "report" or "transfer"
  end
  if u.kind == "report" then report() else transfer(u) end
  if sysbench.opt.think > 0 then luabench.think(sysbench.opt.think) end
end
