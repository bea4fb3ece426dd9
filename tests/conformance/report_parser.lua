-- A sysbench report parser run on luabench's reports as a user's pipeline runs it: the reports of
-- sysbench 1.0.20 and of luabench as `sysbench` go through sb2csv.lua (a re-implementation of a
-- published sysbench-output-to-CSV converter's grammar, see that file), which must convert
-- luabench's as it converts sysbench's: an OLTP run with intermediate reports converts on both
-- sides, every other report stops at the same token on both. Prints TAP.
--
--   luajit tests/conformance/report_parser.lua LUABENCH_BINARY
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local util = require("conformance_util")
local sb2csv = require("sb2csv")
local sh, q = util.sh, util.q
local luabench = sh("realpath " .. q(assert(arg[1], "usage: report_parser.lua LUABENCH_BINARY"))):gsub("%s+$", "")

local tmp = sh("mktemp -d /tmp/lb-report-parser.XXXXXX"):gsub("%s+$", "")
sh(string.format("mkdir -p %s/bin %s/sb %s/lb && ln -s %s %s/bin/sysbench", q(tmp), q(tmp), q(tmp), q(luabench), q(tmp)))

local tests, failed = {}, 0
local function check(name, ok, why)
  tests[#tests + 1] = { name = name, ok = ok, why = why }
  if not ok then failed = failed + 1 end
end

-- The grammar itself: sysbench's banner converts, the banner luabench printed before (with
-- ", " inside the parentheses) is refused at the comma, as the published converter refused it.
local report_tail = [[

Running the test with following options:
Number of threads: 1
Report intermediate results every 1 second(s)
Initializing random number generator from current time


Initializing worker threads...

Threads started!

[ 1s ] thds: 1 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) lat (ms,95%): 1.50 err/s 0.00 reconn/s: 0.00
SQL statistics:
    queries performed:
        read:                            140
        write:                           40
        other:                           20
        total:                           200
    transactions:                        10     (10.00 per sec.)
    queries:                             200    (200.00 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          1.0010s
    total number of events:              10

Latency (ms):
         min:                                    0.50
         avg:                                    1.00
         max:                                    2.00
         95th percentile:                        1.50
         sum:                                   10.00

Threads fairness:
    events (avg/stddev):           10.0000/0.00
    execution time (avg/stddev):   0.0100/0.00

]]
local r, err = sb2csv.parse("sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n" .. report_tail)
check("the converter reads sysbench's report", r ~= nil and r.version == "1.0.20" and r.total == 200
  and #r.reports == 1 and sb2csv.csv(r):find("\n1.0.20\t1\t10\t200\t140\t40\t20\t200\t0\t0\t0.5\t1\t2\t1.50 (95%)\n", 1, true) ~= nil,
  err or (r and sb2csv.csv(r)))
r, err = sb2csv.parse("sysbench 1.0.20 (using luabench 0.1.0, system LuaJIT 2.1.0-beta3)\n" .. report_tail)
check("the converter refuses luabench's former banner at the comma", r == nil and err == "1:38: invalid token ','",
  err or "converted")

-- The reports of real runs, from both programs.
local function run(which, args)
  local prog = which == "sb" and "/usr/bin/sysbench" or tmp .. "/bin/sysbench"
  return sh(string.format("cd %s/%s && %s %s 2>/dev/null </dev/null", q(tmp), which, prog, args))
end

local dry = "--db-driver=mysql --mysql-dry-run --tables=1 --table-size=10"
local converting = {
  "oltp_read_write " .. dry .. " --threads=2 --time=2 --report-interval=1 run",
  "oltp_point_select " .. dry .. " --time=1 --report-interval=1 run",
}
for _, args in ipairs(converting) do
  local s, l = sb2csv.parse(run("sb", args)), nil
  local lr, lerr = sb2csv.parse(run("lb", args))
  l = lr
  check("converts luabench's report as sysbench's: " .. args,
    s ~= nil and l ~= nil and l.version == s.version and l.threads == s.threads
      and l.report_interval == s.report_interval and #l.reports >= 1
      and l.read + l.write + l.other == l.total and #sb2csv.csv(l) > 0,
    lerr or (s == nil and "sysbench's report did not convert") or "fields differ")
end

-- Reports that are not OLTP reports: the converter stops at the same place in both.
local stopping = {
  "cpu --cpu-max-prime=100 --events=10 --time=0 run",
  "memory --memory-total-size=1M --time=0 run",
  "threads --events=10 --time=0 run",
  "mutex --mutex-num=64 --mutex-locks=10 --mutex-loops=10 --time=0 run",
  "cpu --cpu-max-prime=100 --time=1 --report-interval=1 run",
}
for _, args in ipairs(stopping) do
  local _, serr = sb2csv.parse(run("sb", args))
  local _, lerr = sb2csv.parse(run("lb", args))
  check("stops where sysbench's stops: " .. args, serr ~= nil and serr == lerr,
    string.format("sysbench: %s\nluabench: %s", tostring(serr), tostring(lerr)))
end
sh(string.format("cd %s/sb && /usr/bin/sysbench fileio --file-num=1 --file-total-size=64K prepare >/dev/null 2>&1", q(tmp)))
sh(string.format("cd %s/lb && %s/bin/sysbench fileio --file-num=1 --file-total-size=64K prepare >/dev/null 2>&1", q(tmp), q(tmp)))
local fio = "fileio --file-num=1 --file-total-size=64K --file-test-mode=rndrd --events=10 --time=0 run"
local _, serr = sb2csv.parse(run("sb", fio))
local _, lerr = sb2csv.parse(run("lb", fio))
check("stops where sysbench's stops: " .. fio, serr ~= nil and serr == lerr,
  string.format("sysbench: %s\nluabench: %s", tostring(serr), tostring(lerr)))

sh("rm -rf " .. q(tmp))
print("1.." .. #tests)
for i, t in ipairs(tests) do
  print(string.format("%s %d - %s", t.ok and "ok" or "not ok", i, t.name))
  if not t.ok then for l in tostring(t.why):gmatch("[^\n]+") do print("#   " .. l) end end
end
os.exit(failed == 0 and 0 or 1)
