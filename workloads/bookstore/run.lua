-- bookstore.run: the emulated customers. Each user runs sessions of TPC-W interactions: a
-- session starts at Home with a customer drawn (80 % returning, by NURand; 20 % unknown) and a
-- minimum duration (USMD, negative exponential, mean 15 min, capped at 4x), moves along the
-- Customer Behavior Graph of the mix, and ends when its USMD has passed and the graph leads back
-- to Home. One interaction per event() call, then the think time (negative exponential, mean 7 s,
-- capped at 10x): the engine's event latency is the interaction's response time.
local common = require("bookstore.common")
local I = require("bookstore.interactions")

local M = {}

local rand = sysbench.rand
local uniform = rand.uniform
local HOME, PROD = common.HOME, common.PROD

-- Per-worker counters in shared memory (one row of SLOTS doubles per thread), read by the
-- report and done() in the control state. Slots 6 and 7 count the whole run (for `check`); the
-- others only the measured window.
local SLOTS = 16
M.SLOTS = SLOTS
M.THINK_SUM, M.THINK_N, M.SESS_STARTED, M.SESS_DONE, M.SESS_LEN_SUM, M.USMD_SUM = 0, 1, 2, 3, 4, 5
M.BC_COMMITTED, M.NEW_CUSTOMERS = 6, 7
M.THINK_ACT_SUM, M.THINK_ACT_N = 14, 15 -- slots 8-13: searches (bookstore.interactions)
local WHOLE_RUN = { [6] = true, [7] = true }

function M.stats_array(threads)
  return luabench.shared("bookstore.run.stats", "double", threads * SLOTS)
end

-- The scale the control state found in the database, for the workers: items, EBs, customers.
function M.shared_config()
  return luabench.shared("bookstore.run.config", "int64_t", 4)
end

-- Control state, before the workers: the scale comes from the database.
function M.init()
  local s = common.settings()
  local con = common.open()
  local cfg = common.config_read(con)
  con:disconnect()
  if cfg.loaded ~= 1 then
    common.fail("the bookstore load did not complete (prepare interrupted?): run cleanup, then prepare")
  end
  local sh = M.shared_config()
  sh[0], sh[1], sh[2], sh[3] = cfg.items, cfg.ebs, cfg.customers, 1
  if s.items ~= cfg.items or s.ebs ~= cfg.ebs then
    if sysbench.opt.items ~= 10000 or sysbench.opt.ebs ~= 10 then
      io.stderr:write(string.format("NOTE: the database holds %d items and %d EBs; --items and --ebs only apply to prepare\n",
        cfg.items, cfg.ebs))
    end
  end
end

-- Control state, after the run: the committed Buy Confirms and new customers go to the
-- configuration table, where `check` reconciles them with the tables.
function M.done()
  local threads = sysbench.opt.threads
  local st = M.stats_array(threads)
  local bc, nc = 0, 0
  for t = 0, threads - 1 do
    bc = bc + st[t * SLOTS + M.BC_COMMITTED]
    nc = nc + st[t * SLOTS + M.NEW_CUSTOMERS]
  end
  local ok, err = pcall(function()
    local con = common.open()
    common.config_add(con, "bc_committed", bc)
    common.config_add(con, "new_customers", nc)
    common.config_add(con, "runs", 1)
    con:disconnect()
  end)
  if not ok then
    io.stderr:write("ALERT: could not record the run's Buy Confirms and new customers for 'check': " .. luabench.escape(err) .. "\n")
  end
end

local s, x, types, stats, base, from, mean_think, mean_usmd, mix

local function count(slot, n)
  if WHOLE_RUN[slot] or luabench.time() >= from then
    stats[base + slot] = stats[base + slot] + n
  end
end

