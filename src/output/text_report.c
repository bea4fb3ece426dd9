#include "output/text_report.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/latency_hist.h"
#include "output/metrics_report.h"
#include "output/srv_report.h"
#include "output/sys_report.h"
#include "util/log.h"

void lb_report_pct_label(char *buf, size_t len, double p)
{
	if (p == floor(p))
		snprintf(buf, len, "%3dth", (int)p);
	else
		snprintf(buf, len, "%gth", p);
}

static double per_s(uint64_t n, double s)
{
	return s > 0 ? (double)n / s : 0;
}

/* "lat (ms,95%): 1.23" for every requested percentile; the first keeps sysbench's position. */
static void print_pct_fields(FILE *out, const struct lb_report_stat *st, bool first_only)
{
	if (!st->npct) {
		fprintf(out, "lat (ms,0%%): 0.00");
		return;
	}
	for (int i = 0; i < st->npct; i++) {
		if (i && first_only)
			break;
		fprintf(out, "%slat (ms,%g%%): %4.2f", i ? " " : "", st->pct_rank[i], st->pct[i] * 1e3);
	}
}

void lb_report_interval_text(FILE *out, const struct lb_result *r)
{
	const struct lb_report_stat *st = &r->st;
	double t = st->time_interval_s;
	const uint64_t *c = st->cnt;
	if (r->sql) {
		uint64_t q = c[LB_CNT_READ] + c[LB_CNT_WRITE] + c[LB_CNT_OTHER];
		fprintf(out, "[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) ",
			st->time_total_s, st->threads_running, per_s(c[LB_CNT_EVENT], t), per_s(q, t),
			per_s(c[LB_CNT_READ], t), per_s(c[LB_CNT_WRITE], t), per_s(c[LB_CNT_OTHER], t));
		print_pct_fields(out, st, true);
		fprintf(out, " err/s: %4.2f reconn/s: %4.2f", per_s(c[LB_CNT_ERROR], t),
			per_s(c[LB_CNT_RECONNECT], t));
		for (int i = 1; i < st->npct; i++)
			fprintf(out, " lat (ms,%g%%): %4.2f", st->pct_rank[i], st->pct[i] * 1e3);
	} else {
		fprintf(out, "[ %.0fs ] thds: %u eps: %4.2f ", st->time_total_s, st->threads_running,
			per_s(c[LB_CNT_EVENT], t));
		print_pct_fields(out, st, false);
	}
	fputc('\n', out);
	if (r->rate_mode) {
		fprintf(out, "[ %.0fs ] queue length: %llu%s concurrency: %llu", st->time_total_s,
			(unsigned long long)st->queue_length, r->sql ? "," : "",
			(unsigned long long)st->concurrency);
		fprintf(out, " lag (ms): %.2f\n", st->lag_s * 1e3);
	}
}

void lb_report_stall_line(FILE *out, const struct lb_result *r)
{
	const struct lb_report_stat *st = &r->st;
	if (st->oldest_s > st->time_interval_s && st->concurrency)
		fprintf(out, "[ %.0fs ] stalled: %u in flight, the oldest for %.1f s\n", st->time_total_s,
			st->concurrency, st->oldest_s);
}

/* A type's name as a CSV column name: letters, digits and '_' (a name may hold a comma). */
static void csv_name(FILE *out, const char *name)
{
	for (const char *c = name; *c; c++)
		fputc(isalnum((unsigned char)*c) ? *c : '_', out);
}

