/* luabench merge, reading (see merge.h): each input document is checked against the first and
 * added to the merged run's state (merge_int.h). */
#include "output/merge_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/util.h"

const char *const lb_merge_statuses[5] = { "ok", "cut_off", "interrupted", "forced_shutdown", "failed" };

static const struct {
	const char *key;
	enum lb_cnt cnt;
} counters[] = {
	{ "events", LB_CNT_EVENT }, { "reads", LB_CNT_READ }, { "writes", LB_CNT_WRITE },
	{ "other", LB_CNT_OTHER }, { "errors", LB_CNT_ERROR }, { "reconnects", LB_CNT_RECONNECT },
	{ "bytes_read", LB_CNT_BYTES_READ }, { "bytes_written", LB_CNT_BYTES_WRITTEN },
	{ "failed_events", LB_CNT_FAILED },
};

/* Options expected to differ between the instances of one distributed run. */
static const char *const per_instance_opts[] = {
	"instance", "output", "start-at", "rand-seed", "format", "verbosity", "config-file",
	"percentile", "histogram", "report-system", "system-stats", "db-server-pid", "db-server-name",
};

cJSON *lb_merge_read_doc(const char *path, char *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, ERRLEN, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	struct lb_buf b = { 0 };
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		lb_buf_append(&b, chunk, n);
	fclose(f);
	lb_buf_append(&b, "", 1);
	cJSON *doc = cJSON_Parse(b.data);
	lb_buf_free(&b);
	if (!cJSON_IsObject(doc) || !cJSON_IsObject(get(doc, "luabench"))) {
		snprintf(err, ERRLEN, "'%s' is not a luabench result (%s)", path,
			 doc ? "no \"luabench\" field" : "not JSON");
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* ---- validation ------------------------------------------------------------------------------ */

static bool layout_ok(const cJSON *h)
{
	if (strcmp(str(h, "unit"), "ns") || num(h, "significant_digits") != 3 ||
	    u64(h, "highest_trackable_ns") != LB_HIST_MAX_NS || !cJSON_IsArray(get(h, "buckets")))
		return false;
	const cJSON *pair;
	cJSON_ArrayForEach(pair, get(h, "buckets")) {
		/* Every bucket must start where one of ours starts, or the counts would not line up. */
		const cJSON *v = cJSON_GetArrayItem(pair, 0);
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble >= (double)LB_HIST_MAX_NS)
			return false;
		uint64_t ns = (uint64_t)v->valuedouble;
		if (lb_hist_value_at(lb_hist_index(ns)) != ns)
			return false;
	}
	return true;
}

static int status_index(const char *s)
{
	for (size_t i = 0; i < LB_ARRAY_LENGTH(lb_merge_statuses); i++)
		if (!strcmp(s, lb_merge_statuses[i]))
			return (int)i;
	return -1;
}

static int check_doc(const char *path, const cJSON *d, char *err)
{
	const char *status = str(d, "status");
	if (!strcmp(status, "error")) {
		snprintf(err, ERRLEN, "'%s' is the result of a failed run (error: %s)", path, str(d, "error"));
		return -1;
	}
	if (status_index(status) < 0 || !cJSON_IsObject(get(d, "counters"))) {
		snprintf(err, ERRLEN, "'%s' is not a luabench run result (status '%s')", path, status);
		return -1;
	}
	const cJSON *h = get(d, "histogram");
	if (!cJSON_IsObject(h) || !layout_ok(h)) {
		snprintf(err, ERRLEN,
			 "'%s' has a different histogram layout (not 3 significant digits in ns up to %llu): cannot merge it exactly",
			 path, (unsigned long long)LB_HIST_MAX_NS);
		return -1;
	}
	for (const cJSON *t = get(d, "types") ? get(d, "types")->child : NULL; t; t = t->next)
		if (!layout_ok(get(t, "histogram"))) {
			snprintf(err, ERRLEN, "'%s': the histogram of type '%s' has a different layout", path, t->string);
			return -1;
		}
	return 0;
}

static bool ignored_opt(const char *name)
{
	for (size_t i = 0; i < LB_ARRAY_LENGTH(per_instance_opts); i++)
		if (!strcmp(name, per_instance_opts[i]))
			return true;
	return false;
}

/* Warns (does not refuse) when an input ran another workload or with other options. */
static void compare(const struct merge *m, const char *path, const cJSON *d)
{
	char b1[1024], b2[256], b3[1024], b4[256];
	if (strcmp(str(d, "workload"), str(m->first, "workload")))
		lb_warn("'%s' ran workload '%s', '%s' ran '%s'", lb_escape_to(b1, sizeof(b1), path),
			lb_escape_to(b2, sizeof(b2), str(d, "workload")), lb_escape_to(b3, sizeof(b3), m->first_file),
			lb_escape_to(b4, sizeof(b4), str(m->first, "workload")));
	const cJSON *a = get(m->first, "options"), *b = get(d, "options");
	struct lb_buf diff = { 0 };
	int n = 0;
	for (const cJSON *o = a ? a->child : NULL; o; o = o->next) {
		if (ignored_opt(o->string) || cJSON_Compare(o, get(b, o->string), true))
			continue;
		if (n++ < 8)
			lb_buf_printf(&diff, "%s--%s", n > 1 ? ", " : "", o->string);
	}
	if (n)
		lb_warn("'%s' ran with other options than '%s': %s%s", lb_escape_to(b1, sizeof(b1), path),
			lb_escape_to(b3, sizeof(b3), m->first_file), lb_escape_to(b2, sizeof(b2), diff.data), n > 8 ? ", …" : "");
	lb_buf_free(&diff);
}

/* ---- accumulation ---------------------------------------------------------------------------- */

static void add_hist(struct lb_hist *h, const cJSON *j)
{
	const cJSON *pair;
	cJSON_ArrayForEach(pair, get(j, "buckets")) {
		const cJSON *v = cJSON_GetArrayItem(pair, 0), *c = cJSON_GetArrayItem(pair, 1);
		if (cJSON_IsNumber(v) && cJSON_IsNumber(c) && c->valuedouble > 0)
			lb_hist_add_value(h, u64_of(v->valuedouble), u64_of(c->valuedouble));
	}
	h->overflow += u64(j, "overflow");
}

static void add_latency(struct merge *m, const cJSON *d)
{
	const cJSON *h = get(d, "histogram");
	add_hist(&m->snap.lat, h);
	m->snap.lat_sum_ns += u64(h, "sum_ns");
	if (u64(h, "count")) {
		uint64_t mn = u64(h, "min_ns"), mx = u64(h, "max_ns");
		if (mn < m->snap.lat_min_ns)
			m->snap.lat_min_ns = mn;
		if (mx > m->snap.lat_max_ns)
			m->snap.lat_max_ns = mx;
	}
	for (size_t i = 0; i < LB_ARRAY_LENGTH(counters); i++)
		m->snap.cnt[counters[i].cnt] += u64(get(d, "counters"), counters[i].key);
}

#define UNIX_US_MAX 7258118400000000LL /* 2200-01-01 */

static int64_t parse_iso_ns(const char *s)
{
	struct tm tm = { 0 };
	int ms = 0;
	if (sscanf(s, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
		   &tm.tm_min, &tm.tm_sec, &ms) != 7 || tm.tm_year < 1970 || tm.tm_year > 2200 || ms < 0 || ms > 999)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm); /* a month or an hour out of range moves it anywhere: check again */
	return t < 0 || t >= UNIX_US_MAX / 1000000 ? 0 : (int64_t)t * LB_NS_PER_S + (int64_t)ms * LB_NS_PER_MS;
}

