-- soe.run: the `run` command. init() (control state) reads the scale from the database; each
-- worker prepares the statements once, and each event of a thread or emulated user is one
-- transaction dealt by the worker's deck (soe.mix), retried after a deadlock or a lost
-- connection, then the think time between transactions (--inter-min/--inter-max, not part of
-- the response time). Per-thread counters in shared memory feed the report (statements by
-- kind, logons) and `check` (the logon rows committed over the whole run).
local common = require("soe.common")
local txn = require("soe.txn")
local mix = require("soe.mix")

local M = {}

local uniform = sysbench.rand.uniform
local RESTART_EVENT = sysbench.error.RESTART_EVENT

-- Per-thread counters (doubles), SLOTS per thread: 0..5 the statements by kind (txn.SELECTS ..
-- ROLLBACKS), LOGON_ROWS and SESSIONS over the measured window; LOGONS_COMMITTED and
-- LOGONS_IN_DOUBT over the whole run (check); INTER_SUM/INTER_N the think times drawn between
-- transactions, INTRA_SUM/INTRA_N those inside them (window).
local SLOTS = 14
M.SLOTS = SLOTS
M.LOGON_ROWS, M.SESSIONS, M.LOGONS_COMMITTED, M.LOGONS_IN_DOUBT = 6, 7, 8, 9
M.INTER_SUM, M.INTER_N, M.INTRA_SUM, M.INTRA_N = 10, 11, 12, 13

function M.stats_array(threads)
  return luabench.shared("soe.run.stats", "double", threads * SLOTS)
end

