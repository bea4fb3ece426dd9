/* The run lifecycle: worker threads, start barrier, time/event limits, warm-up, checkpoints,
 * forced shutdown; the statistics windows it measures become run results (result.h).
 *
 * The engine knows neither Lua nor output formats. It runs scripts through a host (bind
 * implements one with LuaJIT) and hands what it measured to a sink (output implements one):
 *
 *     cli ── sets up ──► engine ── host: states, hooks, event loops ──► bind
 *                          └────── sink: header, intervals, results ──► output
 */
#ifndef LB_ENGINE_ENGINE_H
#define LB_ENGINE_ENGINE_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/arrivals.h"
#include "engine/config.h"
#include "engine/rand.h"
#include "engine/result.h"
#include "engine/session.h"
#include "engine/sink.h"
#include "engine/srvmon.h"
#include "engine/stats.h"
#include "sys/placement.h"
#include "sys/sysmetrics.h"

struct lb_engine;
struct lb_machine;
struct lb_worker;
struct lb_vm;
struct lb_script;
struct lb_opts;


/* What the engine needs from the script runtime. A state belongs to one worker and is used by
 * that worker's thread only. Calls return 0, 1 when the function returned false, or -1 with a
 * message in err; a missing function returns 0. */
struct lb_host {
	/* A state for worker w with the script loaded and its options exported. */
	struct lb_vm *(*state_new)(struct lb_engine *e, struct lb_worker *w, char *err, size_t errlen);
	void (*state_free)(struct lb_vm *vm);
	/* Calls global function `name` (with the worker's tid when pass_tid). */
	int (*call)(struct lb_vm *vm, const char *name, bool pass_tid, char *err, size_t errlen);
	/* Runs the script's custom command `name`. */
	int (*call_command)(struct lb_vm *vm, const char *name, char *err, size_t errlen);
	/* Runs the worker's event loop. 0 or -1. */
	int (*run_thread)(struct lb_vm *vm, char *err, size_t errlen);
	/* Whether the script defines hook `name` (sysbench.hooks or luabench.hooks). */
	bool (*has_hook)(struct lb_vm *vm, const char *name);
};

/* Per-run state of a layer above the engine (the SQL configurations, file I/O statistics,
 * shared objects), created on its first use and destroyed with the engine. `kind` is the
 * address of a static descriptor that identifies the state. */
struct lb_ext_kind {
	const char *name;
	void *(*create)(struct lb_engine *e);
	void (*destroy)(void *state);
};
#define LB_MAX_EXT 8

struct lb_engine {
	struct lb_session session;   /* what runs: a copy of the caller's (lb_engine_init) */
	const struct lb_host *host;
	/* Where the run's reports go; set by the caller before lb_engine_run. */
	const struct lb_run_sink *sink;
	void *sink_ctx;
	/* The global state (init, done, prepare, commands, report hooks) and the reporter's
	 * (report_intermediate runs in a state of its own): the engine's, made by
	 * lb_engine_open_control and at the start of a run. */
	struct lb_vm *control;
	struct lb_worker *control_w;
	struct lb_vm *reporter;
	struct lb_worker *reporter_w;

	struct lb_worker **workers;  /* cfg.threads run workers */
	int nworkers;

	/* Run state shared with workers: written by the main/monitor threads, read per event. */
	int64_t epoch_ns;            /* CLOCK_MONOTONIC at the start barrier */
	int64_t deadline_ns;         /* relative to epoch; INT64_MAX = none */
	int stop;                    /* 1 = stop starting events */
	uint32_t window;             /* statistics window id (moves at warm-up end, checkpoints) */
	uint64_t events_claimed;     /* --events tickets handed out */
	bool rate_mode;
	struct lb_arrivals sched;
	bool sql_used;               /* a DB driver was created: use the SQL report layout */
	struct lb_types types;       /* transaction type names (luabench.stats) */
	struct lb_stmt_names stmt_names; /* --report-statements: statement texts */
	struct lb_metric_defs metrics; /* named metrics (luabench.counter, .rate, .gauge) */
	struct lb_unique unique;     /* sysbench.rand.unique() */

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
	bool end_read;               /* the end of the run is read (system metrics) */
	uint64_t proc_reads_asked;   /* workers about to close connections asked for a reading of */
	uint64_t proc_reads_done;    /* the server processes' CPU (run_threads.c, read_before_close) */
	bool forced;                 /* forced shutdown fired */
	char *fatal;                 /* first fatal error message */
	char *nothing_done;          /* a run that completed no event: why it failed (verdict.c) */
	struct lb_snap window_base;  /* baseline of the current statistics window */
	int64_t window_start_ns;
	uint64_t *window_base_events; /* per-worker baselines for fairness */
	uint64_t *window_base_sum_ns;
	struct lb_interval *intervals;
	int nintervals, capintervals;
	int64_t start_wall_ns, end_wall_ns;
	int64_t epoch_wall_ns;       /* CLOCK_REALTIME at the start barrier */
	struct lb_sysmon *sysmon;    /* system metrics; NULL with --system-stats=off */
	struct lb_proc_place proc_place; /* the process's CPU set and control group, read at the start of a run */
	struct lb_machine *machine;  /* the machine's fingerprint, read at the start of a run whose
	                              * result is written (NULL otherwise; owned) */
	struct lb_srvmon *srvmon;    /* server statistics; NULL when off or not a database run */
	uint32_t publish_request;    /* the monitor's last request to publish (ffi_engine.h) */
	bool publish_sessions;       /* the server publishes late: workers publish (run*.c) */
	uint64_t publish_statements; /* the statements they ran for it: left out like the monitor's */
	/* The first database configuration the workload made (api/sql.c): the server the monitor
	 * watches. Written once under the configurations' lock, read after the threads started. */
	struct lb_db_config *srv_db;
	uint64_t unserved_arrivals;  /* rate mode: arrivals due but not started at the end */
	/* Events whose statement was cut off at the end of the run (the grace after --time ran
	 * out, or a signal), and the longest any of them had been running. Atomic. */
	uint64_t cut_off;
	int64_t cut_off_age_max_ns;
	int64_t grace_excluded_ns;   /* time waited past --time for events then cut off: not in the window */
	/* The database server's product and version, from the first connection that told it
	 * (server_set: 0 none, 1 being written, 2 written). DuckDB and SQLite add their settings
	 * in force, a path among them: more than 128 characters. */
	char server[256];
	char driver_settings[512];   /* an embedded engine's settings in force, "name=value" lines
	                              * (written with server) */
	int server_set;
	int engine_threads_warned;   /* an embedded engine's threads exceed its CPUs: said (api/sql.c) */

