/* --threshold: parsing, evaluation on a result, and their report (see thresholds.h). */
#include "output/thresholds.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/latency_hist.h"
#include "engine/named_metrics.h"
#include "engine/stats.h"
#include "util/opt.h"
#include "util/util.h"

#define SYNTAX "expected [TYPE.]METRIC<VALUE (or <=, >, >=), e.g. p95<50ms, tps>1000, errors<0.1%%, NewOrder.p95<200ms"
#define METRICS "pNN (e.g. p95, p99.9), avg, min, max, tps, qps, errors, events or reconnects"

static bool is_latency(enum lb_thr_metric m)
{
	return m == LB_THR_PCT || m == LB_THR_AVG || m == LB_THR_MIN || m == LB_THR_MAX;
}

/* The metric named by s[0..n): true and t->m (t->pct) set, or false. */
static bool parse_metric(const char *s, size_t n, struct lb_threshold *t)
{
	static const struct {
		const char *name;
		enum lb_thr_metric m;
	} names[] = {
		{ "avg", LB_THR_AVG }, { "min", LB_THR_MIN }, { "max", LB_THR_MAX },
		{ "tps", LB_THR_TPS }, { "qps", LB_THR_QPS }, { "errors", LB_THR_ERRORS },
		{ "events", LB_THR_EVENTS }, { "reconnects", LB_THR_RECONNECTS },
	};
	for (size_t i = 0; i < LB_ARRAY_LENGTH(names); i++)
		if (strlen(names[i].name) == n && !strncmp(s, names[i].name, n)) {
			t->m = names[i].m;
			return true;
		}
	if (n < 2 || s[0] != 'p' || !isdigit((unsigned char)s[1]))
		return false;
	char buf[32];
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s + 1, n - 1);
	buf[n - 1] = '\0';
	char *end;
	double p = strtod(buf, &end);
	if (*end || !(p > 0 && p <= 100))
		return false;
	t->m = LB_THR_PCT;
	t->pct = p;
	return true;
}

/* The value and its unit, converted to the metric's unit. */
static int parse_value(const char *v, struct lb_threshold *t, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (end == v || errno || !isfinite(x) || (x < 0 && t->m != LB_THR_NAMED)) {
		snprintf(err, errlen, "threshold '%s': '%s' is not a number >= 0 with an optional unit", t->text, v);
		return -1;
	}
	const char *u = end;
	bool ok = false;
	if (is_latency(t->m)) {
		t->unit = "ms";
		ok = true;
		if (!*u || !strcmp(u, "ms"))
			t->limit = x;
		else if (!strcmp(u, "us"))
			t->limit = x / 1e3;
		else if (!strcmp(u, "s"))
			t->limit = x * 1e3;
		else
			ok = false;
	} else if (t->m == LB_THR_TPS || t->m == LB_THR_QPS) {
		t->unit = "per_s";
		t->limit = x;
		ok = !*u || !strcmp(u, "/s");
	} else if (t->m == LB_THR_ERRORS) {
		t->unit = !strcmp(u, "%") ? "%" : "";
		t->limit = x;
		ok = !*u || !strcmp(u, "%");
	} else if (t->m == LB_THR_NAMED) {
		/* the unit that fits is known once the metric's kind is (check_named) */
		t->unit = "";
		t->limit = x;
		t->percent = !strcmp(u, "%");
		ok = !*u || t->percent;
	} else {
		t->unit = "";
		t->limit = x;
		ok = !*u;
	}
	if (!ok) {
		const char *units = is_latency(t->m) ? "us, ms (the default) or s"
				    : t->m == LB_THR_ERRORS ? "none (a count) or % (a share of the attempts)"
				    : t->m == LB_THR_TPS || t->m == LB_THR_QPS ? "none or /s"
				    : t->m == LB_THR_NAMED ? "none, or % for a luabench.rate" : "none (a count)";
		snprintf(err, errlen, "threshold '%s': unit '%s' does not fit %s (units: %s)", t->text, u, t->metric,
			 units);
		return -1;
	}
	return 0;
}

static const char *closest_metric(const char *name);

/* A name a script may give a metric (lua/luabench/named_metrics.lua checks the same): letters,
 * digits and '_', not starting with a digit nor with 'p' and a digit (a percentile). */
