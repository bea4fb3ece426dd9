-- System metrics beside the results: disk operations on the device that holds a directory the
-- run writes to, process CPU of a CPU-bound run, watched database server processes, the report
-- block and the --report-system line.
local h = require("helpers")

local function sh(cmd)
  local p = io.popen(cmd)
  local s = p:read("*a")
  p:close()
  return (s:gsub("%s+$", ""))
end

-- The whole block device holding `dir` (st_dev -> /sys/dev/block/MAJ:MIN, a partition's
-- parent), or nil when no block device backs it (tmpfs, overlay).
local function device_of(dir)
  local majmin = sh("stat -c '%Hd:%Ld' " .. h.q(dir))
  if majmin:match("^0:") then return nil end
  local sys = sh("readlink -f /sys/dev/block/" .. majmin)
  if sys == "" then return nil end
  if h.read(sys .. "/partition") then sys = sys:match("^(.*)/[^/]+$") end
  return (sys:match("([^/]+)$"):gsub("!", "/"))
end

describe("system metrics", function()
  it("show the disk writes of a run on the device holding its directory", function()
    -- Under the build tree: a real disk in CI, unlike /tmp, which may be tmpfs.
    local dir = sh("mktemp -d " .. h.q((os.getenv("LB_BUILD_ROOT") or h.tmpdir()) .. "/sysmetrics.XXXXXX"))
    local dev = device_of(dir)
    if not dev then
      os.execute("rm -rf " .. h.q(dir))
      pending("no block device holds " .. dir)
      return
    end
    -- The built-in fileio workload: 4 MiB of direct sequential rewrites with an fsync every
    -- 16 writes, so the writes reach the device whatever the page cache holds.
    local fio = "fileio --file-dir=" .. h.q(dir) .. " --file-num=1 --file-total-size=4M --file-block-size=64K"
    local _, perr, prc = h.run(fio .. " prepare")
    assert.are.equal(0, prc, perr)
    local json = h.tmpdir() .. "/disk.json"
    local out, err, rc = h.run(fio .. " --file-test-mode=seqrewr --file-extra-flags=direct --file-fsync-freq=16"
      .. " --time=2 --report-interval=1 --report-system --output=" .. json .. " run")
    os.execute("rm -rf " .. h.q(dir))
    assert.are.equal(0, rc, err)
    local r = h.json(h.read(json))
    local d = r.system.disks[dev]
    assert.is_truthy(d, "device " .. dev .. " in " .. luabench.json.encode(r.system.disks))
    assert.is_true(d.writes > 0 and d.writes_per_s > 0, "writes on " .. dev)
    assert.is_true(d.write_mib_per_s > 0 and d.util_pct > 0)
    assert.is_true(r.system.disk_iops > 0 or not d.physical)
    -- every interval has its own sample; the window's interval is the run's
    assert.is_true(#r.intervals >= 1 and r.intervals[1].system.disks[dev] ~= nil)
    assert.is_true(math.abs(r.system.interval_s - r.time_s) < 0.2, r.system.interval_s .. " vs " .. r.time_s)
    -- the text: a block after sysbench's, and a sys: line after each intermediate line
    assert.is_truthy(out:find("\nSystem statistics %(%d+ CPUs;"))
    assert.is_truthy(out:find("\n    disk " .. dev:gsub("%p", "%%%0") .. " r/w per sec.: +[%d.]+/[%d.]+, MiB/s"))
    assert.is_truthy(out:find("Threads fairness:.*System statistics"), "after sysbench's blocks")
    assert.is_truthy(out:find("%[ 1s %] reads: [%d.]+ MiB/s writes: [%d.]+ MiB/s fsyncs: [%d.]+/s latency %(ms,95%%%): [%d.]+\n%[ 1s %] sys: cpu usr/sys/iow/steal/idle [%d.]+/"), out)
    local col = out:match("\n(    context switches: +)[%d]")
    assert.are.equal(41, #col, "values at column 42, like sysbench's blocks")
  end)

  it("show the process CPU of a CPU-bound run as its threads ran it", function()
    -- Each thread also measures its own on-CPU time (schedstat), so on a busy shared machine the
    -- figure is checked against what the threads really got.
    local script = h.write("spin.lua", [[
local t0
local function oncpu()
  local f = io.open("/proc/thread-self/schedstat")
  local v = f and tonumber(f:read("*l"):match("^(%d+)")) or 0
  if f then f:close() end
  return v
end
function event()
  if not t0 then t0 = oncpu() end
  local x = 0
  for i = 1, 200000 do x = x + i % 7 end
  SINK = x -- (a value returned from event() would end the thread's loop)
end
function thread_done() print("ONCPU " .. (oncpu() - t0)) end
]])
    local json = h.tmpdir() .. "/cpu.json"
    local out, err, rc = h.run(h.q(script) .. " --threads=2 --time=3 --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    local r = h.json(h.read(json))
    local s = r.system
    local oncpu = 0
    for ns in out:gmatch("ONCPU (%d+)") do oncpu = oncpu + tonumber(ns) end
    local measured = oncpu / 1e9 / s.interval_s * 100
    local user = s.process.user_pct
    -- user CPU matches what the worker threads ran (the monitor thread adds a little)
    assert.is_true(math.abs(user + s.process.system_pct - measured) < 0.15 * measured + 10,
      string.format("process CPU %.1f%%, threads on CPU %.1f%%", user + s.process.system_pct, measured))
    -- in % of one CPU: two threads can hold at most two (what they got of them is the
    -- schedstat figure above, however busy the machine is)
    assert.is_true(user <= 100 * math.min(2, s.cpus) + 10, string.format("user %.1f%%", user))
    assert.is_true(s.process.system_pct < 30, "a CPU-bound loop spends little time in the kernel")
    assert.is_truthy(out:find("    luabench cpu usr/sys %(%%%): +[%d.]+/[%d.]+"))
  end)

  it("report the CPU of a local database server by pid (with its children) and by name", function()
    local db = h.db("pgsql")
    if not db then pending("no PostgreSQL sandbox") return end
    -- The postmaster is the parent of the backend serving a connection (read while it lives).
    local out, err, rc = h.run("- --verbosity=1 " .. db, { stdin = [[
local rs = sysbench.sql.driver():connect():query("SELECT pg_backend_pid()")
local f = io.open("/proc/" .. rs:fetch_row()[1] .. "/stat")
print("POSTMASTER", f and f:read("*a"):match("%) %a (%d+)") or "none")
]] })
    assert.are.equal(0, rc, err)
    local postmaster = out:match("POSTMASTER\t(%d+)")
    if not postmaster then pending("the PostgreSQL sandbox is not a local process") return end
    -- Queries without tables: this spec runs beside others that use the sandbox's tables.
    local script = h.write("select1.lua", [[
local con
function thread_init() con = sysbench.sql.driver():connect() end
function event() con:query("SELECT 1") end
]])
    local base = h.q(script) .. " " .. db .. " --threads=2"
    local json = h.tmpdir() .. "/db.json"
    out, err, rc = h.run(base .. " --time=1 --db-server-pid=" .. postmaster .. " --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    local s = h.json(h.read(json)).system.db_server
    assert.is_true(s.processes >= 3, "postmaster and the two backends at least: " .. s.processes)
    assert.is_true(s.user_pct + s.system_pct > 0, "no CPU for the server's processes: " .. out)
    assert.is_truthy(out:find("    db server cpu usr/sys %(%%%): +[%d.]+/[%d.]+ %(%d+ processes%)"))
    out, err, rc = h.run(base .. " --time=1 --db-server-name=postgres,no-such-server --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    assert.is_truthy(err:find("WARNING: no process named 'no-such-server' is running (--db-server-name)", 1, true))
    s = h.json(h.read(json)).system.db_server
    assert.is_true(s.processes >= 3 and s.user_pct + s.system_pct > 0, "by name: " .. out)
  end)

  it("can be turned off, and refuses bad options with one line", function()
    local empty = h.write("empty.lua", "function event() end\n")
    local json = h.tmpdir() .. "/off.json"
    local out, err, rc = h.run(h.q(empty) .. " --events=10 --time=0 --system-stats=off --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    assert.is_nil(out:find("System statistics", 1, true))
    assert.is_nil(h.json(h.read(json)).system)
    for _, case in ipairs({
      { "--db-server-pid=abc", "Invalid value for the 'db-server-pid' option: 'abc'" },
      { "--system-stats=off --report-system", "need --system-stats=on" },
    }) do
      out, err, rc = h.run(h.q(empty) .. " " .. case[1] .. " run")
      assert.are.equal(1, rc)
      assert.are.equal(1, h.count(err, "\n"), err)
      assert.is_truthy(err:find(case[2], 1, true), err)
    end
  end)
end)
