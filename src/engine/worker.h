/* A worker: one thread, one Lua state, one RNG and one statistics block.
 * The control state (init/done/prepare/...) and the reporter's state also get a struct lb_worker
 * so Lua code sees the same API everywhere; only run workers count in the statistics. */
#ifndef LB_ENGINE_WORKER_H
#define LB_ENGINE_WORKER_H

#include <pthread.h>
#include <stdint.h>

#include "engine/rand.h"
#include "engine/stats.h"
#include "sys/placement.h"
#include "sys/schedstat.h"

struct lb_engine;
struct lb_vm;

enum lb_worker_role {
	LB_ROLE_WORKER,   /* runs events (tid 0..threads-1) */
	LB_ROLE_CONTROL,  /* the global state: init, done, prepare, cleanup, help, commands */
	LB_ROLE_REPORTER, /* report_intermediate hook (tid = threads) */
	LB_ROLE_COMMAND,  /* a thread of a parallel custom command */
};

struct lb_worker {
	struct lb_stats stats; /* first: cache-line aligned, written only by this thread */
	struct lb_engine *eng;
	int tid;
	enum lb_worker_role role;
	struct lb_rng rng;
	pthread_t thread;
	struct lb_vm *vm;
	int64_t start_ns;      /* current event's start (sb_event_start/stop API) */
	int64_t actual_ns;     /* rate mode: when the current event really began */
	uint64_t quota;        /* --events tickets claimed and not yet used */
	bool took_last_events; /* claimed the chunk that ends --events */
	int64_t think_ns;      /* think time inside the current event (left out of its latency) */
	bool cut_off;          /* the current event's statement was cut off at the end of the run */
	int finished;          /* thread has left its event loop */
	int failed;            /* thread_init/thread_run raised an error */
	int ready;             /* thread_init done, waiting at the start barrier */
	int64_t end_ns;        /* when the event loop ended (ns since the run started) */
	int64_t last_done_ns;  /* when its last counted event completed (ns since the run started) */
	int sql_sessions;      /* holds database sessions: the monitor's publish requests concern it */
	uint32_t published;    /* the last publish request it answered (ffi_engine.h) */
	uint64_t published_events; /* its events counted when it answered it */
	char *errmsg;          /* owned; set when failed */
	char *first_error;     /* owned: the first error it counted (ignored, retried, failed), NULL none */
	int64_t first_error_ns; /* when (ns since the run started) */
	struct lb_placement place; /* where the thread runs, asked or inherited */
	struct lb_task_sched sched_end; /* its schedstat as it left its loop (tid 0: not read) */
};

struct lb_worker *lb_worker_new(struct lb_engine *eng, int tid, enum lb_worker_role role);
void lb_worker_free(struct lb_worker *w);

/* The event-loop primitives behind lb_event_next() and sysbench's sb_more_events() etc. */
int64_t lb_worker_more(struct lb_worker *w);                 /* next start, or -1 to stop */
void lb_worker_record(struct lb_worker *w, int64_t start_ns); /* event done */
void lb_worker_give_back(struct lb_worker *w);               /* return unused --events quota */
/* n events of w were cut off at the end of the run (their statements still running). */
void lb_worker_cut_off(struct lb_worker *w, uint32_t n);

/* Records the text of the first error w counts (an ignored SQL error, a restarted or failed
 * event, a failed I/O): the message of a run that completed no event (engine/verdict.c). Only
 * the first costs anything; len bytes of msg, not NUL-terminated. */
void lb_worker_note_error(struct lb_worker *w, const char *msg, size_t len);

/* Worker lookup by tid for the sysbench-compatible FFI names, which only get a thread id. */
struct lb_worker *lb_worker_by_tid(int tid);
/* The worker of the calling thread (NULL outside engine threads). */
struct lb_worker *lb_worker_self(void);
void lb_worker_set_self(struct lb_worker *w);

#endif
