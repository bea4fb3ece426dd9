/* Per-worker counters and latency histograms, and the snapshots the reporter builds from them.
 *
 * A worker is the only writer of its struct lb_stats; values only grow. The reporter sums all
 * workers into a struct lb_snap whenever it needs numbers, and gets interval or window figures by
 * subtracting an earlier snapshot. So "resetting" statistics (checkpoints, end of warm-up) never
 * touches a worker's memory: it just moves a baseline. Only the exact minimum and maximum can't
 * be subtracted; they live in per-window slots the worker restarts when the window id changes. */
#ifndef LB_ENGINE_STATS_H
#define LB_ENGINE_STATS_H

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/latency_hist.h"
#include "engine/named_metrics.h"

/* The first six match sysbench's sb_counter_type (scripts pass them to sb_counter_inc). */
enum lb_cnt {
	LB_CNT_OTHER = 0,
	LB_CNT_READ = 1,
	LB_CNT_WRITE = 2,
	LB_CNT_EVENT = 3,
	LB_CNT_ERROR = 4,
	LB_CNT_RECONNECT = 5,
	LB_CNT_BYTES_READ = 6,
	LB_CNT_BYTES_WRITTEN = 7,
	/* events of emulated users that ended with an error (with --users a failing event does not
	 * stop the run; run.c fails a run where most of them fail) */
	LB_CNT_FAILED = 8,
	LB_CNT_MAX = 9,
};

/* Named transaction/interaction types (luabench.stats): each gets its own counters and
 * histogram, so a workload can report per type (TPC-C's NewOrder, a bookstore's Best Sellers). */
#define LB_MAX_TYPES 64
#define LB_TYPE_NAME_BYTES 48

enum lb_tcnt {
	LB_TCNT_DONE = 0,     /* completed (committed, or intentionally rolled back) */
	LB_TCNT_ERROR = 1,    /* failed */
	LB_TCNT_ROLLBACK = 2, /* completed by an intentional rollback (also counted in DONE) */
	LB_TCNT_RETRY = 3,    /* attempts retried after a deadlock or serialization failure */
	LB_TCNT_MAX = 4,
};

enum lb_outcome { LB_OUTCOME_OK = 0, LB_OUTCOME_ERROR = 1, LB_OUTCOME_ROLLBACK = 2, LB_OUTCOME_RETRY = 3 };

struct lb_type_stats {
	uint64_t cnt[LB_TCNT_MAX];
	uint64_t sum_ns;      /* latency of completed ones */
	struct lb_hist lat;
};

/* A run's registry of type names: the same name gets the same id in every Lua state. */
struct lb_types {
	pthread_mutex_t lock;
	int n;
	char names[LB_MAX_TYPES][LB_TYPE_NAME_BYTES];
};

void lb_types_init(struct lb_types *t);
void lb_types_fini(struct lb_types *t);
/* Returns the id of `name`, or -1 when LB_MAX_TYPES are taken. Thread-safe. */
int lb_types_define(struct lb_types *t, const char *name);
/* The name of type `id` ("" if there is none). */
const char *lb_types_name(const struct lb_types *t, int id);

/* Statements (--report-statements, like pgbench -r): each distinct statement text gets the
 * counters and histogram of a type; beyond LB_MAX_STMTS texts, the rest share the last one. */
#define LB_MAX_STMTS 128

/* A run's registry of statement texts (allocated copies). */
struct lb_stmt_names {
	pthread_mutex_t lock;
	int n;
	char *names[LB_MAX_STMTS];
};

void lb_stmt_names_init(struct lb_stmt_names *t);
void lb_stmt_names_fini(struct lb_stmt_names *t);
/* The id of `text` (len bytes); the last id, "(other statements)", once the others are taken. */
int lb_stmt_names_define(struct lb_stmt_names *t, const char *text, size_t len);
/* The text of statement `id` ("" if there is none). */
const char *lb_stmt_names_text(const struct lb_stmt_names *t, int id);

