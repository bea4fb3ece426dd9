/* The Prometheus text exposition of a report interval (prom_text.h). Every family gets its
 * HELP and TYPE lines once, before its samples; label values are escaped as the format says. */
#include "output/prom_text.h"

#include <math.h>
#include <string.h>

#include "engine/latency_hist.h"
#include "output/srv_report.h"
#include "sys/sysmetrics.h"

static void family(struct lb_buf *b, const char *name, const char *type, const char *help)
{
	lb_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void number(struct lb_buf *b, double v)
{
	if (isnan(v))
		lb_buf_printf(b, " NaN\n");
	else if (isinf(v))
		lb_buf_printf(b, v > 0 ? " +Inf\n" : " -Inf\n");
	else
		lb_buf_printf(b, " %.17g\n", v);
}

static void label_value(struct lb_buf *b, const char *v)
{
	for (const char *c = v; *c; c++) {
		if (*c == '\\' || *c == '"')
			lb_buf_printf(b, "\\%c", *c);
		else if (*c == '\n')
			lb_buf_printf(b, "\\n");
		else
			lb_buf_append(b, c, 1);
	}
}

static void sample(struct lb_buf *b, const char *name, double v)
{
	lb_buf_printf(b, "%s", name);
	number(b, v);
}

/* name{key="value"} v, and a second label when key2 is not NULL. */
static void labelled(struct lb_buf *b, const char *name, const char *key, const char *value, const char *key2,
		     const char *value2, double v)
{
	lb_buf_printf(b, "%s{%s=\"", name, key);
	label_value(b, value);
	if (key2) {
		lb_buf_printf(b, "\",%s=\"", key2);
		label_value(b, value2);
	}
	lb_buf_printf(b, "\"}");
	number(b, v);
}

static double per_s(uint64_t n, double s)
{
	return s > 0 ? (double)n / s : 0;
}

static void client(struct lb_buf *b, const struct lb_result *r, struct lb_prom_totals *t)
{
	const struct lb_report_stat *st = &r->st;
	const uint64_t *c = st->cnt;
	double s = st->time_interval_s;
	family(b, "luabench_interval_seconds", "gauge", "Length of the last report interval.");
	sample(b, "luabench_interval_seconds", s);
	family(b, "luabench_run_seconds", "gauge", "Time since the run started, at the end of the last interval.");
	sample(b, "luabench_run_seconds", st->time_total_s);
	family(b, "luabench_threads_running", "gauge", "Worker threads still running.");
	sample(b, "luabench_threads_running", st->threads_running);
	family(b, "luabench_events_per_second", "gauge", "Events (transactions) per second over the last interval.");
	sample(b, "luabench_events_per_second", per_s(c[LB_CNT_EVENT], s));
	family(b, "luabench_queries_per_second", "gauge", "SQL statements per second over the last interval, by kind.");
	labelled(b, "luabench_queries_per_second", "kind", "read", NULL, NULL, per_s(c[LB_CNT_READ], s));
	labelled(b, "luabench_queries_per_second", "kind", "write", NULL, NULL, per_s(c[LB_CNT_WRITE], s));
	labelled(b, "luabench_queries_per_second", "kind", "other", NULL, NULL, per_s(c[LB_CNT_OTHER], s));
	family(b, "luabench_errors_per_second", "gauge", "Failed statements (ignored errors) per second over the last interval.");
	sample(b, "luabench_errors_per_second", per_s(c[LB_CNT_ERROR], s));
	family(b, "luabench_reconnects_per_second", "gauge", "Reconnects per second over the last interval.");
	sample(b, "luabench_reconnects_per_second", per_s(c[LB_CNT_RECONNECT], s));
	family(b, "luabench_latency_seconds", "gauge", "Event latency percentiles over the last interval (--percentile).");
	for (int i = 0; i < st->npct; i++) {
		char q[32];
		snprintf(q, sizeof(q), "%g", r->cfg->percentiles[i] / 100);
		labelled(b, "luabench_latency_seconds", "quantile", q, NULL, NULL, st->pct[i]);
	}
	family(b, "luabench_latency_max_seconds", "gauge", "The longest event of the last interval.");
	sample(b, "luabench_latency_max_seconds", (double)lb_hist_max(&r->snap->lat) / 1e9);
	for (int i = 0; i < LB_CNT_MAX; i++)
		t->cnt[i] += c[i];
	family(b, "luabench_events_total", "counter", "Events (transactions) completed since the run started.");
	sample(b, "luabench_events_total", (double)t->cnt[LB_CNT_EVENT]);
	family(b, "luabench_queries_total", "counter", "SQL statements completed since the run started.");
	sample(b, "luabench_queries_total", (double)(t->cnt[LB_CNT_READ] + t->cnt[LB_CNT_WRITE] + t->cnt[LB_CNT_OTHER]));
	family(b, "luabench_errors_total", "counter", "Failed statements since the run started.");
	sample(b, "luabench_errors_total", (double)t->cnt[LB_CNT_ERROR]);
}

static void types(struct lb_buf *b, const struct lb_result *r)
{
	const struct lb_snap *snap = r->snap;
	bool any = false;
	for (int i = 0; i < LB_MAX_TYPES && !any; i++)
		any = snap->types[i] && snap->types[i]->cnt[LB_TCNT_DONE];
	if (!any)
		return;
	family(b, "luabench_type_per_second", "gauge", "Transactions of each type (luabench.stats) per second over the last interval.");
	for (int i = 0; i < LB_MAX_TYPES; i++)
		if (snap->types[i] && snap->types[i]->cnt[LB_TCNT_DONE])
			labelled(b, "luabench_type_per_second", "type", lb_types_name(r->types, i), NULL, NULL,
				 per_s(snap->types[i]->cnt[LB_TCNT_DONE], r->st.time_interval_s));
	family(b, "luabench_type_latency_seconds", "gauge", "Latency percentiles of each transaction type over the last interval.");
	for (int i = 0; i < LB_MAX_TYPES; i++) {
		const struct lb_type_stats *t = snap->types[i];
		if (!t || !t->cnt[LB_TCNT_DONE])
			continue;
		uint64_t max = lb_hist_max(&t->lat);
		for (int p = 0; p < r->cfg->npercentiles; p++) {
			char q[32];
			snprintf(q, sizeof(q), "%g", r->cfg->percentiles[p] / 100);
			labelled(b, "luabench_type_latency_seconds", "type", lb_types_name(r->types, i), "quantile", q,
				 (double)lb_hist_percentile(&t->lat, r->cfg->percentiles[p], 0, max) / 1e9);
		}
	}
}

/* The script's named metrics (luabench.counter, .rate, .gauge), labelled by name: each family
 * shows one figure of the metrics of one kind. */
enum metric_figure { TOTAL_SUM, TOTAL_COUNT, VALUE };

static void named_metrics(struct lb_buf *b, const struct lb_result *r, struct lb_prom_totals *t)
{
	static const struct {
		enum lb_metric_kind kind;
		enum metric_figure figure;
		const char *name, *type, *help;
	} families[] = {
		{ LB_METRIC_COUNTER, TOTAL_SUM, "luabench_counter_total", "counter", "Each luabench.counter's sum since the run started." },
		{ LB_METRIC_RATE, VALUE, "luabench_rate_ratio", "gauge", "Each luabench.rate's share of true outcomes over the last interval (NaN: none)." },
		{ LB_METRIC_RATE, TOTAL_SUM, "luabench_rate_true_total", "counter", "Each luabench.rate's true outcomes since the run started." },
		{ LB_METRIC_RATE, TOTAL_COUNT, "luabench_rate_outcomes_total", "counter", "Each luabench.rate's outcomes since the run started." },
		{ LB_METRIC_GAUGE, VALUE, "luabench_gauge", "gauge", "Each luabench.gauge's last value (NaN: never set)." },
	};
	int n = lb_metric_defs_count(r->metrics);
	bool kinds[3] = { false, false, false };
	for (int i = 0; i < n; i++) {
		t->metric_sum[i] += r->snap->metrics[i].sum;
		t->metric_count[i] += r->snap->metrics[i].count;
		kinds[lb_metric_defs_get(r->metrics, i)->kind] = true;
	}
	for (size_t f = 0; f < LB_ARRAY_LENGTH(families); f++) {
		if (!kinds[families[f].kind])
			continue;
		family(b, families[f].name, families[f].type, families[f].help);
		for (int i = 0; i < n; i++) {
			const struct lb_metric_def *d = lb_metric_defs_get(r->metrics, i);
			if (d->kind != families[f].kind)
				continue;
			double x = families[f].figure == TOTAL_SUM ? t->metric_sum[i] : t->metric_count[i];
			if (families[f].figure == VALUE && !lb_metric_value_of(d, &r->snap->metrics[i], &x))
				x = NAN;
			labelled(b, families[f].name, "name", d->name, NULL, NULL, x);
		}
	}
}

static void machine(struct lb_buf *b, const struct lb_sys_sample *s)
{
	static const char *const states[LB_SYS_CPU_N] = { "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal" };
	if (!s || !s->have_cpu)
		return;
	family(b, "luabench_system_cpu_percent", "gauge", "Machine CPU time by state, % of all CPUs, over the last interval.");
	for (int i = 0; i < LB_SYS_CPU_N; i++)
		labelled(b, "luabench_system_cpu_percent", "state", states[i], NULL, NULL, s->cpu_pct[i]);
	family(b, "luabench_system_context_switches_per_second", "gauge", "Context switches per second.");
	sample(b, "luabench_system_context_switches_per_second", s->ctxt_per_s);
	family(b, "luabench_system_load1", "gauge", "One-minute load average.");
	sample(b, "luabench_system_load1", s->load[0]);
	family(b, "luabench_system_memory_used_mebibytes", "gauge", "Memory in use (MiB).");
	sample(b, "luabench_system_memory_used_mebibytes", s->mem_used_mib);
	family(b, "luabench_process_cpu_percent", "gauge", "luabench's own CPU, % of one CPU, by mode.");
	labelled(b, "luabench_process_cpu_percent", "mode", "user", NULL, NULL, s->proc_user_pct);
	labelled(b, "luabench_process_cpu_percent", "mode", "system", NULL, NULL, s->proc_system_pct);
	if (!s->ndisks)
		return;
	family(b, "luabench_system_disk_operations_per_second", "gauge", "Disk requests completed per second, by device and direction.");
	for (int i = 0; i < s->ndisks; i++) {
		labelled(b, "luabench_system_disk_operations_per_second", "device", s->disks[i].name, "op", "read",
			 s->disks[i].reads_per_s);
		labelled(b, "luabench_system_disk_operations_per_second", "device", s->disks[i].name, "op", "write",
			 s->disks[i].writes_per_s);
	}
}

static void server(struct lb_buf *b, const struct lb_result *r)
{
	if (!r->srv || !r->srvmon)
		return;
	double k[LB_SRV_NKEYS];
	lb_srv_keys(r->srvmon, r->srv, r->st.cnt[LB_CNT_EVENT], r->st.time_interval_s, k);
	char name[96];
	for (int i = 0; i < LB_SRV_NKEYS; i++) {
		if (isnan(k[i]))
			continue;
		snprintf(name, sizeof(name), "luabench_server_%s", lb_srv_key_names[i]);
		family(b, name, "gauge", "A key figure of the database server's counters over the last interval (doc/results.md, server.key).");
		sample(b, name, k[i]);
	}
	const struct lb_srv_sample *s = r->srv;
	family(b, "luabench_server_counter_per_second", "gauge", "Each cumulative counter of the database server, per second over the last interval.");
	for (int i = 0; i < s->n && i < lb_srvmon_ncounters(r->srvmon); i++)
		if (!lb_srvmon_is_gauge(r->srvmon, i))
			labelled(b, "luabench_server_counter_per_second", "name", lb_srvmon_name(r->srvmon, i), NULL, NULL,
				 s->interval_s > 0 ? s->values[i] / s->interval_s : 0);
	family(b, "luabench_server_level", "gauge", "Each level the database server reports (sessions, sampled wait events), at the end of the last interval.");
	for (int i = 0; i < s->n && i < lb_srvmon_ncounters(r->srvmon); i++)
		if (lb_srvmon_is_gauge(r->srvmon, i))
			labelled(b, "luabench_server_level", "name", lb_srvmon_name(r->srvmon, i), NULL, NULL, s->values[i]);
}

void lb_prom_render(struct lb_buf *out, const struct lb_result *r, struct lb_prom_totals *totals)
{
	family(out, "luabench_up", "gauge", "1 while luabench runs; the figures below are those of the last report interval.");
	sample(out, "luabench_up", 1);
	if (!r)
		return;
	client(out, r, totals);
	types(out, r);
	named_metrics(out, r, totals);
	machine(out, r->sys);
	server(out, r);
}
