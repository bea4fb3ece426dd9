#include "output/result_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/latency_hist.h"
#include "lb_config.h"
#include "output/metrics_report.h"
#include "output/srv_report.h"
#include "output/sys_report.h"
#include "output/thresholds.h"
#include "sys/machine.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/util.h"

static void add_time(cJSON *o, const char *key, int64_t wall_ns)
{
	char buf[64];
	time_t s = (time_t)(wall_ns / 1000000000);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03dZ", (int)(wall_ns / 1000000 % 1000));
	cJSON_AddStringToObject(o, key, buf);
}

static char *pct_key(char *buf, size_t len, double p)
{
	snprintf(buf, len, "%g", p);
	return buf;
}

static cJSON *options_json(const struct lb_opts *opts)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < opts->n; i++) {
		const struct lb_opt *opt = opts->v[i];
		/* Secrets are left out entirely, not masked: a result file may be shared. */
		if (opt->secret || !strcmp(opt->name, "help") || !strcmp(opt->name, "version"))
			continue;
		switch (opt->type) {
		case LB_OPT_BOOL:
			cJSON_AddBoolToObject(o, opt->name, opt->b);
			break;
		case LB_OPT_INT:
		case LB_OPT_SIZE:
			cJSON_AddNumberToObject(o, opt->name, (double)opt->i);
			break;
		case LB_OPT_DOUBLE:
			cJSON_AddNumberToObject(o, opt->name, opt->d);
			break;
		case LB_OPT_LIST: {
			cJSON *a = cJSON_AddArrayToObject(o, opt->name);
			for (int j = 0; j < opt->nlist; j++)
				cJSON_AddItemToArray(a, cJSON_CreateString(opt->list[j]));
			break;
		}
		default:
			if (opt->value)
				cJSON_AddStringToObject(o, opt->name, opt->value);
			else
				cJSON_AddNullToObject(o, opt->name);
		}
	}
	return o;
}

static void add_counters(cJSON *o, const uint64_t *c)
{
	cJSON_AddNumberToObject(o, "events", (double)c[LB_CNT_EVENT]);
	cJSON_AddNumberToObject(o, "reads", (double)c[LB_CNT_READ]);
	cJSON_AddNumberToObject(o, "writes", (double)c[LB_CNT_WRITE]);
	cJSON_AddNumberToObject(o, "other", (double)c[LB_CNT_OTHER]);
	cJSON_AddNumberToObject(o, "queries", (double)(c[LB_CNT_READ] + c[LB_CNT_WRITE] + c[LB_CNT_OTHER]));
	cJSON_AddNumberToObject(o, "errors", (double)c[LB_CNT_ERROR]);
	cJSON_AddNumberToObject(o, "failed_events", (double)c[LB_CNT_FAILED]);
	cJSON_AddNumberToObject(o, "reconnects", (double)c[LB_CNT_RECONNECT]);
	cJSON_AddNumberToObject(o, "bytes_read", (double)c[LB_CNT_BYTES_READ]);
	cJSON_AddNumberToObject(o, "bytes_written", (double)c[LB_CNT_BYTES_WRITTEN]);
}

static void add_rates(cJSON *o, const uint64_t *c, double s)
{
	double d = s > 0 ? s : 1;
	uint64_t q = c[LB_CNT_READ] + c[LB_CNT_WRITE] + c[LB_CNT_OTHER];
	cJSON_AddNumberToObject(o, "events_per_s", (double)c[LB_CNT_EVENT] / d);
	cJSON_AddNumberToObject(o, "queries_per_s", (double)q / d);
	cJSON_AddNumberToObject(o, "reads_per_s", (double)c[LB_CNT_READ] / d);
	cJSON_AddNumberToObject(o, "writes_per_s", (double)c[LB_CNT_WRITE] / d);
	cJSON_AddNumberToObject(o, "other_per_s", (double)c[LB_CNT_OTHER] / d);
	cJSON_AddNumberToObject(o, "errors_per_s", (double)c[LB_CNT_ERROR] / d);
	cJSON_AddNumberToObject(o, "reconnects_per_s", (double)c[LB_CNT_RECONNECT] / d);
	/* the byte counters as a bandwidth: fileio's and net's data, memory's arrays copied */
	cJSON_AddNumberToObject(o, "read_mib_per_s", (double)c[LB_CNT_BYTES_READ] / 1048576.0 / d);
	cJSON_AddNumberToObject(o, "write_mib_per_s", (double)c[LB_CNT_BYTES_WRITTEN] / 1048576.0 / d);
}

