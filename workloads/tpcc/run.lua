-- tpcc.run: the `run` command. init() (control state) checks the schema, draws this run's C_LAST
-- constant and takes the first Σ d_next_o_id snapshot; every worker thread (or, with --users,
-- every emulated user) is one terminal bound to a home warehouse (round-robin) and a district for
-- Stock-Level; event() runs one transaction, retrying it with the same inputs after a deadlock or
-- serialization failure.
local common = require("tpcc.common")
local txn = require("tpcc.txn")

local M = {}

local RESTART_EVENT = sysbench.error.RESTART_EVENT

-- Process-wide run state, written by init() and worker 0, read by the workers and the report:
-- [0] warehouses driven, [1] C_LAST, [2] C_ID, [3] C_OL_I_ID (this run), [4] warehouses loaded,
-- [5] Σ d_next_o_id at the start of the measured window, [6] its time (s since the run
-- started), [7] 1 once [5] is set, [8] C_LAST at load
local state
local function shared_state()
  state = state or luabench.shared("tpcc.run.state", "double", 9)
  return state
end

-- Delivery districts skipped for want of an undelivered order, per thread.
local function skipped_counter(threads)
  return luabench.shared("tpcc.run.skipped", "uint64_t", threads)
end

local function sum_next_o_id(con)
  local s = common.settings()
  return tonumber(con:query_row("SELECT SUM(d_next_o_id) FROM " .. s.t.district))
end

-- Control state -------------------------------------------------------------------------------

local control_con

function M.init()
  local s = common.settings()
  control_con = common.open()
  local cfg = common.ready_config(control_con)
  local W = s.warehouses > 0 and s.warehouses or cfg.warehouses
  if W > cfg.warehouses then
    common.fail("--warehouses=%d, but only %d are loaded: prepare a larger schema, or drive at most %d",
      W, cfg.warehouses, cfg.warehouses)
  end
  if s.wait and s.terminals ~= 10 * W then
    common.fail("--wait emulates 10 terminals per warehouse: use --users=%d (emulated users over a few --threads) or --threads=%d for %d warehouse%s",
      10 * W, 10 * W, W, W > 1 and "s" or "")
  end
  if common.use_procedures() then
    require("tpcc.procs").create(control_con)
  end
  local st = shared_state()
  st[0], st[1], st[2], st[3], st[4], st[8] = W, common.c_last_run(cfg.c_last), cfg.c_id, cfg.ol_i_id,
    cfg.warehouses, cfg.c_last
  if sysbench.opt.warmup_time == 0 then
    -- No warm-up: the measured window starts with the run, before any terminal exists.
    st[5], st[6], st[7] = sum_next_o_id(control_con), 0, 1
  end
end

-- Σ d_next_o_id now, for the NOPM cross-check (report hooks, after every terminal stopped).
function M.nopm_end()
  if not control_con then return nil end
  -- A connection lost meanwhile is reconnected by the first failed attempt.
  for _ = 1, 2 do
    local ok, sum = pcall(sum_next_o_id, control_con)
    if ok then return sum, luabench.time() end
  end
  return nil
end

function M.done()
  if control_con then
    control_con:disconnect()
    control_con = nil
  end
end

function M.shared() return shared_state() end
M.skipped_counter = skipped_counter

-- Workers ---------------------------------------------------------------------------------------
-- A terminal is a worker thread, or with --users an emulated user of one: its home warehouse and
-- Stock-Level district, its input generators and its deck of transaction types. The prepared
-- statements (bodies) are the worker's, shared by its terminals: the warehouse comes with the
-- inputs.

local s, con, types, skipped
local bodies
local cumulative, total_weight
local deck_template
local wait, warmup, tid, terminal_base, users

