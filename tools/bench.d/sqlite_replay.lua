-- tools/bench sqlite: luabench sending the lines of --file (one statement each, as the sqlite3
-- shell reads them) as text queries: one statement per event, or one transaction (BEGIN to
-- COMMIT). Run with --threads=1 and --events=<the events the file was written for>.
sysbench.cmdline.options = { file = { "SQL file, one statement per line", "" } }

local lines, con, i = {}, nil, 0

function thread_init()
  for l in io.lines(sysbench.opt.file) do
    if l ~= "" then lines[#lines + 1] = l:gsub(";$", "") end
  end
  con = sysbench.sql.driver():connect()
end

function event()
  local open
  repeat
    i = i % #lines + 1
    local l = lines[i]
    con:query(l)
    if l == "BEGIN" then open = true elseif l == "COMMIT" then open = false end
  until not open
end
