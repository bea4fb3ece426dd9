-- The differential conformance suite: every case of cases.txt runs with sysbench 1.0.20 and with
-- luabench as `sysbench` (a symlink), each in a working directory of its own, and their stdout,
-- stderr and exit status must match after masking what legitimately varies: timings and rates
-- (every decimal number), the working directory, and lines a case marks as random. The banner is
-- compared byte for byte (report parsers tokenise it). Prints TAP.
--
--   luajit tests/conformance/run.lua LUABENCH_BINARY [CASE_FILTER]
--
-- A case line:  [tags] -- arguments      (tags: db=pgsql|mysql, stdin=FILE, mask=LUA_PATTERN,
-- deliberate=KEY, sort=stdout: threads print in either order, compare the sorted lines;
-- fresh=1: a prepare case, each side starts after a cleanup; merge=1: stderr goes into stdout, so
-- the order of lines across the two streams counts). Without tags the line is just the arguments. Arguments go through the shell
-- (quotes work); scripts/ below this file is copied into both working directories. A case with
-- deliberate=KEY is one where luabench differs on purpose: its KEY must name an entry of the
-- list in doc/sysbench.md, and its outputs must differ (else the mark is stale).
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local util = require("conformance_util")
local sh, q, read = util.sh, util.q, util.read
local luabench = assert(arg[1], "usage: run.lua LUABENCH_BINARY [FILTER]")
local filter = arg[2]
local root = os.getenv("LB_SOURCE_ROOT") or (here .. "/../..")

luabench = sh("realpath " .. q(luabench)):gsub("%s+$", "")
local tmp = sh("mktemp -d /tmp/lb-conformance.XXXXXX"):gsub("%s+$", "")
local bin = tmp .. "/bin"
local dirs = { sb = tmp .. "/sb", lb = tmp .. "/lb" }
sh(string.format("mkdir -p %s %s %s && ln -s %s %s/sysbench", q(bin), q(dirs.sb), q(dirs.lb),
  q(luabench), q(bin)))
-- -L: scripts/ links to files kept elsewhere in the tree (luabench_shim.lua)
for _, d in pairs(dirs) do sh(string.format("cp -rL %s/scripts %s/", q(here), q(d))) end

-- Sandbox servers: their options, or nil (then the case fails under CI=true, is skipped else).
local db_opts = {}
local function db(name)
  if db_opts[name] == nil then
    local o = sh(q(root .. "/tools/sandbox-db") .. " env " .. name .. " 2>/dev/null"):gsub("%s+$", "")
    db_opts[name] = o:find("--db-driver=", 1, true) and o or false
  end
  return db_opts[name] or nil
end

local documented = util.documented(root)
local mask = util.mask

-- A statement counts as a write when it changed rows, else as other (sysbench's rule, kept):
-- the split depends on which rows each side's random ids found, so only the totals compare.
local function mask_write_split(s)
  return (s:gsub("(\n%s+write:%s+)%d+(\n%s+other:%s+)%d+", "%1N%2N"))
end

-- A case that creates tables starts from none on both sides.
local function fresh(args)
  local cleanup = args:gsub("%s+prepare%s*$", " cleanup")
  sh(string.format("cd %s && /usr/bin/sysbench %s >/dev/null 2>&1", q(tmp), cleanup))
end

-- For cases whose threads print in either order: the lines as a sorted list.
local function sorted_lines(s)
  local lines = {}
  for l in s:gmatch("[^\n]*\n?") do if l ~= "" then lines[#lines + 1] = l end end
  table.sort(lines)
  return table.concat(lines)
end

local function run_one(which, args, stdin, merge)
  local dir = dirs[which]
  local prog = which == "sb" and "/usr/bin/sysbench" or bin .. "/sysbench"
  local err = merge and "&1" or q(tmp) .. "/err"
  if merge then sh("rm -f " .. q(tmp) .. "/err") end
  local cmd = string.format("cd %s && %s %s >%s/out 2>%s%s; echo $?", q(dir), prog, args, q(tmp), err,
    stdin and (" <" .. q(here .. "/" .. stdin)) or " </dev/null")
  local rc = tonumber(sh(cmd))
  return read(tmp .. "/out") or "", read(tmp .. "/err") or "", rc
end

local function parse(line)
  local tags, args = line:match("^(.-)%s*%-%-%s+(.*)$")
  if not tags or tags:find("^%-") then return {}, line end
  local t = {}
  -- "\n" in a tag is a newline (a mask pattern anchored at a line start)
  for k, v in tags:gmatch("([%w_]+)=(%S+)") do t[k] = v:gsub("\\n", "\n") end
  return t, args
end

local cases = {}
for line in io.lines(here .. "/cases.txt") do
  if line:find("%S") and not line:find("^%s*#") and (not filter or line:find(filter, 1, true)) then
    cases[#cases + 1] = line
  end
end

print("1.." .. #cases)
local failed = 0
local ci = os.getenv("CI") == "true"
for i, line in ipairs(cases) do
  local tags, args = parse(line)
  local missing
  if tags.db then
    local o = db(tags.db)
    if o then args = args:gsub("{db}", function() return o end) else missing = tags.db .. " sandbox server not running" end
  end
  if missing and not ci then
    print(string.format("ok %d - %s # SKIP %s", i, line, missing))
  elseif missing then
    failed = failed + 1
    print(string.format("not ok %d - %s", i, line))
    print("# " .. missing .. " (CI=true: a missing server is a failure)")
  else
    if tags.fresh then fresh(args) end
    local so, se, sr = run_one("sb", args, tags.stdin, tags.merge)
    if tags.fresh then fresh(args) end
    local lo, le, lr = run_one("lb", args, tags.stdin, tags.merge)
    if tags.db then so, lo = mask_write_split(so), mask_write_split(lo) end
    so, se = mask(so, dirs.sb, tags.mask), mask(se, dirs.sb, tags.mask)
    lo, le = mask(lo, dirs.lb, tags.mask), mask(le, dirs.lb, tags.mask)
    if tags.sort then so, lo = sorted_lines(so), sorted_lines(lo) end
    local same = so == lo and se == le and sr == lr
    local ok, why
    if tags.deliberate then
      ok = documented[tags.deliberate] and not same
      why = not documented[tags.deliberate] and ("deliberate difference '" .. tags.deliberate ..
        "' is not documented in doc/sysbench.md") or (same and "marked deliberate but identical") or nil
    else
      ok = same
    end
    local name = line:gsub("#", "\\#")
    if ok then
      print(string.format("ok %d - %s", i, name))
    else
      failed = failed + 1
      print(string.format("not ok %d - %s", i, name))
      if why then print("# " .. why) end
      if not tags.deliberate then
        if sr ~= lr then print(string.format("# exit status: sysbench %s, luabench %s", tostring(sr), tostring(lr))) end
        local d = util.diff(tmp, { { "stdout", so, lo }, { "stderr", se, le } })
        for l in d:gmatch("[^\n]+") do print("#   " .. l) end
      end
    end
  end
end
sh("rm -rf " .. q(tmp))
os.exit(failed == 0 and 0 or 1)
