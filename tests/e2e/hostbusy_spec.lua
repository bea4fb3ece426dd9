-- A busy host is named: with a CPU hog per CPU beside it, a CPU-bound run's result says the host
-- was busy (host_busy, and a 'busy host' line in System statistics); a run beside no such hog is
-- judged against the kernel's own figures read at the same time (/proc/stat's procs_running and
-- the run's threads' schedstat), never by assuming the machine is idle.
local h = require("helpers")

local function ncpus()
  local out = h.sh("nproc")
  return tonumber(out:match("%d+"))
end

-- Starts `n` `yes >/dev/null` processes; returns their pids.
local function start_hogs(n)
  local pids = {}
  for _ = 1, n do
    local out = h.sh("yes >/dev/null 2>&1 & echo $!")
    pids[#pids + 1] = out:match("%d+")
  end
  return pids
end

local function stop_hogs(pids)
  for _, pid in ipairs(pids) do os.execute("kill " .. pid .. " 2>/dev/null") end
end

local read_file = h.read

-- The kernel's view of a process while it runs: the mean of procs_running over readings every
-- 50 ms (less the reader itself), and its threads' run and wait times between the first and
-- the last reading of each thread (schedstat).
local function watch(pid)
  local rq_sum, rq_n = 0, 0
  local first, last = {}, {}
  while read_file("/proc/" .. pid .. "/stat") do
    local stat = read_file("/proc/stat") or ""
    local running = tonumber(stat:match("procs_running (%d+)"))
    if running then
      rq_sum, rq_n = rq_sum + math.max(running - 1, 0), rq_n + 1
    end
    local p = io.popen("ls /proc/" .. pid .. "/task 2>/dev/null")
    for tid in p:lines() do
      local s = read_file("/proc/" .. pid .. "/task/" .. tid .. "/schedstat")
      local run, wait = (s or ""):match("^(%d+) (%d+)")
      if run then
        local v = { tonumber(run), tonumber(wait) }
        first[tid] = first[tid] or v
        last[tid] = v
      end
    end
    p:close()
    luabench.sleep(0.05)
  end
  local run, wait = 0, 0
  for tid, a in pairs(first) do
    run, wait = run + last[tid][1] - a[1], wait + last[tid][2] - a[2]
  end
  return { rq = rq_n > 0 and rq_sum / rq_n or 0, wait_share = run + wait > 0 and 100 * wait / (run + wait) or 0 }
end

-- Runs `args` in the background and watches it; returns the kernel's view, the text and the result.
local function run_watched(args)
  local dir = h.tmpdir() .. "/busy" .. tostring(math.random(1e9))
  os.execute("mkdir -p " .. h.q(dir))
  local out = h.sh(string.format("%s %s --output=%s/r.json run >%s/out 2>&1 & echo $!", h.q(h.bin), args,
    h.q(dir), h.q(dir)))
  local pid = out:match("%d+")
  local seen = watch(pid)
  local text = h.read(dir .. "/out")
  local r = h.json(h.read(dir .. "/r.json") or "null")
  return seen, text, r, dir .. "/r.json"
end

describe("busy host", function()
  it("is named when a CPU hog per CPU competes with the run", function()
    local n = ncpus()
    local hogs = start_hogs(n)
    local ok, seen, text, r, json = pcall(run_watched, string.format("cpu --threads=%d --time=2", n))
    stop_hogs(hogs)
    assert.is_true(ok, tostring(seen))
    assert.is_table(r, text)
    local b = r.host_busy
    assert.is_table(b, "host_busy is null: " .. text)
    assert.is_true(b.cpu_contention)
    assert.are.equal(r.system.run_queue.avg, b.run_queue_avg)
    assert.is_true(b.run_queue_avg > b.cpus, "run queue " .. b.run_queue_avg)
    assert.are.equal(n, b.threads)
    assert.is_true(b.luabench_cpu_pct < 0.75 * b.capacity_pct)
    assert.is_true(b.cpu_wait_share_pct >= 20)
    -- the kernel, read from outside at the same time, saw the contention too
    assert.is_true(seen.rq > n, "procs_running averaged " .. seen.rq)
    assert.is_true(seen.wait_share >= 20, "the threads waited " .. seen.wait_share .. " %")
    assert.is_true(math.abs(seen.wait_share - b.cpu_wait_share_pct) < 25,
      string.format("wait share: luabench %.1f, /proc %.1f", b.cpu_wait_share_pct, seen.wait_share))
    local line = text:match("\n    busy host: +([^\n]+)")
    assert.is_truthy(line, text)
    assert.is_truthy(line:find(string.format("run queue %.2f > %d CPUs", b.run_queue_avg, b.cpus), 1, true), line)
    -- and luabench report says it
    local html = h.tmpdir() .. "/busy.html"
    local _, err, rc = h.run("report " .. h.q(json) .. " -o " .. h.q(html))
    assert.are.equal(0, rc, err)
    local row = h.read(html):match("busy host</th><td class=\"k\">([^<]*)")
    assert.is_truthy(row and row:find(string.format("run queue %.2f &gt; %d CPUs", b.run_queue_avg, b.cpus), 1, true), row)
  end)

  it("is not named when the kernel saw no contention", function()
    local n = ncpus()
    local seen, text, r = run_watched("cpu --threads=1 --time=2")
    assert.is_table(r, text)
    local busy = r.host_busy ~= luabench.json.null
    assert.is_true(math.abs(seen.wait_share - r.system.process.cpu_wait_share_pct) < 25,
      string.format("wait share: luabench %.1f, /proc %.1f", r.system.process.cpu_wait_share_pct, seen.wait_share))
    -- The run queue is sampled at instants (luabench's at each second): the time its threads
    -- waited for a CPU, an integral both read from the same counters, decides.
    if seen.wait_share < 8 then
      -- the kernel saw a quiet host: so must luabench
      assert.is_false(busy, text)
      assert.is_falsy(text:find("busy host:", 1, true), text)
    elseif seen.wait_share > 45 and seen.rq > 2 * n then
      assert.is_true(busy, string.format("the kernel saw run queue %.1f and waits of %.0f %%", seen.rq, seen.wait_share))
    end
    assert.are.equal(busy, text:find("busy host:", 1, true) ~= nil)
  end)
end)
