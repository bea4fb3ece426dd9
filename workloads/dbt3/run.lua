-- dbt3.run: the `run` command: the power test (one stream: RF1, the 22 queries in stream 0's
-- order, RF2) and then the throughput test (S query streams beside one refresh stream of S
-- RF1/RF2 pairs), as TPC-H clause 5.3 runs them.
--
-- Every worker thread has a list of steps, built in thread_init; one event() runs one step (a
-- query, a refresh function, or waiting for the power test to end), so the engine's loop, its
-- per-type statistics (Q1..Q22, RF1, RF2) and its interval reports see every query. Threads
-- 0..S-1 run query streams 1..S, thread S the refresh stream; thread 0 runs the power test first
-- while the others wait. With fewer threads than S + 1, thread 0 runs the refresh pairs after its
-- query stream (the report says so). The times go to shared memory for the report.
local common = require("dbt3.common")
local queries = require("dbt3.queries")
local gen = require("dbt3.gen")
local schema = require("dbt3.schema")

local M = {}

local fmt = string.format
local RESTART_EVENT = sysbench.error.RESTART_EVENT

-- Slots per stream: Q1..Q22, then RF1 (23) and RF2 (24).
M.SLOTS = 24
M.RF1, M.RF2 = 23, 24
M.OK, M.TIMED_OUT = 1, 2

-- The plan of this run, the same in every state: streams, whether the refresh stream has a
-- thread of its own.
function M.plan()
  local s = common.settings()
  local S = s.streams > 0 and s.streams or math.max(1, s.threads - 1)
  return {
    power = s.test ~= "throughput", throughput = s.test ~= "power", streams = S,
    refresh_thread = s.threads > S and S or nil,
  }
end

-- Shared memory, by name in every state:
--   state   [0] scale factor, [1] seed, [2] power done (1), [3] power start, [4] power end
--   times   seconds per (stream 0..S) x slot; stream 0 is the power test's
--   status  0 not run, 1 done, 2 timed out, per (stream, slot)
--   rf      seconds per throughput refresh pair x {RF1, RF2}; rf_status alike
--   span    per thread: start and end of its throughput work
--   cur     per thread: the slot running (0 none, -1 finished) and its stream
function M.shared()
  local p = M.plan()
  local s = common.settings()
  local n = (p.streams + 1) * M.SLOTS
  return {
    state = luabench.shared("dbt3.run.state", "double", 5),
    times = luabench.shared("dbt3.run.times", "double", n),
    status = luabench.shared("dbt3.run.status", "uint8_t", n),
    rf = luabench.shared("dbt3.run.rf", "double", 2 * p.streams),
    rf_status = luabench.shared("dbt3.run.rf_status", "uint8_t", 2 * p.streams),
    span = luabench.shared("dbt3.run.span", "double", 2 * s.threads),
    cur = luabench.shared("dbt3.run.cur", "int32_t", 2 * s.threads),
  }
end

-- Control state ------------------------------------------------------------------------------

-- The order keys of refresh pair `pair` at scale factor sf: SF x 1500 keys among the 9th to
-- 16th of groups of 32, which the load leaves unused (dbt3.gen.refresh_orders).
function M.refresh_keys(sf, pair)
  local n = math.max(1, math.floor(sf * 1500))
  local keys = {}
  for j = 0, n - 1 do
    local m = pair * n + j
    keys[j + 1] = math.floor(m / 8) * 32 + 8 + m % 8 + 1
  end
  return keys
end

