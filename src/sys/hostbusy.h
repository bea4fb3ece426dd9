/* Whether the host was too busy for a run's figures to describe the system under test: the
 * rule that names a busy host in the report (doc/results.md §4.9.1), applied to a window's
 * system metrics.
 *
 * A run competes for CPUs when more tasks were runnable than the machine has CPUs (the run
 * queue), luabench's own threads got well below the CPU time they could have used, and they
 * spent a good part of their runnable time waiting for a CPU (schedstat); when the database
 * server's processes are watched, other processes must also have used a CPU's worth, so that a
 * local server the run drives is not counted as someone else's load. A virtual machine's host
 * is busy when the hypervisor kept a tenth of the CPUs' time (steal). */
#ifndef LB_SYS_HOSTBUSY_H
#define LB_SYS_HOSTBUSY_H

#include <stdbool.h>

#include "sys/sysmetrics.h"

/* The thresholds of the rule. */
#define LB_BUSY_CAPACITY_SHARE 0.75  /* luabench below 3/4 of what its threads could use */
#define LB_BUSY_WAIT_SHARE_PCT 20.0  /* its threads waited for a CPU 20 % of their runnable time */
#define LB_BUSY_OTHERS_PCT 50.0      /* other processes used half a CPU (server watched) */
#define LB_BUSY_STEAL_PCT 10.0       /* the hypervisor kept 10 % of all CPUs' time */

struct lb_host_busy {
	bool busy;                   /* cpu_contention || steal */
	bool cpu_contention, steal;
	int cpus;                    /* the machine's */
	int usable_cpus;             /* luabench's CPU set, under its control group's limit */
	int threads;                 /* worker threads */
	double run_queue_avg;
	double luabench_cpu_pct;     /* user + system, % of one CPU */
	double capacity_pct;         /* what its threads could use: min(threads, usable) x 100 */
	bool have_wait;
	double wait_share_pct;       /* its threads' time waiting for a CPU, % of their runnable time */
	bool have_others;            /* the database server's processes were watched */
	double others_cpu_pct;       /* the machine's busy CPU less luabench's and the server's, % of one CPU */
	double steal_pct;            /* % of all CPUs' time */
};

/* Applies the rule to a window's sample s of a run with `threads` workers that may use
 * usable_cpus CPUs. False (and out->busy false) when s cannot tell (no CPU figures). */
bool lb_host_busy_judge(const struct lb_sys_sample *s, int threads, int usable_cpus, struct lb_host_busy *out);

#endif
