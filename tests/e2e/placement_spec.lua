-- --cpu-affinity and --numa-node: every worker thread's affinity, as the kernel shows it in
-- /proc/<pid>/task/<task>/status while the run goes on, is what was asked, and the result (JSON,
-- and the text at --verbosity=4) says so. Without them the result records what the process was
-- given from outside: taskset's CPU set, its control group's CPU and memory limits.
local h = require("helpers")

-- Each worker writes its kernel task id to <dir>/<tid> in thread_init, then idles.
local script = [[
function thread_init()
  local f = assert(io.open("/proc/thread-self/stat"))
  local task = f:read("*l"):match("^(%d+)")
  f:close()
  local o = assert(io.open(os.getenv("LB_PLACE_DIR") .. "/" .. sysbench.tid, "w"))
  o:write(task)
  o:close()
end
function event() luabench.sleep(0.01) end
]]

local function allowed_cpus()
  local f = assert(io.open("/proc/self/status"))
  local s = f:read("*a")
  f:close()
  return s:match("Cpus_allowed_list:%s*(%S+)")
end

-- Runs the script in the background with `opts`; once every worker has written its task id,
-- reads each task's Cpus_allowed_list and Mems_allowed_list; returns them by tid, the task
-- list of the whole process, the stdout and the JSON result.
local function run_placed(threads, opts)
  local dir = h.tmpdir() .. "/place" .. tostring(math.random(1e9))
  os.execute("mkdir -p " .. h.q(dir))
  local path = h.write("place.lua", script)
  local json = dir .. "/r.json"
  local sh = string.format([[
LB_PLACE_DIR=%s %s %s --threads=%d --time=3 --verbosity=4 --output=%s %s run >%s/out 2>&1 &
pid=$!
for i in $(seq 100); do [ $(ls %s | grep -c '^[0-9]') -ge %d ] && break; sleep 0.1; done
sleep 0.3
for t in %s/[0-9]*; do echo "worker $(basename $t) $(grep Cpus_allowed_list: /proc/$pid/task/$(cat $t)/status | cut -f2)"; done
for t in /proc/$pid/task/*; do echo "task $(grep Cpus_allowed_list: $t/status | cut -f2)"; done
wait $pid; echo "rc $?"]], h.q(dir), h.q(h.bin), h.q(path), threads, h.q(json), opts, h.q(dir), h.q(dir), threads, h.q(dir))
  local p = io.popen(sh)
  local out = p:read("*a")
  p:close()
  local workers, tasks = {}, {}
  for tid, cpus in out:gmatch("worker (%d+) (%S+)") do workers[tonumber(tid)] = cpus end
  for cpus in out:gmatch("task (%S+)") do tasks[#tasks + 1] = cpus end
  local rc = tonumber(out:match("rc (%d+)"))
  local text = h.read(dir .. "/out") or ""
  local r = rc == 0 and h.json(h.read(json)) or nil
  os.execute("rm -rf " .. h.q(dir))
  return workers, tasks, rc, text, r
end

describe("placement", function()
  it("pins each worker round-robin to the --cpu-affinity list and records it", function()
    local all = allowed_cpus()
    -- The last CPU first, so the order given matters (one CPU: both are CPU 0).
    local last = tonumber(all:match("(%d+)$"))
    local first = tonumber(all:match("^(%d+)"))
    local workers, tasks, rc, text, r = run_placed(3, "--cpu-affinity=" .. last .. "," .. first)
    assert.are.equal(0, rc, text)
    local want = { [0] = tostring(last), tostring(first), tostring(last) }
    for tid = 0, 2 do
      assert.are.equal(want[tid], workers[tid], "worker " .. tid .. " in /proc")
      local t = r.placement.threads[tid + 1]
      assert.are.equal(tid, t.thread)
      assert.are.equal(tonumber(want[tid]), t.cpu_asked)
      assert.are.equal(want[tid], t.cpus, "the result says where worker " .. tid .. " ran")
      assert.is_truthy(text:find("thread " .. tid .. " +CPU " .. want[tid] .. ": CPUs " .. want[tid] .. ","), text)
    end
    assert.are.same({ last, first }, r.placement.cpu_affinity)
    assert.are.equal("workers", r.placement.cpu_affinity_mode)
    assert.are.equal(luabench.json.null, r.placement.numa_node)
    -- only the workers are pinned: the main thread keeps the process's CPUs
    assert.are.equal(all, tasks[1])
  end)

  it("binds the workers to a NUMA node's CPUs and memory", function()
    local workers, _, rc, text, r = run_placed(2, "--numa-node=0")
    assert.are.equal(0, rc, text)
    local f = io.open("/sys/devices/system/node/node0/cpulist")
    local node_cpus = f and f:read("*l") or allowed_cpus()
    if f then f:close() end
    for tid = 0, 1 do
      assert.are.equal(node_cpus, workers[tid])
      local t = r.placement.threads[tid + 1]
      assert.are.equal(node_cpus, t.cpus)
      assert.are.equal("bind", t.mem_policy)
      assert.are.equal("0", t.mem_nodes)
    end
    assert.are.equal(0, r.placement.numa_node)
    assert.is_truthy(text:find("CPUs " .. node_cpus:gsub("%p", "%%%0") .. ", memory bind 0"), text)
  end)

  it("refuses CPUs and nodes the machine does not have, in one line", function()
    local _, err, rc = h.run("cpu --cpu-affinity=1000 --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("%-%-cpu%-affinity: CPU 1000 is not one this process may run on"), err)
    _, err, rc = h.run("cpu --cpu-affinity=0-x --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("Invalid value for the 'cpu-affinity' option: '0-x'", 1, true), err)
    _, err, rc = h.run("cpu --numa-node=999 --time=1 run")
    assert.are.equal(1, rc)
    assert.is_truthy(err:find("--numa-node=999: this machine has", 1, true), err)
  end)

  it("shows the placement in the HTML report", function()
    local json, html = h.tmpdir() .. "/placed.json", h.tmpdir() .. "/placed.html"
    local _, err, rc = h.run("cpu --cpu-affinity=0 --time=1 --output=" .. json .. " run")
    assert.are.equal(0, rc, err)
    _, err, rc = h.run("report " .. json .. " -o " .. html)
    assert.are.equal(0, rc, err)
    local row = h.read(html):match("placement</th><td class=\"k\">([^<]*)")
    assert.is_truthy(row:find("^process CPUs " .. allowed_cpus():gsub("%p", "%%%0") .. " %("), row)
    assert.is_truthy(row:find("; thread 0: CPUs 0, memory ", 1, true), row)
  end)

  it("records the inherited CPU set when no placement is asked", function()
    local all = allowed_cpus()
    local out, err, rc = h.run("cpu --threads=2 --time=1 --verbosity=4 --format=json run")
    assert.are.equal(0, rc, err)
    local p = h.json(out).placement
    assert.are.equal(all, p.process_cpus)
    assert.are.same({}, p.cpu_affinity)
    assert.are.equal("workers", p.cpu_affinity_mode)
    for tid = 0, 1 do
      assert.are.equal(all, p.threads[tid + 1].cpus)
      assert.is_nil(p.threads[tid + 1].cpu_asked)
    end
    assert.is_falsy(err:find("Placement (", 1, true), err)
  end)

  it("records a taskset CPU set: one CPU, and says so where CPUs are counted", function()
    local first = allowed_cpus():match("^(%d+)")
    local json = h.tmpdir() .. "/taskset.json"
    local out, rc = h.sh(string.format("taskset -c %s %s cpu --threads=2 --time=1 --output=%s run", first,
      h.q(h.bin), h.q(json)))
    assert.are.equal(0, rc, out)
    local r = h.json(h.read(json))
    assert.are.equal(first, r.placement.process_cpus)
    assert.are.equal(1, r.placement.process_cpu_count)
    assert.are.equal(1, r.placement.usable_cpus)
    for tid = 0, 1 do assert.are.equal(first, r.placement.threads[tid + 1].cpus) end
    -- the machine still has all its CPUs; the System statistics heading says how many luabench had
    if r.machine.cpus > 1 then
      assert.is_truthy(out:find("System statistics (" .. r.machine.cpus .. " CPUs, luabench may use 1;", 1, true), out)
    end
  end)

  it("gives the whole process the CPUs with --cpu-affinity-mode=process", function()
    local last = allowed_cpus():match("(%d+)$")
    local workers, tasks, rc, text, r = run_placed(2, "--cpu-affinity=" .. last .. " --cpu-affinity-mode=process")
    assert.are.equal(0, rc, text)
    -- every thread of the process, the main one included, runs on the listed CPU
    assert.is_true(#tasks >= 3)
    for _, cpus in ipairs(tasks) do assert.are.equal(last, cpus) end
    for tid = 0, 1 do
      assert.are.equal(last, workers[tid])
      assert.is_nil(r.placement.threads[tid + 1].cpu_asked)
      assert.are.equal(last, r.placement.threads[tid + 1].cpus)
    end
    assert.are.equal("process", r.placement.cpu_affinity_mode)
    assert.are.equal(last, r.placement.process_cpus)
    local _, err, code = h.run("cpu --cpu-affinity=0 --cpu-affinity-mode=all --time=1 run")
    assert.are.equal(1, code)
    assert.is_truthy(err:find("Invalid value for the 'cpu-affinity-mode' option: 'all' (expected workers or process)", 1, true), err)
  end)

  -- A control group of its own with a CPU quota and a memory limit (cgroup v1's cpu and memory
  -- controllers, or v2 where its controllers are enabled), made for this test and removed after.
  it("records its control group's CPU and memory limits", function()
    local v1cpu, v1mem = "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory"
    local name = "lbtest" .. tostring(math.random(1e9))
    local v1 = h.sh("test -w " .. v1cpu .. "/cgroup.procs && test -w " .. v1mem .. "/cgroup.procs && echo yes"):find("yes")
    if not v1 then
      pending("no writable cgroup v1 cpu and memory hierarchies here (" .. v1cpu .. ")")
      return
    end
    local cpu_dir, mem_dir = v1cpu .. "/" .. name, v1mem .. "/" .. name
    local json = h.tmpdir() .. "/cgroup.json"
    local ok, res = pcall(function()
      local out, rc = h.sh(string.format([[mkdir %s %s && echo 50000 >%s/cpu.cfs_quota_us &&
echo 100000 >%s/cpu.cfs_period_us && echo 268435456 >%s/memory.limit_in_bytes &&
sh -c 'echo $$ >%s/cgroup.procs; echo $$ >%s/cgroup.procs; exec %s cpu --time=1 --output=%s run']],
        cpu_dir, mem_dir, cpu_dir, cpu_dir, mem_dir, cpu_dir, mem_dir, h.q(h.bin), h.q(json)))
      return { out = out, rc = rc }
    end)
    -- always removed: the groups are empty once the run has ended
    h.sh("rmdir " .. cpu_dir .. " " .. mem_dir)
    assert.is_true(ok, tostring(res))
    assert.are.equal(0, res.rc, res.out)
    local p = h.json(h.read(json)).placement
    assert.are.equal(1, p.cgroup_version)
    assert.are.equal("/" .. name, p.cgroup)
    assert.are.equal("50000 100000", p.cgroup_cpu_max)
    assert.are.equal(0.5, p.cgroup_cpu_limit)
    assert.are.equal(256, p.cgroup_memory_max_mib)
    assert.are.equal(1, p.usable_cpus)
  end)
end)
