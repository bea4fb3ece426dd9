-- tools/bench sqlite: the statements of N events of oltp_point_select or oltp_read_write (one
-- table), as SQL text one per line, for the sqlite3 shell and for luabench to replay: the texts
-- of sysbench's OLTP statements with the values a run would bind, ids uniform over the table.
--   luajit tools/bench.d/sqlite_statements.lua point_select|read_write EVENTS TABLE_SIZE [SEED]
local mode, events, size, seed = arg[1], tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4] or 1)
if not (mode == "point_select" or mode == "read_write") or not events or not size then
  io.stderr:write("usage: sqlite_statements.lua point_select|read_write EVENTS TABLE_SIZE [SEED]\n")
  os.exit(1)
end
math.randomseed(seed)
local fmt, rnd, out = string.format, math.random, {}
local function id() return rnd(1, size) end
local function str(n)
  local t = {}
  for i = 1, n do t[i] = (i % 12 == 0) and "-" or string.char(48 + rnd(0, 9)) end
  return table.concat(t)
end
local function range()
  local a = rnd(1, math.max(1, size - 99))
  return a, a + 99
end
local function emit(s) out[#out + 1] = s .. ";" end

for _ = 1, events do
  if mode == "point_select" then
    emit(fmt("SELECT c FROM sbtest1 WHERE id=%d", id()))
  else
    emit("BEGIN")
    for _ = 1, 10 do emit(fmt("SELECT c FROM sbtest1 WHERE id=%d", id())) end
    emit(fmt("SELECT c FROM sbtest1 WHERE id BETWEEN %d AND %d", range()))
    emit(fmt("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN %d AND %d", range()))
    emit(fmt("SELECT c FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", range()))
    emit(fmt("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN %d AND %d ORDER BY c", range()))
    emit(fmt("UPDATE sbtest1 SET k=k+1 WHERE id=%d", id()))
    emit(fmt("UPDATE sbtest1 SET c='%s' WHERE id=%d", str(119), id()))
    local d = id()
    emit(fmt("DELETE FROM sbtest1 WHERE id=%d", d))
    emit(fmt("INSERT INTO sbtest1 (id, k, c, pad) VALUES (%d, %d, '%s', '%s')", d, id(), str(119), str(59)))
    emit("COMMIT")
  end
end
io.write(table.concat(out, "\n"), "\n")