int lb_report_csv_header(FILE *out, const struct lb_config *cfg, const struct lb_types *types,
			 const struct lb_metric_defs *metrics, bool server)
{
	fprintf(out, "time,threads,tps,qps,reads_per_s,writes_per_s,other_per_s");
	for (int i = 0; i < cfg->npercentiles; i++)
		fprintf(out, ",lat_ms_p%g", cfg->percentiles[i]);
	fprintf(out, ",err_per_s,reconn_per_s,queue_length,concurrency");
	int ntypes = types ? __atomic_load_n(&types->n, __ATOMIC_ACQUIRE) : 0;
	for (int t = 0; t < ntypes; t++) {
		const char *name = lb_types_name(types, t);
		fputs(",type_", out);
		csv_name(out, name);
		fputs("_per_s,type_", out);
		csv_name(out, name);
		fputs("_lat_ms_avg", out);
		for (int i = 0; i < cfg->npercentiles; i++) {
			fputs(",type_", out);
			csv_name(out, name);
			fprintf(out, "_lat_ms_p%g", cfg->percentiles[i]);
		}
	}
	/* each type's failed, rolled-back and retried transactions, after every type's columns
	 * above (whose positions stay as they were) */
	static const char *const outcomes[] = { "errors", "rollbacks", "retries" };
	for (int t = 0; t < ntypes; t++)
		for (int k = 0; k < 3; k++) {
			fputs(",type_", out);
			csv_name(out, lb_types_name(types, t));
			fprintf(out, "_%s_per_s", outcomes[k]);
		}
	if (server)
		lb_srv_csv_header(out);
	lb_metrics_csv_header(out, metrics);
	fputc('\n', out);
	return ntypes;
}

/* One type's columns of an interval line (empty latencies when none completed). */
static void csv_type(FILE *out, const struct lb_config *cfg, const struct lb_type_stats *t, double interval_s)
{
	uint64_t n = t ? t->cnt[LB_TCNT_DONE] : 0;
	fprintf(out, ",%.2f", per_s(n, interval_s));
	if (!n) {
		for (int i = 0; i <= cfg->npercentiles; i++)
			fputc(',', out);
		return;
	}
	uint64_t max = lb_hist_max(&t->lat);
	fprintf(out, ",%.3f", (double)t->sum_ns / (double)n / 1e6);
	for (int i = 0; i < cfg->npercentiles; i++)
		fprintf(out, ",%.3f", (double)lb_hist_percentile(&t->lat, cfg->percentiles[i], 0, max) / 1e6);
}

void lb_report_interval_csv(FILE *out, const struct lb_result *r, int ntypes)
{
	const struct lb_config *cfg = r->cfg;
	const struct lb_report_stat *st = &r->st;
	double t = st->time_interval_s;
	const uint64_t *c = st->cnt;
	uint64_t q = c[LB_CNT_READ] + c[LB_CNT_WRITE] + c[LB_CNT_OTHER];
	fprintf(out, "%.0f,%u,%.2f,%.2f,%.2f,%.2f,%.2f", st->time_total_s, st->threads_running,
		per_s(c[LB_CNT_EVENT], t), per_s(q, t), per_s(c[LB_CNT_READ], t),
		per_s(c[LB_CNT_WRITE], t), per_s(c[LB_CNT_OTHER], t));
	for (int i = 0; i < cfg->npercentiles; i++)
		fprintf(out, ",%.3f", st->pct[i] * 1e3);
	fprintf(out, ",%.2f,%.2f,%llu,%u", per_s(c[LB_CNT_ERROR], t), per_s(c[LB_CNT_RECONNECT], t),
		(unsigned long long)st->queue_length, st->concurrency);
	for (int i = 0; i < ntypes && i < LB_MAX_TYPES; i++)
		csv_type(out, cfg, st->snap ? st->snap->types[i] : NULL, t);
	static const enum lb_tcnt outcomes[] = { LB_TCNT_ERROR, LB_TCNT_ROLLBACK, LB_TCNT_RETRY };
	for (int i = 0; i < ntypes && i < LB_MAX_TYPES; i++) {
		const struct lb_type_stats *ty = st->snap ? st->snap->types[i] : NULL;
		for (int k = 0; k < 3; k++)
			fprintf(out, ",%.2f", per_s(ty ? ty->cnt[outcomes[k]] : 0, t));
	}
	if (r->srvmon)
		lb_srv_csv(out, r->srvmon, r->srv, c[LB_CNT_EVENT], t);
	lb_metrics_csv(out, r);
	fputc('\n', out);
}

