-- luabench.workload: what the database workloads (tpcc, bookstore, dbt3, soe) share: one-line
-- failures, table names under a --table-prefix, the SQL driver and its dialect (luabench.dialect),
-- connections with the workload's session settings, reading every row of a query, the
-- configuration table, and the wiring of a workload's modules to the hooks sysbench calls.
--
--   local wl = require("luabench.workload").new("tpcc", { session = function(con, d) ... end })
--   local con = wl.connect()          -- driver():connect() plus the session settings
--   local d = wl.dialect()            -- the SQL differences of the server
local dialect = require("luabench.dialect")
local api = require("luabench.api_check")

local M = {}

-- Arguments of the wrong kind: one line at the script's call (api_check.bad).
local function need(call, what, ok, v)
  if not ok then api.bad("luabench.workload." .. call, what, v) end
end
local function connection(v)
  return type(v) == "table" and type(v.query) == "function"
end

-- Raises msg (formatted) as one line, without a traceback.
function M.fail(fmt, ...)
  need("fail(fmt, ...)", "fmt must be a string", type(fmt) == "string", fmt)
  error(string.format(fmt, ...), 0)
end

-- The real name of each of `names` under `prefix`, plus t.config = prefix .. config_name.
-- The prefix is checked: lower-case letters, digits and '_', not starting with a digit.
function M.tables(prefix, names, config_name)
  local CALL = "tables(prefix, names, config_name)"
  need(CALL, "prefix must be a string", prefix == nil or type(prefix) == "string", prefix)
  need(CALL, "names must be a list of names", type(names) == "table", names)
  need(CALL, "config_name must be a string", type(config_name) == "string", config_name)
  prefix = prefix or ""
  if prefix ~= "" and not prefix:match("^[a-z_][a-z0-9_]*$") then
    M.fail("invalid --table-prefix value '%s' (lower-case letters, digits and '_', not starting with a digit)", prefix)
  end
  local t = {}
  for _, name in ipairs(names) do t[name] = prefix .. name end
  t.config = prefix .. config_name
  return t
end

-- --load-threads checked against --threads, 0 meaning all of them; `commands` names those
-- that start --threads threads ("prepare and check").
function M.load_threads(value, threads, commands)
  local CALL = "load_threads(value, threads, commands)"
  need(CALL, "value must be a number", type(value) == "number", value)
  need(CALL, "threads must be a number", type(threads) == "number", threads)
  need(CALL, "commands must be a string", type(commands) == "string", commands)
  if value < 0 or value ~= math.floor(value) then
    M.fail("invalid --load-threads value '%s'", tostring(value))
  end
  if value == 0 then return threads end
  if value > threads then
    M.fail("--load-threads=%d is more than --threads=%d: the engine starts --threads threads for %s, so raise --threads",
      value, threads, commands)
  end
  return value
end

-- When the run's statistics start (seconds since it started): after --warmup-time and after the
-- emulated users' --ramp-up (seconds, or N/min of --users), whichever is later.
function M.measured_from()
  local opt = sysbench.opt
  local warm = tonumber(opt.warmup_time) or 0
  local ramp = tostring(opt.ramp_up or "")
  local users = tonumber(opt.users) or 0
  local r
  local n = ramp:match("^([%d.]+)/min$")
  if n and tonumber(n) > 0 then
    r = users / (tonumber(n) / 60)
  else
    r = tonumber(ramp) or 0
  end
  return math.max(warm, r)
end

-- Per-thread counters in luabench.shared memory (`slots` numbers per thread, thread t's from
-- t * slots), summed over the threads: a table slot -> total, slots numbered from 0.
function M.sum_slots(array, threads, slots)
  local CALL = "sum_slots(array, threads, slots)"
  need(CALL, "array must be a luabench.shared array", type(array) == "cdata" or type(array) == "table", array)
  for _, a in ipairs({ { "threads", threads }, { "slots", slots } }) do
    local v = a[2]
    need(CALL, a[1] .. " must be an integer >= 1", type(v) == "number" and v % 1 == 0 and v >= 1 and v < math.huge, v)
  end
  local v = {}
  for slot = 0, slots - 1 do
    local n = 0
    for t = 0, threads - 1 do n = n + array[t * slots + slot] end
    v[slot] = n
  end
  return v