static void add_window(struct merge *m, const char *path, const cJSON *d)
{
	const cJSON *w = get(d, "window");
	int64_t s, e;
	if (cJSON_IsObject(w)) {
		s = i64_of(num(w, "start_unix_us"));
		e = i64_of(num(w, "end_unix_us"));
	} else {
		char b[1024];
		lb_warn("'%s' has no measured window (written by an older luabench): using its start time",
			lb_escape_to(b, sizeof(b), path));
		s = i64_of(num(d, "start_unix_s") * 1e6);
		e = s + i64_of(num(d, "time_s") * 1e6);
	}
	/* a time outside 1970..2200 is not one a run wrote: 0 (µs and ns of it fit an int64) */
	s = s > 0 && s < UNIX_US_MAX ? s : 0;
	e = e > 0 && e < UNIX_US_MAX ? e : 0;
	if (!m->start_us || s < m->start_us)
		m->start_us = s;
	if (e > m->end_us)
		m->end_us = e;
	m->windows = lb_xrealloc(m->windows, (size_t)(m->nwindows + 1) * sizeof(*m->windows));
	m->windows[m->nwindows++] = (struct merge_window){ .start_us = s, .end_us = e, .path = path };
	double su = num(d, "start_unix_s");
	su = su > 0 && su < UNIX_US_MAX / 1e6 ? su : 0;
	if (!m->start_unix_s || su < m->start_unix_s)
		m->start_unix_s = su;
	int64_t end = parse_iso_ns(str(d, "end_time"));
	if (end > m->end_wall_ns)
		m->end_wall_ns = end;
}