struct lb_stats {
	alignas(64) uint64_t cnt[LB_CNT_MAX];
	uint64_t lat_sum_ns;
	uint64_t lat_min_ns; /* exact, for window `window` */
	uint64_t lat_max_ns;
	uint32_t window;
	uint32_t in_event;   /* 1 while an event runs: the "concurrency" figure */
	struct lb_hist lat;  /* latency (from the intended start in rate mode) */
	struct lb_hist svc;  /* rate mode only: service time, from the actual start */
	struct lb_hist wake; /* --users only: lateness of timer wake-ups (think time, ramp-up) */
	struct lb_type_stats *types[LB_MAX_TYPES]; /* allocated by the worker on first use */
	struct lb_type_stats *stmts[LB_MAX_STMTS]; /* --report-statements only */
	/* named metrics (named_metrics.h): LB_MAX_METRICS slots, allocated when the worker's script
	 * declares its first (NULL: none; a thousand threads without metrics pay nothing) */
	struct lb_metric_slot *metrics;
};

/* The worker's named-metric slots, allocated on first use. Single writer: the worker's thread. */
struct lb_metric_slot *lb_stats_metric_slots_new(struct lb_stats *s);
static inline struct lb_metric_slot *lb_stats_metric_slots(struct lb_stats *s)
{
	return __builtin_expect(s->metrics != NULL, 1) ? s->metrics : lb_stats_metric_slots_new(s);
}

/* Records one outcome of type `id` (latency only for OK and ROLLBACK). Single writer. */
void lb_stats_type(struct lb_stats *s, int id, uint64_t lat_ns, enum lb_outcome outcome);
/* Records one execution of statement `id`: timed when ok, else counted as an error. */
void lb_stats_stmt(struct lb_stats *s, int id, uint64_t lat_ns, bool ok);

/* with_service_hist: --rate mode; with_wake_hist: --users mode. */
void lb_stats_init(struct lb_stats *s, int with_service_hist, int with_wake_hist);
void lb_stats_fini(struct lb_stats *s);

static inline void lb_stats_add(struct lb_stats *s, enum lb_cnt c, uint64_t n)
{
	__atomic_store_n(&s->cnt[c], s->cnt[c] + n, __ATOMIC_RELAXED);
}

/* Records one completed event of latency lat_ns in window `window`. Single writer. */
static inline void lb_stats_event(struct lb_stats *s, uint64_t lat_ns, uint32_t window)
{
	if (__builtin_expect(s->window != window, 0)) {
		__atomic_store_n(&s->lat_min_ns, UINT64_MAX, __ATOMIC_RELAXED);
		__atomic_store_n(&s->lat_max_ns, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->window, window, __ATOMIC_RELEASE);
	}
	lb_stats_add(s, LB_CNT_EVENT, 1);
	__atomic_store_n(&s->lat_sum_ns, s->lat_sum_ns + lat_ns, __ATOMIC_RELAXED);
	if (lat_ns < s->lat_min_ns)
		__atomic_store_n(&s->lat_min_ns, lat_ns, __ATOMIC_RELAXED);
	if (lat_ns > s->lat_max_ns)
		__atomic_store_n(&s->lat_max_ns, lat_ns, __ATOMIC_RELAXED);
	lb_hist_record(&s->lat, lat_ns);
}

/* Sum of many workers' statistics at one moment. */
struct lb_snap {
	uint64_t cnt[LB_CNT_MAX];
	uint64_t lat_sum_ns;
	uint64_t lat_min_ns, lat_max_ns; /* over the current window only */
	uint32_t concurrency;
	struct lb_hist lat;
	struct lb_hist svc;
	struct lb_hist wake;
	struct lb_type_stats *types[LB_MAX_TYPES]; /* NULL for types never seen */
	struct lb_type_stats *stmts[LB_MAX_STMTS]; /* NULL for statements never run */
	struct lb_metric_value metrics[LB_MAX_METRICS]; /* named metrics, by id */
};

void lb_snap_init(struct lb_snap *s);
void lb_snap_fini(struct lb_snap *s);
void lb_snap_clear(struct lb_snap *s);
/* s += worker statistics; min/max are taken only from workers already in `window`. */
void lb_snap_add_stats(struct lb_snap *s, const struct lb_stats *w, uint32_t window);
/* dst = a - b (b earlier). min/max are copied from a. */
void lb_snap_diff(struct lb_snap *dst, const struct lb_snap *a, const struct lb_snap *b);
void lb_snap_copy(struct lb_snap *dst, const struct lb_snap *src);
/* dst += src, for merging results of several processes. */
void lb_snap_merge(struct lb_snap *dst, const struct lb_snap *src);

#endif