static void sql_block(FILE *out, const struct lb_report_stat *st)
{
	const uint64_t *c = st->cnt;
	double t = st->time_interval_s;
	uint64_t q = c[LB_CNT_READ] + c[LB_CNT_WRITE] + c[LB_CNT_OTHER];
	fprintf(out, "SQL statistics:\n");
	fprintf(out, "    queries performed:\n");
	fprintf(out, "        read:                            %llu\n", (unsigned long long)c[LB_CNT_READ]);
	fprintf(out, "        write:                           %llu\n", (unsigned long long)c[LB_CNT_WRITE]);
	fprintf(out, "        other:                           %llu\n", (unsigned long long)c[LB_CNT_OTHER]);
	fprintf(out, "        total:                           %llu\n", (unsigned long long)q);
	fprintf(out, "    transactions:                        %-6llu (%.2f per sec.)\n",
		(unsigned long long)c[LB_CNT_EVENT], per_s(c[LB_CNT_EVENT], t));
	fprintf(out, "    queries:                             %-6llu (%.2f per sec.)\n",
		(unsigned long long)q, per_s(q, t));
	fprintf(out, "    ignored errors:                      %-6llu (%.2f per sec.)\n",
		(unsigned long long)c[LB_CNT_ERROR], per_s(c[LB_CNT_ERROR], t));
	fprintf(out, "    reconnects:                          %-6llu (%.2f per sec.)\n",
		(unsigned long long)c[LB_CNT_RECONNECT], per_s(c[LB_CNT_RECONNECT], t));
	fprintf(out, "\n");
}

static void latency_block(FILE *out, const struct lb_report_stat *st)
{
	fprintf(out, "Latency (ms):\n");
	fprintf(out, "         min: %39.2f\n", st->lat_min_s * 1e3);
	fprintf(out, "         avg: %39.2f\n", st->lat_avg_s * 1e3);
	fprintf(out, "         max: %39.2f\n", st->lat_max_s * 1e3);
	if (!st->npct)
		fprintf(out, "         percentile stats:               disabled\n");
	for (int i = 0; i < st->npct; i++) {
		char label[32], left[64];
		lb_report_pct_label(label, sizeof(label), st->pct_rank[i]);
		/* Keep the value column where sysbench has it (right edge at column 53). */
		snprintf(left, sizeof(left), "        %s percentile: ", label);
		int width = 53 - (int)strlen(left);
		fprintf(out, "%s%*.2f\n", left, width < 1 ? 1 : width, st->pct[i] * 1e3);
	}
	fprintf(out, "         sum: %39.2f\n", st->lat_sum_s * 1e3);
	fprintf(out, "\n");
}

static void mean_stddev(const double *v, int n, double *mean, double *sd)
{
	double sum = 0, sq = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	*mean = n ? sum / n : 0;
	for (int i = 0; i < n; i++)
		sq += (v[i] - *mean) * (v[i] - *mean);
	*sd = n ? sqrt(sq / n) : 0;
}

static void fairness_block(FILE *out, const struct lb_result *r)
{
	int n = r->nthreads ? r->nthreads : 1;
	double *ev = calloc((size_t)n, sizeof(double)), *tt = calloc((size_t)n, sizeof(double));
	for (int i = 0; i < r->nthreads; i++) {
		ev[i] = (double)r->threads[i].events;
		tt[i] = r->threads[i].time_s;
	}
	double em, esd, tm, tsd;
	mean_stddev(ev, r->nthreads, &em, &esd);
	mean_stddev(tt, r->nthreads, &tm, &tsd);
	free(ev);
	free(tt);
	fprintf(out, "Threads fairness:\n");
	fprintf(out, "    events (avg/stddev):           %.4f/%3.2f\n", em, esd);
	fprintf(out, "    execution time (avg/stddev):   %.4f/%3.2f\n", tm, tsd);
	fprintf(out, "\n");
}

/* sysbench's --debug lines (LOG_DEBUG messages, hence the prefix on every line). */
static void debug_block(FILE *out, const struct lb_result *r)
{
	fprintf(out, "DEBUG: Verbose per-thread statistics:\n\n");
	for (int i = 0; i < r->nthreads; i++) {
		const struct lb_thread_figures *t = &r->threads[i];
		uint64_t n = t->events;
		fprintf(out, "DEBUG:     thread #%3d: min: %.4fs  avg: %.4fs  max: %.4fs  events: %llu\n", i,
			n ? (double)t->lat_min_ns / 1e9 : 0, n ? t->time_s / (double)n : 0,
			(double)t->lat_max_ns / 1e9, (unsigned long long)n);
		fprintf(out, "DEBUG:                  total time taken by event execution: %.4fs\n",
			t->time_s);
	}
	fprintf(out, "\n");
}

