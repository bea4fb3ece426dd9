-- The SQL Server dialect (SQL Server 2016 (13.x) and later, Transact-SQL).
-- NOT RUN AGAINST A LIVE SERVER: every text below is written from Microsoft's Transact-SQL
-- reference (the form each follows is named beside it) and tests/lua/dialect_spec.lua pins it.
-- What each entry means: doc/dialects.md.
local fmt = string.format

local d = {
  base = "pgsql",
  current_schema = "SCHEMA_NAME()",
  timestamp = "DATETIME2",          -- TIMESTAMP is rowversion in T-SQL, not a date
  identity = "INTEGER IDENTITY(1,1)",
  serial = "INTEGER IDENTITY(1,1)",
  table_options = "",
  clustered = true,                 -- the PRIMARY KEY is the clustered index by default
  inline_keys = false,
  auto_key_zero = false,
  transactional_ddl = true,
  index_names_per_table = true,     -- index names are unique per table, constraints per schema
  empty_is_null = false,
  copy = false,
  copy_null = false,
  returning = false,                -- OUTPUT INSERTED.col instead, see insert_id
  routines_return = false,
  routine_language = "tsql",
  locking_read_can_miss = true,
  begin = "BEGIN TRANSACTION",
  commit = "COMMIT TRANSACTION",
  rollback = "ROLLBACK TRANSACTION",
  current_date = "CAST(GETDATE() AS DATE)",   -- no CURRENT_DATE in SQL Server 2016-2019
  now = "SYSDATETIME()",
  boolean = "BIT",
  -- Table value constructor: at most 1000 rows in one INSERT ... VALUES.
  max_bulk_rows = 1000,
}

-- No interval type: date_add gives DATEADD(datepart, n, expr).
function d.interval(n, unit)
  error(fmt("SQL Server has no interval literal (%d %s): use date_add(expr, n, unit)", n, unit), 2)
end

function d.date_add(expr, n, unit)
  return fmt("DATEADD(%s, %d, %s)", unit, n, expr)
end

-- TOP (n) after SELECT [DISTINCT]: works with or without ORDER BY, also in a subquery. A
-- UNION's TOP would bound its first SELECT only: there OFFSET 0 ROWS FETCH NEXT n ROWS ONLY
-- after the ORDER BY (ORDER BY clause, SQL Server 2012+), which bounds the whole result.
function d.limit(sql, n)
  if sql:gsub("%b()", ""):find("%f[%w]UNION%f[^%w]") then
    if not sql:gsub("%b()", ""):find("%f[%w]ORDER%s+BY%f[^%w]") then
      error("sqlserver.limit: a UNION needs an ORDER BY to be limited: " .. sql, 2)
    end
    return fmt("%s OFFSET 0 ROWS FETCH NEXT %d ROWS ONLY", sql, n)
  end
  local out, found = sql:gsub("^(%s*SELECT%s+DISTINCT%s+)", "%1" .. fmt("TOP (%d) ", n), 1)
  if found == 0 then out, found = sql:gsub("^(%s*SELECT%s+)", "%1" .. fmt("TOP (%d) ", n), 1) end
  if found == 0 then error("sqlserver.limit: expected a SELECT: " .. sql, 2) end
  return out
end

-- OFFSET ... FETCH NEXT belongs to the ORDER BY clause: a page needs one.
function d.limit_offset(sql, n)
  if not sql:gsub("%b()", ""):find("%f[%w]ORDER%s+BY%f[^%w]") then
    error("sqlserver.limit_offset: a page needs an ORDER BY: " .. sql, 2)
  end
  return fmt("%s OFFSET ? ROWS FETCH NEXT %d ROWS ONLY", sql, n)
end

