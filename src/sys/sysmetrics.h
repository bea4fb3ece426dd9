/* System metrics beside the results: what `sar` and `iostat` would show next to a benchmark.
 *
 * Machine CPU (user/system/iowait/steal/idle), context switches, run queue, load and memory come
 * from /proc; the luabench process's CPU from getrusage(); per-device IOPS, MiB/s, queue size and
 * utilisation from /proc/diskstats; per-interface traffic and TCP retransmits from /proc/net
 * (netstats.h); optionally the CPU of local database server processes chosen
 * by pid (with their descendants, e.g. PostgreSQL's backends) or by name.
 *
 * Only the monitor thread samples (once per report interval, and at window boundaries), so the
 * workers' hot path never sees any of this. All functions take the time of the reading from the
 * caller, and the /proc and /sys roots are configurable, so the arithmetic can be tested on
 * fabricated files. */
#ifndef LB_SYS_SYSMETRICS_H
#define LB_SYS_SYSMETRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/netstats.h"

struct lb_opts;

#define LB_SYS_MAX_WATCH 32
#define LB_SYS_NAME_BYTES 32

/* Machine CPU states, in /proc/stat order. */
enum lb_sys_cpu {
	LB_SYS_USER, LB_SYS_NICE, LB_SYS_SYSTEM, LB_SYS_IDLE, LB_SYS_IOWAIT,
	LB_SYS_IRQ, LB_SYS_SOFTIRQ, LB_SYS_STEAL, LB_SYS_CPU_N,
};

struct lb_sys_conf {
	bool enabled;                 /* --system-stats */
	bool report;                  /* --report-system */
	int npids, nnames;
	int pids[LB_SYS_MAX_WATCH];   /* --db-server-pid */
	const char *names[LB_SYS_MAX_WATCH]; /* --db-server-name (point into the options) */
	const char *proc_root;        /* "/proc" unless a test says otherwise */
	const char *sys_root;         /* "/sys" */
};

/* One block device over an interval. */
struct lb_sys_disk {
	char name[LB_SYS_NAME_BYTES];
	bool physical;                /* backed by a device (not loop, ram, zram, dm, md) */
	uint64_t reads, writes, flushes; /* requests completed in the interval */
	double reads_per_s, writes_per_s, flushes_per_s;
	double read_mib_per_s, write_mib_per_s;
	double avg_queue;             /* average requests in flight (iostat's aqu-sz) */
	double util_pct;              /* share of the time the device was busy */
	double read_await_ms, write_await_ms;
};

/* Everything measured over one interval (or one statistics window). */
struct lb_sys_sample {
	double interval_s;
	int cpus;
	bool have_cpu;                /* /proc/stat was readable */
	double cpu_pct[LB_SYS_CPU_N]; /* % of all CPUs together (they add up to 100) */
	double ctxt_per_s;
	double run_queue_avg;         /* runnable tasks (sampling thread excluded), over the readings */
	unsigned run_queue_max, blocked;
	double load[3];
	double mem_total_mib, mem_used_mib, mem_available_mib, mem_cached_mib, mem_dirty_mib;
	double swap_used_mib;
	double proc_user_pct, proc_system_pct; /* luabench, % of one CPU (200 = two busy cores) */
	double proc_vcs_per_s, proc_ivcs_per_s;
	double proc_rss_mib;
	/* Windows only (an interval leaves them 0): luabench's threads' time runnable but waiting
	 * for a CPU (schedstat's run_delay), in % of one CPU and as a share of their runnable time
	 * (running + waiting); have_sched false when the kernel keeps no such statistics. */
	bool have_sched;
	double proc_cpu_wait_pct, proc_cpu_wait_share_pct;
	double cpu_mhz;               /* mean clock of the CPUs luabench may use (cpufreq, else
	                               * /proc/cpuinfo) over the readings; 0 unknown */
	bool db;                      /* --db-server-pid/--db-server-name given */
	int db_processes;             /* matching processes at the end of the interval */
	double db_user_pct, db_system_pct; /* % of one CPU; NAN when no process matched */
	int ndisks;
	struct lb_sys_disk *disks;    /* owned */
	struct lb_sys_net net;        /* interfaces with traffic, TCP retransmits (owned) */
};

struct lb_sysmon;

/* Options (group "System metrics options") and the configuration read from them. */
int lb_sysmon_register_options(struct lb_opts *opts, char *err, int errlen);
int lb_sysmon_configure(const struct lb_opts *opts, struct lb_sys_conf *conf, char *err, int errlen);

/* NULL when conf->enabled is false; every function below accepts NULL and does nothing. */
struct lb_sysmon *lb_sysmon_new(const struct lb_sys_conf *conf);
void lb_sysmon_free(struct lb_sysmon *m);
/* The first reading: start of the run (intervals and the statistics window count from here). */
void lb_sysmon_start(struct lb_sysmon *m, int64_t now_ns);
/* Samples the interval since the previous sample; returns its index for lb_sysmon_at(), or -1. */
int lb_sysmon_sample(struct lb_sysmon *m, int64_t now_ns);
const struct lb_sys_sample *lb_sysmon_at(const struct lb_sysmon *m, int index);
/* A new statistics window starts now (end of warm-up, checkpoint). */
void lb_sysmon_new_window(struct lb_sysmon *m, int64_t now_ns);
/* Whether database server processes are watched (--db-server-pid/--db-server-name). */
bool lb_sysmon_watches_procs(const struct lb_sysmon *m);
/* Adds the CPU the watched processes used so far to the totals, without a sample: called
 * before a worker closes its connections, whose server processes exit and take their CPU
 * time with them (the next reading would no longer see it). */
void lb_sysmon_note_procs(struct lb_sysmon *m);
/* The run is over: later windows end at this reading. `ended` holds the schedstat figures the
 * threads that ended before it read as they left (sys/schedstat.h), NULL when none. */
struct lb_task_sched;
void lb_sysmon_stop(struct lb_sysmon *m, int64_t now_ns, const struct lb_task_sched *ended, int nended);
/* Fills `out` with the current window up to now (or the stop); false (and nothing to free) without a monitor. */
bool lb_sysmon_window(struct lb_sysmon *m, int64_t now_ns, struct lb_sys_sample *out);
void lb_sys_sample_fini(struct lb_sys_sample *s);

#endif
