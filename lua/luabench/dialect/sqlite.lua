-- The SQLite dialect (SQLite 3.35 and later: RETURNING, DROP COLUMN; Debian 12 has 3.40). What
-- it does not define is PostgreSQL's, the same text: SQLite reads '' strings, "identifiers",
-- LIMIT, ||, CREATE/DROP TABLE IF EXISTS, ON CONFLICT ... DO UPDATE and RETURNING as PostgreSQL
-- does. What each entry means: doc/dialects.md; the driver: doc/sqlite.md.
local fmt = string.format

local d = {
  base = "pgsql",
  current_schema = "'main'",
  timestamp = "TIMESTAMP",            -- stored as text 'YYYY-MM-DD HH:MM:SS', which sorts as time
  -- A single-column INTEGER PRIMARY KEY (as a column or a table constraint) is the rowid:
  -- numbered by SQLite when an INSERT leaves it out, continuing above the largest one.
  identity = "INTEGER",
  serial = "INTEGER",
  table_options = "",
  -- No ALTER TABLE ... ADD PRIMARY KEY: the key comes with CREATE TABLE.
  clustered = true,
  inline_keys = false,
  auto_key_zero = false,
  transactional_ddl = true,
  index_names_per_table = false,
  empty_is_null = false,
  bulk_generates_keys = true,
  copy = false,
  copy_null = false,
  returning = true,
  routines_return = false,
  routine_language = false,           -- no stored routines: tpcc runs with --procedures=off
  -- One writer at a time for the whole database: a read never waits for a row lock.
  locking_read_can_miss = false,
  boolean = "BOOLEAN",
  -- The local time as the loaders write it ('YYYY-MM-DD HH:MM:SS', which sorts as time).
  now = "datetime('now', 'localtime')",
  -- No sequences: each is a one-row table whose value an UPDATE ... RETURNING takes (one writer
  -- at a time holds the database anyway, so this serializes nothing more).
  sequences = false,
}

-- No interval type: date_add gives datetime(expr, '+n units').
function d.interval(n, unit)
  error(fmt("SQLite has no interval literal (%d %s): use date_add(expr, n, unit)", n, unit), 2)
end

function d.date_add(expr, n, unit)
  return fmt("datetime(%s, '%+d %ss')", expr, n, unit)
end

-- SQLite locks the database, not rows: a writer takes the write lock at its first write and
-- keeps it to COMMIT, so a read "for update" is the plain read.
function d.for_update(sql) return sql end
function d.first_locked(sql, n) return d.limit(sql, n) end

function d.to_text(expr) return fmt("CAST(%s AS TEXT)", expr) end

function d.bool(v) return v and "1" or "0" end

-- Every transaction is SERIALIZABLE; read_uncommitted only matters with a shared cache.
function d.set_isolation(level)
  return "PRAGMA read_uncommitted = " .. (tostring(level):upper() == "READ UNCOMMITTED" and "1" or "0")
end

function d.analyze(t) return "ANALYZE " .. t end
d.analyze_after_load = d.analyze

function d.like_prefix_column(col) return col end

-- Declared types are kept as written: SQLite gives each column the affinity its type name
-- implies (INTEGER, TEXT for CHAR/VARCHAR, NUMERIC for NUMERIC/DATE).
function d.column_types(ddl) return ddl end

-- No locks by name in SQLite (processes share the file's lock only): nothing to take.
function d.lock() return "SELECT 1" end
function d.unlock() return "SELECT 1" end

function d.drop_routine() return "SELECT 1" end
function d.routines_count() return "SELECT 0" end

function d.table_exists(t)
  return fmt("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '%s'", t)
end

function d.index_exists(t, ix)
  return fmt("SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = '%s' AND name = '%s'", t, ix)
end

-- Constraints have no catalog of their own (and cannot be added after CREATE TABLE).
function d.constraint_exists() return "SELECT 1 WHERE 0" end

-- No table comments: the comment is kept in a trigger of the table that never fires (WHEN 0, on
-- DELETE only while it exists, which is while a prepare loads), so it goes with the table and
-- its text is in sqlite_master. Two statements in one text: the driver runs both.
local function comment_trigger(t) return "luabench_comment_" .. t end

function d.set_comment(t, text)
  local drop = fmt("DROP TRIGGER IF EXISTS %s", comment_trigger(t))
  if not text then return drop end
  return fmt("%s; CREATE TRIGGER %s BEFORE DELETE ON %s WHEN 0 BEGIN SELECT %s; END", drop, comment_trigger(t), t,
    d.lit(text))
end

-- The literal between "BEGIN SELECT '" (14 characters) and "'; END" (6), quotes undoubled.
function d.comment(t)
  return fmt("SELECT replace(substr(sql, instr(sql, 'BEGIN SELECT ''') + 14, length(sql) - instr(sql, 'BEGIN SELECT ''') - 19), " ..
    "'''''', '''') FROM sqlite_master WHERE type = 'trigger' AND name = '%s'", comment_trigger(t))
end

function d.next_key() return nil end

-- A sequence as a one-row table (two statements in one text: the driver runs both).
function d.create_sequence(name, start)
  return fmt("CREATE TABLE %s (next_value INTEGER NOT NULL); INSERT INTO %s VALUES (%d)", name, name, start)
end
function d.drop_sequence(name) return "DROP TABLE IF EXISTS " .. name end
function d.nextval(name)
  error(fmt("SQLite has no sequences (%s): use next_values(names)", name), 2)
end
function d.next_values(names)
  local out = {}
  for i, n in ipairs(names) do
    out[i] = fmt("UPDATE %s SET next_value = next_value + 1 RETURNING next_value - 1", n)
  end
  return out
end

-- Dates are text: CAST(... AS DATE) would make a number of '2024-01-31' (NUMERIC affinity).
function d.date_value(expr) return expr end

-- No GROUPING SETS, ROLLUP or CUBE: a workload unions its groupings itself.
d.group_by_rollup = false

-- The rowid continues above the largest key by itself.
function d.restart_keys() end

function d.warmup(t, rows)
  return {
    "ANALYZE " .. t,
    fmt("SELECT AVG(id) FROM (SELECT * FROM %s ORDER BY id LIMIT %d) t", t, rows),
    fmt("SELECT COUNT(*) FROM (SELECT * FROM %s WHERE CAST(k AS TEXT) LIKE '%%0%%' LIMIT %d) t", t, rows),
  }
end

-- No COPY, and no statement timeout settable in SQL (the driver's --db-statement-timeout
-- interrupts statements): dbt3 loads with multi-row INSERTs and refuses --query-timeout.
d.load_stream, d.statement_timeout, d.is_timeout = false, false, false

return d
