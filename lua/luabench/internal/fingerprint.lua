-- What a result says about where it ran, as short texts for `luabench report`: the machine's
-- fingerprint (CPU, clocks, caches, storage), the process's placement, a busy host, an embedded
-- engine's settings. Every function takes a result document and returns nil when it says nothing.
local M = {}

-- The parts that say something (a list with holes: nil and false are skipped), joined.
local function join(parts, sep)
  local t = {}
  for i = 1, table.maxn(parts) do
    local p = parts[i]
    if p and p ~= "" then t[#t + 1] = p end
  end
  return #t > 0 and table.concat(t, sep or ", ") or nil
end

local function known(v)
  return v ~= nil and v ~= (luabench and luabench.json and luabench.json.null) and type(v) ~= "userdata"
end

local function kib(v)
  if not known(v) then return nil end
  if v >= 1024 and v % 1024 == 0 then return string.format("%g MiB", v / 1024) end
  return string.format("%g KiB", v)
end

-- "Intel(R) Xeon(R) Processor, 2 CPUs, 23.5 GiB memory, Linux 6.1 x86_64, Debian 12"
function M.machine(m)
  if type(m) ~= "table" then return nil end
  return join({
    m.cpu_model,
    m.cpus and (m.cpus .. " CPUs"),
    m.memory_mib and string.format("%.1f GiB memory", m.memory_mib / 1024),
    m.kernel and m.kernel ~= "" and (m.kernel .. (m.arch and " " .. m.arch or "")),
    m.os,
  })
end

-- "2600 MHz measured (nominal 2500, max 3900), governor performance; L1d 48 KiB, L1i 32 KiB, L2
-- 2 MiB, L3 36 MiB; 1 NUMA node; THP madvise; virtualization kvm; avx2 avx512f ... sha_ni"
function M.cpu(m)
  if type(m) ~= "table" then return nil end
  local clocks = {}
  if known(m.cpu_mhz_nominal) then clocks[#clocks + 1] = "nominal " .. m.cpu_mhz_nominal end
  if known(m.cpu_mhz_max) then clocks[#clocks + 1] = "max " .. m.cpu_mhz_max end
  local clock = known(m.cpu_mhz_measured) and (m.cpu_mhz_measured .. " MHz measured"
    .. (#clocks > 0 and " (" .. table.concat(clocks, ", ") .. ")" or ""))
    or (#clocks > 0 and table.concat(clocks, ", ") .. " MHz") or nil
  local caches = join({
    known(m.cache_l1d_kib) and "L1d " .. kib(m.cache_l1d_kib), known(m.cache_l1i_kib) and "L1i " .. kib(m.cache_l1i_kib),
    known(m.cache_l2_kib) and "L2 " .. kib(m.cache_l2_kib), known(m.cache_l3_kib) and "L3 " .. kib(m.cache_l3_kib),
  })
  return join({
    join({ clock, known(m.cpu_governor) and "governor " .. m.cpu_governor }),
    caches,
    known(m.numa_nodes) and (m.numa_nodes .. " NUMA node" .. (m.numa_nodes == 1 and "" or "s")),
    known(m.thp) and "THP " .. m.thp,
    known(m.virtualization) and "virtualization " .. m.virtualization,
    known(m.cpu_isa) and m.cpu_isa ~= "" and m.cpu_isa,
  }, "; ")
end

-- "/data: xfs on nvme0n1 (Samsung SSD 980 PRO, not rotational, scheduler none), mounted on /data
-- rw,noatime"
function M.storage(m)
  if type(m) ~= "table" or not known(m.storage_dir) then return nil end
  local dev = known(m.storage_device) and (m.storage_device .. " (" .. join({
    known(m.storage_model) and m.storage_model,
    known(m.storage_rotational) and (m.storage_rotational and "rotational" or "not rotational"),
    known(m.storage_scheduler) and "scheduler " .. m.storage_scheduler,
  }) .. ")") or nil
  return m.storage_dir .. ": " .. (join({
    known(m.storage_fs) and (m.storage_fs .. (dev and " on " .. dev or "")),
    known(m.storage_mount_point) and ("mounted on " .. m.storage_mount_point
      .. (known(m.storage_mount_options) and " " .. m.storage_mount_options or "")),
  }) or "unknown")
end

-- "process CPUs 0 (1 of 2), cgroup /x cpu.max 50000 100000, memory max 256 MiB; thread 0: CPUs 0, memory default"
function M.placement(d)
  local p = d.placement
  if type(p) ~= "table" then return nil end
  local head = nil
  if p.process_cpus then
    local m = type(d.machine) == "table" and d.machine.cpus
    head = "process CPUs " .. p.process_cpus .. " (" .. tostring(p.process_cpu_count)
      .. (m and " of " .. m or "") .. ")"
    if known(p.cgroup) then
      head = head .. ", cgroup " .. p.cgroup .. (join({
        known(p.cgroup_cpu_limit) and " cpu.max " .. p.cgroup_cpu_max,
        known(p.cgroup_memory_max_mib) and " memory max " .. p.cgroup_memory_max_mib .. " MiB",
      }, ",") or "")
    end
    if p.cpu_affinity_mode == "process" then head = head .. ", --cpu-affinity-mode=process" end
  end
  local threads = {}
  for _, t in ipairs(p.threads or {}) do
    threads[#threads + 1] = string.format("thread %s: CPUs %s, memory %s%s", tostring(t.thread), t.cpus or "?",
      t.mem_policy or "?", (t.mem_nodes or "") ~= "" and " " .. t.mem_nodes or "")
  end
  return join({ head, join(threads, "; ") }, "; ")
end

-- "run queue 12.1 > 2 CPUs; luabench 12.5 % of the 200 % its 2 threads could use, waiting for a
-- CPU 87 % of the time"
function M.busy(d)
  local b = d.host_busy
  if type(b) ~= "table" then return nil end
  local parts = {}
  if b.cpu_contention then
    parts[#parts + 1] = string.format("run queue %.2f > %d CPUs; luabench %.1f%% of the %.0f%% its %d thread%s could use%s",
      b.run_queue_avg, b.cpus, b.luabench_cpu_pct, b.capacity_pct, b.threads, b.threads == 1 and "" or "s",
      known(b.cpu_wait_share_pct) and string.format(", waiting for a CPU %.0f%% of the time", b.cpu_wait_share_pct) or "")
  end
  if b.steal then parts[#parts + 1] = string.format("steal %.1f%% of all CPUs", b.steal_pct) end
  return join(parts, "; ")
end

-- "threads=2, memory_limit=18.8 GiB, ..." in name order
function M.driver_settings(d)
  local s = d.driver_settings
  if type(s) ~= "table" then return nil end
  local names = {}
  for k in pairs(s) do names[#names + 1] = k end
  table.sort(names)
  for i, k in ipairs(names) do names[i] = k .. "=" .. tostring(s[k]) end
  return join(names)
end

return M