/* exact = false: min/max/sum are not tracked exactly for this histogram and are left out. */
static cJSON *histogram_json(const struct lb_hist *h, bool exact, uint64_t min_ns, uint64_t max_ns,
			     uint64_t sum_ns)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "unit", "ns");
	cJSON_AddNumberToObject(o, "significant_digits", 3);
	cJSON_AddNumberToObject(o, "highest_trackable_ns", (double)LB_HIST_MAX_NS);
	cJSON_AddNumberToObject(o, "count", (double)lb_hist_total(h));
	cJSON_AddNumberToObject(o, "overflow", (double)h->overflow);
	if (exact) {
		cJSON_AddNumberToObject(o, "min_ns", (double)min_ns);
		cJSON_AddNumberToObject(o, "max_ns", (double)max_ns);
		cJSON_AddNumberToObject(o, "sum_ns", (double)sum_ns);
	}
	/* Sparse [lowest value of the bucket, count] pairs: enough to rebuild and merge exactly. */
	cJSON *b = cJSON_AddArrayToObject(o, "buckets");
	for (int i = h->lo; i <= h->hi; i++) {
		if (!h->counts[i])
			continue;
		cJSON *pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)lb_hist_value_at(i)));
		cJSON_AddItemToArray(pair, cJSON_CreateNumber((double)h->counts[i]));
		cJSON_AddItemToArray(b, pair);
	}
	return o;
}

static cJSON *latency_json(const struct lb_report_stat *st)
{
	cJSON *o = cJSON_CreateObject();
	char k[32];
	cJSON_AddNumberToObject(o, "min", st->lat_min_s * 1e3);
	cJSON_AddNumberToObject(o, "avg", st->lat_avg_s * 1e3);
	cJSON_AddNumberToObject(o, "max", st->lat_max_s * 1e3);
	cJSON_AddNumberToObject(o, "sum", st->lat_sum_s * 1e3);
	cJSON *p = cJSON_AddObjectToObject(o, "percentiles");
	for (int i = 0; i < st->npct; i++)
		cJSON_AddNumberToObject(p, pct_key(k, sizeof(k), st->pct_rank[i]), st->pct[i] * 1e3);
	return o;
}

static cJSON *types_json(const struct lb_result *r)
{
	cJSON *o = cJSON_CreateObject();
	const struct lb_snap *s = r->snap;
	uint64_t total = 0;
	for (int i = 0; i < LB_MAX_TYPES; i++)
		total += s->types[i] ? s->types[i]->cnt[LB_TCNT_DONE] : 0;
	char k[32];
	for (int i = 0; i < LB_MAX_TYPES; i++) {
		const struct lb_type_stats *t = s->types[i];
		if (!t)
			continue;
		uint64_t n = t->cnt[LB_TCNT_DONE];
		uint64_t max = lb_hist_max(&t->lat);
		cJSON *j = cJSON_AddObjectToObject(o, lb_types_name(r->types, i));
		cJSON_AddNumberToObject(j, "count", (double)n);
		cJSON_AddNumberToObject(j, "mix_pct", total ? 100.0 * (double)n / (double)total : 0);
		cJSON_AddNumberToObject(j, "per_s", r->st.time_total_s > 0 ? (double)n / r->st.time_total_s : 0);
		cJSON_AddNumberToObject(j, "errors", (double)t->cnt[LB_TCNT_ERROR]);
		cJSON_AddNumberToObject(j, "rollbacks", (double)t->cnt[LB_TCNT_ROLLBACK]);
		cJSON_AddNumberToObject(j, "retries", (double)t->cnt[LB_TCNT_RETRY]);
		cJSON *l = cJSON_AddObjectToObject(j, "latency_ms");
		cJSON_AddNumberToObject(l, "avg", n ? (double)t->sum_ns / (double)n / 1e6 : 0);
		cJSON_AddNumberToObject(l, "max", (double)max / 1e6);
		cJSON *p = cJSON_AddObjectToObject(l, "percentiles");
		for (int q = 0; q < LB_TYPE_NPCT; q++)
			cJSON_AddNumberToObject(p, pct_key(k, sizeof(k), lb_type_pcts[q]),
						(double)lb_hist_percentile(&t->lat, lb_type_pcts[q], 0, max) / 1e6);
		for (int q = 0; q < r->cfg->npercentiles; q++)
			if (!cJSON_GetObjectItemCaseSensitive(p, pct_key(k, sizeof(k), r->cfg->percentiles[q])))
				cJSON_AddNumberToObject(p, k,
							(double)lb_hist_percentile(&t->lat, r->cfg->percentiles[q], 0, max) / 1e6);
		cJSON *th = histogram_json(&t->lat, false, 0, max, t->sum_ns);
		cJSON_AddNumberToObject(th, "sum_ns", (double)t->sum_ns); /* exact: merges keep avg exact */
		cJSON_AddItemToObject(j, "histogram", th);
	}
	return o;
}

