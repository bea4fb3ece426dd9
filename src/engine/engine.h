/* The run lifecycle: configuration from the general options, worker threads, start barrier,
 * time/event limits, warm-up, checkpoints, forced shutdown, and the final report. */
#ifndef LB_ENGINE_H
#define LB_ENGINE_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/opt.h"
#include "engine/rand.h"
#include "engine/arrivals.h"
#include "engine/stats.h"
#include "sys/sysmetrics.h"

struct lb_worker;
struct lb_vm;
struct lb_script;

#define LB_MAX_PERCENTILES 32
/* Statements (and users' events) still running this long after the time limit are abandoned, so
 * a hung server can't keep a run alive; --forced-shutdown can cut it shorter. */
#define LB_STOP_GRACE_NS (5 * 1000000000LL)
#define LB_MAX_CHECKPOINTS 256

enum lb_format { LB_FORMAT_TEXT, LB_FORMAT_JSON, LB_FORMAT_CSV };

/* Settings derived from the options; fixed once the run starts. */
struct lb_config {
	int threads;
	int64_t time_ns;            /* 0 = no time limit */
	uint64_t events;            /* 0 = no event limit */
	double rate;                /* events/s, 0 = closed loop */
	bool rate_constant;         /* --rate-arrival=constant */
	int64_t report_interval_ns;
	int64_t warmup_ns;
	int64_t checkpoints_ns[LB_MAX_CHECKPOINTS];
	int ncheckpoints;
	struct lb_sys_conf sys;     /* --system-stats, --report-system, --db-server-* */
	double start_at;            /* --start-at: wall-clock start, s since the epoch (0 = now) */
#define LB_START_AT_TOLERANCE_S 1.0 /* how late a process may reach --start-at */
	int instance, instances;    /* --instance=i/n (0/1 when not given) */
	int64_t forced_shutdown_ns; /* after the time limit; -1 = off */
	int64_t thread_init_timeout_ns;
	uint64_t thread_stack_bytes;
	double percentiles[LB_MAX_PERCENTILES];
	int npercentiles;           /* 0 = percentiles disabled (--percentile=0) */
	bool histogram;
	bool debug;
	bool validate;
	enum lb_format format;
	const char *output_path;    /* --output, NULL = none */
	struct lb_rand_conf rand;
	bool seed_from_time;
	int users;                  /* --users: emulated users (0 = one per thread) */
	int connections;            /* --connections: pool size per process (0 = one per user) */
	int64_t ramp_up_ns;         /* --ramp-up over this long (0 = all at once) */
	double ramp_rate_per_ns;    /* --ramp-up N/min: users started per ns (0 = unused) */
	bool db_debug;              /* --db-debug: log every statement */
	int64_t db_reconnect_ns;    /* --db-reconnect-timeout */
};

/* One intermediate sample kept for the JSON/CSV time series. */
struct lb_interval {
	double time_s, interval_s;
	int threads_running;
	uint64_t cnt[LB_CNT_MAX];
	double lat_pct_ms[LB_MAX_PERCENTILES];
	double lat_max_ms;
	uint64_t queue_length;
	uint32_t concurrency;
	double lag_ms;
	uint64_t type_done[LB_MAX_TYPES];
	int sys;                    /* its system metrics: lb_sysmon_at(sysmon, sys); -1 = none */
};

struct lb_engine {
	struct lb_opts *opts;
	int argc;                    /* the command line, for sysbench.cmdline.argv */
	char **argv;
	const char *command;         /* NULL when none was given */
	struct lb_config cfg;
	struct lb_script *script;
	struct lb_vm *control;       /* the global Lua state */
	struct lb_worker *control_w;
	struct lb_worker **workers;  /* cfg.threads run workers */
	int nworkers;

	/* Run state shared with workers: written by the main/monitor threads, read per event. */
	int64_t epoch_ns;            /* CLOCK_MONOTONIC at the start barrier */
	int64_t deadline_ns;         /* relative to epoch; INT64_MAX = none */
	int stop;                    /* 1 = stop starting events */
	uint32_t window;             /* statistics window id (moves at warm-up end, checkpoints) */
	uint64_t events_claimed;     /* --events tickets handed out */
	bool rate_mode;
	struct lb_sched sched;
	bool sql_used;               /* a DB driver was created: use the SQL report layout */
	bool legacy_options;         /* the script declares no options: export them as globals */
	int exit_code;

	/* Owned by the monitor/main thread. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	sem_t wake;                  /* posted when a worker leaves its loop, or on a signal */
	int looping;                 /* workers still in their event loop */
	int interrupts;              /* SIGINT/SIGTERM received */
	int last_signal;
	bool threads_stuck;          /* forced shutdown/timeout: workers may still run, _exit */
	int initialized;             /* workers past thread_init */
	bool started;                /* start barrier released */
	bool end_read;               /* the end of the run is read: workers may close connections */
	bool forced;                 /* forced shutdown fired */
	char *fatal;                 /* first fatal error message */
	struct lb_snap window_base;  /* baseline of the current statistics window */
	int64_t window_start_ns;
	uint64_t *window_base_events; /* per-worker baselines for fairness */
	uint64_t *window_base_sum_ns;
	struct lb_interval *intervals;
	int nintervals, capintervals;
	int64_t start_wall_ns, end_wall_ns;
	int64_t epoch_wall_ns;       /* CLOCK_REALTIME at the start barrier */
	struct lb_sysmon *sysmon;    /* system metrics; NULL with --system-stats=off */
	uint64_t unserved_arrivals;  /* rate mode: arrivals due but not started at the end */
	struct lb_vm *reporter;      /* state for the report_intermediate hook */
	struct lb_worker *reporter_w;
};

/* Reads the general options (already registered by lb_engine_register_options). */
int lb_engine_configure(struct lb_engine *eng, struct lb_opts *opts, char *err, int errlen);
/* Registers the general, RNG and log options. */
int lb_engine_register_options(struct lb_opts *opts, char *err, int errlen);

/* Runs the "run" command: init, threads, report, done. Returns the process exit code. */
int lb_engine_run(struct lb_engine *eng);
/* Runs a custom command in `threads` parallel states (each with its own tid). */
int lb_engine_run_parallel(struct lb_engine *eng, const char *command);

/* Called by any thread that hits a fatal error: records it and stops the run. */
void lb_engine_fail(struct lb_engine *eng, const char *msg);
/* Async-signal-safe: asks the run to stop and report (SIGINT/SIGTERM). */
void lb_engine_interrupt(struct lb_engine *eng);

/* Time since the run started, in ns. */
int64_t lb_engine_now(const struct lb_engine *eng);

/* Builds a snapshot of the run workers' statistics at this moment. */
void lb_engine_collect(struct lb_engine *eng, struct lb_snap *out);
int lb_engine_threads_running(struct lb_engine *eng);

#endif