static void rate_block(FILE *out, const struct lb_result *r)
{
	const struct lb_report_stat *st = &r->st;
	const struct lb_hist *svc = &r->snap->svc;
	uint64_t n = lb_hist_total(svc);
	fprintf(out, "Rate (target %g/sec, %s arrivals; latency above is measured from each event's intended start):\n",
		r->cfg->rate, r->cfg->rate_constant ? "constant" : "poisson");
	fprintf(out, "    achieved rate:                       %.2f per sec.\n",
		per_s(st->cnt[LB_CNT_EVENT], st->time_total_s));
	fprintf(out, "    max start lag (ms):                  %.2f\n", (double)r->max_lag_ns / 1e6);
	fprintf(out, "    arrivals due but not started at end: %llu\n",
		(unsigned long long)r->unserved_arrivals);
	if (n) {
		fprintf(out, "    service time, excluding queueing (ms):\n");
		for (int i = 0; i < st->npct; i++) {
			char label[32];
			lb_report_pct_label(label, sizeof(label), st->pct_rank[i]);
			char left[64];
			snprintf(left, sizeof(left), "        %s percentile: ", label);
			int width = 53 - (int)strlen(left);
			fprintf(out, "%s%*.2f\n", left, width < 1 ? 1 : width,
				(double)lb_hist_percentile(svc, st->pct_rank[i], 0, UINT64_MAX) / 1e6);
		}
	}
	fprintf(out, "\n");
}

static void types_block(FILE *out, const struct lb_result *r)
{
	const struct lb_snap *s = r->snap;
	uint64_t total = 0;
	bool any = false;
	for (int i = 0; i < LB_MAX_TYPES; i++) {
		if (s->types[i]) {
			total += s->types[i]->cnt[LB_TCNT_DONE];
			any = true;
		}
	}
	if (!any)
		return;
	/* p50/p90/p95/p99 always (TPC-C and TPC-W readers expect them), and the run's --percentile. */
	double pcts[LB_TYPE_MAX_PCTS];
	int npct = lb_type_pct_list(r->cfg, pcts);
	fprintf(out, "Transactions by type (latency in ms):\n");
	fprintf(out, "    %-20s %10s %7s %10s %9s", "type", "count", "mix %", "per sec.", "avg");
	for (int k = 0; k < npct; k++) {
		char label[40];
		snprintf(label, sizeof(label), "p%g", pcts[k]);
		fprintf(out, " %9s", label);
	}
	fprintf(out, " %9s %8s %9s %8s\n", "max", "errors", "rollbacks", "retries");
	for (int i = 0; i < LB_MAX_TYPES; i++) {
		const struct lb_type_stats *t = s->types[i];
		if (!t)
			continue;
		uint64_t n = t->cnt[LB_TCNT_DONE];
		fprintf(out, "    %-20s %10llu %7.2f %10.2f %9.2f", lb_types_name(r->types, i), (unsigned long long)n,
			total ? 100.0 * (double)n / (double)total : 0, per_s(n, r->st.time_total_s),
			n ? (double)t->sum_ns / (double)n / 1e6 : 0);
		uint64_t max = lb_hist_max(&t->lat);
		for (int k = 0; k < npct; k++)
			fprintf(out, " %9.2f", (double)lb_hist_percentile(&t->lat, pcts[k], 0, max) / 1e6);
		fprintf(out, " %9.2f %8llu %9llu %8llu\n", (double)max / 1e6,
			(unsigned long long)t->cnt[LB_TCNT_ERROR], (unsigned long long)t->cnt[LB_TCNT_ROLLBACK],
			(unsigned long long)t->cnt[LB_TCNT_RETRY]);
	}
	fprintf(out, "\n");
}