-- Table hints UPDLOCK, ROWLOCK on the table the rows come from (a name, or a workload's
-- {placeholder} for one) (no FOR UPDATE in T-SQL
-- outside cursors): the rows read stay locked until the transaction ends.
function d.for_update(sql)
  local out, found = sql:gsub("(%sFROM%s+[%w_{}]+)", "%1 WITH (UPDLOCK, ROWLOCK)", 1)
  if found == 0 then error("sqlserver.for_update: expected SELECT ... FROM table: " .. sql, 2) end
  return out
end

function d.first_locked(sql, n)
  return d.limit(d.for_update(sql), n)
end

function d.concat(...)
  return "CONCAT(" .. table.concat({ ... }, ", ") .. ")"
end

function d.to_text(expr) return fmt("CAST(%s AS VARCHAR(40))", expr) end

function d.bool(v) return v and "1" or "0" end

-- Brackets work whatever SET QUOTED_IDENTIFIER says.
function d.quote_ident(name)
  return "[" .. tostring(name):gsub("%]", "]]") .. "]"
end

-- SET TRANSACTION ISOLATION LEVEL holds for the connection until it is set again.
function d.set_isolation(level)
  return "SET TRANSACTION ISOLATION LEVEL " .. level
end

function d.analyze(t) return "UPDATE STATISTICS " .. t end
d.analyze_after_load = d.analyze

function d.like_prefix_column(col) return col end

-- create_index (CREATE INDEX) and drop_tables (DROP TABLE IF EXISTS, SQL Server 2016 (13.x)
-- and later) are PostgreSQL's text.

-- OBJECT_ID(name, N'U'): NULL when no user table has the name.
function d.create_table_if_missing(t, body)
  return fmt("IF OBJECT_ID(N'%s', N'U') IS NULL CREATE TABLE %s (%s)", t, t, d.column_types(body))
end

function d.column_types(ddl)
  return (ddl:gsub("%f[%w_]BOOLEAN%f[^%w_]", "BIT"))
end

-- INSERT ... VALUES (...), (...): at most 1000 rows per statement.
function d.bulk_insert(con, head)
  return require("luabench.dialect").batched_insert(con, head, math.huge, d.max_bulk_rows, function(target, rows)
    return fmt("INSERT INTO %s VALUES %s", target, table.concat(rows, ", "))
  end)
end

-- One INSERT ... VALUES per 1000 rows (see bulk_insert).
function d.insert_values(head, rows)
  return require("luabench.dialect").bulk_statements(d.bulk_insert, head, rows)
end

