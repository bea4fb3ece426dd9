/* The machine fingerprint's parsers on fabricated /proc and /sys trees and texts: cpuinfo (x86
 * and arm64), cpufreq, caches, NUMA nodes, THP, mountinfo, storage, cgroup v2 and v1 limits,
 * schedstat readings and the busy-host rule. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "fake_tree.h"
#include "sys/cgroup.h"
#include "sys/cpucache.h"
#include "sys/cpufreq.h"
#include "sys/cpuinfo.h"
#include "sys/hostbusy.h"
#include "sys/machine.h"
#include "sys/mountinfo.h"
#include "sys/schedstat.h"
#include "sys/storage.h"
#include "sys/sysfile.h"


static char *sub(const char *rel)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

static const char X86[] =
	"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n"
	"cpu MHz\t\t: 3100.000\nflags\t\t: fpu sse4_2 avx avx2 hypervisor aes avx512f avx512bw sha_ni amx_tile xsave\n\n"
	"processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\ncpu MHz\t\t: 2900.000\n"
	"flags\t\t: fpu sse4_2 avx avx2 hypervisor aes avx512f avx512bw sha_ni amx_tile xsave\n\n"
	"processor\t: 2\ncpu MHz\t\t: 1000.000\n\n";

static const char ARM[] =
	"processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics sve sve2\n"
	"CPU implementer\t: 0x41\n\nprocessor\t: 1\nFeatures\t: fp asimd aes\n";

static void test_cpuinfo(void)
{
	struct lb_cpuinfo ci;
	lb_cpuinfo_parse(X86, NULL, 0, &ci);
	is_str(ci.model, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", "x86 model name");
	is_str(ci.isa, "sse4_2 avx avx2 aes avx512f avx512bw sha_ni amx_tile", "x86 extensions of interest, in order");
	ok(ci.hypervisor, "the hypervisor flag");
	is_int(ci.processors, 3, "processors counted");
	ok(fabs(ci.mhz - 7000.0 / 3) < 1e-9, "mean clock of all processors (%g)", ci.mhz);
	unsigned char use[4] = { 1, 1, 0, 0 };
	ok(fabs(lb_cpuinfo_mhz(X86, use, 4) - 3000) < 1e-9, "mean clock of the processors in use");
	ok(lb_cpuinfo_mhz("model name: x\n", NULL, 0) == 0, "no clock: 0");
	ok(fabs(lb_cpuinfo_model_mhz(ci.model) - 2500) < 1e-9, "nominal clock from the model name");
	ok(lb_cpuinfo_model_mhz("AMD EPYC 7B13") == 0, "a model without a clock: 0");
	ok(fabs(lb_cpuinfo_model_mhz("Something @ 800MHz") - 800) < 1e-9, "MHz in a model name");
	lb_cpuinfo_parse(ARM, NULL, 0, &ci);
	is_str(ci.model, "", "arm64: no model name");
	is_str(ci.isa, "asimd aes pmull sha1 sha2 crc32 atomics sve sve2", "arm64 features of the first CPU");
	ok(!ci.hypervisor, "no hypervisor flag on arm64");
}

static void test_sysfs(void)
{
	put("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/scaling_driver", "intel_pstate\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/base_frequency", "2500000\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3900000\n");
	put("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "3000000\n");
	put("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2000000\n");
	put("sys/devices/system/cpu/cpu2/cpufreq/scaling_cur_freq", "1000000\n");
	struct lb_cpufreq f;
	lb_cpufreq_read(sub("sys"), 0, &f);
	is_str(f.governor, "performance", "governor");
	is_str(f.driver, "intel_pstate", "driver");
	ok(f.base_mhz == 2500 && f.max_mhz == 3900, "base and max clocks in MHz (%g, %g)", f.base_mhz, f.max_mhz);
	unsigned char use[3] = { 1, 1, 0 };
	ok(lb_cpufreq_cur_mhz(sub("sys"), use, 3) == 2500, "current clock: the mean of the CPUs in use");
	ok(lb_cpufreq_cur_mhz(sub("sys"), NULL, 3) == 2000, "current clock: all CPUs");
	ok(lb_cpufreq_cur_mhz(sub("none"), NULL, 3) == 0, "no cpufreq: 0");
	lb_cpufreq_read(sub("none"), 0, &f);
	ok(!f.governor[0] && f.base_mhz == 0, "no cpufreq: nothing");

	const char *types[][3] = { { "1", "Data", "48K" }, { "1", "Instruction", "32K" }, { "2", "Unified", "2048K" },
				   { "3", "Unified", "36M" } };
	for (int i = 0; i < 4; i++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		put(rel, "%s\n", types[i][0]);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		put(rel, "%s\n", types[i][1]);
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		put(rel, "%s\n", types[i][2]);
	}
	struct lb_cpucache c;
	lb_cpucache_read(sub("sys"), 0, &c);
	ok(c.l1d_kib == 48 && c.l1i_kib == 32 && c.l2_kib == 2048 && c.l3_kib == 36 * 1024,
	   "cache sizes by level and kind (%g %g %g %g)", c.l1d_kib, c.l1i_kib, c.l2_kib, c.l3_kib);
	ok(lb_cpucache_size_kib("2048") == 2 && lb_cpucache_size_kib("x") == 0, "sizes in bytes and nonsense");

	put("sys/devices/system/node/online", "0-1,3\n");
	put("sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put("proc/cpuinfo", "%s", X86);
	put("proc/meminfo", "MemTotal: 2097152 kB\n");
	struct lb_machine m;
	lb_machine_read(&m, sub("proc"), sub("sys"), 0);
	is_int(m.numa_nodes, 3, "NUMA nodes counted from the online list");
	is_str(m.thp, "madvise", "THP: the selected mode");
	ok(m.mhz_nominal == 2500 && m.mhz_max == 3900, "machine: nominal and max clocks");
	is_str(m.governor, "performance", "machine: governor");
	ok(m.mem_total_mib == 2048, "machine: memory");
	ok(m.cache.l3_kib == 36 * 1024, "machine: caches");
	ok(m.virtualization[0] != '\0', "machine: virtualization says something (%s)", m.virtualization);
	is_int(lb_sysfile_list_count("0-3,8\n"), 5, "list count");
	is_int(lb_sysfile_list_count("0-x"), -1, "not a list");
	char sel[32];
	lb_sysfile_selected("none [mq-deadline] kyber", sel, sizeof(sel));
	is_str(sel, "mq-deadline", "the selected scheduler");
}

static const char MOUNTS[] =
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
	"40 27 259:2 / /data rw,noatime shared:5 - xfs /dev/nvme0n1p2 rw,attr2,inode64\n"
	"41 40 259:2 /sub /data/my\\040dir rw,noatime - xfs /dev/nvme0n1p2 rw,attr2\n"
	"50 27 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	"51 27 0:31 / /v1/memory rw - cgroup cgroup rw,memory\n"
	"52 27 0:32 / /v1/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n";

static void test_mountinfo(void)
{
	struct lb_mount m;
	ok(lb_mountinfo_find(MOUNTS, 259, 2, "/data/x/y", &m), "the mount of a path");
	is_str(m.point, "/data", "its mount point");
	is_str(m.fs_type, "xfs", "its type");
	is_str(m.source, "/dev/nvme0n1p2", "its source");
	is_str(m.options, "rw,noatime,attr2,inode64", "the mount's and the filesystem's options, each once");
	ok(lb_mountinfo_find(MOUNTS, 259, 2, "/data/my dir/f", &m) && !strcmp(m.point, "/data/my dir"),
	   "the longest mount point, with an escaped blank");
	ok(!lb_mountinfo_find(MOUNTS, 259, 2, "/database", &m), "a prefix is not a parent directory");
	ok(lb_mountinfo_find(MOUNTS, 254, 0, "/home/u", &m) && !strcmp(m.point, "/"), "the root mount");
	ok(lb_mountinfo_find_type(MOUNTS, "cgroup", "memory", &m) && !strcmp(m.point, "/v1/memory"), "a mount by type and option");
	ok(!lb_mountinfo_find_type(MOUNTS, "btrfs", NULL, &m), "no mount of a type");
}

static void test_storage(void)
{
	/* The real filesystem of the test directory: a device or not, but its mount is found. */
	struct lb_storage s;
	ok(lb_storage_read(root, "/proc", "/sys", &s), "storage of a real directory");
	ok(s.have_mount && s.mount.fs_type[0] && s.mount.point[0] == '/', "its mount (%s on %s)", s.mount.fs_type,
	   s.mount.point);
	ok(!lb_storage_read("/nonexistent/dir", "/proc", "/sys", &s) && !strcmp(s.path, "/nonexistent/dir"),
	   "a missing directory: false, the path kept");
}

