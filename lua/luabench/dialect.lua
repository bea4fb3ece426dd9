-- luabench.dialect: the SQL differences between servers, one table per server. Workloads ask
-- the dialect of their driver (dialect.of(name)) for a piece of SQL or a property instead of
-- testing the server's name, so that a new server (or a connection that reaches one through
-- another driver) is one more table, not a branch in every workload.
--
-- The shipped dialects live in luabench/dialect/<name>.lua (pgsql, mysql, oracle, dm8,
-- sqlserver, sqlite). A script, or a file given with --db-dialect-file, adds its own with
-- register(name, table, base): what the table does not define comes from the base dialect.
-- Every field and function is described in doc/dialects.md.
local M = {}

local fmt = string.format

-- The shipped dialects, loaded when first asked for.
local SHIPPED = { "pgsql", "mysql", "oracle", "dm8", "sqlserver", "sqlite", "duckdb" }
local SHIPPED_SET = {}
for _, n in ipairs(SHIPPED) do SHIPPED_SET[n] = true end

-- What a dialect must have, whichever base it comes from: of() refuses a dialect lacking one,
-- so that a hand-written one fails when it is registered, not half-way through a run.
M.REQUIRED = {
  "current_schema", "timestamp", "identity", "serial", "table_options", "begin", "commit",
  "rollback", "lit", "interval", "date_add", "current_date", "limit", "limit_offset", "first_locked",
  "for_update", "concat", "to_text", "bool", "quote_ident", "from_dual", "set_isolation",
  "analyze", "analyze_after_load", "create_index", "like_prefix_column", "drop_tables",
  "create_table_if_missing", "column_types", "bulk_insert", "insert_values", "upsert", "lock",
  "unlock", "drop_routine", "routines_count", "table_exists", "index_exists",
  "constraint_exists", "set_comment", "comment", "next_key", "restart_keys", "insert_id",
  "explicit_keys", "session", "warmup", "now", "sequences", "create_sequence", "drop_sequence",
  "next_values", "group_by_rollup", "date_value",
}

local registry = {}      -- name -> dialect (with its base behind __index)
local aliases = {}       -- a driver's name -> the dialect name it resolves to (e.g. odbc)