-- MERGE with HOLDLOCK (two sessions upserting the same new key would both insert otherwise);
-- MERGE must end with a semicolon.
function d.upsert(t, keys, cols, values)
  local names, on, set, src = {}, {}, {}, {}
  for _, k in ipairs(keys) do names[#names + 1] = k end
  for _, c in ipairs(cols) do names[#names + 1] = c end
  for i, c in ipairs(names) do src[i] = "s." .. c end
  for i, k in ipairs(keys) do on[i] = fmt("t.%s = s.%s", k, k) end
  for i, c in ipairs(cols) do set[i] = fmt("t.%s = s.%s", c, c) end
  return fmt("MERGE INTO %s WITH (HOLDLOCK) AS t USING (VALUES (%s)) AS s (%s) ON (%s) WHEN MATCHED THEN UPDATE SET %s " ..
    "WHEN NOT MATCHED THEN INSERT (%s) VALUES (%s);", t, table.concat(values, ", "), table.concat(names, ", "),
    table.concat(on, " AND "), table.concat(set, ", "), table.concat(names, ", "), table.concat(src, ", "))
end

-- Application locks owned by the session (sp_getapplock / sp_releaseapplock), 60 s.
function d.lock(name)
  return fmt("EXEC sp_getapplock @Resource = %s, @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 60000", name)
end
function d.unlock(name)
  return fmt("EXEC sp_releaseapplock @Resource = %s, @LockOwner = 'Session'", name)
end

-- DROP PROCEDURE IF EXISTS: SQL Server 2016 (13.x) and later.
function d.drop_routine(name) return "DROP PROCEDURE IF EXISTS " .. name end

function d.routines_count(names)
  return fmt("SELECT COUNT(*) FROM sys.procedures WHERE schema_id = SCHEMA_ID() AND name IN (%s)",
    table.concat(names, ", "))
end

function d.table_exists(t)
  return fmt("SELECT 1 FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = SCHEMA_NAME() AND TABLE_NAME = '%s'", t)
end

function d.index_exists(t, ix)
  return fmt("SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'%s') AND name = N'%s'", t, ix)
end

function d.constraint_exists(c)
  return fmt("SELECT 1 FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = SCHEMA_NAME() AND CONSTRAINT_NAME = '%s'", c)
end

-- No COMMENT statement: the MS_Description extended property (sp_addextendedproperty,
-- sp_dropextendedproperty); the schema name goes through a variable (EXEC takes no function
-- call as an argument).
function d.set_comment(t, text)
  local drop = fmt("IF EXISTS (SELECT 1 FROM sys.extended_properties WHERE major_id = OBJECT_ID(N'%s') AND minor_id = 0 " ..
    "AND name = N'MS_Description') EXEC sp_dropextendedproperty @name = N'MS_Description', @level0type = N'SCHEMA', " ..
    "@level0name = @s, @level1type = N'TABLE', @level1name = N'%s';", t, t)
  local add = text and fmt(" EXEC sp_addextendedproperty @name = N'MS_Description', @value = N'%s', " ..
    "@level0type = N'SCHEMA', @level0name = @s, @level1type = N'TABLE', @level1name = N'%s';", text:gsub("'", "''"), t) or ""
  return "DECLARE @s sysname = SCHEMA_NAME(); " .. drop .. add
end

function d.comment(t)
  return fmt("SELECT CAST(value AS NVARCHAR(4000)) FROM sys.extended_properties WHERE major_id = OBJECT_ID(N'%s') " ..
    "AND minor_id = 0 AND name = N'MS_Description'", t)
end

function d.next_key() return nil end

-- DBCC CHECKIDENT (t, RESEED): a current identity value below the column's largest value is
-- set to it, so the next row gets the one above.
function d.restart_keys(con, t)
  con:query(fmt("DBCC CHECKIDENT ('%s', RESEED)", t))
end

-- OUTPUT INSERTED.key between the column list and VALUES/SELECT returns the generated key as
-- a result set (also where a trigger is absent; SCOPE_IDENTITY() would need a second batch).
function d.insert_id(con, sql, key)
  local out, found = sql:gsub("^(%s*INSERT%s+INTO%s+[%w_]+%s*%b())%s*", "%1 OUTPUT INSERTED." .. key .. " ", 1)
  if found == 0 then error("insert_id: expected INSERT INTO t (cols) ...: " .. sql, 2) end
  return tonumber(con:query_row(out))
end

-- SET IDENTITY_INSERT: only one table per session at a time may be ON.
function d.explicit_keys(t, on)
  return fmt("SET IDENTITY_INSERT %s %s", t, on and "ON" or "OFF")
end

-- CREATE SEQUENCE (2012+; BIGINT by default), DROP SEQUENCE IF EXISTS (2016+), NEXT VALUE FOR.
function d.nextval(name) return "NEXT VALUE FOR " .. name end
function d.next_values(names) return require("luabench.dialect").select_next_values(d, names) end

function d.warmup(t, rows)
  return {
    d.analyze(t),
    fmt("SELECT AVG(id) FROM (SELECT TOP (%d) * FROM %s ORDER BY id) t", rows, t),
    fmt("SELECT COUNT(*) FROM (SELECT TOP (%d) * FROM %s WHERE CAST(k AS VARCHAR(11)) LIKE '%%0%%') t", rows, t),
  }
end

-- No COPY-like stream through ODBC, and no session statement timeout in SQL (the client's
-- query timeout is the way there): dbt3 loads with multi-row INSERTs and refuses --query-timeout.
d.load_stream, d.statement_timeout, d.is_timeout = false, false, false

return d
