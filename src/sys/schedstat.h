/* /proc/self/task/TID/schedstat: for each thread of this process, the time it ran and the time
 * it spent runnable, waiting for a CPU (the scheduler's run_delay). A thread's wait is the
 * direct measure of a busy host: its work was ready and no CPU took it. */
#ifndef LB_SYS_SCHEDSTAT_H
#define LB_SYS_SCHEDSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct lb_task_sched {
	int tid;
	uint64_t run_ns, wait_ns;
};

/* The threads' figures, sorted by tid, into *v (grown as needed; *cap its room). The number of
 * threads read, or -1 when the kernel keeps no such statistics (no file readable). */
int lb_schedstat_read(const char *proc_root, struct lb_task_sched **v, int *cap);

/* The calling thread's own figures (proc_root/thread-self/schedstat); false when unreadable. A
 * thread about to end reads them, so that a reading taken after it is gone still counts it. */
bool lb_schedstat_self(const char *proc_root, struct lb_task_sched *out);

/* Adds to the reading *v (n of them, room *cap) the threads of `extra` it lacks; keeps it
 * sorted. Returns the new count. */
int lb_schedstat_merge(struct lb_task_sched **v, int n, int *cap, const struct lb_task_sched *extra, int nextra);

/* One schedstat text ("RUN_NS WAIT_NS SLICES"): false when not one. */
bool lb_schedstat_parse(const char *text, uint64_t *run_ns, uint64_t *wait_ns);

/* What the threads present in both readings (by tid) did between them: threads that came or
 * went in between are left out, so that a thread's whole life is never counted as one step. */
void lb_schedstat_diff(const struct lb_task_sched *a, int na, const struct lb_task_sched *b, int nb,
		       uint64_t *run_ns, uint64_t *wait_ns);

#endif
