-- tools/bench duckdb-callgrind: the statements of a SQL file (as DuckDB's CLI reads it: each
-- statement ends with ';' at the end of a line; '--' comment lines and '.' shell commands are
-- skipped) run one after the other on one connection, every row of each result gone through
-- as dbt3's power test does (rs:next), or made text (--text, as fetch_row makes it).
--   luabench tools/bench.d/duckdb_replay.lua --db-driver=duckdb --duckdb-db=F --file=q.sql replay
sysbench.cmdline.options = {
  file = { "SQL file", "" },
  text = { "read every row as text (fetch_row) instead of rs:next()", false },
}

function event() end

local function statements(path)
  local out, cur = {}, {}
  for line in io.lines(path) do
    if not line:match("^%s*%-%-") and not line:match("^%.") and line:match("%S") then
      cur[#cur + 1] = line
      if line:match(";%s*$") then
        out[#out + 1] = (table.concat(cur, "\n"):gsub(";%s*$", ""))
        cur = {}
      end
    end
  end
  return out
end

local function replay()
  local con = sysbench.sql.driver():connect()
  local text = sysbench.opt.text
  for _, sql in ipairs(statements(sysbench.opt.file)) do
    local rs = con:query(sql)
    if rs ~= nil then
      if text or not rs.next then -- (a luabench before rs:next: as text)
        local r = rs:fetch_row()
        while r do r = rs:fetch_row() end
      else
        while rs:next() do end
      end
    end
  end
end

sysbench.cmdline.commands = { replay = { replay } }