static void add_threads(struct merge *m, const cJSON *d)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, get(get(d, "fairness"), "per_thread")) {
		if (m->nthreads == m->capthreads) {
			m->capthreads = m->capthreads ? m->capthreads * 2 : 64;
			m->threads = lb_xrealloc(m->threads, (size_t)m->capthreads * sizeof(*m->threads));
		}
		m->threads[m->nthreads++] = (struct lb_thread_figures){ .events = u64(t, "events"),
									.time_s = num(t, "time_s") };
	}
}

static struct lb_type_stats *type_slot(struct merge *m, const char *name)
{
	int id = lb_types_define(&m->types, name);
	if (id < 0)
		return NULL;
	if (!m->snap.types[id]) {
		struct lb_type_stats *t = lb_xzalloc(sizeof(*t));
		lb_hist_init(&t->lat); /* freed by lb_snap_fini like a run's */
		m->snap.types[id] = t;
	}
	return m->snap.types[id];
}

/* --report-statements: statements add up by text, as types by name. */
static void add_statements(struct merge *m, const cJSON *d)
{
	const cJSON *j;
	cJSON_ArrayForEach(j, get(d, "statements")) {
		const char *text = str(j, "sql");
		int id = lb_stmt_names_define(&m->stmt_names, text, strlen(text));
		if (!m->snap.stmts[id]) {
			struct lb_type_stats *t = lb_xzalloc(sizeof(*t));
			lb_hist_init(&t->lat); /* freed by lb_snap_fini like a run's */
			m->snap.stmts[id] = t;
		}
		struct lb_type_stats *t = m->snap.stmts[id];
		t->cnt[LB_TCNT_DONE] += u64(j, "count");
		t->cnt[LB_TCNT_ERROR] += u64(j, "errors");
		const cJSON *h = get(j, "histogram");
		t->sum_ns += u64(h, "sum_ns");
		if (layout_ok(h))
			add_hist(&t->lat, h);
	}
}

static int add_types(struct merge *m, const char *path, const cJSON *d)
{
	for (const cJSON *j = get(d, "types") ? get(d, "types")->child : NULL; j; j = j->next) {
		struct lb_type_stats *t = type_slot(m, j->string);
		if (!t) {
			snprintf(m->err, ERRLEN, "'%s': more than %d transaction types in all", path, LB_MAX_TYPES);
			return -1;
		}
		uint64_t n = u64(j, "count");
		t->cnt[LB_TCNT_DONE] += n;
		t->cnt[LB_TCNT_ERROR] += u64(j, "errors");
		t->cnt[LB_TCNT_ROLLBACK] += u64(j, "rollbacks");
		t->cnt[LB_TCNT_RETRY] += u64(j, "retries");
		const cJSON *h = get(j, "histogram");
		/* Results from before the exact sum was recorded: rebuild it from the average. */
		t->sum_ns += get(h, "sum_ns") ? u64(h, "sum_ns")
					      : (uint64_t)llround(num(get(j, "latency_ms"), "avg") * 1e6 * (double)n);
		add_hist(&t->lat, h);
	}
	return 0;
}