-- A refresh pair is recorded in the configuration table before its RF1 and forgotten after its
-- RF2 (outside the timed statements): the rows of a pair an interrupted run left behind are then
-- found by that pair's own keys, never by a key pattern, so loaded rows are never touched,
-- whoever generated them (dbgen's order keys are the first 8 of every 32 counted from 0, which a
-- pattern over luabench's layout also matched at every multiple of 32).
local PENDING = "rf_pending_"

function M.mark_pending(con, pair)
  common.config_set(con, PENDING .. pair, 1)
end

function M.unmark_pending(con, pair)
  con:query(fmt("DELETE FROM %s WHERE cfg_name = '%s%d'", common.settings().t.config, PENDING, pair))
end

-- Removes what interrupted runs left: the rows of every recorded pair (an RF1 without its RF2:
-- RF1 would fail on their keys, and queries would see them), saying how many orders went, and
-- Q15's views (common.drop_q15_views; streams: this run's). Forgets the pairs.
function M.remove_leftovers(con, sf, streams)
  local s = common.settings()
  local removed = 0
  for name in pairs(common.config_read(con)) do
    local pair = tonumber(name:match("^" .. PENDING .. "(%d+)$"))
    if pair then
      local keys = M.refresh_keys(sf, pair)
      con:query("BEGIN")
      for i = 1, #keys, 1000 do
        local list = table.concat(keys, ",", i, math.min(#keys, i + 999))
        removed = removed + tonumber(con:query_row(fmt("SELECT COUNT(*) FROM %s WHERE o_orderkey IN (%s)", s.t.orders, list)))
        con:query(fmt("DELETE FROM %s WHERE l_orderkey IN (%s)", s.t.lineitem, list))
        con:query(fmt("DELETE FROM %s WHERE o_orderkey IN (%s)", s.t.orders, list))
      end
      M.unmark_pending(con, pair)
      con:query("COMMIT")
    end
  end
  if removed > 0 then
    print(string.format("Removed %d orders an interrupted run's refresh functions left behind", removed))
  end
  common.drop_q15_views(con, streams)
end

function M.init()
  local s = common.settings()
  local con = common.driver():connect()
  local cfg = common.ready_config(con)
  local p = M.plan()
  M.remove_leftovers(con, cfg.scale, p.streams)
  con:disconnect()
  if p.streams > s.threads then
    common.fail("--streams=%d needs as many threads: raise --threads to %d (%d to give the refresh stream its own)",
      p.streams, p.streams, p.streams + 1)
  end
  local sh = M.shared()
  sh.state[0], sh.state[1] = cfg.scale, cfg.seed
  sh.state[2] = p.power and 0 or 1
end

-- Workers --------------------------------------------------------------------------------------

local s, d, con, sh, tid, types, steps, pos, g, sf, seed
local timeout_set
local retries = 0

local function step_list(p)
  local list = {}
  local function add(x) list[#list + 1] = x end
  if p.power and tid == 0 then
    add({ kind = "rf1", stream = 0, pair = 0 })
    for _, q in ipairs(queries.order(0)) do add({ kind = "q", stream = 0, q = q }) end
    add({ kind = "rf2", stream = 0, pair = 0 })
    add({ kind = "power_done" })
  end
  if p.throughput then
    if p.power and tid ~= 0 then add({ kind = "wait" }) end
    if tid < p.streams then
      add({ kind = "start" })
      for _, q in ipairs(queries.order(tid + 1)) do add({ kind = "q", stream = tid + 1, q = q }) end
      if not p.refresh_thread and tid == 0 then
        for pair = 1, p.streams do
          add({ kind = "rf1", pair = pair })
          add({ kind = "rf2", pair = pair })
        end
      end
      add({ kind = "end" })
    elseif tid == p.refresh_thread then
      add({ kind = "start" })
      for pair = 1, p.streams do
        add({ kind = "rf1", pair = pair })
        add({ kind = "rf2", pair = pair })
      end
      add({ kind = "end" })
    end
  end
  return list
end

local params_of = {}
local function params(stream)
  if not params_of[stream] then params_of[stream] = queries.params(seed, stream, s.qualification) end
  return params_of[stream]
end

function M.thread_init(thread_id, stat_types)
  s = common.settings()
  d = common.dialect()
  tid = thread_id
  types = stat_types
  sh = M.shared()
  sf, seed = sh.state[0], sh.state[1]
  if s.seed_given then seed = s.seed end
  con = common.driver():connect()
  steps = step_list(M.plan())
  pos = 1
  if s.query_timeout > 0 then
    if not d.statement_timeout then
      error(d.name .. " dialect: no session statement timeout (run without a query timeout)", 0)
    end
    con:query(d.statement_timeout(s.query_timeout))
    timeout_set = true
  end
end

function M.thread_done()
  if con then con:disconnect() end
end

-- Runs the statements; goes through every row of their results (rs:next: the driver hands each
-- row over, and nothing is made a Lua string: the answers are checked by `answers`, not here).
-- Returns true, or false after the statement timeout; raises other errors.
local function execute(sqls)
  for _, sql in ipairs(sqls) do
    local ok, err = pcall(function()
      local rs = con:query(sql)
      if rs ~= nil then
        while rs:next() do end
      end
    end)
    if not ok then
      if timeout_set and d.is_timeout(con) then return false end
      error(err, 0)
    end
  end
  return true
end

-- RF1: the pair's new orders and their lineitems, in one transaction. The rows are generated
-- before the clock starts, as the specification's refresh data is.
local function rf1_sql(pair)
  g = g or gen.new(seed, sf, false)
  local out = { orders = {}, lineitem = {} }
  g.refresh_orders(pair, out)
  local sqls = { "BEGIN" }
  for _, name in ipairs({ "orders", "lineitem" }) do
    local rows = out[name]
    for i = 1, #rows, 1000 do
      sqls[#sqls + 1] = fmt("INSERT INTO %s (%s) VALUES %s", s.t[name], schema.columns(name),
        table.concat(rows, ",", i, math.min(#rows, i + 999)))
    end
  end
  sqls[#sqls + 1] = "COMMIT"
  return sqls
end

-- RF2: deletes the orders RF1 of the same pair inserted, with their lineitems, so that every
-- pair leaves the database as loaded (the specification's RF2 deletes other old orders).
local function rf2_sql(pair)
  local keys = M.refresh_keys(sf, pair)
  local sqls = { "BEGIN" }
  for i = 1, #keys, 1000 do
    local list = table.concat(keys, ",", i, math.min(#keys, i + 999))
    sqls[#sqls + 1] = fmt("DELETE FROM %s WHERE l_orderkey IN (%s)", s.t.lineitem, list)
    sqls[#sqls + 1] = fmt("DELETE FROM %s WHERE o_orderkey IN (%s)", s.t.orders, list)
  end
  sqls[#sqls + 1] = "COMMIT"
  return sqls
end

-- Records the outcome of a step in the shared tables.
local function record(st, slot, secs, outcome)
  if st.stream then
    local i = st.stream * M.SLOTS + slot - 1
    sh.times[i], sh.status[i] = secs, outcome
  else
    local i = (st.pair - 1) * 2 + (slot - M.RF1)
    sh.rf[i], sh.rf_status[i] = secs, outcome
  end
end

local function set_timeout(secs) common.set_timeout(con, d, secs) end

local function run_step(st)
  local slot, sqls
  if st.kind == "q" then
    slot = st.q
    sqls = queries.render(st.q, s.t, params(st.stream)[st.q], sf, d, st.stream)
  elseif st.kind == "rf1" then
    slot, sqls = M.RF1, rf1_sql(st.pair)
  else
    slot, sqls = M.RF2, rf2_sql(st.pair)
  end
  sh.cur[2 * tid], sh.cur[2 * tid + 1] = slot, st.stream or st.pair
  -- The timeout is the queries': a refresh function runs to its end, so that every RF2 removes
  -- what its RF1 added.
  local rf = slot >= M.RF1 and timeout_set
  if rf then set_timeout(0) end
  if slot == M.RF1 then M.mark_pending(con, st.pair) end
  local T = types[slot]
  local t0 = T:start()
  local c0 = luabench.time()
  local ok, res = pcall(execute, sqls)
  local secs = luabench.time() - c0
  if ok and res then
    T:done(t0)
    -- bookkeeping, with the timeout still off: a short one would cut it (DuckDB's DELETE
    -- takes over a millisecond)
    if slot == M.RF2 then M.unmark_pending(con, st.pair) end
  end
  if rf then set_timeout(s.query_timeout) end
  if ok and res then
    record(st, slot, secs, M.OK)
    return
  end
  pcall(con.query, con, "ROLLBACK")
  if slot == 15 then common.drop_q15_view(con, d, sqls[3], timeout_set and s.query_timeout or nil) end
  if ok then -- timed out: the stream goes on
    T:error()
    record(st, slot, secs, M.TIMED_OUT)
    return
  end
  -- A lost connection (reconnected) or a deadlock: the engine runs the step again, a few times.
  if type(res) == "table" and res.errcode == RESTART_EVENT and retries < 3 then
    retries = retries + 1
    T:retry()
    error(res, 0)
  end
  T:error()
  local what = st.kind == "q" and ("Q" .. st.q) or st.kind:upper()
  error(fmt("dbt3: %s of %s failed: %s", what,
    st.stream == 0 and "the power test" or (st.stream and ("query stream " .. st.stream) or ("refresh pair " .. st.pair)),
    tostring(type(res) == "table" and (res.message or res.sql_errmsg) or res)), 0)
end

function M.event()
  local st = steps[pos]
  if not st or luabench.stopping() then
    sh.cur[2 * tid] = -1
    return true
  end
  if st.kind == "wait" then
    sh.cur[2 * tid] = 0
    while sh.state[2] == 0 do
      if luabench.stopping() then return true end
      luabench.think(0.05)
    end
  elseif st.kind == "power_done" then
    sh.state[2] = 1
  elseif st.kind == "start" then
    sh.span[2 * tid] = luabench.time()
  elseif st.kind == "end" then
    sh.span[2 * tid + 1] = luabench.time()
  else
    if st.kind == "rf1" and st.stream == 0 then sh.state[3] = luabench.time() end
    run_step(st)
    retries = 0
    if st.kind == "rf2" and st.stream == 0 then sh.state[4] = luabench.time() end
  end
  pos = pos + 1
end

-- Reporter state: which query each stream is on.
function M.progress_line(stat)
  local p = M.plan()
  local s = common.settings()
  local sh2 = M.shared()
  local parts = {}
  local function name(slot)
    return slot == M.RF1 and "RF1" or slot == M.RF2 and "RF2" or ("Q" .. slot)
  end
  for t = 0, s.threads - 1 do
    local slot, n = sh2.cur[2 * t], sh2.cur[2 * t + 1]
    if slot > 0 then
      if n == 0 and t == 0 and sh2.state[2] == 0 then
        parts[#parts + 1] = "power " .. name(slot)
      elseif t == p.refresh_thread or slot >= M.RF1 and t >= p.streams then
        parts[#parts + 1] = fmt("refresh pair %d %s", n, name(slot))
      else
        parts[#parts + 1] = fmt("stream %d %s", n, name(slot))
      end
    elseif slot < 0 then
      parts[#parts + 1] = "thread " .. t .. " done"
    end
  end
  print(fmt("[ %.0fs ] %s", stat.time_total, #parts > 0 and table.concat(parts, ", ") or "waiting"))
end

return M
