-- luabench.internal.fingerprint: the texts `luabench report` shows for where a run ran.
local fp = require("luabench.internal.fingerprint")
local null = luabench.json.null

describe("luabench.internal.fingerprint", function()
  local m = { cpu_model = "Xeon", cpus = 4, memory_mib = 8192, kernel = "Linux 6.1", arch = "x86_64", os = "Debian",
    cpu_mhz_nominal = 2500, cpu_mhz_max = 3900, cpu_mhz_measured = 3100, cpu_isa = "avx2 aes",
    cache_l1d_kib = 48, cache_l1i_kib = 32, cache_l2_kib = 2048, cache_l3_kib = 36864, numa_nodes = 2,
    cpu_governor = "performance", cpufreq_driver = "intel_pstate", thp = "never", virtualization = "none",
    storage_dir = "/data", storage_device = "nvme0n1", storage_model = "SSD 1", storage_rotational = false,
    storage_scheduler = "none", storage_fs = "xfs", storage_mount_point = "/data", storage_mount_options = "rw,noatime",
    storage_source = "/dev/nvme0n1p1" }

  it("says the machine, its CPU and its storage", function()
    assert.are.equal("Xeon, 4 CPUs, 8.0 GiB memory, Linux 6.1 x86_64, Debian", fp.machine(m))
    assert.are.equal("3100 MHz measured (nominal 2500, max 3900), governor performance; L1d 48 KiB, L1i 32 KiB, "
      .. "L2 2 MiB, L3 36 MiB; 2 NUMA nodes; THP never; virtualization none; avx2 aes", fp.cpu(m))
    assert.are.equal("/data: xfs on nvme0n1 (SSD 1, not rotational, scheduler none), mounted on /data rw,noatime",
      fp.storage(m))
  end)

  it("leaves out what the machine did not tell (JSON nulls)", function()
    local v = { cpu_mhz_nominal = null, cpu_mhz_max = null, cpu_mhz_measured = null, cpu_isa = "", cache_l1d_kib = null,
      cache_l1i_kib = null, cache_l2_kib = 1024, cache_l3_kib = null, numa_nodes = null, cpu_governor = null,
      thp = null, virtualization = "kvm", storage_dir = null }
    assert.are.equal("L2 1 MiB; virtualization kvm", fp.cpu(v))
    assert.is_nil(fp.storage(v))
    assert.is_nil(fp.machine(nil))
  end)

  it("says the placement, a busy host and an engine's settings", function()
    local d = { machine = m, placement = { process_cpus = "0", process_cpu_count = 1, cgroup = "/box", cgroup_cpu_max = "50000 100000",
      cgroup_cpu_limit = 0.5, cgroup_memory_max_mib = 256, cpu_affinity_mode = "workers",
      threads = { { thread = 0, cpus = "0", mem_policy = "default", mem_nodes = "" } } },
      host_busy = { cpu_contention = true, steal = true, run_queue_avg = 6, cpus = 4, threads = 2, luabench_cpu_pct = 90,
        capacity_pct = 100, cpu_wait_share_pct = 55, steal_pct = 12 },
      driver_settings = { threads = "2", memory_limit = "1 GiB" } }
    assert.are.equal("process CPUs 0 (1 of 4), cgroup /box cpu.max 50000 100000, memory max 256 MiB; thread 0: CPUs 0, memory default",
      fp.placement(d))
    assert.are.equal("run queue 6.00 > 4 CPUs; luabench 90.0% of the 100% its 2 threads could use, waiting for a CPU 55% "
      .. "of the time; steal 12.0% of all CPUs", fp.busy(d))
    assert.are.equal("memory_limit=1 GiB, threads=2", fp.driver_settings(d))
    assert.is_nil(fp.busy({ host_busy = null }))
    assert.is_nil(fp.placement({}))
  end)
end)
