/* Where worker threads run: --cpu-affinity (threads pinned round-robin to listed CPUs, or with
 * --cpu-affinity-mode=process the whole process given the listed CPUs) and --numa-node (CPUs
 * and memory of one NUMA node, through libnuma), and what each thread really got, read back
 * from the kernel for the result; and what the process was given from outside (its inherited
 * CPU set: taskset, numactl, a container's cpuset; its control group's CPU and memory limits).
 *
 * A thread applies its own placement (affinity and memory policy are per thread), before its
 * Lua state exists, so the state's memory comes from the node asked for. The process-wide mode
 * is applied once, before any command runs, so that every thread made later (an embedded
 * engine's, DuckDB's) inherits it. */
#ifndef LB_SYS_PLACEMENT_H
#define LB_SYS_PLACEMENT_H

#include <stdbool.h>

#include "sys/cgroup.h"

struct lb_opts;

#define LB_PLACE_MAX_CPUS 1024 /* CPU_SETSIZE */
#define LB_PLACE_LIST_BYTES 128

struct lb_place_conf {
	int ncpus;                          /* --cpu-affinity: CPUs in the order given (0 = none) */
	short cpus[LB_PLACE_MAX_CPUS];
	int numa_node;                      /* --numa-node; -1 = none */
	bool process;                       /* --cpu-affinity-mode=process: the whole process, not each worker */
};

/* What one thread got, as the kernel says. */
struct lb_placement {
	bool set;                           /* the thread read it (it ran) */
	char cpus[LB_PLACE_LIST_BYTES];     /* its CPU affinity, as in Cpus_allowed_list ("0-3,8") */
	char mem_policy[16];                /* "default", "bind", "preferred", "interleave", "local" */
	char mem_nodes[LB_PLACE_LIST_BYTES];/* the policy's nodes ("" for default/local) */
};

/* What the process was given, read at the start of a run. */
struct lb_proc_place {
	bool set;                           /* read */
	int online_cpus;                    /* the machine's */
	int ncpus;                          /* CPUs the process may use (sched_getaffinity) */
	int first_cpu;                      /* the lowest of them */
	char cpus[LB_PLACE_LIST_BYTES];     /* them, as Cpus_allowed_list shows them */
	struct lb_cgroup cgroup;            /* its control group's limits */
};

/* Options (group "Placement options") and the configuration read from them. */
int lb_place_register_options(struct lb_opts *opts, char *err, int errlen);
int lb_place_configure(const struct lb_opts *opts, struct lb_place_conf *conf, char *err, int errlen);
static inline bool lb_place_wanted(const struct lb_place_conf *c)
{
	return c->ncpus > 0 || c->numa_node >= 0;
}

/* --cpu-affinity-mode=process: gives every thread of the process (those to come inherit it)
 * the listed CPUs, and with --numa-node binds the process's memory to the node. Does nothing
 * otherwise. 0, or -1 with a one-line reason in err. */
int lb_place_apply_process(const struct lb_place_conf *c, char *err, int errlen);

/* Places the calling thread, the index-th of its kind (round-robin over --cpu-affinity). 0, or
 * -1 with a one-line reason in err. */
int lb_place_apply(const struct lb_place_conf *c, int index, char *err, int errlen);
/* Reads the calling thread's placement. */
void lb_place_read(struct lb_placement *out);
/* Reads what the process was given; proc_root is "/proc" unless a test says otherwise. */
void lb_place_read_process(struct lb_proc_place *out, const char *proc_root);

/* The CPUs a run may really use: those of its CPU set, or fewer under a control group's CPU
 * limit (rounded up: 1.5 CPUs of quota keep 2 threads busy part of the time). */
int lb_place_usable_cpus(const struct lb_proc_place *p);

/* "0-3,8" into cpus (in the order given, ranges ascending): count, or -1 with err. */
int lb_cpulist_parse(const char *s, short *cpus, int max, char *err, int errlen);

#endif