static void add_rate(struct merge *m, const cJSON *d)
{
	const cJSON *r = get(d, "rate");
	if (!cJSON_IsObject(r))
		return;
	if (!m->rate_mode)
		m->cfg.rate_constant = !strcmp(str(r, "arrivals"), "constant");
	m->rate_mode = true;
	m->cfg.rate += num(r, "target_per_s");
	int64_t lag = i64_of(num(r, "max_lag_ms") * 1e6);
	if (lag > m->max_lag_ns)
		m->max_lag_ns = lag;
	m->unserved_arrivals += u64(r, "unserved_arrivals");
	add_hist(&m->snap.svc, get(r, "service_histogram"));
}

/* ---- named metrics ---------------------------------------------------------------------------- */

static int metric_kind(const char *name)
{
	for (int k = LB_METRIC_COUNTER; k <= LB_METRIC_GAUGE; k++)
		if (!strcmp(name, lb_metric_kind_name((enum lb_metric_kind)k)))
			return k;
	return -1;
}

static enum lb_metric_better metric_better(const char *name)
{
	return !strcmp(name, "higher") ? LB_BETTER_HIGHER : !strcmp(name, "lower") ? LB_BETTER_LOWER : LB_BETTER_NEUTRAL;
}

/* A number the file may hold as null (a figure it did not have): NAN. */
static double num_or_nan(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* A metric's figures as a result or an interval writes them (output/metrics_report.c). */
static struct lb_metric_value metric_value(enum lb_metric_kind kind, const cJSON *j)
{
	struct lb_metric_value v;
	lb_metric_values_clear(&v, 1);
	if (kind == LB_METRIC_COUNTER) {
		v.sum = num(j, "value");
	} else if (kind == LB_METRIC_RATE) {
		v.sum = num(j, "true_outcomes");
		v.count = num(j, "outcomes");
	} else {
		v.count = num(j, "sets");
		double last = num_or_nan(j, "value"), at_us = num_or_nan(j, "last_set_unix_us");
		/* in whole µs: the ns of a date do not fit a double's 53 bits, its µs do */
		if (last == last && at_us > 0 && at_us < UNIX_US_MAX) {
			v.last = last;
			v.last_wall_ns = (int64_t)at_us * LB_NS_PER_US;
		}
		double mn = num_or_nan(j, "min"), mx = num_or_nan(j, "max");
		if (mn <= mx) {
			v.min = mn;
			v.max = mx;
		}
	}
	return v;
}

/* Named metrics add up by name: sums and outcomes add, a gauge's last value is the one set
 * last (a tie keeps the earlier input's) and its extremes those of all. */
static int add_metrics(struct merge *m, const char *path, const cJSON *d)
{
	for (const cJSON *j = cJSON_IsObject(get(d, "metrics")) ? get(d, "metrics")->child : NULL; j; j = j->next) {
		int kind = metric_kind(str(j, "kind"));
		if (kind < 0) {
			snprintf(m->err, ERRLEN, "'%s': metric '%s' has no known kind ('%s')", path, j->string, str(j, "kind"));
			return -1;
		}
		enum lb_metric_better better = metric_better(str(j, "better"));
		int id = lb_metric_defs_define(&m->metrics, j->string, (enum lb_metric_kind)kind, better);
		if (id < 0) {
			snprintf(m->err, ERRLEN, "'%s': more than %d named metrics in all", path, LB_MAX_METRICS);
			return -1;
		}
		const struct lb_metric_def *def = lb_metric_defs_get(&m->metrics, id);
		if (!m->metrics_file[id])
			m->metrics_file[id] = path;
		if ((int)def->kind != kind) {
			snprintf(m->err, ERRLEN, "'%s': metric '%s' is a %s, in '%s' a %s", path, j->string,
				 lb_metric_kind_name((enum lb_metric_kind)kind), m->metrics_file[id], lb_metric_kind_name(def->kind));
			return -1;
		}
		if (def->better != better)
			lb_warn("'%s': metric '%s' says %s is better, '%s' %s: keeping the first", path, j->string,
				lb_metric_better_name(better), m->metrics_file[id], lb_metric_better_name(def->better));
		struct lb_metric_value v = metric_value((enum lb_metric_kind)kind, j);
		lb_metric_values_merge(&m->snap.metrics[id], &v, 1);
	}
	return 0;
}

/* An interval's named metrics, by the names the results declared (add_metrics). */
static void add_interval_metrics(struct merge *m, struct lb_interval *iv, const cJSON *o)
{
	for (const cJSON *j = cJSON_IsObject(o) ? o->child : NULL; j; j = j->next) {
		int id = lb_metric_defs_find(&m->metrics, j->string);
		if (id < 0)
			continue;
		if (iv->nmetrics <= id) {
			iv->metrics = lb_xrealloc(iv->metrics, (size_t)(id + 1) * sizeof(*iv->metrics));
			lb_metric_values_clear(&iv->metrics[iv->nmetrics], id + 1 - iv->nmetrics);
			iv->nmetrics = id + 1;
		}
		struct lb_metric_value v = metric_value(lb_metric_defs_get(&m->metrics, id)->kind, j);
		lb_metric_values_merge(&iv->metrics[id], &v, 1);
	}
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static struct lb_interval_type *interval_type(struct lb_interval *iv, int id)
{
	for (int i = 0; i < iv->ntypes; i++)
		if (iv->types[i].id == id)
			return &iv->types[i];
	iv->types = lb_xrealloc(iv->types, (size_t)(iv->ntypes + 1) * sizeof(*iv->types));
	struct lb_interval_type *it = &iv->types[iv->ntypes++];
	memset(it, 0, sizeof(*it));
	it->id = id;
	for (int k = 0; k < LB_TYPE_MAX_PCTS; k++)
		it->pct_ms[k] = NAN;
	return it;
}

/* A count that would wrap the sum (only a made-up file has one): left out. */
static bool it_overflows(struct lb_interval *iv, int id, uint64_t n)
{
	for (int i = 0; i < iv->ntypes; i++)
		if (iv->types[i].id == id)
			return iv->types[i].done + n < n;
	return false;
}

/* An interval's per-type latency: averages weighted by the types' counts, the largest maximum;
 * percentiles, as the interval's own, cannot be merged without histograms (null). */
static void add_interval_types(struct merge *m, struct lb_interval *iv, const cJSON *j)
{
	const cJSON *lat = get(j, "type_latency_ms"), *counts = get(j, "types");
	for (const cJSON *t = cJSON_IsObject(lat) ? lat->child : NULL; t; t = t->next) {
		int id = lb_types_define(&m->types, t->string);
		uint64_t n = u64(counts, t->string);
		if (id < 0 || !n || it_overflows(iv, id, n))
			continue;
		struct lb_interval_type *it = interval_type(iv, id);
		it->avg_ms = (it->avg_ms * (double)it->done + num(t, "avg") * (double)n) / (double)(it->done + n);
		it->done += n;
		it->max_ms = max2(it->max_ms, num(t, "max"));
	}
}

/* Each type's errors, rollbacks and retries in an interval add up. */
static void add_interval_outcomes(struct merge *m, struct lb_interval *iv, const cJSON *o)
{
	for (const cJSON *t = cJSON_IsObject(o) ? o->child : NULL; t; t = t->next) {
		int id = lb_types_define(&m->types, t->string);
		if (id < 0)
			continue;
		iv->type_cnt[id][LB_TCNT_ERROR] += u64(t, "errors");
		iv->type_cnt[id][LB_TCNT_ROLLBACK] += u64(t, "rollbacks");
		iv->type_cnt[id][LB_TCNT_RETRY] += u64(t, "retries");
	}
}

/* Intervals line up by position: processes started together (--start-at) sample together.
 * Counts add; percentiles of an interval cannot be merged without its histogram (null). */
static void add_intervals(struct merge *m, const cJSON *d)
{
	int i = 0;
	const cJSON *j;
	cJSON_ArrayForEach(j, get(d, "intervals")) {
		if (i == m->nintervals) {
			m->intervals = lb_xrealloc(m->intervals, (size_t)(i + 1) * sizeof(*m->intervals));
			struct lb_interval *iv = &m->intervals[m->nintervals++];
			memset(iv, 0, sizeof(*iv));
			iv->sys = -1;
			iv->srv = -1;
			for (int k = 0; k < LB_MAX_PERCENTILES; k++)
				iv->lat_pct_ms[k] = NAN;
		}
		struct lb_interval *iv = &m->intervals[i++];
		iv->time_s = max2(iv->time_s, num(j, "time_s"));
		iv->interval_s = max2(iv->interval_s, num(j, "interval_s"));
		iv->threads_running += i32(j, "threads_running");
		for (size_t k = 0; k < LB_ARRAY_LENGTH(counters); k++)
			iv->cnt[counters[k].cnt] += u64(j, counters[k].key);
		iv->lat_max_ms = max2(iv->lat_max_ms, num(get(j, "latency_ms"), "max"));
		iv->queue_length += u64(j, "queue_length");
		iv->concurrency += (uint32_t)i32(j, "concurrency");
		iv->lag_ms = max2(iv->lag_ms, num(j, "lag_ms"));
		for (const cJSON *t = get(j, "types") ? get(j, "types")->child : NULL; t; t = t->next) {
			int id = lb_types_define(&m->types, t->string);
			if (id >= 0)
				iv->type_cnt[id][LB_TCNT_DONE] += (uint64_t)llround(t->valuedouble);
		}
		add_interval_outcomes(m, iv, get(j, "type_outcomes"));
		add_interval_types(m, iv, j);
		add_interval_metrics(m, iv, get(j, "metrics"));
	}
}

/* Host names in order of first appearance; a merged input lists its own as "a,b". */
static void add_hosts(struct merge *m, const char *hostname)
{
	char *copy = lb_xstrdup(hostname), *save = NULL;
	for (char *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		bool seen = false;
		const cJSON *x;
		cJSON_ArrayForEach(x, m->hosts)
			seen = seen || !strcmp(x->valuestring, h);
		if (!seen)
			cJSON_AddItemToArray(m->hosts, cJSON_CreateString(h));
	}
	free(copy);
}

/* Where the merged figures came from: one entry per original result, in input order. A merged
 * input contributes its own list, which keeps merging associative. */
static void add_provenance(struct merge *m, const char *path, const cJSON *d)
{
	const cJSON *list = get(d, "merged_from"), *x;
	if (cJSON_IsArray(list)) {
		cJSON_ArrayForEach(x, list)
			cJSON_AddItemToArray(m->from, cJSON_Duplicate(x, true));
		cJSON_ArrayForEach(x, get(d, "systems"))
			cJSON_AddItemToArray(m->systems, cJSON_Duplicate(x, true));
		return;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", path);
	cJSON_AddStringToObject(o, "hostname", str(d, "hostname"));
	cJSON_AddNumberToObject(o, "instance", num(d, "instance"));
	cJSON_AddNumberToObject(o, "instances", get(d, "instances") ? num(d, "instances") : 1);
	cJSON_AddStringToObject(o, "status", str(d, "status"));
	cJSON_AddStringToObject(o, "seed", str(d, "seed"));
	cJSON_AddNumberToObject(o, "threads", num(d, "threads"));
	cJSON_AddNumberToObject(o, "events", num(get(d, "counters"), "events"));
	cJSON_AddNumberToObject(o, "time_s", num(d, "time_s"));
	if (get(d, "window"))
		cJSON_AddItemToObject(o, "window", cJSON_Duplicate(get(d, "window"), true));
	/* Each instance's machine and command line: the instances may differ in both. */
	if (get(d, "machine"))
		cJSON_AddItemToObject(o, "machine", cJSON_Duplicate(get(d, "machine"), true));
	if (get(d, "command_line"))
		cJSON_AddStringToObject(o, "command_line", str(d, "command_line"));
	if (get(d, "workload_stats"))
		cJSON_AddItemToObject(o, "workload_stats", cJSON_Duplicate(get(d, "workload_stats"), true));
	cJSON_AddItemToArray(m->from, o);
	if (get(d, "system")) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "hostname", str(d, "hostname"));
		cJSON_AddNumberToObject(s, "instance", num(d, "instance"));
		cJSON_AddItemToObject(s, "system", cJSON_Duplicate(get(d, "system"), true));
		cJSON_AddItemToArray(m->systems, s);
	}
}

int lb_merge_add_doc(struct merge *m, const char *path, const cJSON *d)
{
	if (check_doc(path, d, m->err) < 0)
		return -1;
	if (!m->first) {
		m->first = d;
		m->first_file = path;
		m->cfg.warmup_ns = i64_of(num(d, "warmup_s") * 1e9);
	} else {
		compare(m, path, d);
	}
	int st = status_index(str(d, "status"));
	if (st > m->status)
		m->status = st;
	if (!strcmp(str(d, "status"), "failed") && !m->failed)
		m->failed = lb_xasprintf("'%s' failed: %s", path, str(d, "error"));
	m->sql |= cJSON_IsTrue(get(d, "sql"));
	m->unfinished += u64(d, "unfinished_events");
	m->cut_off += u64(d, "cut_off_events");
	double age = num(d, "cut_off_age_max_s");
	if (age * 1e9 > (double)m->cut_off_age_max_ns)
		m->cut_off_age_max_ns = (int64_t)(age * 1e9);
	add_latency(m, d);
	add_window(m, path, d);
	add_threads(m, d);
	add_rate(m, d);
	if (add_types(m, path, d) < 0)
		return -1;
	add_statements(m, d);
	if (add_metrics(m, path, d) < 0)
		return -1;
	add_intervals(m, d);
	add_hosts(m, str(d, "hostname"));
	add_provenance(m, path, d);
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct merge_window *x = a, *y = b;
	return (x->start_us > y->start_us) - (x->start_us < y->start_us);
}

static void clock_text(int64_t unix_us, char *buf, size_t len)
{
	time_t t = (time_t)(unix_us / 1000000);
	struct tm tm;
	gmtime_r(&t, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(unix_us / 1000 % 1000));
}

int lb_merge_check_windows(struct merge *m)
{
	if (m->nwindows < 2)
		return 0;
	struct merge_window *w = lb_xcalloc((size_t)m->nwindows, sizeof(*w));
	memcpy(w, m->windows, (size_t)m->nwindows * sizeof(*w));
	qsort(w, (size_t)m->nwindows, sizeof(*w), by_start);
	int64_t end = w[0].end_us;
	const char *last = w[0].path;
	int rc = 0;
	for (int i = 1; i < m->nwindows; i++) {
		if (w[i].start_us > end) {
			char a[32], b[32];
			clock_text(end, a, sizeof(a));
			clock_text(w[i].start_us, b, sizeof(b));
			snprintf(m->err, ERRLEN, "the measured windows do not overlap: '%s' started %.1f s after '%s' ended (%s and %s UTC)",
				 w[i].path, (double)(w[i].start_us - end) / 1e6, last, a, b);
			rc = -1;
			break;
		}
		if (w[i].end_us > end) {
			end = w[i].end_us;
			last = w[i].path;
		}
	}
	free(w);
	return rc;
}
