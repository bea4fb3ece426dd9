/* --threshold: pass/fail conditions on the final window of a run, for CI jobs that gate on a
 * run without parsing its output (k6's thresholds, pgbench's --latency-limit).
 *
 *   [TYPE.]METRIC OP VALUE[UNIT]     OP: < <= > >=
 *
 * METRIC: pNN (any percentile, e.g. p95, p99.9), avg, min (not per type), max: latency, in
 * us, ms (the default) or s; tps (events, or the type's transactions, per second), qps (queries
 * per second, not per type); errors: a count, or with % a share of the attempts (errors over
 * events + errors); events (a count); reconnects (a count, not per type). TYPE is a transaction
 * type of luabench.stats (e.g. NewOrder.p95<200ms). A threshold on a figure the run does not
 * have (a latency without events, a type that never ran) fails.
 *
 * METRIC may also be a named metric the script declares (luabench.counter, .rate, .gauge): NAME
 * is its value (a counter's sum, a rate's share of true outcomes, with % in percent, a gauge's
 * last value), NAME.last, NAME.min and NAME.max a gauge's. Which names the script declares is
 * known once its states are loaded, so these are checked then (lb_thresholds_check_names). */
#ifndef LB_OUTPUT_THRESHOLDS_H
#define LB_OUTPUT_THRESHOLDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engine/result.h"

struct lb_opts;
struct cJSON;

/* Exit code of a run whose thresholds failed (and that did not fail otherwise). */
#define LB_EXIT_THRESHOLDS 4

enum lb_thr_metric {
	LB_THR_PCT, LB_THR_AVG, LB_THR_MIN, LB_THR_MAX, LB_THR_TPS, LB_THR_QPS, LB_THR_ERRORS,
	LB_THR_EVENTS, LB_THR_RECONNECTS, LB_THR_NAMED,
};

/* What a threshold on a named metric reads: its value, or a gauge's last, min or max. */
enum lb_thr_field { LB_THR_FIELD_VALUE, LB_THR_FIELD_LAST, LB_THR_FIELD_MIN, LB_THR_FIELD_MAX };

enum lb_thr_op { LB_THR_LT, LB_THR_LE, LB_THR_GT, LB_THR_GE };

struct lb_threshold {
	char *text;                 /* as given, without spaces */
	char *type;                 /* transaction type, NULL = the whole run */
	char *metric;               /* as written: "p95", "tps", ... */
	enum lb_thr_metric m;
	char *name;                 /* LB_THR_NAMED: the metric's name, */
	enum lb_thr_field field;    /* what of it, */
	bool percent;               /* and whether the limit is in % (a rate's) */
	double pct;                 /* LB_THR_PCT: the percentile */
	enum lb_thr_op op;
	double limit;               /* in `unit` */
	const char *unit;           /* "ms" (latency), "per_s", "%" (errors share, a rate in percent), "" (a
				     * count), "fraction" (a rate) or "value" (a gauge) */
};

struct lb_thresholds {
	struct lb_threshold *v;
	int n;
};

/* One threshold from text. 0, or -1 with a one-line message naming it in err. */
int lb_threshold_parse(const char *text, struct lb_threshold *t, char *err, size_t errlen);
/* Every --threshold given (the option may be repeated; each value may hold a comma-separated
 * list). 0, or -1 with a message in err. */
int lb_thresholds_read(struct lb_thresholds *ts, const struct lb_opts *o, char *err, size_t errlen);
void lb_thresholds_free(struct lb_thresholds *ts);

/* Before the run: every TYPE a threshold names is a type the script defined, every named metric
 * one it declared, of a kind the threshold fits (types, metrics: the run's registries, filled
 * when the states load). 0, or -1 with "no transaction type 'X' (did you mean 'Y'?)" or
 * "unknown metric 'X' ..." in err. */
int lb_thresholds_check_names(struct lb_thresholds *ts, const struct lb_types *types,
			      const struct lb_metric_defs *metrics, char *err, size_t errlen);

/* Evaluates every threshold on result r into out[ts->n] (out[i].text borrows ts's text).
 * Returns how many failed. */
int lb_thresholds_eval(const struct lb_thresholds *ts, const struct lb_result *r,
		       struct lb_threshold_outcome *out);

/* The "Thresholds:" block after the report. */
void lb_thresholds_print(FILE *out, const struct lb_threshold_outcome *o, int n);
/* The result document's "thresholds" array. */
struct cJSON *lb_thresholds_json(const struct lb_threshold_outcome *o, int n);

#endif