static bool is_metric_name(const char *s, size_t n)
{
	if (!n || n >= LB_METRIC_NAME_BYTES || isdigit((unsigned char)s[0]) ||
	    (s[0] == 'p' && n > 1 && isdigit((unsigned char)s[1])))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* NAME or NAME.last/.min/.max: a named metric of the script (checked once it is loaded). */
static bool parse_named(const char *left, struct lb_threshold *t)
{
	static const char *const fields[] = { "last", "min", "max" };
	const char *dot = strchr(left, '.');
	size_t n = dot ? (size_t)(dot - left) : strlen(left);
	enum lb_thr_field field = LB_THR_FIELD_VALUE;
	if (!is_metric_name(left, n))
		return false;
	if (dot) {
		size_t i = 0;
		while (i < LB_ARRAY_LENGTH(fields) && strcmp(dot + 1, fields[i]))
			i++;
		if (i == LB_ARRAY_LENGTH(fields))
			return false;
		field = (enum lb_thr_field)(LB_THR_FIELD_LAST + i);
	}
	t->m = LB_THR_NAMED;
	t->field = field;
	t->name = lb_xzalloc(n + 1);
	memcpy(t->name, left, n);
	t->metric = lb_xstrdup(left);
	return true;
}

static int parse_left(const char *left, struct lb_threshold *t, char *err, size_t errlen)
{
	size_t n = strlen(left);
	if (parse_metric(left, n, t)) {
		t->metric = lb_xstrdup(left);
		return 0;
	}
	/* TYPE.METRIC: the first dot after which a metric follows (p99.9 has a dot of its own). */
	for (const char *dot = strchr(left, '.'); dot; dot = strchr(dot + 1, '.')) {
		if (dot == left || !parse_metric(dot + 1, strlen(dot + 1), t))
			continue;
		/* a type has no minimum: NAME.min is a gauge's */
		if (t->m == LB_THR_MIN && parse_named(left, t))
			return 0;
		t->type = lb_xstrdup(left);
		t->type[dot - left] = '\0';
		t->metric = lb_xstrdup(dot + 1);
		if (t->m == LB_THR_MIN || t->m == LB_THR_QPS || t->m == LB_THR_RECONNECTS) {
			snprintf(err, errlen, "threshold '%s': %s is not measured per transaction type", t->text,
				 t->metric);
			return -1;
		}
		return 0;
	}
	if (parse_named(left, t))
		return 0;
	const char *dot = strchr(left, '.');
	const char *name = dot && dot[1] ? dot + 1 : left;
	const char *near = closest_metric(name);
	if (near)
		snprintf(err, errlen, "threshold '%s': unknown metric '%s' (did you mean '%s'?)", t->text, name, near);
	else
		snprintf(err, errlen, "threshold '%s': unknown metric '%s' (metrics: " METRICS ")", t->text, name);
	return -1;
}

/* Takes TYPE.max threshold t as the maximum of a gauge named TYPE instead, if its text reads as
 * one (a negative limit, no unit). */
static bool as_gauge_max(struct lb_threshold *t)
{
	char *op = strpbrk(t->text, "<>");
	char *left = lb_xstrdup(t->text);
	left[op - t->text] = '\0';
	struct lb_threshold named = { .text = t->text, .op = t->op };
	char err[256];
	bool ok = parse_named(left, &named) && parse_value(op + 1 + (op[1] == '='), &named, err, sizeof(err)) == 0;
	free(left);
	if (!ok) {
		free(named.name);
		free(named.metric);
		return false;
	}
	free(t->type);
	free(t->metric);
	*t = named;
	return true;
}

/* The closest of `names` to `name` at most max_d edits away, or NULL. */
static const char *closest(const char *name, const char *const *names, int n, int max_d)
{
	const char *best = NULL;
	int best_d = max_d + 1;
	for (int i = 0; i < n; i++) {
		int d = lb_str_distance(name, names[i]);
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	return best;
}

static const char *closest_metric(const char *name)
{
	static const char *const names[] = { "avg", "min", "max", "tps", "qps", "errors", "events", "reconnects",
					     "p50", "p90", "p95", "p99", "p99.9" };
	/* metric names are short and many: one edit (two from 8 characters) */
	return closest(name, names, (int)LB_ARRAY_LENGTH(names), strlen(name) >= 8 ? 2 : 1);
}

/* "a, b, c" of n names, cut to fit. */
static void name_list(char *buf, size_t len, const char *const *names, int n)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
	}
}

