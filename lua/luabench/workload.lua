-- luabench.workload: what the database workloads (tpcc, bookstore) share: one-line failures,
-- table names under a --table-prefix, the SQL driver and its dialect (luabench.dialect),
-- connections with the workload's session settings, and reading every row of a query.
--
--   local wl = require("luabench.workload").new("tpcc", { session = function(con, d) ... end })
--   local con = wl.connect()          -- driver():connect() plus the session settings
--   local d = wl.dialect()            -- the SQL differences of the server
local dialect = require("luabench.dialect")

local M = {}

-- Raises msg (formatted) as one line, without a traceback.
function M.fail(fmt, ...)
  error(string.format(fmt, ...), 0)
end

-- The real name of each of `names` under `prefix`, plus t.config = prefix .. config_name.
-- The prefix is checked: lower-case letters, digits and '_', not starting with a digit.
function M.tables(prefix, names, config_name)
  prefix = prefix or ""
  if prefix ~= "" and not prefix:match("^[a-z_][a-z0-9_]*$") then
    M.fail("invalid --table-prefix value '%s' (lower-case letters, digits and '_', not starting with a digit)", prefix)
  end
  local t = {}
  for _, name in ipairs(names) do t[name] = prefix .. name end
  t.config = prefix .. config_name
  return t
end

-- Every row of a query as arrays of strings (an empty table when it returns no result set).
function M.rows(con, sql)
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
  local cfg = {}
  for _, r in ipairs(M.rows(con, "SELECT cfg_name, cfg_value FROM " .. t)) do cfg[r[1]] = r[2] end
  return cfg
end

function M.config_set(con, t, name, value)
  con:query(string.format("DELETE FROM %s WHERE cfg_name = '%s'", t, name))
  con:query(string.format("INSERT INTO %s (cfg_name, cfg_value) VALUES ('%s', '%s')", t, name, tostring(value)))
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

return M