/* --report-statements: one entry per statement text, in the order they were first run. */
static cJSON *statements_json(const struct lb_result *r)
{
	cJSON *a = cJSON_CreateArray();
	char k[32];
	for (int i = 0; i < LB_MAX_STMTS; i++) {
		const struct lb_type_stats *t = r->snap->stmts[i];
		if (!t)
			continue;
		uint64_t n = t->cnt[LB_TCNT_DONE], max = lb_hist_max(&t->lat);
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "sql", lb_stmt_names_text(r->stmt_names, i));
		cJSON_AddNumberToObject(j, "count", (double)n);
		cJSON_AddNumberToObject(j, "errors", (double)t->cnt[LB_TCNT_ERROR]);
		cJSON *l = cJSON_AddObjectToObject(j, "latency_ms");
		cJSON_AddNumberToObject(l, "avg", n ? (double)t->sum_ns / (double)n / 1e6 : 0);
		cJSON_AddNumberToObject(l, "max", (double)max / 1e6);
		cJSON *p = cJSON_AddObjectToObject(l, "percentiles");
		for (int q = 0; q < r->cfg->npercentiles; q++)
			cJSON_AddNumberToObject(p, pct_key(k, sizeof(k), r->cfg->percentiles[q]),
						(double)lb_hist_percentile(&t->lat, r->cfg->percentiles[q], 0, max) / 1e6);
		cJSON *h = histogram_json(&t->lat, false, 0, max, t->sum_ns);
		cJSON_AddNumberToObject(h, "sum_ns", (double)t->sum_ns);
		cJSON_AddItemToObject(j, "histogram", h);
		cJSON_AddItemToArray(a, j);
	}
	return a;
}

static bool any_statement(const struct lb_snap *s)
{
	for (int i = 0; i < LB_MAX_STMTS; i++)
		if (s->stmts[i])
			return true;
	return false;
}

static cJSON *fairness_json(const struct lb_result *r)
{
	cJSON *o = cJSON_CreateObject();
	double se = 0, st = 0, qe = 0, qt = 0;
	int n = r->nthreads;
	for (int i = 0; i < n; i++) {
		se += (double)r->threads[i].events;
		st += r->threads[i].time_s;
	}
	double me = n ? se / n : 0, mt = n ? st / n : 0;
	cJSON *per = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		double ev = (double)r->threads[i].events, ts = r->threads[i].time_s;
		qe += (ev - me) * (ev - me);
		qt += (ts - mt) * (ts - mt);
		cJSON *t = cJSON_CreateObject();
		cJSON_AddNumberToObject(t, "events", ev);
		cJSON_AddNumberToObject(t, "time_s", ts);
		cJSON_AddItemToArray(per, t);
	}
	cJSON_AddNumberToObject(o, "events_avg", me);
	cJSON_AddNumberToObject(o, "events_stddev", n ? sqrt(qe / n) : 0);
	cJSON_AddNumberToObject(o, "time_avg_s", mt);
	cJSON_AddNumberToObject(o, "time_stddev_s", n ? sqrt(qt / n) : 0);
	cJSON_AddItemToObject(o, "per_thread", per);
	return o;
}