static int type_id(const struct lb_types *types, const char *name)
{
	int n = types ? __atomic_load_n(&types->n, __ATOMIC_ACQUIRE) : 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(lb_types_name(types, i), name))
			return i;
	return -1;
}

static int check_type(const struct lb_threshold *t, const struct lb_types *types, char *err, size_t errlen)
{
	int n = types ? __atomic_load_n(&types->n, __ATOMIC_ACQUIRE) : 0;
	const char *names[LB_MAX_TYPES] = { 0 };
	for (int i = 0; i < n; i++)
		names[i] = lb_types_name(types, i);
	int len = (int)strlen(t->type);
	const char *near = closest(t->type, names, n, len / 3 + 1 > 2 ? len / 3 + 1 : 2);
	char list[512];
	name_list(list, sizeof(list), names, n);
	if (near)
		snprintf(err, errlen, "threshold '%s': no transaction type '%s' (did you mean '%s'?)", t->text,
			 t->type, near);
	else if (n)
		snprintf(err, errlen, "threshold '%s': no transaction type '%s' (the script's types: %s)", t->text,
			 t->type, list);
	else
		snprintf(err, errlen, "threshold '%s': no transaction type '%s' (the script defines no "
			 "luabench.stats types)", t->text, t->type);
	return -1;
}

static int unknown_named(const struct lb_threshold *t, const struct lb_metric_defs *metrics, char *err,
			 size_t errlen)
{
	int n = lb_metric_defs_count(metrics);
	const char *names[LB_MAX_METRICS] = { 0 };
	for (int i = 0; i < n; i++)
		names[i] = lb_metric_defs_get(metrics, i)->name;
	int len = (int)strlen(t->name);
	const char *near = closest(t->name, names, n, len / 3 + 1 > 2 ? len / 3 + 1 : 2);
	if (!near)
		near = closest_metric(t->name);
	char list[512];
	name_list(list, sizeof(list), names, n);
	if (near)
		snprintf(err, errlen, "threshold '%s': unknown metric '%s' (did you mean '%s'?)", t->text, t->name, near);
	else if (n)
		snprintf(err, errlen, "threshold '%s': unknown metric '%s' (metrics: " METRICS ", or the script's: %s)",
			 t->text, t->name, list);
	else
		snprintf(err, errlen, "threshold '%s': unknown metric '%s' (metrics: " METRICS "; the script "
			 "declares no luabench.counter, .rate or .gauge)", t->text, t->name);
	return -1;
}

/* A named metric's threshold against the metric's kind; sets the unit it is read in. */
static int check_named(struct lb_threshold *t, const struct lb_types *types,
		       const struct lb_metric_defs *metrics, char *err, size_t errlen)
{
	const struct lb_metric_def *d = lb_metric_defs_get(metrics, lb_metric_defs_find(metrics, t->name));
	if (!d && t->field == LB_THR_FIELD_MIN && type_id(types, t->name) >= 0) {
		snprintf(err, errlen, "threshold '%s': min is not measured per transaction type", t->text);
		return -1;
	}
	if (!d)
		return unknown_named(t, metrics, err, errlen);
	const char *kind = lb_metric_kind_name(d->kind);
	if (t->field != LB_THR_FIELD_VALUE && d->kind != LB_METRIC_GAUGE) {
		snprintf(err, errlen, "threshold '%s': '%s' is a %s: only a gauge has .last, .min and .max (name it "
			 "alone: %s)", t->text, t->name, kind, t->name);
		return -1;
	}
	if (t->percent && d->kind != LB_METRIC_RATE) {
		snprintf(err, errlen, "threshold '%s': unit '%%' does not fit %s '%s' (units: none)", t->text, kind,
			 t->name);
		return -1;
	}
	t->unit = d->kind == LB_METRIC_COUNTER ? "" : d->kind == LB_METRIC_GAUGE ? "value" : t->percent ? "%" : "fraction";
	return 0;
}

