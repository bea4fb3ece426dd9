/* /sys/devices/system/cpu/cpuN/cache/indexM: the sizes of the caches a CPU sees, by level and
 * kind. */
#ifndef LB_SYS_CPUCACHE_H
#define LB_SYS_CPUCACHE_H

struct lb_cpucache {
	double l1d_kib, l1i_kib, l2_kib, l3_kib; /* 0 when the kernel does not say */
};

void lb_cpucache_read(const char *sys_root, int cpu, struct lb_cpucache *out);

/* "48K", "2048K", "32M", "1024" (bytes) in KiB; 0 when not a size. */
double lb_cpucache_size_kib(const char *text);

#endif