static void add_number_or_null(cJSON *o, const char *key, double v, bool known)
{
	if (known)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_string_or_null(cJSON *o, const char *key, const char *v)
{
	if (v && *v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* Where the run ran: the process's CPU set and control group (what it was given from outside:
 * taskset, a container), what --cpu-affinity/--numa-node asked, and where each worker really
 * ran. NULL when not known (a merge: each input says where its own threads ran). */
static cJSON *placement_json(const struct lb_result *r)
{
	const struct lb_place_conf *c = &r->cfg->place;
	const struct lb_proc_place *pp = r->proc_place;
	if (!pp)
		return NULL;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "process_cpus", pp->cpus);
	cJSON_AddNumberToObject(o, "process_cpu_count", pp->ncpus);
	cJSON_AddNumberToObject(o, "usable_cpus", lb_place_usable_cpus(pp));
	const struct lb_cgroup *g = &pp->cgroup;
	add_number_or_null(o, "cgroup_version", g->version, g->version > 0);
	add_string_or_null(o, "cgroup", g->path);
	add_string_or_null(o, "cgroup_cpu_max", g->cpu_max);
	add_number_or_null(o, "cgroup_cpu_limit", g->cpu_limit, g->cpu_limit > 0);
	add_number_or_null(o, "cgroup_memory_max_mib", round(g->memory_max_mib), g->memory_max_mib > 0);
	cJSON *asked = cJSON_AddArrayToObject(o, "cpu_affinity");
	for (int i = 0; i < c->ncpus; i++)
		cJSON_AddItemToArray(asked, cJSON_CreateNumber(c->cpus[i]));
	cJSON_AddStringToObject(o, "cpu_affinity_mode", c->process ? "process" : "workers");
	add_number_or_null(o, "numa_node", c->numa_node, c->numa_node >= 0);
	cJSON *per = cJSON_AddArrayToObject(o, "threads");
	for (int i = 0; i < r->nthreads; i++) {
		const struct lb_placement *p = r->threads ? r->threads[i].place : NULL;
		cJSON *t = cJSON_CreateObject();
		cJSON_AddNumberToObject(t, "thread", i);
		if (c->ncpus && !c->process)
			cJSON_AddNumberToObject(t, "cpu_asked", c->cpus[i % c->ncpus]);
		if (p) {
			cJSON_AddStringToObject(t, "cpus", p->cpus);
			cJSON_AddStringToObject(t, "mem_policy", p->mem_policy);
			cJSON_AddStringToObject(t, "mem_nodes", p->mem_nodes);
		}
		cJSON_AddItemToArray(per, t);
	}
	return o;
}

/* Each type's latency over the interval: the average, the per-type table's percentiles (the fixed
 * ones and the --percentile list, as in the final "types") and the maximum. */
static cJSON *interval_types_json(const struct lb_result *r, const struct lb_interval *iv)
{
	cJSON *o = cJSON_CreateObject();
	char k[32];
	double pcts[LB_TYPE_MAX_PCTS];
	int npct = lb_type_pct_list(r->cfg, pcts);
	for (int i = 0; i < iv->ntypes; i++) {
		const struct lb_interval_type *it = &iv->types[i];
		cJSON *t = cJSON_AddObjectToObject(o, lb_types_name(r->types, it->id));
		cJSON_AddNumberToObject(t, "avg", it->avg_ms);
		for (int j = 0; j < npct; j++)
			cJSON_AddNumberToObject(t, pct_key(k, sizeof(k), pcts[j]), it->pct_ms[j]);
		cJSON_AddNumberToObject(t, "max", it->max_ms);
	}
	return o;
}

/* Each type's errors, rollbacks and retries in the interval (types with none left out), in every
 * interval of a run with types, so that a comparison has a series for them. */
static cJSON *interval_outcomes_json(const struct lb_result *r, const struct lb_interval *iv)
{
	cJSON *o = cJSON_CreateObject();
	for (int ty = 0; ty < LB_MAX_TYPES; ty++) {
		const uint64_t *c = iv->type_cnt[ty];
		if (!c[LB_TCNT_ERROR] && !c[LB_TCNT_ROLLBACK] && !c[LB_TCNT_RETRY])
			continue;
		cJSON *t = cJSON_AddObjectToObject(o, lb_types_name(r->types, ty));
		cJSON_AddNumberToObject(t, "errors", (double)c[LB_TCNT_ERROR]);
		cJSON_AddNumberToObject(t, "rollbacks", (double)c[LB_TCNT_ROLLBACK]);
		cJSON_AddNumberToObject(t, "retries", (double)c[LB_TCNT_RETRY]);
	}
	return o;
}

/* --report-statements: each statement's figures over the interval, named by its position in the
 * final "statements" array (texts are long; an interval names them once that way). */
static cJSON *interval_statements_json(const struct lb_result *r, const struct lb_interval *iv)
{
	cJSON *a = cJSON_CreateArray();
	char k[32];
	for (int i = 0; i < iv->nstmts; i++) {
		const struct lb_interval_type *it = &iv->stmts[i];
		int pos = 0;
		for (int j = 0; j < it->id && j < LB_MAX_STMTS; j++)
			pos += r->snap->stmts[j] != NULL;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "statement", pos);
		cJSON_AddNumberToObject(o, "count", (double)it->done);
		cJSON_AddNumberToObject(o, "errors", (double)iv->stmt_errors[i]);
		cJSON_AddNumberToObject(o, "avg", it->avg_ms);
		for (int j = 0; j < r->cfg->npercentiles; j++)
			cJSON_AddNumberToObject(o, pct_key(k, sizeof(k), r->cfg->percentiles[j]), it->pct_ms[j]);
		cJSON_AddNumberToObject(o, "max", it->max_ms);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *intervals_json(const struct lb_result *r)
{
	cJSON *a = cJSON_CreateArray();
	char k[32];
	for (int i = 0; i < r->nintervals; i++) {
		const struct lb_interval *iv = &r->intervals[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "time_s", iv->time_s);
		cJSON_AddNumberToObject(o, "interval_s", iv->interval_s);
		cJSON_AddNumberToObject(o, "threads_running", iv->threads_running);
		add_counters(o, iv->cnt);
		add_rates(o, iv->cnt, iv->interval_s);
		cJSON *p = cJSON_AddObjectToObject(o, "latency_ms");
		for (int j = 0; j < r->cfg->npercentiles; j++)
			cJSON_AddNumberToObject(p, pct_key(k, sizeof(k), r->cfg->percentiles[j]), iv->lat_pct_ms[j]);
		cJSON_AddNumberToObject(p, "max", iv->lat_max_ms);
		if (r->rate_mode) {
			cJSON_AddNumberToObject(o, "queue_length", (double)iv->queue_length);
			cJSON_AddNumberToObject(o, "lag_ms", iv->lag_ms);
		}
		cJSON_AddNumberToObject(o, "concurrency", iv->concurrency);
		cJSON_AddNumberToObject(o, "oldest_in_flight_ms", iv->oldest_ms);
		cJSON *t = NULL;
		for (int ty = 0; ty < LB_MAX_TYPES; ty++) {
			if (!iv->type_cnt[ty][LB_TCNT_DONE])
				continue;
			if (!t)
				t = cJSON_AddObjectToObject(o, "types");
			cJSON_AddNumberToObject(t, lb_types_name(r->types, ty), (double)iv->type_cnt[ty][LB_TCNT_DONE]);
		}
		if (r->types && r->types->n > 0)
			cJSON_AddItemToObject(o, "type_outcomes", interval_outcomes_json(r, iv));
		if (any_statement(r->snap))
			cJSON_AddItemToObject(o, "statements", interval_statements_json(r, iv));
		if (iv->ntypes)
			cJSON_AddItemToObject(o, "type_latency_ms", interval_types_json(r, iv));
		if (iv->nmetrics)
			cJSON_AddItemToObject(o, "metrics", lb_metrics_interval_json(r->metrics, iv));
		const struct lb_sys_sample *sys = lb_sysmon_at(r->sysmon, iv->sys);
		if (sys)
			cJSON_AddItemToObject(o, "system", lb_sys_json(sys));
		const struct lb_srv_sample *srv = lb_srvmon_at(r->srvmon, iv->srv);
		if (srv)
			cJSON_AddItemToObject(o, "server", lb_srv_json(r->srvmon, srv, iv->cnt[LB_CNT_EVENT], iv->interval_s, false));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *rate_json(const struct lb_result *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "target_per_s", r->cfg->rate);
	cJSON_AddStringToObject(o, "arrivals", r->cfg->rate_constant ? "constant" : "poisson");
	cJSON_AddNumberToObject(o, "max_lag_ms", (double)r->max_lag_ns / 1e6);
	cJSON_AddNumberToObject(o, "unserved_arrivals", (double)r->unserved_arrivals);
	cJSON_AddItemToObject(o, "service_histogram", histogram_json(&r->snap->svc, false, 0, 0, 0));
	return o;
}

static cJSON *users_json(const struct lb_result *r)
{
	cJSON *o = cJSON_CreateObject();
	const struct lb_hist *h = &r->snap->wake;
	uint64_t max = lb_hist_max(h);
	cJSON_AddNumberToObject(o, "users", r->cfg->users);
	cJSON_AddNumberToObject(o, "connections", r->cfg->connections);
	cJSON_AddNumberToObject(o, "ramp_up_s", (double)r->cfg->ramp_up_ns / 1e9);
	cJSON *l = cJSON_AddObjectToObject(o, "wake_lateness_ms");
	cJSON_AddNumberToObject(l, "p50", (double)lb_hist_percentile(h, 50, 0, max) / 1e6);
	cJSON_AddNumberToObject(l, "p99", (double)lb_hist_percentile(h, 99, 0, max) / 1e6);
	cJSON_AddNumberToObject(l, "max", (double)max / 1e6);
	cJSON_AddItemToObject(o, "wake_lateness_histogram", histogram_json(h, false, 0, max, 0));
	return o;
}

/* What the run ran on, so that reports and comparisons can tell machines apart: the fingerprint
 * read at the start of the run (read now when there is none, as for a merge, whose machine the
 * merge replaces), and the clock measured during the window. Flat: a comparison lists the keys
 * that differ. */
static cJSON *machine_json(const struct lb_result *r)
{
	struct lb_machine own;
	const struct lb_machine *m = r->machine;
	if (!m) {
		lb_machine_read(&own, "/proc", "/sys", 0);
		m = &own;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "cpu_model", m->cpu_model);
	cJSON_AddNumberToObject(o, "cpus", m->cpus);
	cJSON_AddNumberToObject(o, "memory_mib", round(m->mem_total_mib));
	cJSON_AddStringToObject(o, "kernel", m->kernel);
	cJSON_AddStringToObject(o, "arch", m->arch);
	cJSON_AddStringToObject(o, "os", m->os);
	add_number_or_null(o, "cpu_mhz_nominal", m->mhz_nominal, m->mhz_nominal > 0);
	add_number_or_null(o, "cpu_mhz_max", m->mhz_max, m->mhz_max > 0);
	bool measured = r->sys && r->sys->cpu_mhz > 0;
	add_number_or_null(o, "cpu_mhz_measured", measured ? round(r->sys->cpu_mhz) : 0, measured);
	cJSON_AddStringToObject(o, "cpu_isa", m->isa);
	add_number_or_null(o, "cache_l1d_kib", m->cache.l1d_kib, m->cache.l1d_kib > 0);
	add_number_or_null(o, "cache_l1i_kib", m->cache.l1i_kib, m->cache.l1i_kib > 0);
	add_number_or_null(o, "cache_l2_kib", m->cache.l2_kib, m->cache.l2_kib > 0);
	add_number_or_null(o, "cache_l3_kib", m->cache.l3_kib, m->cache.l3_kib > 0);
	add_number_or_null(o, "numa_nodes", m->numa_nodes, m->numa_nodes > 0);
	add_string_or_null(o, "cpu_governor", m->governor);
	add_string_or_null(o, "cpufreq_driver", m->cpufreq_driver);
	add_string_or_null(o, "thp", m->thp);
	add_string_or_null(o, "virtualization", m->virtualization);
	const struct lb_storage *st = m->have_storage ? &m->storage : NULL;
	add_string_or_null(o, "storage_dir", st ? st->path : NULL);
	add_string_or_null(o, "storage_device", st ? st->device : NULL);
	add_string_or_null(o, "storage_model", st ? st->model : NULL);
	if (st && st->rotational >= 0)
		cJSON_AddBoolToObject(o, "storage_rotational", st->rotational);
	else
		cJSON_AddNullToObject(o, "storage_rotational");
	add_string_or_null(o, "storage_scheduler", st ? st->scheduler : NULL);
	bool mnt = st && st->have_mount;
	add_string_or_null(o, "storage_fs", mnt ? st->mount.fs_type : NULL);
	add_string_or_null(o, "storage_mount_point", mnt ? st->mount.point : NULL);
	add_string_or_null(o, "storage_mount_options", mnt ? st->mount.options : NULL);
	add_string_or_null(o, "storage_source", mnt ? st->mount.source : NULL);
	return o;
}

/* An embedded engine's settings in force (SQLite's pragmas, DuckDB's settings): name -> value,
 * as the server monitor records a server's. */
static cJSON *driver_settings_json(const char *lines)
{
	cJSON *o = cJSON_CreateObject();
	for (const char *l = lines; *l;) {
		size_t n = strcspn(l, "\n");
		const char *eq = memchr(l, '=', n);
		if (eq) {
			char *name = lb_xstrndup(l, (size_t)(eq - l)), *value = lb_xstrndup(eq + 1, n - (size_t)(eq - l) - 1);
			cJSON_AddStringToObject(o, name, value);
			free(name);
			free(value);
		}
		l += n + (l[n] == '\n');
	}
	return o;
}

static cJSON *header_json(const struct lb_result *r)
{
	const struct lb_config *c = r->cfg;
	cJSON *root = cJSON_CreateObject();
	cJSON *lb = cJSON_AddObjectToObject(root, "luabench");
	cJSON_AddStringToObject(lb, "version", LB_VERSION);
	cJSON_AddStringToObject(lb, "sysbench_api", LB_SYSBENCH_API);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	cJSON_AddStringToObject(root, "hostname", host);
	cJSON_AddItemToObject(root, "machine", machine_json(r));
	if (r->server)
		cJSON_AddStringToObject(root, "server_version", r->server);
	if (r->driver_settings)
		cJSON_AddItemToObject(root, "driver_settings", driver_settings_json(r->driver_settings));
	cJSON_AddStringToObject(root, "status", r->status);
	cJSON_AddBoolToObject(root, "interrupted", !strcmp(r->status, "interrupted") || !strcmp(r->status, "forced_shutdown"));
	if (r->error)
		cJSON_AddStringToObject(root, "error", r->error);
	else
		cJSON_AddNullToObject(root, "error");
	cJSON_AddStringToObject(root, "workload", r->workload);
	cJSON_AddStringToObject(root, "command", "run");
	add_time(root, "start_time", r->start_wall_ns);
	add_time(root, "end_time", r->end_wall_ns);
	cJSON_AddNumberToObject(root, "start_unix_s", (double)r->start_wall_ns / 1e9);
	cJSON_AddNumberToObject(root, "threads", c->threads);
	char seed[32];
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->rand.seed);
	cJSON_AddStringToObject(root, "seed", seed); /* as text: a 64-bit seed does not fit a double */
	if (r->opts) {
		/* This process's own command line (secrets masked): what to type to run it again. */
		char *cmdline = lb_machine_cmdline("/proc");
		if (cmdline)
			cJSON_AddStringToObject(root, "command_line", cmdline);
		free(cmdline);
		cJSON_AddItemToObject(root, "options", options_json(r->opts));
	}
	cJSON_AddNumberToObject(root, "instance", c->instance);
	cJSON_AddNumberToObject(root, "instances", c->instances ? c->instances : 1);
	if (c->start_at)
		cJSON_AddNumberToObject(root, "start_at_unix_s", c->start_at);
	return root;
}

/* The measured window in wall-clock microseconds (exact in a double), for merging results of
 * processes that ran at the same time: their common window is the union of theirs. */
static cJSON *window_json(const struct lb_result *r)
{
	cJSON *o = cJSON_CreateObject();
	double start_us = (double)(r->window_start_wall_ns / 1000);
	cJSON_AddNumberToObject(o, "start_unix_us", start_us);
	cJSON_AddNumberToObject(o, "end_unix_us", start_us + (double)llround(r->st.time_total_s * 1e6));
	return o;
}

cJSON *lb_result_json_doc(const struct lb_result *r, const char *workload_json)
{
	cJSON *root = header_json(r);
	const struct lb_report_stat *st = &r->st;
	cJSON_AddNumberToObject(root, "time_s", st->time_total_s);
	cJSON_AddItemToObject(root, "window", window_json(r));
	cJSON_AddNumberToObject(root, "warmup_s", (double)r->cfg->warmup_ns / 1e9);
	cJSON_AddBoolToObject(root, "sql", r->sql);
	add_counters(cJSON_AddObjectToObject(root, "counters"), st->cnt);
	add_rates(cJSON_AddObjectToObject(root, "rates"), st->cnt, st->time_total_s);
	cJSON_AddItemToObject(root, "latency_ms", latency_json(st));
	uint64_t n = st->cnt[LB_CNT_EVENT];
	cJSON_AddItemToObject(root, "histogram",
			      histogram_json(&r->snap->lat, true, n ? (uint64_t)llround(st->lat_min_s * 1e9) : 0,
					     (uint64_t)llround(st->lat_max_s * 1e9), r->snap->lat_sum_ns));
	cJSON_AddItemToObject(root, "fairness", fairness_json(r));
	cJSON *placement = placement_json(r);
	if (placement)
		cJSON_AddItemToObject(root, "placement", placement);
	cJSON_AddItemToObject(root, "types", types_json(r));
	if (any_statement(r->snap))
		cJSON_AddItemToObject(root, "statements", statements_json(r));
	if (lb_metric_defs_count(r->metrics))
		cJSON_AddItemToObject(root, "metrics", lb_metrics_json(r));
	if (r->sys)
		cJSON_AddItemToObject(root, "system", lb_sys_json(r->sys));
	struct lb_host_busy busy;
	if (r->proc_place && lb_result_host_busy(r, &busy))
		cJSON_AddItemToObject(root, "host_busy", lb_host_busy_json(&busy));
	if (r->srv)
		cJSON_AddItemToObject(root, "server", lb_srv_json(r->srvmon, r->srv, st->cnt[LB_CNT_EVENT], st->time_total_s, true));
	if (r->unfinished)
		cJSON_AddNumberToObject(root, "unfinished_events", (double)r->unfinished);
	if (r->cut_off) {
		cJSON_AddNumberToObject(root, "cut_off_events", (double)r->cut_off);
		cJSON_AddNumberToObject(root, "cut_off_age_max_s", (double)r->cut_off_age_max_ns / 1e9);
		cJSON_AddNumberToObject(root, "grace_excluded_s", (double)r->grace_excluded_ns / 1e9);
	}
	if (r->nthresholds)
		cJSON_AddItemToObject(root, "thresholds", lb_thresholds_json(r->thresholds, r->nthresholds));
	if (r->rate_mode)
		cJSON_AddItemToObject(root, "rate", rate_json(r));
	if (r->cfg->users)
		cJSON_AddItemToObject(root, "users", users_json(r));
	cJSON_AddItemToObject(root, "intervals", intervals_json(r));
	if (workload_json) {
		cJSON *w = cJSON_Parse(workload_json);
		if (w)
			cJSON_AddItemToObject(root, "workload_stats", w);
	}
	return root;
}

char *lb_result_json(const struct lb_result *r, const char *workload_json)
{
	cJSON *root = lb_result_json_doc(r, workload_json);
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	return s;
}

static int write_doc(const char *path, char *doc)
{
	size_t n = strlen(doc);
	doc = lb_xrealloc(doc, n + 2);
	doc[n] = '\n';
	doc[n + 1] = '\0';
	int rc = lb_write_file_atomic(path, doc, n + 1);
	char b[1024];
	if (rc < 0)
		lb_alert("cannot write the result file '%s': %s", lb_escape_to(b, sizeof(b), path), strerror(-rc));
	free(doc);
	return rc < 0 ? -1 : 0;
}

int lb_result_json_write(const struct lb_result *r, const char *workload_json)
{
	return write_doc(r->cfg->output_path, lb_result_json(r, workload_json));
}

void lb_result_json_error(const struct lb_result *r)
{
	cJSON *root = header_json(r);
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	if (r->cfg->format == LB_FORMAT_JSON) {
		fputs(s, stdout);
		fputc('\n', stdout);
		fflush(stdout);
	}
	if (r->cfg->output_path)
		(void)write_doc(r->cfg->output_path, s); /* the run already failed; the alert says why the file is missing */
	else
		free(s);
}

int lb_result_json_check_path(const char *path, char *err, int errlen)
{
	/* The file is replaced by a rename, which would fail only at the end of the run. */
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, (size_t)errlen, "cannot write the result file '%s': %s", path, strerror(EISDIR));
		return -1;
	}
	char *probe = lb_xasprintf("%s.probe.%d", path, (int)getpid());
	FILE *f = fopen(probe, "w");
	int rc = 0;
	if (!f) {
		snprintf(err, (size_t)errlen, "cannot write the result file '%s': %s", path, strerror(errno));
		rc = -1;
	} else {
		fclose(f);
		unlink(probe);
	}
	free(probe);
	return rc;
}