/* TYPE.max where TYPE is no transaction type but a gauge: the gauge's maximum (the parser took
 * it for a type's latency, in ms). */
static bool retake_as_gauge(struct lb_threshold *t, const struct lb_types *types,
			    const struct lb_metric_defs *metrics)
{
	return t->m == LB_THR_MAX && type_id(types, t->type) < 0 && lb_metric_defs_find(metrics, t->type) >= 0 &&
	       as_gauge_max(t);
}

int lb_thresholds_check_names(struct lb_thresholds *ts, const struct lb_types *types,
			      const struct lb_metric_defs *metrics, char *err, size_t errlen)
{
	for (int k = 0; ts && k < ts->n; k++) {
		struct lb_threshold *t = &ts->v[k];
		if (t->type && type_id(types, t->type) < 0 && !retake_as_gauge(t, types, metrics)) {
			const struct lb_metric_def *d = lb_metric_defs_get(metrics, lb_metric_defs_find(metrics, t->type));
			if (!d)
				return check_type(t, types, err, errlen);
			snprintf(err, errlen, "threshold '%s': '%s' is a %s: name it alone%s", t->text, t->type,
				 lb_metric_kind_name(d->kind), d->kind == LB_METRIC_GAUGE ? ", or its .last, .min or .max" : "");
			return -1;
		}
		if (t->m == LB_THR_NAMED && check_named(t, types, metrics, err, errlen) < 0)
			return -1;
	}
	return 0;
}

static void threshold_free(struct lb_threshold *t)
{
	free(t->text);
	free(t->type);
	free(t->metric);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

int lb_threshold_parse(const char *text, struct lb_threshold *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	/* Spaces are allowed anywhere ('p95 < 50 ms'). */
	t->text = lb_xzalloc(strlen(text) + 1);
	char *d = t->text;
	for (const char *s = text; *s; s++)
		if (!isspace((unsigned char)*s))
			*d++ = *s;
	char *op = strpbrk(t->text, "<>");
	if (!op || op == t->text || !op[1 + (op[1] == '=')]) {
		snprintf(err, errlen, "threshold '%s': " SYNTAX, t->text);
		threshold_free(t);
		return -1;
	}
	bool eq = op[1] == '=';
	t->op = *op == '<' ? (eq ? LB_THR_LE : LB_THR_LT) : (eq ? LB_THR_GE : LB_THR_GT);
	char *left = lb_xstrdup(t->text);
	left[op - t->text] = '\0';
	int rc = parse_left(left, t, err, errlen);
	if (rc == 0)
		rc = parse_value(op + 1 + eq, t, err, errlen);
	/* NAME.max with a value no latency has (a negative one): a gauge's maximum */
	if (rc < 0 && t->type && t->m == LB_THR_MAX && as_gauge_max(t))
		rc = 0;
	free(left);
	if (rc < 0)
		threshold_free(t);
	return rc;
}

static int add_list(struct lb_thresholds *ts, const char *value, char *err, size_t errlen)
{
	char *copy = lb_xstrdup(value), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
		struct lb_threshold t;
		rc = lb_threshold_parse(tok, &t, err, errlen);
		if (rc == 0) {
			ts->v = lb_xrealloc(ts->v, (size_t)(ts->n + 1) * sizeof(*ts->v));
			ts->v[ts->n++] = t;
		}
	}
	free(copy);
	return rc;
}

int lb_thresholds_read(struct lb_thresholds *ts, const struct lb_opts *o, char *err, size_t errlen)
{
	memset(ts, 0, sizeof(*ts));
	/* Each --threshold given counts (an option normally keeps its last value). */
	for (int i = 0; i < o->npending; i++) {
		const struct lb_pending *p = &o->pending[i];
		if (!lb_name_eq(p->name, "threshold"))
			continue;
		if (!p->value || !*p->value) {
			snprintf(err, errlen, "threshold '': " SYNTAX);
			return -1;
		}
		if (add_list(ts, p->value, err, errlen) < 0)
			return -1;
	}
	return 0;
}