static void test_cgroup(void)
{
	/* v2: the group's cpu.max and the parent's tighter memory.max */
	put("cg2/proc/self/cgroup", "0::/work.slice/bench.scope\n");
	char mounts[1024];
	snprintf(mounts, sizeof(mounts), "50 27 0:30 / /fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put("cg2/proc/self/mountinfo", "%s", mounts);
	put("cg2/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
	put("cg2/fs/cgroup/work.slice/bench.scope/cpu.max", "150000 100000\n");
	put("cg2/fs/cgroup/work.slice/bench.scope/memory.max", "max\n");
	put("cg2/fs/cgroup/work.slice/cpu.max", "max 100000\n");
	put("cg2/fs/cgroup/work.slice/memory.max", "1073741824\n");
	struct lb_cgroup g;
	lb_cgroup_read(sub("cg2/proc"), sub("cg2"), &g);
	is_int(g.version, 2, "v2");
	is_str(g.path, "/work.slice/bench.scope", "the group");
	is_str(g.cpu_max, "150000 100000", "the group's cpu.max as written");
	ok(g.cpu_limit == 1.5, "1.5 CPUs of quota (%g)", g.cpu_limit);
	ok(g.memory_max_mib == 1024, "the parent's memory.max (%g MiB)", g.memory_max_mib);

	/* v1 (a hybrid machine: v2 mounted with no controllers) */
	put("cg1/proc/self/cgroup", "9:name=systemd:/\n4:memory:/box\n1:cpu,cpuacct:/box\n0::/\n");
	put("cg1/proc/self/mountinfo", "%s", MOUNTS);
	put("cg1/sys/fs/cgroup/cgroup.controllers", "\n");
	put("cg1/v1/memory/box/memory.limit_in_bytes", "536870912\n");
	put("cg1/v1/memory/memory.limit_in_bytes", "9223372036854771712\n");
	put("cg1/v1/cpu,cpuacct/box/cpu.cfs_quota_us", "-1\n");
	put("cg1/v1/cpu,cpuacct/box/cpu.cfs_period_us", "100000\n");
	lb_cgroup_read(sub("cg1/proc"), sub("cg1"), &g);
	is_int(g.version, 1, "v1 when v2 has no controllers");
	ok(g.memory_max_mib == 512, "v1 memory limit (%g MiB), the root's 'unlimited' ignored", g.memory_max_mib);
	ok(g.cpu_limit == 0, "no CPU quota (-1)");
	is_str(g.cpu_max, "max 100000", "v1 quota written as cpu.max");

	lb_cgroup_read(sub("nothing"), "", &g);
	is_int(g.version, 0, "no cgroup files: version 0");
	ok(lb_cgroup_cpu_max_cpus("max 100000") == 0 && lb_cgroup_cpu_max_cpus("x") == -1, "cpu.max texts");
}

static void test_schedstat(void)
{
	uint64_t run, wait;
	ok(lb_schedstat_parse("123 456 7\n", &run, &wait) && run == 123 && wait == 456, "schedstat text");
	struct lb_task_sched a[] = { { 10, 100, 10 }, { 11, 200, 20 }, { 12, 300, 30 } };
	struct lb_task_sched b[] = { { 11, 260, 50 }, { 12, 400, 30 }, { 13, 999, 999 } };
	lb_schedstat_diff(a, 3, b, 3, &run, &wait);
	ok(run == 160 && wait == 30, "only threads in both readings count (run %llu, wait %llu)",
	   (unsigned long long)run, (unsigned long long)wait);
	struct lb_task_sched *v = malloc(sizeof(b));
	memcpy(v, b, sizeof(b));
	int cap = 3;
	struct lb_task_sched ended[] = { { 10, 150, 40 }, { 12, 1, 1 } };
	int n = lb_schedstat_merge(&v, 3, &cap, ended, 2);
	is_int(n, 4, "an ended thread is added, a present one kept");
	ok(v[0].tid == 10 && v[0].run_ns == 150 && v[2].tid == 12 && v[2].run_ns == 400, "sorted, the reading wins");
	free(v);
	struct lb_task_sched self;
	ok(lb_schedstat_self("/proc", &self) && self.tid == (int)getpid(), "this thread's own figures");
	struct lb_task_sched *all = NULL;
	int allcap = 0;
	ok(lb_schedstat_read("/proc", &all, &allcap) >= 1, "this process's threads");
	free(all);
}

static void test_busy(void)
{
	struct lb_sys_sample s = { .have_cpu = true, .cpus = 2, .run_queue_avg = 6, .proc_user_pct = 90,
				   .proc_system_pct = 10, .have_sched = true, .proc_cpu_wait_share_pct = 50 };
	s.cpu_pct[LB_SYS_USER] = 100;
	struct lb_host_busy b;
	ok(lb_host_busy_judge(&s, 2, 2, &b) && b.busy && b.cpu_contention, "run queue over the CPUs, half the capacity, waits: busy");
	ok(b.capacity_pct == 200 && b.luabench_cpu_pct == 100, "capacity and use");
	s.proc_user_pct = 150;
	s.proc_system_pct = 10;
	ok(lb_host_busy_judge(&s, 2, 2, &b) && !b.busy, "luabench got 80 %% of what it could use: not busy");
	s.proc_user_pct = 90;
	s.proc_cpu_wait_share_pct = 5;
	ok(lb_host_busy_judge(&s, 2, 2, &b) && !b.busy, "its threads hardly waited (I/O-bound): not busy");
	s.proc_cpu_wait_share_pct = 50;
	s.run_queue_avg = 1.5;
	ok(lb_host_busy_judge(&s, 2, 2, &b) && !b.busy, "run queue within the CPUs: not busy");
	s.run_queue_avg = 6;
	ok(lb_host_busy_judge(&s, 8, 1, &b) && b.capacity_pct == 100, "capacity counts the usable CPUs");
	s.db = true;
	s.db_user_pct = 90;
	s.cpu_pct[LB_SYS_USER] = 95;
	s.cpu_pct[LB_SYS_IDLE] = 5;
	ok(lb_host_busy_judge(&s, 2, 2, &b) && !b.busy && b.have_others && b.others_cpu_pct < 1,
	   "the watched server took the rest: not busy (others %.1f)", b.others_cpu_pct);
	s.db = false;
	s.run_queue_avg = 0;
	s.cpu_pct[LB_SYS_STEAL] = 12;
	ok(lb_host_busy_judge(&s, 2, 2, &b) && b.busy && b.steal && !b.cpu_contention, "steal above 10 %%: busy");
	s.have_cpu = false;
	ok(!lb_host_busy_judge(&s, 2, 2, &b) && !b.busy, "no CPU figures: cannot tell");
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/lb_machine_test.%d", (int)getpid());
	mkdir(root, 0755);
	test_cpuinfo();
	test_sysfs();
	test_mountinfo();
	test_storage();
	test_cgroup();
	test_schedstat();
	test_busy();
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
	return done_testing();
}