-- Drivers that reach many kinds of server go by what the server calls itself (the driver's
-- server_name(): --odbc-dialect when given, else SQL_DBMS_NAME), with what such a driver
-- lacks: no COPY FROM STDIN through ODBC (bulk loads take the dialect's bulk_insert).
local GENERIC_DRIVERS = { odbc = { copy = false, copy_null = false, load_stream = false } }
local through = {}       -- "driver/dialect" -> that dialect as reached through the driver

local function known()
  local names = {}
  for _, n in ipairs(SHIPPED) do names[#names + 1] = n end
  for n in pairs(registry) do
    if not SHIPPED_SET[n] then names[#names + 1] = n end
  end
  table.sort(names)
  return table.concat(names, ", ")
end

local function check_complete(d, name)
  for _, k in ipairs(M.REQUIRED) do
    if d[k] == nil then
      return nil, fmt("SQL dialect '%s' lacks '%s' (give it a base dialect, or define it)", name, k)
    end
  end
  return d
end

-- Registers dialect `name` from table t. base (a name or a dialect) supplies what t lacks;
-- t.base (a name) does the same when base is nil. Returns the dialect, or nil and a reason.
function M.register(name, t, base)
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    return nil, fmt("invalid SQL dialect name '%s' (letters, digits and '_')", tostring(name))
  end
  if type(t) ~= "table" then
    return nil, fmt("SQL dialect '%s': expected a table, got %s", name, type(t))
  end
  base = base or t.base
  local parent
  if type(base) == "string" then
    if base == name then return nil, fmt("SQL dialect '%s' cannot be its own base", name) end
    local why
    parent, why = M.of(base)
    if not parent then return nil, fmt("SQL dialect '%s': base: %s", name, why) end
  elseif type(base) == "table" then
    parent = base
  end
  t.name = name
  if parent then
    t.base = parent.name
    setmetatable(t, { __index = parent })
  end
  local ok, why = check_complete(t, name)
  if not ok then return nil, why end
  registry[name] = t
  return t
end

-- Makes driver name `driver` resolve to dialect `name` (the ODBC driver points "odbc" at the
-- connected server's dialect); nil removes the alias.
function M.alias(driver, name)
  local api = require("luabench.api_check")
  if type(driver) ~= "string" then api.bad("luabench.dialect.alias(driver, name)", "driver must be a driver's name", driver) end
  if name ~= nil and type(name) ~= "string" then
    api.bad("luabench.dialect.alias(driver, name)", "name must be a dialect's name or nil", name)
  end
  aliases[driver] = name
end

-- The dialect name for a DBMS name as ODBC's SQLGetInfo(SQL_DBMS_NAME) reports it, or nil.
local DBMS = {
  { "^postgresql", "pgsql" }, { "^mysql", "mysql" }, { "^mariadb", "mysql" }, { "^oracle", "oracle" },
  { "^microsoft sql server", "sqlserver" }, { "^dm", "dm8" }, { "^dameng", "dm8" },
}
function M.for_dbms(dbms_name)
  local n = tostring(dbms_name or ""):lower()
  for _, p in ipairs(DBMS) do
    if n:find(p[1]) then return p[2] end
  end
  return nil
end

-- Runs the Lua file at path, which registers dialects through require("luabench.dialect").
-- Returns true, or nil and a one-line reason naming the file.
function M.load_file(path)
  if type(path) ~= "string" then
    require("luabench.api_check").bad("luabench.dialect.load_file(path)", "path must be a file name", path)
  end
  local chunk, err = loadfile(path)
  if not chunk then
    return nil, fmt("--db-dialect-file: %s", tostring(err):gsub("^cannot open ", "cannot read "))
  end
  local ok, perr = pcall(chunk)
  if not ok then
    return nil, fmt("--db-dialect-file: %s: %s", path, tostring(perr))
  end
  return true
end

-- The number of values in a row "(a, 'b,c', 3)" (commas outside quotes and parentheses).
local function count_values(row)
  local n, depth, quoted = 1, 0, false
  for i = 1, #row do
    local c = row:sub(i, i)
    if c == "'" then quoted = not quoted
    elseif not quoted then
      if c == "(" then depth = depth + 1
      elseif c == ")" then depth = depth - 1
      elseif c == "," and depth == 1 then n = n + 1 end
    end
  end
  return n
end

-- A bulk insert for servers without the driver's: head is "INSERT INTO t (cols) VALUES", rows
-- go out as statement(target, rows) ("t (cols)" and a list of "(...)") when max_rows are held
-- or their values would pass max_columns, and at done().
function M.batched_insert(con, head, max_columns, max_rows, statement)
  local api, CALL = require("luabench.api_check"), "luabench.dialect.batched_insert(con, head, max_columns, max_rows, statement)"
  if not (type(con) == "table" and type(con.query) == "function") then api.bad(CALL, "con must be a connection", con) end
  if type(head) ~= "string" then api.bad(CALL, "head must be the INSERT text", head) end
  if not (type(max_columns) == "number" and max_columns >= 1) then api.bad(CALL, "max_columns must be a number >= 1", max_columns) end
  if not (type(max_rows) == "number" and max_rows >= 1) then api.bad(CALL, "max_rows must be a number >= 1", max_rows) end
  if type(statement) ~= "function" then api.bad(CALL, "statement must be a function", statement) end
  local target = head:match("^%s*INSERT%s+INTO%s+(.-)%s+VALUES%s*$")
  if not target then api.raise("bulk insert: expected 'INSERT INTO t (cols) VALUES', got: " .. api.escape(head)) end
  local list = target:match("%((.*)%)")
  local per, rows = nil, {}
  local function flush()
    if #rows > 0 then
      con:query(statement(target, rows))
      rows = {}
    end
  end
  return {
    next = function(_, row)
      if not per then
        local ncols = list and select(2, list:gsub(",", "")) + 1 or count_values(row)
        per = math.max(1, math.min(max_rows, math.floor(max_columns / ncols)))
      end
      rows[#rows + 1] = row
      if #rows >= per then flush() end
    end,
    done = flush,
  }
end

-- next_values(names) of a dialect whose sequences can be read together: one SELECT of each
-- sequence's nextval(name), with the dialect's from_dual.
function M.select_next_values(d, names)
  local api, CALL = require("luabench.api_check"), "luabench.dialect.select_next_values(d, names)"
  if type(d) ~= "table" or type(d.nextval) ~= "function" or type(d.from_dual) ~= "string" then
    api.bad(CALL, "d must be a dialect with sequences (nextval, from_dual)", d)
  end
  if type(names) ~= "table" or #names == 0 then api.bad(CALL, "names must be a list of sequence names", names) end
  for _, n in ipairs(names) do
    if type(n) ~= "string" then api.bad(CALL, "names must be a list of sequence names", n) end
  end
  local e = {}
  for i, n in ipairs(names) do e[i] = d.nextval(n) end
  return { "SELECT " .. table.concat(e, ", ") .. d.from_dual }
end

-- The statements bulk_insert(con, head) of a dialect would send for rows, as a list (for
-- insert_values, where rows go out inside a transaction of the workload's).
function M.bulk_statements(bulk_insert, head, rows)
  local api, CALL = require("luabench.api_check"), "luabench.dialect.bulk_statements(bulk_insert, head, rows)"
  if type(bulk_insert) ~= "function" then api.bad(CALL, "bulk_insert must be a dialect's bulk_insert function", bulk_insert) end
  if type(head) ~= "string" then api.bad(CALL, "head must be the INSERT text", head) end
  if type(rows) ~= "table" then api.bad(CALL, "rows must be a list of rows", rows) end
  local out = {}
  local b = bulk_insert({ query = function(_, sql) out[#out + 1] = sql end }, head)
  for _, r in ipairs(rows) do b:next(r) end
  b:done()
  return out
end

-- --db-dialect-file: run once per Lua state, before the first dialect is looked up (each worker
-- has its own state, so each registers the file's dialects itself).
local option_file_done = false
function M.load_option_file()
  if option_file_done then return end
  option_file_done = true
  local sb = rawget(_G, "luabench")
  local path = type(sb) == "table" and sb._dialect_file
  if path then
    local ok, why = M.load_file(path)
    if not ok then error(why, 0) end
  end
end

-- The dialect of the server a generic driver reached: a registered or shipped name as it is
-- (--odbc-dialect=oracle, or a name a --db-dialect-file registered), else a DBMS name mapped
-- by for_dbms ("Microsoft SQL Server 15.00").
local function of_generic(driver)
  local sb = rawget(_G, "sysbench")
  local ok, drv = pcall(function() return sb.sql.driver(driver) end)
  if not (ok and drv and drv.server_name) then
    return nil, fmt("no SQL dialect for driver '%s' (it does not say which server it reached)", driver)
  end
  local dbms = drv:server_name()
  local fam = (registry[dbms] or SHIPPED_SET[dbms]) and dbms or M.for_dbms(dbms)
  if not fam then
    return nil, fmt("no SQL dialect for the server '%s' reached through %s (known: %s; or --%s-dialect=NAME)",
      tostring(dbms), driver, known(), driver)
  end
  local key = driver .. "/" .. fam
  if not through[key] then
    local base, why = M.of(fam)
    if not base then return nil, why end
    local d = {}
    for k, v in pairs(GENERIC_DRIVERS[driver]) do d[k] = v end
    through[key] = setmetatable(d, { __index = base })
  end
  return through[key]
end

-- The dialect of a driver, server family or registered name, or nil and a one-line reason.
function M.of(name)
  if not option_file_done then M.load_option_file() end
  if not aliases[name] and GENERIC_DRIVERS[name] then return of_generic(name) end
  name = aliases[name] or name
  local d = registry[name]
  if d then return d end
  if SHIPPED_SET[name] then
    local t = require("luabench.dialect." .. name)
    local reg, why = M.register(name, t)
    if not reg then error(why, 0) end
    return reg
  end
  return nil, fmt("no SQL dialect for driver '%s' (known: %s)", tostring(name), known())
end

-- The names of every dialect, shipped and registered, sorted.
function M.names()
  local out = {}
  for n in known():gmatch("[^, ]+") do out[#out + 1] = n end
  return out
end

return M