void lb_thresholds_free(struct lb_thresholds *ts)
{
	for (int i = 0; i < ts->n; i++)
		threshold_free(&ts->v[i]);
	free(ts->v);
	memset(ts, 0, sizeof(*ts));
}

/* ---- evaluation ------------------------------------------------------------------------------ */

static const char *const op_text[] = { "<", "<=", ">", ">=" };

static int find_type(const struct lb_result *r, const char *name)
{
	for (int i = 0; r->types && r->snap && i < LB_MAX_TYPES; i++)
		if (r->snap->types[i] && !strcmp(lb_types_name(r->types, i), name))
			return i;
	return -1;
}

/* The run's own figure: the report's where it prints one (same percentile, same number). */
static const char *observe_run(const struct lb_threshold *t, const struct lb_result *r, double *v)
{
	const struct lb_report_stat *st = &r->st;
	const uint64_t *c = st->cnt;
	double n = (double)c[LB_CNT_EVENT], secs = st->time_total_s;
	double errors = (double)(c[LB_CNT_ERROR] + c[LB_CNT_FAILED]);
	if (is_latency(t->m) && n == 0)
		return "no events";
	switch (t->m) {
	case LB_THR_PCT:
		for (int i = 0; i < st->npct; i++)
			if (st->pct_rank[i] == t->pct) {
				*v = st->pct[i] * 1e3;
				return NULL;
			}
		*v = (double)lb_hist_percentile(&r->snap->lat, t->pct, (uint64_t)llround(st->lat_min_s * 1e9),
						(uint64_t)llround(st->lat_max_s * 1e9)) / 1e6;
		return NULL;
	case LB_THR_AVG: *v = st->lat_avg_s * 1e3; return NULL;
	case LB_THR_MIN: *v = st->lat_min_s * 1e3; return NULL;
	case LB_THR_MAX: *v = st->lat_max_s * 1e3; return NULL;
	case LB_THR_TPS: *v = secs > 0 ? n / secs : 0; return NULL;
	case LB_THR_QPS:
		*v = secs > 0 ? (double)(c[LB_CNT_READ] + c[LB_CNT_WRITE] + c[LB_CNT_OTHER]) / secs : 0;
		return NULL;
	case LB_THR_ERRORS:
		if (strcmp(t->unit, "%")) {
			*v = errors;
			return NULL;
		}
		if (n + errors == 0)
			return "no events";
		*v = 100.0 * errors / (n + errors);
		return NULL;
	case LB_THR_EVENTS: *v = n; return NULL;
	case LB_THR_RECONNECTS: *v = (double)c[LB_CNT_RECONNECT]; return NULL;
	case LB_THR_NAMED: break;
	}
	return "unknown metric";
}

/* A transaction type's figure, as the per-type report computes it. */
static const char *observe_type(const struct lb_threshold *t, const struct lb_result *r, double *v)
{
	int id = find_type(r, t->type);
	if (id < 0)
		return "no transactions of this type";
	const struct lb_type_stats *ty = r->snap->types[id];
	double n = (double)ty->cnt[LB_TCNT_DONE], errors = (double)ty->cnt[LB_TCNT_ERROR];
	uint64_t max = lb_hist_max(&ty->lat);
	if (is_latency(t->m) && n == 0)
		return "no completed transactions of this type";
	switch (t->m) {
	case LB_THR_PCT: *v = (double)lb_hist_percentile(&ty->lat, t->pct, 0, max) / 1e6; return NULL;
	case LB_THR_AVG: *v = (double)ty->sum_ns / n / 1e6; return NULL;
	case LB_THR_MAX: *v = (double)max / 1e6; return NULL;
	case LB_THR_TPS: *v = r->st.time_total_s > 0 ? n / r->st.time_total_s : 0; return NULL;
	case LB_THR_ERRORS:
		if (strcmp(t->unit, "%")) {
			*v = errors;
			return NULL;
		}
		if (n + errors == 0)
			return "no transactions of this type";
		*v = 100.0 * errors / (n + errors);
		return NULL;
	case LB_THR_EVENTS: *v = n; return NULL;
	default: return "not measured per transaction type";
	}
}