-- The next transaction type. Integer weights deal from a shuffled deck (clause 5.2.4.2): every
-- Σweights transactions of a terminal hold exactly the weighted mix. Other weights draw at random.
local function make_deck()
  local w = s.weights
  for i = 1, 5 do
    if w[i] ~= math.floor(w[i]) then return nil end
  end
  if total_weight > 10000 then return nil end
  local d = {}
  for i = 1, 5 do
    for _ = 1, w[i] do d[#d + 1] = i end
  end
  return d
end

local function choose(term)
  local deck = term.deck
  if deck then
    if term.dealt == #deck then
      for i = #deck, 2, -1 do
        local j = sysbench.rand.uniform(1, i)
        deck[i], deck[j] = deck[j], deck[i]
      end
      term.dealt = 0
    end
    term.dealt = term.dealt + 1
    return deck[term.dealt]
  end
  local r = sysbench.rand.uniform_double() * total_weight
  for i = 1, 4 do
    if r < cumulative[i] then return i end
  end
  return 5
end

-- Terminal t (numbered across the --instance processes): warehouse t mod W + 1; its Stock-Level
-- district cycles once per W terminals.
local function new_terminal(t)
  local st = state
  local W = st[0]
  local g = txn.generators({
    s = s, warehouses_all = st[4], w = t % W + 1, sl_d = math.floor(t / W) % common.DISTRICTS + 1,
    c_last = st[1], c_id = st[2], ol_i_id = st[3],
  })
  local deck
  if deck_template then
    deck = {}
    for i = 1, #deck_template do deck[i] = deck_template[i] end
  end
  return {
    gens = { g.gen_new_order, g.gen_payment, g.gen_order_status, g.gen_delivery, g.gen_stock_level },
    deck = deck, dealt = deck and #deck,
  }
end

local thread_terminal

function M.thread_init(thread_id, stat_types)
  s = common.settings()
  tid = thread_id
  shared_state()
  con = common.connect()
  local b = common.use_procedures() and require("tpcc.procs").bodies({ con = con, s = s }) or txn.bodies({ con = con, s = s })
  types = stat_types
  bodies = { b.new_order, b.payment, b.order_status, b.delivery, b.stock_level }
  cumulative, total_weight = {}, s.weight_total
  local acc = 0
  for i = 1, 5 do
    acc = acc + s.weights[i]
    cumulative[i] = acc
  end
  deck_template = make_deck()
  wait = s.wait
  warmup = sysbench.opt.warmup_time
  skipped = skipped_counter(s.threads)
  users = s.users > 0
  terminal_base = luabench.instance * s.terminals
  if not users then thread_terminal = new_terminal(terminal_base + tid) end
end

function M.thread_done()
  if con then con:disconnect() end
end

-- Worker 0 snapshots Σ d_next_o_id when the warm-up ends.
local function window_snapshot()
  if tid ~= 0 or warmup == 0 then return end
  local st = state
  if st[7] == 0 and luabench.time() >= warmup then
    st[5], st[6], st[7] = sum_next_o_id(con), luabench.time(), 1
  end
end

-- Keying or think time. An emulated user is parked (the worker runs the others); a terminal
-- thread sleeps in slices, so that the end of the run is not held up by a long think time.
-- False if the run is stopping.
local function pause(seconds)
  if users then
    luabench.think(seconds)
    return not luabench.stopping()
  end
  local deadline = luabench.time() + seconds
  while true do
    window_snapshot()
    if luabench.stopping() then return false end
    local left = deadline - luabench.time()
    if left <= 0 then return true end
    luabench.sleep(left < 0.2 and left or 0.2)
  end
end

local function current_terminal()
  if not users then return thread_terminal end
  local u = luabench.user_data
  local term = u.terminal
  if not term then
    term = new_terminal(terminal_base + luabench.user)
    u.terminal = term
  end
  return term
end

function M.event()
  local term = current_terminal()
  local k = choose(term)
  local T = types[k]
  local name = common.TYPES[k]
  if users or not wait then window_snapshot() end
  if wait and not pause(common.KEYING[name] * s.wait_factor) then return true end
  local inp = term.gens[k]()
  local body = bodies[k]
  local t0 = T:start()
  while true do
    local ok, res = pcall(body, inp)
    if ok then
      if res then T:rollback(t0) else T:done(t0) end
      break
    end
    pcall(con.query, con, common.dialect().rollback)
    if type(res) == "table" and res.errcode == RESTART_EVENT then
      -- Deadlock, serialization failure, lock wait timeout or a lost connection (already
      -- reconnected): run the same transaction again.
      T:retry()
      if luabench.stopping() then return true end
    else
      T:error()
      error(res, 0)
    end
  end
  if k == 4 and inp.skipped > 0 then
    skipped[tid] = skipped[tid] + inp.skipped
    inp.skipped = 0
  end
  if wait then
    local mean = common.THINK[name] * s.wait_factor
    local think = sysbench.rand.exp(mean)
    if think > 10 * mean then think = 10 * mean end
    pause(think)
  end
end

return M