/* --report-statements, like pgbench -r: each statement with its count, errors and latency. */
static void statements_block(FILE *out, const struct lb_result *r)
{
	const struct lb_config *c = r->cfg;
	bool any = false;
	for (int i = 0; i < LB_MAX_STMTS; i++)
		any = any || r->snap->stmts[i];
	if (!any)
		return;
	fprintf(out, "Statements (latency in ms):\n");
	fprintf(out, "    %10s %8s %9s", "count", "errors", "avg");
	for (int k = 0; k < c->npercentiles; k++) {
		char label[40];
		snprintf(label, sizeof(label), "p%g", c->percentiles[k]);
		fprintf(out, " %9s", label);
	}
	fprintf(out, " %9s  statement\n", "max");
	for (int i = 0; i < LB_MAX_STMTS; i++) {
		const struct lb_type_stats *t = r->snap->stmts[i];
		if (!t)
			continue;
		uint64_t n = t->cnt[LB_TCNT_DONE], max = lb_hist_max(&t->lat);
		fprintf(out, "    %10llu %8llu %9.3f", (unsigned long long)n, (unsigned long long)t->cnt[LB_TCNT_ERROR],
			n ? (double)t->sum_ns / (double)n / 1e6 : 0);
		for (int k = 0; k < c->npercentiles; k++)
			fprintf(out, " %9.3f", (double)lb_hist_percentile(&t->lat, c->percentiles[k], 0, max) / 1e6);
		const char *text = lb_stmt_names_text(r->stmt_names, i);
		/* the whole text is in the JSON result */
		fprintf(out, " %9.3f  %.*s%s\n", (double)max / 1e6, 160, text, strlen(text) > 160 ? "..." : "");
	}
	fprintf(out, "\n");
}

static void users_block(FILE *out, const struct lb_result *r)
{
	const struct lb_config *c = r->cfg;
	const struct lb_hist *h = &r->snap->wake;
	uint64_t n = lb_hist_total(h), max = lb_hist_max(h);
	fprintf(out, "Emulated users:\n");
	fprintf(out, "    users / threads / connections:       %d / %d / %d\n", c->users, c->threads, c->connections);
	if (c->ramp_up_ns)
		fprintf(out, "    ramp-up (s):                         %.1f\n", (double)c->ramp_up_ns / 1e9);
	fprintf(out, "    event failures:                      %llu\n",
		(unsigned long long)r->st.cnt[LB_CNT_FAILED]);
	fprintf(out, "    timer wake-ups:                      %llu\n", (unsigned long long)n);
	fprintf(out, "    wake-up lateness p50/p99/max (ms):   %.3f/%.3f/%.3f\n",
		(double)lb_hist_percentile(h, 50, 0, max) / 1e6, (double)lb_hist_percentile(h, 99, 0, max) / 1e6,
		(double)max / 1e6);
	fprintf(out, "\n");
}

/* --cpu-affinity/--numa-node at --verbosity >= 4: where each worker ran, as the kernel says. */
static void placement_block(FILE *out, const struct lb_result *r)
{
	const struct lb_place_conf *c = &r->cfg->place;
	if (!lb_place_wanted(c) || lb_log_verbosity() < LB_LOG_INFO)
		return;
	fprintf(out, "Placement (CPU asked: CPUs allowed, memory policy):\n");
	for (int i = 0; i < r->nthreads; i++) {
		const struct lb_placement *p = r->threads[i].place;
		fprintf(out, "    thread %-4d ", i);
		if (c->ncpus)
			fprintf(out, "CPU %d: ", c->cpus[i % c->ncpus]);
		if (p)
			fprintf(out, "CPUs %s, memory %s%s%s\n", p->cpus, p->mem_policy, *p->mem_nodes ? " " : "",
				p->mem_nodes);
		else
			fprintf(out, "not started\n");
	}
	fprintf(out, "\n");
}