/* A named metric's figure over the final window, as the report shows it. */
static const char *observe_named(const struct lb_threshold *t, const struct lb_result *r, double *v)
{
	int id = lb_metric_defs_find(r->metrics, t->name);
	const struct lb_metric_def *d = lb_metric_defs_get(r->metrics, id);
	if (!d || !r->snap)
		return "no such metric";
	const struct lb_metric_value *x = &r->snap->metrics[id];
	switch (t->field) {
	case LB_THR_FIELD_MIN:
	case LB_THR_FIELD_MAX:
		if (!lb_metric_has_extremes(x))
			return "not set in the window";
		*v = t->field == LB_THR_FIELD_MIN ? x->min : x->max;
		return NULL;
	default:
		if (!lb_metric_value_of(d, x, v))
			return d->kind == LB_METRIC_RATE ? "no outcomes" : "never set";
		if (t->percent)
			*v *= 100;
		return NULL;
	}
}

static bool holds(enum lb_thr_op op, double v, double limit)
{
	switch (op) {
	case LB_THR_LT: return v < limit;
	case LB_THR_LE: return v <= limit;
	case LB_THR_GT: return v > limit;
	case LB_THR_GE: return v >= limit;
	}
	return false;
}

int lb_thresholds_eval(const struct lb_thresholds *ts, const struct lb_result *r,
		       struct lb_threshold_outcome *out)
{
	int failed = 0;
	for (int i = 0; i < ts->n; i++) {
		const struct lb_threshold *t = &ts->v[i];
		struct lb_threshold_outcome *o = &out[i];
		memset(o, 0, sizeof(*o));
		o->text = t->text;
		o->type = t->type;
		o->metric = t->metric;
		o->op = op_text[t->op];
		o->limit = t->limit;
		o->unit = t->unit;
		o->missing = t->type ? observe_type(t, r, &o->observed)
			     : t->m == LB_THR_NAMED ? observe_named(t, r, &o->observed) : observe_run(t, r, &o->observed);
		o->pass = !o->missing && holds(t->op, o->observed, t->limit);
		failed += !o->pass;
	}
	return failed;
}

/* ---- output ---------------------------------------------------------------------------------- */

static void format_value(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "ms"))
		snprintf(buf, len, "%.3f ms", v);
	else if (!strcmp(unit, "per_s"))
		snprintf(buf, len, "%.2f per sec.", v);
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%.4f%%", v);
	else if (!strcmp(unit, "fraction"))
		snprintf(buf, len, "%.4f", v);
	else if (!strcmp(unit, "value"))
		snprintf(buf, len, "%.15g", v);
	else
		snprintf(buf, len, "%.0f", v);
}

void lb_thresholds_print(FILE *out, const struct lb_threshold_outcome *o, int n)
{
	if (!n)
		return;
	int failed = 0;
	fprintf(out, "Thresholds:\n");
	for (int i = 0; i < n; i++) {
		char val[64];
		format_value(val, sizeof(val), o[i].observed, o[i].unit);
		fprintf(out, "    %-32s %s  (%s)\n", o[i].text, o[i].pass ? "pass" : "FAIL",
			o[i].missing ? o[i].missing : val);
		failed += !o[i].pass;
	}
	if (failed)
		fprintf(out, "    %d of %d thresholds failed\n", failed, n);
	fprintf(out, "\n");
}

cJSON *lb_thresholds_json(const struct lb_threshold_outcome *o, int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "threshold", o[i].text);
		if (o[i].type)
			cJSON_AddStringToObject(j, "type", o[i].type);
		else
			cJSON_AddNullToObject(j, "type");
		cJSON_AddStringToObject(j, "metric", o[i].metric);
		cJSON_AddStringToObject(j, "op", o[i].op);
		cJSON_AddNumberToObject(j, "limit", o[i].limit);
		cJSON_AddStringToObject(j, "unit", o[i].unit);
		if (o[i].missing) {
			cJSON_AddNullToObject(j, "observed");
			cJSON_AddStringToObject(j, "missing", o[i].missing);
		} else {
			cJSON_AddNumberToObject(j, "observed", o[i].observed);
		}
		cJSON_AddBoolToObject(j, "pass", o[i].pass);
		cJSON_AddItemToArray(a, j);
	}
	return a;
}
