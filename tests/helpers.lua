-- Helpers for specs that run the luabench binary.
local M = {}

M.bin = os.getenv("LUABENCH") or "luabench"
M.root = os.getenv("LB_SOURCE_ROOT") or "."

local tmpdir
function M.tmpdir()
  if not tmpdir then
    local p = io.popen("mktemp -d /tmp/lb-test.XXXXXX")
    tmpdir = p:read("*l")
    p:close()
  end
  return tmpdir
end

function M.write(name, text)
  local path = M.tmpdir() .. "/" .. name
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

function M.read(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
M.q = shell_quote

-- Runs luabench with the given argument string; returns stdout, stderr, exit code. (No duration:
-- a spec that wants one compares with a measurement taken at the same time, see wait_started.)
function M.run(args, opts)
  opts = opts or {}
  local errf = M.tmpdir() .. "/stderr." .. tostring(math.random(1e9))
  local cmd = string.format("%s%s %s 2>%s; echo \"::rc=$?\"", opts.env or "", M.bin, args, errf)
  if opts.stdin then
    cmd = string.format("%s <%s", "(" .. cmd .. ")", shell_quote(M.write("stdin.lua", opts.stdin)))
  end
  local p = io.popen(cmd)
  local out = p:read("*a")
  p:close()
  local rc = tonumber(out:match("::rc=(%d+)%s*$"))
  out = out:gsub("::rc=%d+%s*$", "")
  local err = M.read(errf) or ""
  os.remove(errf)
  return out, err, rc
end

-- Runs a shell command; returns its output (stderr included) and exit status.
function M.sh(cmd)
  local p = io.popen(cmd .. " 2>&1; echo \"::rc=$?\"")
  local out = p:read("*a")
  p:close()
  return out:gsub("::rc=%d+%s*$", ""), tonumber(out:match("::rc=(%d+)%s*$"))
end

-- A port nobody listens on (TCP and UDP), picked at random.
function M.free_port()
  for _ = 1, 50 do
    local p = 20000 + math.random(0, 9999)
    local out = M.sh("ss -Htauln 'sport = :" .. p .. "'")
    if out:match("^%s*$") then return p end
  end
  error("no free port")
end

-- Shell text that waits (up to 30 s) until the run whose output goes to `path` has started its
-- threads: faults and signals are timed from there, so a slow start on a busy machine does not
-- move them.
function M.wait_started(path)
  return string.format("for i in $(seq 600); do grep -q 'Threads started!' %s && break; sleep 0.05; done; ",
    shell_quote(path))
end

-- Wall-clock seconds with sub-second resolution.
function M.now()
  local p = io.popen("date +%s.%N")
  local t = tonumber(p:read("*l"))
  p:close()
  return t
end

-- Runs `n` luabench processes started together: process i gets `args_of(i)`, then
-- --instance=i/n, --start-at a few seconds ahead and --output=<dir>/<name>i.json; its output goes
-- to <dir>/<name>i.txt. Returns the result files, the output files and the start time.
function M.run_together(dir, name, n, args_of)
  local start = M.now() + 2.5
  local cmds, results, outputs = {}, {}, {}
  for i = 0, n - 1 do
    results[i + 1] = string.format("%s/%s%d.json", dir, name, i)
    outputs[i + 1] = string.format("%s/%s%d.txt", dir, name, i)
    cmds[#cmds + 1] = string.format("%s %s --instance=%d/%d --start-at=%.3f --output=%s run >%s 2>&1 &",
      M.q(M.bin), args_of(i), i, n, start, results[i + 1], outputs[i + 1])
  end
  os.execute(table.concat(cmds, " ") .. " wait")
  return results, outputs, start
end

function M.count(s, pattern)
  local n = 0
  for _ in s:gmatch(pattern) do n = n + 1 end
  return n
end

function M.json(s)
  return luabench.json.decode(s)
end

-- Connection options of a sandbox server ("pgsql" or "mysql"), or nil and the reason. Under
-- CI=true a missing server is an error, never a skip.
local db_cache = {}
function M.db(driver)
  if db_cache[driver] ~= nil then return db_cache[driver] or nil end
  local p = io.popen(M.root .. "/tools/sandbox-db env " .. driver .. " 2>&1")
  local opts = p:read("*l") or ""
  p:close()
  local ok = opts:find("--db-driver=", 1, true) ~= nil
  if ok then
    -- is it actually up?
    local out, err, rc = M.run("- " .. opts, { stdin = "sysbench.sql.driver():connect()" })
    ok = rc == 0
    if not ok then opts = err end
  end
  if not ok and os.getenv("CI") == "true" then
    error("the " .. driver .. " sandbox server is not available: " .. opts)
  end
  db_cache[driver] = ok and opts or false
  return ok and opts or nil
end

-- Runs SQL through luabench itself and returns the first column of every row.
function M.sql(opts, query)
  local script = "local c = sysbench.sql.driver():connect()\n" ..
    "local rs = c:query([==[" .. query .. "]==])\n" ..
    "if rs ~= nil then local r = rs:fetch_row() while r do print('ROW', r[1]) r = rs:fetch_row() end end\n"
  local out, err, rc = M.run("- --verbosity=1 " .. opts, { stdin = script })
  assert(rc == 0, "SQL failed: " .. query .. ": " .. err)
  local rows = {}
  for v in out:gmatch("ROW\t([^\n]*)") do rows[#rows + 1] = v end
  return rows
end

M.drivers = { "pgsql", "mysql" }

-- Writes a script (see M.write) whose every thread connects to the --db-driver first, into a
-- `con` of its own; `body` goes after.
function M.db_script(name, body)
  return M.write(name, "local con\nfunction thread_init() con = sysbench.sql.driver():connect() end\n" .. body)
end

-- The servers of `drivers` (default M.drivers) that are running, as { driver =, db = } (under
-- CI=true a missing one raises, by M.db).
function M.servers(drivers)
  local list = {}
  for _, driver in ipairs(drivers or M.drivers) do
    local db = M.db(driver)
    if db then list[#list + 1] = { driver = driver, db = db } end
  end
  return list
end

-- dbt3's `answers` output by query ("Q1" ...): { header = its first line, its rows sorted (ties
-- of ORDER BY may come in either order) }.
function M.dbt3_answers(out)
  local per, cur = {}, nil
  for line in out:gmatch("[^\n]+") do
    local q = line:match("^(Q%d+): %d+ rows?")
    if q then
      cur = { header = line }
      per[q] = cur
    elseif cur and line:sub(1, 2) == "  " then
      cur[#cur + 1] = line
    end
  end
  for _, rows in pairs(per) do table.sort(rows) end
  return per
end

-- A busted describe block per driver of `drivers` (default M.drivers), titled
-- string.format(title, driver): body(driver, db) with db the connection options of its server
-- (db_of(driver), default M.db). A server that is not running leaves its block pending; under
-- CI=true M.db raises instead, so nothing skips for want of a server.
function M.each_driver(title, body, drivers, db_of)
  local busted = require("busted")
  for _, driver in ipairs(drivers or M.drivers) do
    busted.describe(string.format(title, driver), function()
      local db = (db_of or M.db)(driver)
      if not db then
        busted.pending("the " .. driver .. " sandbox is not running (tools/sandbox-db start)")
        return
      end
      body(driver, db)
    end)
  end
end

-- Connection options of a DuckDB database file `name` in the test's directory, or nil when the
-- build has no duckdb driver (an error under CI=true, which installs DuckDB).
function M.duckdb(name)
  local opts = "--db-driver=duckdb --duckdb-db=" .. shell_quote(M.tmpdir() .. "/" .. name)
  local _, err, rc = M.run("- --db-driver=duckdb --duckdb-db=:memory:", { stdin = "sysbench.sql.driver():connect()" })
  if rc == 0 then return opts end
  if os.getenv("CI") == "true" then error("the duckdb driver is not built in: " .. err) end
  return nil
end

return M
