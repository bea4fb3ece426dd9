/* The machine a run measured, its fingerprint, recorded in the result file so that a report or
 * a comparison can say what each result ran on and what differs between two: CPU model, count,
 * clocks, instruction-set extensions and caches, NUMA nodes, memory, kernel, clock governor,
 * transparent huge pages, virtualization, and the storage under the run's data. Read once, at
 * the start of a run, from /proc, /sys, uname(), CPUID and /etc/os-release. */
#ifndef LB_SYS_MACHINE_H
#define LB_SYS_MACHINE_H

#include <stdbool.h>

#include "sys/cpucache.h"
#include "sys/storage.h"

struct lb_machine {
	char cpu_model[128];  /* "" when /proc/cpuinfo names none */
	int cpus;             /* online CPUs */
	double mem_total_mib; /* 0 when unknown */
	char kernel[128];     /* uname -sr: "Linux 6.1.0-18-amd64" */
	char arch[32];        /* uname -m */
	char os[128];         /* PRETTY_NAME of os-release, "" when absent */
	char isa[512];        /* extensions of interest, space-separated (cpuinfo.h) */
	double mhz_nominal;   /* cpufreq's base_frequency, else the model name's "@ 2.50GHz"; 0 unknown */
	double mhz_max;       /* cpufreq's cpuinfo_max_freq; 0 unknown */
	char governor[32];    /* cpufreq's scaling_governor of the first CPU luabench may use; "" none */
	char cpufreq_driver[32];
	struct lb_cpucache cache;
	int numa_nodes;       /* 0 unknown */
	char thp[16];         /* transparent_hugepage/enabled: "always", "madvise", "never"; "" unknown */
	char virtualization[64]; /* "none", or who: "kvm", "xen", "vmware", "hyper-v", a DMI vendor ... */
	bool have_storage;
	struct lb_storage storage;
};

/* Fills m; what cannot be read stays empty. proc_root and sys_root are "/proc" and "/sys"
 * unless a test says otherwise; cpu is the CPU whose clock governor and caches count (the first
 * one the process may use). */
void lb_machine_read(struct lb_machine *m, const char *proc_root, const char *sys_root, int cpu);
/* The storage under directory path (sys/storage.h) into m->storage. */
void lb_machine_read_storage(struct lb_machine *m, const char *path, const char *proc_root, const char *sys_root);

/* The command line of this process (proc_root/self/cmdline) as one shell-quoted line, with the
 * value of every option whose name contains "password" replaced by "***". NULL when unreadable;
 * the caller frees. */
char *lb_machine_cmdline(const char *proc_root);

#endif
