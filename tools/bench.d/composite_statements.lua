-- tools/bench duckdb-composite and duckdb-callgrind: the statements of N events of
-- examples/composite.lua as SQL text, for DuckDB's CLI (and for luabench to replay): per event
-- the SELECT DISTINCT over the whole table (--distinct-rows 0), BEGIN, the UPDATEs of random
-- rows in key order, COMMIT, and one LIMIT/OFFSET page of a random category, with the values a
-- run would bind.
--   luajit tools/bench.d/composite_statements.lua EVENTS [ROWS] [CATEGORIES] [UPDATES] [PAGE] [SEED]
local events, rows, cats = tonumber(arg[1]), tonumber(arg[2] or 100000), tonumber(arg[3] or 100)
local updates, page, seed = tonumber(arg[4] or 50), tonumber(arg[5] or 50), tonumber(arg[6] or 1)
if not events then
  io.stderr:write("usage: composite_statements.lua EVENTS [ROWS] [CATEGORIES] [UPDATES] [PAGE] [SEED]\n")
  os.exit(1)
end
math.randomseed(seed)
local fmt, rnd = string.format, math.random
local out = {}
local function emit(s) out[#out + 1] = s .. ";" end

for _ = 1, events do
  emit(fmt("SELECT DISTINCT category FROM composite WHERE id BETWEEN %d AND %d", 1, rows))
  local ids = {}
  for i = 1, updates do ids[i] = rnd(1, rows) end
  table.sort(ids)
  emit("BEGIN")
  for i = 1, updates do
    emit(fmt("UPDATE composite SET amount = amount + %d, status = %d WHERE id = %d", rnd(0, 200) - 100,
      rnd(0, 9), ids[i]))
  end
  emit("COMMIT")
  local pages = math.max(1, math.floor(rows / cats / page))
  emit(fmt("SELECT id, name, amount FROM composite WHERE category = %d ORDER BY id LIMIT %d OFFSET %d",
    rnd(1, cats), page, (rnd(1, pages) - 1) * page))
end
io.write(table.concat(out, "\n"), "\n")
