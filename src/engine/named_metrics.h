/* Named metrics (luabench.counter, luabench.rate, luabench.gauge): a script's own figures,
 * declared by name and updated from any thread or emulated user without a lock.
 *
 * They ride on the statistics machinery of stats.h. Each worker owns one slot per metric in its
 * struct lb_stats and is the slot's only writer. Counters and rates are sums that only grow, so
 * the reporter adds the workers' slots into a snapshot and subtracts an earlier snapshot for an
 * interval or a window, as it does for the event counters. A gauge keeps its last value with the
 * wall-clock time it was set (the latest over the workers is the gauge's value; a merge of
 * several processes keeps the same rule), and its minimum and maximum per statistics window,
 * restarted by the worker when the window changes, as the exact latency extremes are. */
#ifndef LB_ENGINE_NAMED_METRICS_H
#define LB_ENGINE_NAMED_METRICS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/ffi_engine.h"

#define LB_MAX_METRICS 64
#define LB_METRIC_NAME_BYTES 48

enum lb_metric_kind { LB_METRIC_COUNTER = 0, LB_METRIC_RATE = 1, LB_METRIC_GAUGE = 2 };
/* Which way is better, for comparisons (compare, the HTML report). */
enum lb_metric_better { LB_BETTER_NEUTRAL = 0, LB_BETTER_HIGHER = 1, LB_BETTER_LOWER = 2 };

struct lb_metric_def {
	char name[LB_METRIC_NAME_BYTES];
	enum lb_metric_kind kind;
	enum lb_metric_better better;
};

/* A run's (or a merge's) registry of metrics: the same name gets the same id everywhere. */
struct lb_metric_defs {
	pthread_mutex_t lock;
	int n;
	bool closed; /* the run has started: new names are refused */
	struct lb_metric_def v[LB_MAX_METRICS];
};

#define LB_METRIC_FULL (-1)
#define LB_METRIC_CLOSED (-2)

void lb_metric_defs_init(struct lb_metric_defs *d);
void lb_metric_defs_fini(struct lb_metric_defs *d);
/* The id of `name`, declared now with kind and better if it is new (whatever kind an existing
 * one has); LB_METRIC_FULL or LB_METRIC_CLOSED. Thread-safe. */
int lb_metric_defs_define(struct lb_metric_defs *d, const char *name, enum lb_metric_kind kind,
			  enum lb_metric_better better);
/* From now on new names are refused (the run starts: report columns are fixed). */
void lb_metric_defs_close(struct lb_metric_defs *d);
/* How many are declared (NULL: none), and one of them (NULL for an id out of range). */
int lb_metric_defs_count(const struct lb_metric_defs *d);
const struct lb_metric_def *lb_metric_defs_get(const struct lb_metric_defs *d, int id);
/* The id of `name`, or -1. */
int lb_metric_defs_find(const struct lb_metric_defs *d, const char *name);

const char *lb_metric_kind_name(enum lb_metric_kind k);
const char *lb_metric_better_name(enum lb_metric_better b);

/* A metric's figures in a snapshot: the slots of many workers added up (sum, count), the latest
 * set value (last, last_wall_ns; 0: never set) and the window's extremes (min > max: none). */
struct lb_metric_value {
	double sum, count;
	double last;
	int64_t last_wall_ns;
	double min, max;
};

/* A worker's slots, ready for the first value. */
void lb_metric_slots_init(struct lb_metric_slot *s, int n);
/* Sets a gauge's slot to v at wall_ns in statistics window `window`. Single writer. */
void lb_metric_slot_set(struct lb_metric_slot *s, double v, int64_t wall_ns, uint32_t window);

/* n values with nothing in them. */
void lb_metric_values_clear(struct lb_metric_value *v, int n);
/* v += a worker's slots; the extremes only of slots set in `window`. */
void lb_metric_values_add_slots(struct lb_metric_value *v, const struct lb_metric_slot *s, int n, uint32_t window);
/* dst = a - b (b earlier) for the sums; the last value and the extremes are a's. */
void lb_metric_values_diff(struct lb_metric_value *dst, const struct lb_metric_value *a,
			   const struct lb_metric_value *b, int n);
/* dst += src: sums add, the later last value wins, extremes combine (merging processes). */
void lb_metric_values_merge(struct lb_metric_value *dst, const struct lb_metric_value *src, int n);

/* A metric's headline figure: a counter's sum, a rate's share of true outcomes, a gauge's last
 * value; false when it has none (a rate without outcomes, a gauge never set). */
bool lb_metric_value_of(const struct lb_metric_def *d, const struct lb_metric_value *v, double *out);
/* Whether a gauge's window extremes are known. */
bool lb_metric_has_extremes(const struct lb_metric_value *v);

#endif