-- The logons still in doubt when a thread ended, for done() to look up (its waits are not cut
-- off by the end of the run, a worker's are): per thread a count, then up to DOUBT_MAX ids; an
-- id is negative when the end of the run cut its COMMIT off (its session may still commit it).
local DOUBT_MAX = 4096
local function doubt_array(threads)
  return luabench.shared("soe.run.doubt", "int64_t", threads * (DOUBT_MAX + 1))
end

-- What the control state read from the database, for the workers and the report: the largest
-- customer number, the customers loaded, warehouses, the scale in millionths.
function M.shared_config()
  return luabench.shared("soe.run.config", "int64_t", 4)
end

-- Control state -------------------------------------------------------------------------------

function M.init()
  local s = common.settings()
  local con = common.open()
  local cfg = common.ready_config(con)
  local max = tonumber(con:query_row("SELECT MAX(customer_id) FROM " .. s.t.customers)) or cfg.customers
  con:disconnect()
  if common.dialect().name == "sqlite" and tostring(sysbench.opt.sqlite_begin) == "deferred" then
    io.stderr:write("NOTE: under --sqlite-begin=deferred a transaction that reads, then writes fails when another " ..
      "connection committed meanwhile (it is retried); --sqlite-begin=immediate makes writers queue instead\n")
  end
  local sh = M.shared_config()
  sh[0], sh[1], sh[2], sh[3] = max, cfg.customers, cfg.warehouses, cfg.scale_ppm
end

-- The logons of the threads: committed, in doubt (beyond the lists), and the lists of ids to
-- look up.
local function run_logons(threads)
  local st, ids = M.stats_array(threads), doubt_array(threads)
  local r = { committed = 0, doubt = 0, ids = {} }
  for t = 0, threads - 1 do
    r.committed = r.committed + st[t * SLOTS + M.LOGONS_COMMITTED]
    r.doubt = r.doubt + st[t * SLOTS + M.LOGONS_IN_DOUBT]
    local b = t * (DOUBT_MAX + 1)
    for k = 1, tonumber(ids[b]) do r.ids[#r.ids + 1] = tonumber(ids[b + k]) end
  end
  return r
end

-- One attempt at recording the run's logons on con, in one transaction with a row of its own
-- (`marker`) so that an attempt whose COMMIT lost its answer is not added twice by the next.
-- A logon whose session was lost is committed if its row is there; one whose COMMIT the end
-- of the run cut off may still be committed by its session, so a missing row stays in doubt.
local function record(con, r, marker)
  local s, D = common.settings(), common.dialect()
  local t = s.t
  local function drop_marker() con:query(string.format("DELETE FROM %s WHERE cfg_name = '%s'", t.config, marker)) end
  if tonumber(con:query_row(string.format("SELECT COUNT(*) FROM %s WHERE cfg_name = '%s'", t.config, marker))) == 1 then
    return drop_marker() -- the last attempt's COMMIT went through
  end
  local committed, doubt = r.committed, r.doubt
  for _, id in ipairs(r.ids) do
    local n = tonumber(con:query_row(string.format("SELECT COUNT(*) FROM %s WHERE logon_id = %d", t.logon, math.abs(id))))
    if n == 1 then
      committed = committed + 1
    elseif id < 0 then
      doubt = doubt + 1
    end
  end
  con:query(D.begin)
  common.config_add(con, "logons", committed)
  common.config_add(con, "logons_in_doubt", doubt)
  common.config_add(con, "runs", 1)
  con:query(string.format("INSERT INTO %s (cfg_name, cfg_value) VALUES ('%s', 0)", t.config, marker))
  con:query(D.commit)
  drop_marker()
end

-- A name no other run's recording has (processes of a --instance run record side by side).
local function marker_name()
  local f = io.open("/dev/urandom", "rb")
  local bytes = f and f:read(8) or tostring(os.time() + os.clock())
  if f then f:close() end
  return "run_recorded_" .. bytes:gsub(".", function(c) return string.format("%02x", c:byte()) end)
end

-- The committed logon rows of the run go to the configuration table, where `check` compares
-- them with the table. The server may be restarting when the run ends: tried again with backoff
-- (0.1 s doubling up to 2 s) for --db-reconnect-timeout seconds, saying so.
function M.done()
  local r = run_logons(sysbench.opt.threads)
  local marker = marker_name()
  local wait_s = tonumber(sysbench.opt.db_reconnect_timeout) or 60
  local deadline, delay, said = luabench.time() + wait_s, 0.1, false
  while true do
    local ok, err = pcall(function()
      local con = common.open()
      local done, e = pcall(record, con, r, marker)
      pcall(con.disconnect, con)
      if not done then error(e, 0) end
    end)
    if ok then return end
    -- a lost connection (reconnected: RESTART_EVENT, or not), a server that refuses sessions
    local lost = type(err) == "table"
    err = lost and tostring(err.sql_errmsg) or tostring(err):gsub("^[^:]*soe/run%.lua:%d+: ", "")
    lost = lost or err:find("connection creation failed", 1, true) or err:find("lost the connection", 1, true)
    if not lost or luabench.time() + delay > deadline then
      io.stderr:write(string.format("ALERT: could not record the run's logons for 'check'%s: %s. 'check' will not " ..
        "match the LOGON table (%d logons committed, %d in doubt and %d to look up are not recorded): run 'cleanup' " ..
        "and 'prepare' before checking again\n", lost and string.format(" within --db-reconnect-timeout (%g s)", wait_s) or "",
        err, r.committed, r.doubt, #r.ids))
      return
    end
    if not said then
      said = true
      io.stderr:write(string.format("NOTE: waiting for the server to record the run's logons for 'check' " ..
        "(up to %g s): %s\n", wait_s, err))
    end
    luabench.sleep(delay)
    delay = math.min(delay * 2, 2)
  end
end

-- Workers ---------------------------------------------------------------------------------------

local s, x, tid, types, deck, stats, base, from
local in_window, last_sessions = false, 0
local doubt = {} -- logon ids whose COMMIT got no answer (a lost connection): committed or not?

local function count(slot)
  if in_window then stats[base + slot] = stats[base + slot] + 1 end
end

-- The measured window starts at `from`; the sessions the thread opened since are counted.
local function window_tick()
  if not in_window then
    if luabench.time() < from then return end
    in_window = true
    last_sessions = sysbench.sql.logons(tid)
  end
  local n = sysbench.sql.logons(tid)
  stats[base + M.SESSIONS] = stats[base + M.SESSIONS] + (n - last_sessions)
  last_sessions = n
end

local function think_ms(lo, hi, sum, n, wait)
  if hi <= 0 then return end
  local ms = uniform(lo, hi)
  if in_window then
    stats[base + sum] = stats[base + sum] + ms
    stats[base + n] = stats[base + n] + 1
  end
  if ms > 0 then wait(ms / 1000) end
end

-- Looks up the logons in doubt on con: a row there was committed. Stops while the server
-- cannot say. The users of a worker take turns (one looks them up), and others add theirs to
-- the list while the lookup waits for the server: an id leaves the list once looked up (one
-- the end of the run cuts off stays, for done()).
local resolving = false
local function resolve_doubt(con)
  if resolving then return end
  resolving = true
  local ok = true
  while ok and #doubt > 0 do
    local id = doubt[#doubt]
    local n
    ok, n = pcall(con.query_row, con, string.format("SELECT COUNT(*) FROM %s WHERE logon_id = %d", s.t.logon, id))
    if ok then
      for k = #doubt, 1, -1 do
        if doubt[k] == id then
          table.remove(doubt, k)
          break
        end
      end
      if tonumber(n) == 1 then x.logon_done(true) end
    end
  end
  resolving = false
end

function M.thread_init(thread_id, stat_types)
  s = common.settings()
  tid = thread_id
  types = stat_types
  stats = M.stats_array(s.threads)
  base = tid * SLOTS
  from = common.measured_from()
  local cfg = M.shared_config()
  local con = common.connect()
  x = {
    con = con, D = common.dialect(), customers = tonumber(cfg[0]), loaded = tonumber(cfg[1]),
    warehouses = tonumber(cfg[2]), count = count, inflight = {},
  }
  -- A committed logon row (late: one found committed after its answer was lost).
  function x.logon_done(late)
    stats[base + M.LOGONS_COMMITTED] = stats[base + M.LOGONS_COMMITTED] + 1
    if in_window and not late then stats[base + M.LOGON_ROWS] = stats[base + M.LOGON_ROWS] + 1 end
  end
  local intra_min, intra_max = s.intra_min, s.intra_max
  function x.pause() think_ms(intra_min, intra_max, M.INTRA_SUM, M.INTRA_N, luabench.pause) end
  x.S = txn.statements(con, s, count)
  deck = mix.new(s.weights)
end

function M.thread_done()
  if not x then return end
  window_tick()
  -- logons of users whose last statement the end of the run cut off (negative), and those not
  -- looked up yet: done() looks them up
  for id in pairs(x.inflight) do doubt[#doubt + 1] = -id end
  x.inflight = {}
  local ids, b = doubt_array(s.threads), tid * (DOUBT_MAX + 1)
  local n = math.min(#doubt, DOUBT_MAX)
  for k = 1, n do ids[b + k] = doubt[k] end
  ids[b] = n
  stats[base + M.LOGONS_IN_DOUBT] = stats[base + M.LOGONS_IN_DOUBT] + (#doubt - n)
  x.con:disconnect()
end

local function message(e)
  if type(e) == "table" then
    return string.format("SQL error, errno = %s, state = '%s': %s", tostring(e.sql_errno), tostring(e.sql_state),
      tostring(e.sql_errmsg))
  end
  return tostring(e)
end

local RETRIES = 10

-- One transaction: retried (as a new transaction of the same type) after a deadlock, a
-- serialization failure, a busy database or a lost connection, up to 10 times.
function M.event()
  local u = luabench.user_data
  window_tick()
  if #doubt > 0 then resolve_doubt(x.con) end
  local k = deck:next()
  local T = types[k]
  local body = txn.BODIES[k]
  local failure
  for attempt = 1, RETRIES + 1 do
    local t0 = T:start()
    local ok, res = pcall(body, u, x)
    if ok then
      if res == "rollback" then T:rollback(t0) else T:done(t0) end
      failure = nil
      break
    end
    if u.logon_id then
      doubt[#doubt + 1] = u.logon_id
      x.inflight[u.logon_id] = nil
      u.logon_id = nil
    end
    count(txn.ROLLBACKS)
    pcall(x.con.query, x.con, x.D.rollback)
    failure = res
    local restart = type(res) == "table" and res.errcode == RESTART_EVENT
    -- cut off by the end of the run (a lost session not reconnected then): the runner abandons
    -- the event, as any other's, instead of counting it as failed
    if restart and luabench.stopping() then error(res) end
    if restart and attempt <= RETRIES then
      T:retry()
    else
      T:error()
      break
    end
  end
  think_ms(s.inter_min, s.inter_max, M.INTER_SUM, M.INTER_N, luabench.think)
  if failure then error(message(failure), 0) end
end

-- Deadlocks, serialization failures and lock wait timeouts are retried.
function M.sql_error_ignorable(e)
  local st, no = e.sql_state, e.sql_errno
  return st == "40P01" or st == "40001" or no == 1213 or no == 1205
end

return M
