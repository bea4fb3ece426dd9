/* The engine's part of the FFI surface (see api/ffi.h, which includes this header): the event
 * loop, emulated users, transaction types and random numbers, implemented in this layer. */
#ifndef LB_ENGINE_FFI_ENGINE_H
#define LB_ENGINE_FFI_ENGINE_H

#ifndef LB_CDEF
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#define LB_FFI __attribute__((visibility("default")))
#else
#define LB_FFI
#endif

struct lb_worker;
struct lb_db_conn; /* the SQL layer (ffi_sql.h) */
struct lb_rng;

/* ---- event loop (worker.c) ---------------------------------------------------------------- */

/* Ends the previous event (prev_start_ns >= 0: records its latency, now - prev_start_ns) and
 * starts the next one. Returns the next event's start time in ns since the run started (its
 * intended start in --rate mode, after sleeping until it is due), or -1 when this worker must
 * stop (time or event limit reached, shutdown requested). One clock read per event. */
LB_FFI double lb_event_next(struct lb_worker *w, double prev_start_ns);
/* Marks the worker as not in an event (the event returned a stop value or failed). Returns 1
 * when the end of the run had cut the event's statement off (it is counted as cut off). */
LB_FFI int lb_event_abandon(struct lb_worker *w);
/* ns since the run started (CLOCK_MONOTONIC). */
LB_FFI double lb_clock_ns(struct lb_worker *w);
/* Think time in a worker without emulated users: sleeps, and the time is left out of the
 * current event's latency. */
LB_FFI void lb_think_ns(struct lb_worker *w, double ns);
LB_FFI void lb_counter_add(struct lb_worker *w, int counter, uint64_t n);
/* The text of an error the script counted or retried (len bytes): the worker keeps its first,
 * which a run that completes no event names in its FATAL line. */
LB_FFI void lb_error_note(struct lb_worker *w, const char *msg, size_t len);
LB_FFI int lb_worker_tid(struct lb_worker *w);
LB_FFI struct lb_rng *lb_worker_rng(struct lb_worker *w);
/* 1 once the run is stopping (time up, signal, fatal error): long custom loops should poll it. */
LB_FFI int lb_worker_stopping(struct lb_worker *w);
/* 1 once a fatal error (in any thread) has failed the run. */
LB_FFI int lb_run_failed(struct lb_worker *w);
/* The server monitor's requests to publish (run_window.c): a server may publish a session's
 * counters late (PostgreSQL: at most once a second), so before reading the server's counters the
 * monitor asks the workers that hold database sessions to have them publish theirs, and waits
 * (briefly) for the answers: each reading then counts the work done before it. The SQL layer
 * notes that its worker holds sessions, checks after each event whether a request is due (the
 * number to answer, or 0) and answers it once its idle sessions published; `uncounted` is the
 * events that completed and are not yet counted (1 in a thread's loop: it answers before the
 * event's end is recorded), so that the events its sessions published are known (run_window.c). */
LB_FFI void lb_worker_note_sessions(struct lb_worker *w);
LB_FFI uint32_t lb_worker_publish_due(struct lb_worker *w);
LB_FFI void lb_worker_published(struct lb_worker *w, uint32_t request, int uncounted);
LB_FFI void lb_sleep_ns(double ns);

/* ---- emulated users (user_sched.c, worker.c): engine/ffi_users.h ------------------------------ */
/* Users of this worker (0 = one implicit user: sysbench mode). */
LB_FFI int lb_users_here(struct lb_worker *w);

/* ---- named transaction types: luabench.stats (worker.c) ------------------------------------ */
/* Id of the type called `name` (the same in every thread), or -1 when 64 types exist already. */
LB_FFI int lb_type_define(struct lb_worker *w, const char *name);
/* Records an outcome: 0 ok, 1 error, 2 intentional rollback, 3 retried; for 0 and 2 the
 * latency is now - start_ns (ns since the run started, from lb_clock_ns). */
LB_FFI void lb_type_record(struct lb_worker *w, int id, double start_ns, int outcome);
/* --report-statements (worker.c): on?, a statement text's id, one execution (ok: timed from
 * start_ns, else an error). */
LB_FFI int lb_stmt_report_on(struct lb_worker *w);
LB_FFI int lb_stmt_define(struct lb_worker *w, const char *text, size_t len);
LB_FFI void lb_stmt_record(struct lb_worker *w, int id, double start_ns, int ok);
/* The current event's start mark in thread mode (unchanged by retries of that event); -1 when
 * no event runs. */
LB_FFI double lb_event_start_ns(struct lb_worker *w);

/* ---- named metrics: luabench.counter, .rate, .gauge (worker.c, named_metrics.c) --------------
 * A metric's slot in one worker's statistics, written by that worker's thread only and read by
 * the reporter (no lock, no atomic read-modify-write). Lua adds to a counter (sum) and records a
 * rate's outcome (count, then sum) by storing to the slot itself; a gauge's value goes through
 * lb_metric_set, which also reads the clock and keeps the window's extremes. Sums are doubles so
 * that Lua stores them without boxing: whole numbers are exact up to 2^53. */
struct lb_metric_slot {
	double sum;            /* counter: the sum of what was added; rate: the true outcomes */
	double count;          /* rate: all outcomes; gauge: how many values were set */
	double last;           /* gauge: the value set last */
	int64_t last_wall_ns;  /* gauge: when it was set (CLOCK_REALTIME); 0: never */
	double min, max;       /* gauge: the extremes of the statistics window `window` */
	uint32_t window;       /* UINT32_MAX until the gauge is first set */
};
/* Declares metric `name` of kind (0 counter, 1 rate, 2 gauge) and direction (0 neutral, 1
 * higher is better, 2 lower is better), or finds it: its id, the same in every thread (whatever
 * kind it has: lb_metric_kind/lb_metric_better tell the caller). -1: LB_MAX_METRICS exist;
 * -2: the run has started, and new names are refused (report columns are fixed by then). */
LB_FFI int lb_metric_define(struct lb_worker *w, const char *name, int kind, int better);
LB_FFI int lb_metric_kind(struct lb_worker *w, int id);
LB_FFI int lb_metric_better(struct lb_worker *w, int id);
/* This worker's slot of metric `id` (NULL for an id out of range). */
LB_FFI struct lb_metric_slot *lb_metric_slot(struct lb_worker *w, int id);
/* Sets gauge `id` to value in this worker's slot. */
LB_FFI void lb_metric_set(struct lb_worker *w, int id, double value);

/* ---- random numbers (rand.c); arguments wrap to uint32 as in sysbench ---------------------- */
LB_FFI uint32_t lb_rand_uniform(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_gaussian(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_special(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_pareto(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_zipfian(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_default(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_unique(struct lb_worker *w);
LB_FFI double lb_rand_exp(struct lb_rng *r, double mean);
LB_FFI void lb_rand_str(struct lb_rng *r, const char *fmt, char *buf, uint32_t len);
LB_FFI uint64_t lb_rand_u64(struct lb_rng *r);
LB_FFI double lb_rand_double(struct lb_rng *r);

#ifndef LB_CDEF
#include "engine/ffi_users.h"
#endif

#endif
