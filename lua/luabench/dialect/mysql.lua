-- The MySQL/MariaDB dialect. What it does not define (LIMIT, FOR UPDATE, the driver's bulk
-- insert, ...) is PostgreSQL's, the same text. What each entry means: doc/dialects.md.
local fmt = string.format

local d = {
  base = "pgsql",
  current_schema = "DATABASE()",
  timestamp = "DATETIME",
  identity = "INTEGER NOT NULL AUTO_INCREMENT",
  serial = "INTEGER NOT NULL AUTO_INCREMENT",
  table_options = " ENGINE = InnoDB",
  clustered = true,
  inline_keys = true,          -- KEY name (cols) inside CREATE TABLE
  auto_key_zero = true,        -- inserting 0 into an AUTO_INCREMENT key takes the next value
  transactional_ddl = false,
  index_names_per_table = true,
  copy = false,
  copy_null = false,
  returning = false,
  routines_return = false,
  routine_language = "mysql",
  locking_read_can_miss = false,
  now = "CURRENT_TIMESTAMP",
  -- MariaDB 10.3 and later (CREATE SEQUENCE, NEXT VALUE FOR); MySQL has none: a workload that
  -- needs them says so when CREATE SEQUENCE fails.
  sequences = true,
}

function d.lit(v)
  return "'" .. tostring(v):gsub("'", "''"):gsub("\\", "\\\\") .. "'"
end

function d.interval(n, unit)
  return fmt("INTERVAL %d %s", n, unit:upper())
end

function d.date_add(expr, n, unit)
  return expr .. " + " .. d.interval(n, unit)
end

function d.concat(...)
  return "CONCAT(" .. table.concat({ ... }, ", ") .. ")"
end

function d.to_text(expr)
  return fmt("CAST(%s AS CHAR)", expr)
end

function d.quote_ident(name)
  return "`" .. tostring(name):gsub("`", "``") .. "`"
end

function d.set_isolation(level)
  return "SET SESSION TRANSACTION ISOLATION LEVEL " .. level
end

function d.analyze(t) return "ANALYZE TABLE " .. t end
d.analyze_after_load = d.analyze

function d.create_index(name, t, cols) return fmt("ALTER TABLE %s ADD INDEX %s (%s)", t, name, cols) end
function d.like_prefix_column(col) return col end

-- Turns the checking of foreign keys on or off for the session (loading keys on loaded data).
function d.foreign_key_checks(on) return "SET foreign_key_checks = " .. (on and 1 or 0) end

-- One statement for all: MySQL checks no foreign key between tables dropped together.
function d.drop_tables(names)
  return { "DROP TABLE IF EXISTS " .. table.concat(names, ", ") }
end

function d.upsert(t, keys, cols, values)
  local all, set = {}, {}
  for _, k in ipairs(keys) do all[#all + 1] = k end
  for _, c in ipairs(cols) do
    all[#all + 1] = c
    set[#set + 1] = fmt("%s = VALUES(%s)", c, c)
  end
  return fmt("INSERT INTO %s (%s) VALUES (%s) ON DUPLICATE KEY UPDATE %s", t, table.concat(all, ", "),
    table.concat(values, ", "), table.concat(set, ", "))
end

function d.nextval(name) return "NEXT VALUE FOR " .. name end

function d.next_values(names) return require("luabench.dialect").select_next_values(d, names) end

function d.group_by_rollup(cols) return "GROUP BY " .. cols .. " WITH ROLLUP" end

function d.lock(name) return fmt("SELECT GET_LOCK(%s, 60)", name) end
function d.unlock(name) return fmt("SELECT RELEASE_LOCK(%s)", name) end

function d.drop_routine(name) return "DROP PROCEDURE IF EXISTS " .. name end

function d.routines_count(names)
  return fmt("SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE() " ..
    "AND ROUTINE_NAME IN (%s)", table.concat(names, ", "))
end

function d.table_exists(t)
  return fmt("SELECT 1 FROM information_schema.tables WHERE table_schema = %s AND table_name = '%s'",
    d.current_schema, t)
end

function d.index_exists(t, ix)
  return fmt("SELECT 1 FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = '%s' AND index_name = '%s' LIMIT 1",
    t, ix)
end

function d.constraint_exists(c)
  return fmt("SELECT 1 FROM information_schema.table_constraints WHERE constraint_schema = DATABASE() AND constraint_name = '%s' LIMIT 1",
    c)
end

function d.set_comment(t, text) return fmt("ALTER TABLE %s COMMENT = '%s'", t, text or "") end
function d.comment(t)
  return fmt("SELECT table_comment FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = '%s'", t)
end

function d.next_key() return nil end

function d.restart_keys(con, t, col)
  local max = tonumber(con:query_row(fmt("SELECT COALESCE(MAX(%s), 0) FROM %s", col, t)))
  con:query(fmt("ALTER TABLE %s AUTO_INCREMENT = %d", t, max + 1))
end

function d.insert_id(con, sql)
  con:query(sql)
  return tonumber(con:query_row("SELECT LAST_INSERT_ID()"))
end

function d.warmup(t, rows)
  return {
    "ANALYZE TABLE " .. t,
    fmt("SELECT AVG(id) FROM (SELECT * FROM %s FORCE KEY (PRIMARY) LIMIT %d) t", t, rows),
    fmt("SELECT COUNT(*) FROM (SELECT * FROM %s WHERE k LIKE '%%0%%' LIMIT %d) t", t, rows),
  }
end

-- The file name is not read: the driver sends copy_next()'s rows as the file (tab-separated,
-- \N for NULL, one row per line: LOAD DATA's defaults).
function d.load_stream(t, cols)
  return fmt("LOAD DATA LOCAL INFILE 'luabench-rows' INTO TABLE %s (%s)", t, cols)
end
d.load_stream_enabled = "SELECT @@local_infile"

-- MariaDB's max_statement_time (seconds, every statement); MySQL itself has max_execution_time
-- (SELECT only) and refuses this variable.
function d.statement_timeout(seconds)
  return fmt("SET SESSION max_statement_time = %.3f", seconds)
end

-- MariaDB 1969 (max_statement_time), MySQL 3024.
function d.is_timeout(con) return con.sql_errno == 1969 or con.sql_errno == 3024 end

return d
