-- The DuckDB dialect: PostgreSQL's SQL, which DuckDB follows, without what DuckDB lacks (serial
-- columns, advisory locks, row locks, pg_catalog's functions). What each entry means:
-- doc/dialects.md; the driver: doc/duckdb.md.
local fmt = string.format

local d = {
  base = "pgsql",
  -- No SERIAL or identity columns: keys are given by the load, and a sequence made afterwards
  -- (restart_keys) numbers the rows inserted later.
  serial = "INTEGER NOT NULL",
  identity = "INTEGER NOT NULL",
  bulk_generates_keys = false,
  -- statement_timeout and is_timeout are PostgreSQL's: the driver takes `SET statement_timeout`
  -- itself (DuckDB has no such setting) and interrupts a statement at its deadline (57014).
  -- Columnar storage with min/max statistics per row group: scans skip what a secondary index
  -- would find (dbt3 creates its primary keys only; DuckDB keeps indexes in memory).
  columnar = true,
}

-- A sequence per identity column, starting above the largest key, as the column's default.
function d.restart_keys(con, t, col)
  local seq = fmt("%s_%s_seq", t, col)
  local next = tonumber(con:query_row(fmt("SELECT COALESCE(MAX(%s), 0) + 1 FROM %s", col, t)))
  con:query(fmt("DROP SEQUENCE IF EXISTS %s CASCADE", seq))
  con:query(fmt("CREATE SEQUENCE %s START %d", seq, next))
  con:query(fmt("ALTER TABLE %s ALTER COLUMN %s SET DEFAULT nextval('%s')", t, col, seq))
end

function d.next_key(t, col) return fmt("SELECT nextval('%s_%s_seq')", t, col) end

-- Snapshot isolation is DuckDB's only level; conflicting writes fail (SQLSTATE 40001 from the
-- driver) and are retried like deadlocks.
function d.set_isolation() return "SELECT 1" end

-- No row locks: a write that conflicts with another transaction's fails at once instead.
function d.for_update(sql) return sql end
function d.first_locked(sql, n) return fmt("%s LIMIT %d", sql, n) end

-- One process owns the database: there is no other process to exclude.
function d.lock() return "SELECT 1" end
function d.unlock() return "SELECT 1" end

function d.like_prefix_column(col) return col end

function d.analyze_after_load(t) return "ANALYZE " .. t end

-- dbt3 load-dbgen: DuckDB runs in this process, so it reads a dbgen file (`|`-separated, a `|`
-- after the last value, no header) itself, in parallel, instead of rows streamed to it.
function d.load_file(t, cols, path)
  return fmt("COPY %s (%s) FROM '%s' (DELIMITER '|', HEADER false)", t, cols, path)
end

function d.drop_routine(name) return "DROP MACRO IF EXISTS " .. name end

function d.routines_count(names)
  return fmt("SELECT COUNT(DISTINCT function_name) FROM duckdb_functions() WHERE schema_name = current_schema() AND function_name IN (%s)",
    table.concat(names, ", "))
end

function d.index_exists(t, ix)
  return fmt("SELECT 1 FROM duckdb_indexes() WHERE schema_name = current_schema() AND table_name = '%s' AND index_name = '%s' LIMIT 1",
    t, ix)
end

function d.comment(t)
  return fmt("SELECT comment FROM duckdb_tables() WHERE schema_name = current_schema() AND table_name = '%s'", t)
end

return d
