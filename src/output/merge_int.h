/* luabench merge's state, shared by its two halves: merge_read.c reads the input documents into
 * it, merge.c makes the merged run's result, report and document from it. */
#ifndef LB_OUTPUT_MERGE_INT_H
#define LB_OUTPUT_MERGE_INT_H

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/result.h"
#include "engine/latency_hist.h"

#define ERRLEN 1024

struct merge {
	struct lb_config cfg;    /* the merged run's */
	struct lb_types types;
	struct lb_stmt_names stmt_names;
	struct lb_metric_defs metrics;
	const char *metrics_file[LB_MAX_METRICS]; /* the input that declared each first */
	struct lb_snap snap;
	bool sql, rate_mode;
	int64_t max_lag_ns;
	uint64_t unserved_arrivals;
	struct lb_interval *intervals;
	int nintervals;
	int64_t start_us, end_us; /* union of the measured windows */
	struct merge_window {
		int64_t start_us, end_us;
		const char *path;
	} *windows; /* each input's, in input order */
	int nwindows;
	double start_unix_s;
	int64_t end_wall_ns;
	struct lb_thread_figures *threads; /* all inputs' threads in input order */
	int nthreads, capthreads;
	uint64_t unfinished;
	uint64_t cut_off;
	int64_t cut_off_age_max_ns;
	int status;              /* index into statuses[]: the worst input's */
	char *failed;            /* the first input whose run failed (completed no event): why */
	const cJSON *first;      /* the first input: workload, options, percentiles */
	const char *first_file;
	cJSON *hosts, *from, *systems;
	char err[ERRLEN];
};

/* The run statuses, worst last; struct merge.status indexes it. */
extern const char *const lb_merge_statuses[5];

/* Reads and parses one input (NULL and a message in err on failure). */
cJSON *lb_merge_read_doc(const char *path, char *err);
/* Checks input `path` against the first and adds it to the merged run (-1: m->err says why). */
int lb_merge_add_doc(struct merge *m, const char *path, const cJSON *d);

/* Whether the inputs' measured windows overlap into one span: 0, or -1 with m->err naming the
 * first gap (runs one after another are repeats to compare, not processes to merge). */
int lb_merge_check_windows(struct merge *m);

/* ---- JSON access ----------------------------------------------------------------------------- */

static inline const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static inline double num(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static inline uint64_t u64(const cJSON *o, const char *key)
{
	double v = num(o, key);
	return v > 0 ? (v < 1.8e19 ? (uint64_t)llround(v) : UINT64_MAX) : 0;
}

/* A count or a value of a histogram's bucket from a file that may hold anything: clamped to
 * 2^62 (a double out of uint64_t's range converted is undefined; a sum of two stays in it). */
static inline uint64_t u64_of(double v)
{
	return v > 0 ? (v < 4.6e18 ? (uint64_t)llround(v) : (uint64_t)1 << 62) : 0;
}

/* Numbers of a file that may be anything (a fuzzer's, a hand edit's): clamped, since converting
 * a double out of the type's range is undefined; to half the range, so a sum of two stays in it
 * (NaN becomes 0). */
static inline int64_t i64_of(double v)
{
	return v > 4.6e18 ? (int64_t)4.6e18 : v < -4.6e18 ? (int64_t)-4.6e18 : v == v ? (int64_t)v : 0;
}

static inline int i32(const cJSON *o, const char *key)
{
	double v = num(o, key);
	return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : v == v ? (int)v : 0;
}

static inline const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);
	return cJSON_IsString(v) ? v->valuestring : "";
}

#endif
