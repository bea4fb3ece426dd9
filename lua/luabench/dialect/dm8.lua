-- The Dameng DM8 dialect: Oracle's (DM8 accepts Oracle's SQL and PL/SQL forms used there),
-- except for generated keys. NOT RUN AGAINST A LIVE SERVER; see doc/dialects.md for what was
-- checked and where.
local fmt = string.format

local d = {
  base = "oracle",
  -- DM's own auto-increment column, IDENTITY(seed, increment) (DM8 SQL manual, CREATE TABLE);
  -- an identity column takes no DEFAULT.
  identity = "INTEGER IDENTITY(1,1)",
  serial = "INTEGER IDENTITY(1,1)",
}

-- SET IDENTITY_INSERT [schema.]table ON | OFF: one table per session at a time; an inserted
-- value above the current identity value becomes the current value, so a load with explicit
-- keys needs no restart afterwards.
function d.explicit_keys(t, on)
  return fmt("SET IDENTITY_INSERT %s %s", t, on and "ON" or "OFF")
end

function d.restart_keys() end

-- SCOPE_IDENTITY(): the last identity value this session inserted in the current scope
-- (Not confirmed in a DM8 manual page found here: see doc/dialects.md).
function d.insert_id(con, sql)
  con:query(sql)
  return tonumber(con:query_row("SELECT SCOPE_IDENTITY()"))
end

return d