end

-- Every row of a query as arrays of strings (an empty table when it returns no result set).
function M.rows(con, sql)
  need("rows(con, sql)", "con must be a connection", connection(con), con)
  need("rows(con, sql)", "sql must be a string", type(sql) == "string", sql)
  local rs = con:query(sql)
  local out = {}
  if rs == nil then return out end
  local r = rs:fetch_row()
  while r do
    out[#out + 1] = r
    r = rs:fetch_row()
  end
  return out
end

-- A workload's configuration table `t` (cfg_name, cfg_value): every pair, and setting one.
function M.config_read(con, t)
  need("config_read(con, t)", "con must be a connection", connection(con), con)
  need("config_read(con, t)", "t must be a table name", type(t) == "string", t)
  local cfg = {}
  for _, r in ipairs(M.rows(con, "SELECT cfg_name, cfg_value FROM " .. t)) do cfg[r[1]] = r[2] end
  return cfg
end

function M.config_set(con, t, name, value)
  local CALL = "config_set(con, t, name, value)"
  need(CALL, "con must be a connection", connection(con), con)
  need(CALL, "t must be a table name", type(t) == "string", t)
  need(CALL, "name must be a string", type(name) == "string", name)
  con:query(string.format("DELETE FROM %s WHERE cfg_name = '%s'", t, name))
  con:query(string.format("INSERT INTO %s (cfg_name, cfg_value) VALUES ('%s', '%s')", t, name, tostring(value)))
end

-- The configuration table `t` of a completely prepared `name` schema, with the entries listed
-- in `numbers` as numbers, or a one-line error; `again` says what to do after an interrupted
-- prepare ("run 'prepare' again to finish it").
function M.ready_config(con, name, t, again, numbers)
  local CALL = "ready_config(con, name, t, again, numbers)"
  need(CALL, "con must be a connection", connection(con), con)
  need(CALL, "name must be a string", type(name) == "string", name)
  need(CALL, "t must be a table name", type(t) == "string", t)
  need(CALL, "again must be a string", type(again) == "string", again)
  need(CALL, "numbers must be a list of names", type(numbers) == "table", numbers)
  if not require("luabench.prepare").table_exists(con, t) then
    M.fail("no %s schema here (table '%s' does not exist): run 'prepare' first", name, t)
  end
  local cfg = M.config_read(con, t)
  if cfg.ready ~= "1" then
    M.fail("the %s schema is not completely loaded (an interrupted prepare?): %s", name, again)
  end
  for _, k in ipairs(numbers) do cfg[k] = tonumber(cfg[k]) end
  return cfg
end

-- The lines of a `check` command: c:expect(desc, got, want) prints one "[ ok ]" or "[FAIL]"
-- line; c:finish(noun) prints the summary and returns whether all held.
local Checks = {}
Checks.__index = Checks

function M.checks() return setmetatable({ n = 0, failed = 0 }, Checks) end

function Checks:expect(desc, got, want)
  local ok = got == want
  self.n = self.n + 1
  if not ok then self.failed = self.failed + 1 end
  print(string.format("  [%s] %s: %s%s", ok and " ok " or "FAIL", desc, tostring(got),
    ok and "" or (" (expected " .. tostring(want) .. ")")))
  return ok
end

function Checks:finish(noun)
  if self.failed > 0 then
    print(string.format("check: %d of %d %s FAILED", self.failed, self.n, noun))
    return false
  end
  print(string.format("check: all %d %s passed", self.n, noun))
  return true
end

-- A workload's connections. opts.session(con, dialect), optional: the settings every
-- connection of the workload needs, applied at connect and again after a reconnect.
function M.new(name, opts)
  need("new(name [, opts])", "name must be a string", type(name) == "string", name)
  need("new(name [, opts])", "opts must be a table", opts == nil or type(opts) == "table", opts)
  opts = opts or {}
  local w = {}
  local drv, dia

  -- The --db-driver's driver, which must reach a server with a known dialect.
  function w.driver()
    if not drv then
      local d = sysbench.sql.driver()
      local found = dialect.of(d:name())
      if not found then
        M.fail("%s needs a database: --db-driver=pgsql or --db-driver=mysql (got '%s')", name, d:name())
      end
      drv, dia = d, found
      -- Every connection of the workload gets the dialect's session statements: run by the
      -- connection hook (sql.lua), so also on each connection of a --users pool and after a
      -- reconnect.
      d._session = function(con)
        for _, sql in ipairs(found.session) do con:query(sql) end
      end
    end
    return drv
  end

  function w.dialect()
    w.driver()
    return dia
  end

  -- A connection with the dialect's session statements only (loaders, checks).
  function w.open()
    return w.driver():connect()
  end

  -- Applies the session settings to a physical connection (the connection hook does it on every
  -- new connection and after every reconnect).
  function w.session(con)
    local d = w.dialect()
    for _, sql in ipairs(d.session) do con:query(sql) end
    if opts.session then opts.session(con, d) end
  end

  -- A connection with the workload's session settings too (the run): from now on every new
  -- connection of this state, pooled ones included, gets them.
  function w.connect()
    local d = w.driver()
    d._session = w.session
    return d:connect()
  end

  return w
end

-- A function that requires module.function ("tpcc.load.prepare") when called, then calls it.
local function deferred(path)
  local mod, fn = path:match("^(.+)%.([^.]+)$")
  return function(...) return require(mod)[fn](...) end
end

-- Wires a workload of several files to the hooks and commands sysbench calls, so that its
-- init.lua says only what is its own (doc/scripting.md, `luabench.workload`). `w`:
--   name      the workload's name, in help and cleanup
--   common    its module of settings: options, settings().t.config, open(), table_exists(con, t)
--   types     statistics type names, in order; run.thread_init(tid, ids) gets their ids
--   commands  sysbench.cmdline.commands with "module.function" in place of each function (the
--             module is required when the command runs)
--   about     help's first line; notes: help's lines after the options
--   drops     cleanup's "Dropping the <drops>..."; drop: the modules whose drop(con) it calls
--   run       the run's module: its init, thread_init, event, thread_done, done and
--             sql_error_ignorable (those it has) become the script's
--   report    the report's module (required when used): json, footer and merge become the
--             report_json, report_footer and report_merge hooks
--   hooks     the workload's own sysbench.hooks (run_header, report_intermediate, ...)
function M.wire(w)
  need("wire(w)", "w must be a table describing the workload", type(w) == "table" and type(w.common) == "table", w)
  local common = w.common
  sysbench.cmdline.options = common.options

  -- The same ids in every state: each state runs this in the same order.
  local types = {}
  for i, name in ipairs(w.types) do types[i] = luabench.stats.type(name) end

  -- In place: the table keeps the layout (and the iteration order) its constructor gave it.
  for _, c in pairs(w.commands) do c[1] = deferred(c[1]) end
  sysbench.cmdline.commands = w.commands

  function _G.cleanup()
    local s = common.settings()
    local con = common.open()
    if not common.table_exists(con, s.t.config) then
      print(string.format("No %s schema here (no table '%s'): nothing to drop", w.name, s.t.config))
      con:disconnect()
      return
    end
    print("Dropping the " .. w.drops .. "...")
    for _, mod in ipairs(w.drop) do require(mod).drop(con) end
    con:disconnect()
  end

  function _G.help()
    print(w.about)
    print("")
    print(w.name .. " options:")
    sysbench.cmdline.print_test_options() -- ends with an empty line
    for _, line in ipairs(w.notes) do print(line) end
  end

  local run = require(w.run)
  if run.init then function _G.init() run.init() end end
  function _G.thread_init(tid) run.thread_init(tid, types) end
  function _G.event() return run.event() end
  if run.thread_done then function _G.thread_done() run.thread_done() end end
  if run.done then function _G.done() run.done() end end
  if run.sql_error_ignorable then sysbench.hooks.sql_error_ignorable = run.sql_error_ignorable end

  local report = w.report
  function sysbench.hooks.report_json(stat) return require(report).json(stat) end
  function sysbench.hooks.report_footer(stat) return require(report).footer(stat) end
  -- `luabench merge` of processes that ran together (--instance).
  function luabench.hooks.report_merge(inputs, stat) return require(report).merge(inputs, stat) end
  for name, f in pairs(w.hooks or {}) do sysbench.hooks[name] = f end
end

return M
