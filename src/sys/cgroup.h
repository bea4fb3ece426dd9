/* The control group limits a process runs under: /proc/self/cgroup names its group, the
 * cgroup v2 files cpu.max and memory.max (or v1's cpu.cfs_quota_us / cpu.cfs_period_us and
 * memory.limit_in_bytes) hold its CPU and memory limits. A container's or a systemd slice's
 * limit is below the machine's CPUs and memory: a result records it beside them. */
#ifndef LB_SYS_CGROUP_H
#define LB_SYS_CGROUP_H

struct lb_cgroup {
	int version;             /* 2, 1, or 0 when the process's group cannot be found */
	char path[256];          /* the group, as /proc/self/cgroup names it ("/user.slice/..."); v1: the cpu controller's */
	char cpu_max[64];        /* v2 cpu.max as written ("max 100000", "50000 100000"); v1 "QUOTA PERIOD" */
	double cpu_limit;        /* quota / period in CPUs, the tightest from the group up to the root; 0 = none */
	double memory_max_mib;   /* the tightest memory.max (v1 memory.limit_in_bytes) up to the root; 0 = none */
};

/* Reads the calling process's limits: its groups from proc_root ("/proc"), the mount points of
 * the cgroup filesystems from its mountinfo, and their files under fs_root + mount point
 * (fs_root "" but in a test). */
void lb_cgroup_read(const char *proc_root, const char *fs_root, struct lb_cgroup *out);

/* A cpu.max text in CPUs: "50000 100000" -> 0.5, "max 100000" -> 0 (none), -1 when not one. */
double lb_cgroup_cpu_max_cpus(const char *text);

#endif