void lb_report_final_text(FILE *out, const struct lb_result *r, const char *extra, const char *footer,
			  bool additions)
{
	const struct lb_report_stat *st = &r->st;
	if (r->sql)
		sql_block(out, st);
	if (extra && *extra) {
		fputs(extra, out);
		size_t n = strlen(extra);
		if (extra[n - 1] != '\n')
			fputc('\n', out);
	} else if (!r->sql) {
		/* sysbench's generic report (Lua scripts without SQL, threads, mutex) starts with an
		 * empty line; cpu, memory, fileio and the SQL report bring their own section instead. */
		fputc('\n', out);
	}
	/* On its own line before the general section, as sysbench prints it. */
	if (r->unfinished)
		fprintf(out, "Number of unfinished transactions on forced shutdown: %llu\n\n",
			(unsigned long long)r->unfinished);
	fprintf(out, "General statistics:\n");
	fprintf(out, "    total time:                          %.4fs\n", st->time_total_s);
	fprintf(out, "    total number of events:              %llu\n",
		(unsigned long long)st->cnt[LB_CNT_EVENT]);
	fprintf(out, "\n");
	latency_block(out, st);
	fairness_block(out, r);
	if (r->cfg->debug)
		debug_block(out, r);
	if (!additions)
		return;
	types_block(out, r);
	statements_block(out, r);
	lb_metrics_report_block(out, r);
	if (r->cfg->users)
		users_block(out, r);
	placement_block(out, r);
	if (r->rate_mode)
		rate_block(out, r);
	if (r->cut_off)
		fprintf(out, "Cut off at the end: %llu in flight whose statements were still running when the "
			"run ended (after --time and its grace, or at a signal), the oldest for %.3f s: "
			"the server stalled or a statement hung; they are not in the figures above.\n\n",
			(unsigned long long)r->cut_off, (double)r->cut_off_age_max_ns / 1e9);
	if (r->cut_off && r->grace_excluded_ns > 0)
		fprintf(out, "Measured window: %.4f s, to the last event completed; the %.3f s waited after "
			"--time for the statements cut off are not in it (rates are over the window).\n\n",
			r->st.time_total_s, (double)r->grace_excluded_ns / 1e9);
	if (r->overflow)
		fprintf(out, "Note: %llu latencies longer than %.0f s, beyond the histogram's range; "
			"they are in min/avg/max/sum, and percentiles that fall on them show the maximum.\n\n",
			(unsigned long long)r->overflow, (double)LB_HIST_MAX_NS / 1e9);
	if (r->sys) {
		struct lb_host_busy busy;
		bool judged = lb_result_host_busy(r, &busy);
		lb_sys_report_block(out, r->sys, judged ? &busy : NULL, r->proc_place ? lb_place_usable_cpus(r->proc_place) : 0);
	}
	if (r->srv)
		lb_srv_report_block(out, r->srvmon, r->srv, st->cnt[LB_CNT_EVENT], st->time_total_s);
	if (footer && *footer) {
		fputs(footer, out);
		if (footer[strlen(footer) - 1] != '\n')
			fputc('\n', out);
	}
}

void lb_report_histogram(FILE *out, const struct lb_hist *h)
{
	/* Regroup into sysbench's resolution (1024 log steps from 1 us to 100 s) so the listing
	 * has a readable length; exact figures are in the JSON result. */
	enum { N = 1024 };
	static const double lo = 1e-3, hi = 1e5;
	double mult = (N - 1) / log(hi / lo);
	uint64_t *b = calloc(N, sizeof(uint64_t)), maxc = 0;
	if (!b)
		return;
	for (int i = h->lo; i <= h->hi; i++) {
		if (!h->counts[i])
			continue;
		double ms = (double)(lb_hist_value_at(i) + lb_hist_width_at(i) / 2) / 1e6;
		double k = floor((log(ms < lo ? lo : ms > hi ? hi : ms) - log(lo)) * mult + 0.5);
		b[(int)k] += h->counts[i];
	}
	b[N - 1] += h->overflow;
	for (int i = 0; i < N; i++)
		if (b[i] > maxc)
			maxc = b[i];
	fprintf(out, "Latency histogram (values are in milliseconds)\n");
	fprintf(out, "       value  ------------- distribution ------------- count\n");
	for (int i = 0; i < N; i++) {
		if (!b[i])
			continue;
		int bar = (int)floor((double)b[i] * 40.0 / (double)maxc + 0.5);
		fprintf(out, "%12.3f |%-40.*s %llu\n", exp(i / mult + log(lo)), bar,
			"****************************************", (unsigned long long)b[i]);
	}
	fprintf(out, " \n");
	free(b);
}