-- The committed orders and new customers `check` reconciles are counted just before COMMIT is
-- sent, and taken back if it fails: a run that ends while a COMMIT's reply is on its way (the
-- engine stops resuming users at the deadline) still counts what the server committed, and a
-- transaction cut before its COMMIT is rolled back by the server when the connection closes.
local COUNTED = { order = M.BC_COMMITTED, new_customer = M.NEW_CUSTOMERS }
local function counted(u, what)
  count(COUNTED[what], 1)
  u.counted = u.counted or {}
  u.counted[#u.counted + 1] = COUNTED[what]
end

function M.thread_init(tid, TYPES)
  s = common.settings()
  types = TYPES
  local cfg = M.shared_config()
  local items, customers = tonumber(cfg[0]), tonumber(cfg[2])
  x = {
    con = common.open(),
    t = s.t, items = items, customers = customers,
    customer_a = common.customer_a(customers), count = count, counted = counted,
  }
  stats = M.stats_array(s.threads)
  base = tid * SLOTS
  from = common.measured_from()
  mean_think, mean_usmd, mix = s.think, s.usmd, s.mix
end

function M.thread_done()
  if x and x.con then x.con:disconnect() end
end

-- Sessions --------------------------------------------------------------------------------------

local function start_session(u, now)
  if u.sc_id and u.sc_id > 0 then u.old_sc = u.sc_id end
  u.sc_id = 0
  u.c_id = uniform(1, 100) <= 80 and common.nurand(x.customer_a, 1, x.customers) or 0
  u.list, u.item, u.prev, u.next = nil, nil, nil, HOME
  u.usmd = mean_usmd > 0 and math.min(rand.exp(mean_usmd), 4 * mean_usmd) or 0
  u.session_start = now
  count(M.SESS_STARTED, 1)
  count(M.USMD_SUM, u.usmd)
end

local function end_session(u, now)
  count(M.SESS_DONE, 1)
  count(M.SESS_LEN_SUM, now - u.session_start)
end

-- Think times are counted twice: as drawn when they start (the distribution's mean, unbiased
-- by the end of the run), and as actually spent (wake-up lateness included) when they end.
local function think()
  if mean_think <= 0 then return end
  local tt = math.min(rand.exp(mean_think), 10 * mean_think)
  local t = luabench.time()
  local in_window = t >= from
  if in_window then
    stats[base + M.THINK_SUM] = stats[base + M.THINK_SUM] + tt
    stats[base + M.THINK_N] = stats[base + M.THINK_N] + 1
  end
  luabench.think(tt)
  if in_window then
    stats[base + M.THINK_ACT_SUM] = stats[base + M.THINK_ACT_SUM] + (luabench.time() - t)
    stats[base + M.THINK_ACT_N] = stats[base + M.THINK_ACT_N] + 1
  end
end

-- Errors worth retrying: deadlocks, serialization failures, lock wait timeouts (made ignorable by
-- the sql_error_ignorable hook below), a connection lost and re-established, --*-ignore-errors.
local function retryable(e)
  return type(e) == "table" and e.errcode == sysbench.error.RESTART_EVENT
end

local function message(e)
  if type(e) == "table" then
    return string.format("SQL error, errno = %s, state = '%s': %s", tostring(e.sql_errno),
      tostring(e.sql_state), tostring(e.sql_errmsg))
  end
  return tostring(e)
end

local RETRIES = 3
local thread_user = {} -- without --users, each thread is one user

function M.event()
  local u = luabench.user_data or thread_user
  local now = luabench.time()
  if not u.next then
    start_session(u, now)
  elseif u.next == HOME and now - u.session_start >= u.usmd then
    end_session(u, now)
    start_session(u, now)
  end
  local kind = u.next
  local T = types[kind]
  local fn = I.BY_INDEX[kind]
  local t0 = T:start()
  local failure
  for attempt = 1, RETRIES + 1 do
    local c_id, sc_id, old_sc = u.c_id, u.sc_id, u.old_sc
    u.in_txn, u.new_customer, u.committed_order, u.counted = false, nil, nil, nil
    local ok, err = pcall(fn, u, x, u.prev)
    if ok then
      T:done(t0)
      failure = nil
      break
    end
    -- undo: the transaction, what was counted for it, and the session state it changed
    if u.in_txn then pcall(x.con.query, x.con, common.dialect().rollback) end
    for _, slot in ipairs(u.counted or {}) do count(slot, -1) end
    u.c_id, u.sc_id, u.old_sc = c_id, sc_id, old_sc
    failure = err
    if attempt <= RETRIES and retryable(err) and not luabench.stopping() then
      T:retry()
    else
      T:error()
      break
    end
  end
  u.prev = kind
  u.next = common.next_interaction(mix, kind)
  think()
  if failure then error(message(failure), 0) end
end

-- Deadlocks and serialization failures are retried (the same interaction, up to 3 times).
function M.sql_error_ignorable(e)
  local st, no = e.sql_state, e.sql_errno
  return st == "40P01" or st == "40001" or no == 1213 or no == 1205
end

return M