	struct {
		const struct lb_ext_kind *kind;
		void *state;
	} ext[LB_MAX_EXT];
};

/* An idle engine for session s, running scripts through host (time counts from now until a
 * run starts). The session is copied; what it points to (options, script) stays the caller's
 * and must outlive the engine. */
void lb_engine_init(struct lb_engine *e, const struct lb_session *s, const struct lb_host *host);
/* Frees what the engine owns: its Lua states, workers, time series, per-run states. Not the
 * script or the options, which belong to the caller. */
void lb_engine_fini(struct lb_engine *e);

/* Makes the control state (the script loaded, its main chunk run) and makes its worker the
 * calling thread's (sysbench's FFI calls find it there). 0, or -1 with a message. */
int lb_engine_open_control(struct lb_engine *e, char *err, size_t errlen);

/* The reporter's state (report_intermediate), when the script and the options want one, and
 * its end (before the final report). For the run command (run*.c). */
int lb_engine_open_reporter(struct lb_engine *e);
void lb_engine_close_reporter(struct lb_engine *e);

/* Runs the "run" command: init, threads, reports, done. Returns the process exit code. */
int lb_engine_run(struct lb_engine *eng);
/* Runs a custom command in `threads` parallel states (each with its own tid). */
int lb_engine_run_parallel(struct lb_engine *eng, const char *command);

/* The per-run state of `kind`, created on first use. Thread-safe. */
void *lb_engine_ext(struct lb_engine *e, const struct lb_ext_kind *kind);

/* Called by any thread that hits a fatal error: records it and stops the run. */
void lb_engine_fail(struct lb_engine *eng, const char *msg);
/* Async-signal-safe: asks the run to stop and report (SIGINT/SIGTERM). */
void lb_engine_interrupt(struct lb_engine *eng);

/* Time since the run started, in ns. */
int64_t lb_engine_now(const struct lb_engine *eng);

/* What a window's result borrows: the snapshots, the per-worker figures, the system metrics and
 * the server statistics. */
struct lb_window_buffers {
	struct lb_snap cur, delta;
	struct lb_thread_figures *threads;
	uint64_t *events_raw, *lat_sum_raw_ns; /* each worker's counters as `cur` read them */
	struct lb_sys_sample sys;
	bool have_sys;
	struct lb_srv_sample srv;
	bool have_srv;
};
void lb_window_buffers_fini(struct lb_window_buffers *b);

/* The current statistics window as a result, up to now: for a report a script builds itself
 * (fileio's, from a report hook or from `done`), which reads the result as the sink does, not
 * the engine. Without the server statistics (r->srv is NULL): reading them is a query on the
 * server monitor's connection, which belongs to the monitor's thread. r borrows from b
 * (lb_window_buffers_fini when done). False, and nothing to free, before the run's workers
 * exist. */
bool lb_engine_window_now(struct lb_engine *e, struct lb_window_buffers *b, struct lb_result *r);

/* luabench's rule for a run that ran to its end: the FATAL message when its measured window
 * (ending at end_ns) completed no event while errors were counted (naming the first and how
 * many), or when the run ended during its warm-up; NULL otherwise. Allocated. */
char *lb_engine_nothing_completed(const struct lb_engine *e, int64_t end_ns);

/* The process's placement and, for a run whose result is written, the machine's fingerprint
 * with the storage under the run's data (fingerprint.c): at the start of the run. The storage
 * of a local server's data directory once its monitor read the settings. */
void lb_engine_read_fingerprint(struct lb_engine *e);
void lb_engine_read_server_storage(struct lb_engine *e);

/* Builds a snapshot of the run workers' statistics at this moment; events_raw and
 * lat_sum_raw_ns (NULL, or one entry per worker) get each worker's event count and latency sum
 * as the snapshot counted them. */
void lb_engine_collect(struct lb_engine *eng, struct lb_snap *out, uint64_t *events_raw,
		       uint64_t *lat_sum_raw_ns);
int lb_engine_threads_running(struct lb_engine *eng);

#endif
