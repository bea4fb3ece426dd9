/* --threshold: the syntax (every form, every error), and evaluation on a result with known
 * figures (latencies 1..1000 ms, 10 s, errors, a transaction type). */
#include <math.h>
#include <stdlib.h>

#include "../tap.h"
#include "engine/result.h"
#include "engine/stats.h"
#include "output/thresholds.h"
#include "util/opt.h"

static char err[1024];

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static void parses(const char *text, const char *type, const char *metric, enum lb_thr_op op, double limit,
		   const char *unit)
{
	struct lb_threshold t;
	int rc = lb_threshold_parse(text, &t, err, sizeof(err));
	if (!ok(rc == 0, "'%s' parses", text)) {
		printf("#   %s\n", err);
		return;
	}
	ok((type ? t.type && !strcmp(t.type, type) : !t.type) && !strcmp(t.metric, metric) && t.op == op &&
		   near(t.limit, limit) && !strcmp(t.unit, unit),
	   "'%s': type %s, metric %s, limit %g %s", text, type ? type : "-", metric, limit, unit);
	free(t.text), free(t.type), free(t.metric);
}

static void refused(const char *text, const char *want)
{
	struct lb_threshold t;
	ok(lb_threshold_parse(text, &t, err, sizeof(err)) < 0, "'%s' is refused", text);
	is_str(err, want, "'%s': the message", text);
}

static void syntax(void)
{
	parses("p95<50ms", NULL, "p95", LB_THR_LT, 50, "ms");
	parses("p95 < 50", NULL, "p95", LB_THR_LT, 50, "ms");
	parses("p99.9<=2s", NULL, "p99.9", LB_THR_LE, 2000, "ms");
	parses("max<1500us", NULL, "max", LB_THR_LT, 1.5, "ms");
	parses("avg>=0.5", NULL, "avg", LB_THR_GE, 0.5, "ms");
	parses("tps>1000", NULL, "tps", LB_THR_GT, 1000, "per_s");
	parses("qps>2000/s", NULL, "qps", LB_THR_GT, 2000, "per_s");
	parses("errors<0.1%", NULL, "errors", LB_THR_LT, 0.1, "%");
	parses("errors<=3", NULL, "errors", LB_THR_LE, 3, "");
	parses("reconnects<1", NULL, "reconnects", LB_THR_LT, 1, "");
	parses("NewOrder.p95<200ms", "NewOrder", "p95", LB_THR_LT, 200, "ms");
	parses("NewOrder.p99.9<1s", "NewOrder", "p99.9", LB_THR_LT, 1000, "ms");
	parses("a.b.tps>5", "a.b", "tps", LB_THR_GT, 5, "per_s");
	parses("Payment.errors<1%", "Payment", "errors", LB_THR_LT, 1, "%");

	const char *syn = "expected [TYPE.]METRIC<VALUE (or <=, >, >=), e.g. p95<50ms, tps>1000, errors<0.1%, NewOrder.p95<200ms";
	char want[512];
	snprintf(want, sizeof(want), "threshold 'p95': %s", syn);
	refused("p95", want);
	snprintf(want, sizeof(want), "threshold '<5': %s", syn);
	refused("<5", want);
	snprintf(want, sizeof(want), "threshold 'p95<': %s", syn);
	refused("p95<", want);
	/* a name that is none of luabench's figures may be a named metric of the script: checked
	 * once the script is loaded (named_metrics below) */
	parses("lat<5", NULL, "lat", LB_THR_LT, 5, "");
	parses("hit_rate>=90%", NULL, "hit_rate", LB_THR_GE, 90, "");
	parses("queue.last<=3", NULL, "queue.last", LB_THR_LE, 3, "");
	parses("queue.min>-1", NULL, "queue.min", LB_THR_GT, -1, "");
	parses("queue.max>-1", NULL, "queue.max", LB_THR_GT, -1, ""); /* no type's max is negative */
	refused("lag_ms<5ms", "threshold 'lag_ms<5ms': unit 'ms' does not fit lag_ms (units: none, or % for a luabench.rate)");
	refused("p101<5", "threshold 'p101<5': unknown metric 'p101' (metrics: pNN (e.g. p95, p99.9), avg, min, max, tps, qps, errors, events or reconnects)");
	refused("NewOrder.speed<5", "threshold 'NewOrder.speed<5': unknown metric 'speed' (metrics: pNN (e.g. p95, p99.9), avg, min, max, tps, qps, errors, events or reconnects)");
	refused("p95<fast", "threshold 'p95<fast': 'fast' is not a number >= 0 with an optional unit");
	refused("p95<-1", "threshold 'p95<-1': '-1' is not a number >= 0 with an optional unit");
	refused("p95<5min", "threshold 'p95<5min': unit 'min' does not fit p95 (units: us, ms (the default) or s)");
	refused("tps>5ms", "threshold 'tps>5ms': unit 'ms' does not fit tps (units: none or /s)");
	refused("events>5%", "threshold 'events>5%': unit '%' does not fit events (units: none (a count))");
	refused("T.qps>5", "threshold 'T.qps>5': qps is not measured per transaction type");

	/* repeated options and comma-separated lists add up */
	struct lb_opts o;
	lb_opts_init(&o);
	lb_opts_push(&o, "threshold=p95<50ms", "command line");
	lb_opts_push(&o, "threshold=tps>1,errors<1%", "command line");
	lb_opts_push(&o, "threads=2", "command line");
	lb_opts_add(&o, "threshold", LB_OPT_STRING, NULL, "d", "g", err, sizeof(err));
	struct lb_thresholds ts;
	ok(lb_thresholds_read(&ts, &o, err, sizeof(err)) == 0, "thresholds read");
	is_int(ts.n, 3, "two options, three thresholds");
	ok(ts.n == 3 && !strcmp(ts.v[0].text, "p95<50ms") && !strcmp(ts.v[2].text, "errors<1%"), "in order");
	lb_thresholds_free(&ts);
	lb_opts_push(&o, "threshold=p95<50ms,bogus", "command line");
	ok(lb_thresholds_read(&ts, &o, err, sizeof(err)) < 0, "one bad item refuses the lot");
	is_str(err, "threshold 'bogus': expected [TYPE.]METRIC<VALUE (or <=, >, >=), e.g. p95<50ms, tps>1000, errors<0.1%, NewOrder.p95<200ms",
	       "and names it");
	lb_opts_fini(&o);
}

static struct lb_threshold_outcome eval1(const char *text, const struct lb_result *r)
{
	struct lb_threshold t;
	struct lb_threshold_outcome out = { 0 };
	if (lb_threshold_parse(text, &t, err, sizeof(err)) < 0) {
		ok(0, "'%s' parses: %s", text, err);
		return out;
	}
	struct lb_thresholds ts = { .v = &t, .n = 1 };
	lb_thresholds_eval(&ts, r, &out);
	out.text = out.type = out.metric = NULL; /* freed below */
	free(t.text), free(t.type), free(t.metric);
	return out;
}

static void evaluation(void)
{
	struct lb_config cfg = { .npercentiles = 2, .percentiles = { 95, 99 } };
	struct lb_types types;
	lb_types_init(&types);
	int no = lb_types_define(&types, "NewOrder");
	lb_types_define(&types, "Never");
	struct lb_stats w;
	lb_stats_init(&w, 0, 0);
	/* 1000 events of 1..1000 ms; NewOrder: the first 100 of them (1..100 ms), 4 errors */
	for (int i = 1; i <= 1000; i++) {
		lb_stats_event(&w, (uint64_t)i * 1000000, 0);
		if (i <= 100)
			lb_stats_type(&w, no, (uint64_t)i * 1000000, LB_OUTCOME_OK);
	}
	for (int i = 0; i < 4; i++)
		lb_stats_type(&w, no, 0, LB_OUTCOME_ERROR);
	lb_stats_add(&w, LB_CNT_READ, 3000);
	lb_stats_add(&w, LB_CNT_ERROR, 10);
	lb_stats_add(&w, LB_CNT_RECONNECT, 1);
	struct lb_snap s;
	lb_snap_init(&s);
	lb_snap_add_stats(&s, &w, 0);
	struct lb_result r = { .cfg = &cfg, .types = &types, .snap = &s };
	lb_result_fill_stat(&r, 10.0, s.lat_min_ns, s.lat_max_ns);

	struct lb_threshold_outcome o = eval1("tps>99", &r);
	ok(o.pass && near(o.observed, 100), "tps is events over the window's seconds (%g)", o.observed);
	o = eval1("tps>100", &r);
	ok(!o.pass && !o.missing, "tps>100 fails on exactly 100");
	o = eval1("tps>=100", &r);
	ok(o.pass, ">= holds on equality");
	o = eval1("qps<=300", &r);
	ok(o.pass && near(o.observed, 300), "qps (%g)", o.observed);
	o = eval1("p95<1s", &r);
	ok(o.pass && near(o.observed, r.st.pct[0] * 1e3), "p95 is the report's own figure (%g ms)", o.observed);
	ok(fabs(o.observed - 950) < 1, "p95 of 1..1000 ms is 950 ms (%g)", o.observed);
	o = eval1("p50<600", &r);
	ok(o.pass && fabs(o.observed - 500) < 1, "a percentile the report does not print (%g ms)", o.observed);
	o = eval1("max<=1000ms", &r);
	ok(o.pass && near(o.observed, 1000), "max (%g ms)", o.observed);
	o = eval1("min>=1ms", &r);
	ok(o.pass && near(o.observed, 1), "min (%g ms)", o.observed);
	o = eval1("avg<500", &r);
	ok(!o.pass && near(o.observed, 500.5), "avg (%g ms) fails", o.observed);
	o = eval1("errors<1%", &r);
	ok(o.pass && near(o.observed, 100.0 * 10 / 1010), "errors as a share of the attempts (%g %%)", o.observed);
	o = eval1("errors<10", &r);
	ok(!o.pass && near(o.observed, 10), "errors as a count");
	o = eval1("reconnects<1", &r);
	ok(!o.pass && near(o.observed, 1), "reconnects");
	o = eval1("events>=1000", &r);
	ok(o.pass, "events");
	o = eval1("NewOrder.tps>=10", &r);
	ok(o.pass && near(o.observed, 10), "a type's tps (%g)", o.observed);
	o = eval1("NewOrder.p95<100ms", &r);
	ok(o.pass && fabs(o.observed - 95) < 0.5, "a type's p95 (%g ms)", o.observed);
	o = eval1("NewOrder.max<100ms", &r);
	ok(!o.pass && fabs(o.observed - 100) < 0.5, "a type's max (%g ms)", o.observed);
	o = eval1("NewOrder.errors<3%", &r);
	ok(!o.pass && near(o.observed, 400.0 / 104), "a type's errors share (%g %%)", o.observed);
	o = eval1("Never.p95<1s", &r);
	ok(!o.pass && o.missing, "a type without transactions fails (%s)", o.missing ? o.missing : "-");
	o = eval1("Nosuch.tps>0", &r);
	ok(!o.pass && o.missing, "an unknown type fails");

	/* a window without events: latencies fail, counts are 0 */
	struct lb_snap empty;
	lb_snap_init(&empty);
	struct lb_result e = { .cfg = &cfg, .types = &types, .snap = &empty };
	lb_result_fill_stat(&e, 1.0, 0, 0);
	o = eval1("p95<50ms", &e);
	ok(!o.pass && o.missing && !strcmp(o.missing, "no events"), "no events: a latency threshold fails");
	o = eval1("errors<1%", &e);
	ok(!o.pass && o.missing, "no events: an errors share fails");
	o = eval1("events<1", &e);
	ok(o.pass && near(o.observed, 0), "no events: a count is 0");
	lb_snap_fini(&empty);
	lb_snap_fini(&s);
	lb_stats_fini(&w);
	lb_types_fini(&types);
}

/* Checked against the script's registries once it is loaded: the kind decides what fits. */
static int check1(const char *text, const struct lb_types *types, const struct lb_metric_defs *defs,
		  struct lb_threshold *t)
{
	if (lb_threshold_parse(text, t, err, sizeof(err)) < 0)
		return -1;
	struct lb_thresholds ts = { .v = t, .n = 1 };
	return lb_thresholds_check_names(&ts, types, defs, err, sizeof(err));
}

static void checked(const char *text, const struct lb_types *types, const struct lb_metric_defs *defs,
		    const char *want_err)
{
	struct lb_threshold t = { 0 };
	int rc = check1(text, types, defs, &t);
	if (want_err) {
		ok(rc < 0, "'%s' is refused once the script is loaded", text);
		is_str(err, want_err, "'%s': the message", text);
	} else {
		ok(rc == 0, "'%s' fits the script's metric (%s)", text, rc ? err : "ok");
	}
	free(t.text), free(t.type), free(t.metric), free(t.name);
}

static void named_metrics(void)
{
	struct lb_config cfg = { .npercentiles = 1, .percentiles = { 95 } };
	struct lb_types types;
	lb_types_init(&types);
	lb_types_define(&types, "NewOrder");
	struct lb_metric_defs defs;
	lb_metric_defs_init(&defs);
	int miss = lb_metric_defs_define(&defs, "cache_miss", LB_METRIC_COUNTER, LB_BETTER_LOWER);
	int hit = lb_metric_defs_define(&defs, "hit_rate", LB_METRIC_RATE, LB_BETTER_HIGHER);
	int queue = lb_metric_defs_define(&defs, "queue", LB_METRIC_GAUGE, LB_BETTER_NEUTRAL);
	lb_metric_defs_define(&defs, "never", LB_METRIC_GAUGE, LB_BETTER_NEUTRAL);
	lb_metric_defs_define(&defs, "idle", LB_METRIC_RATE, LB_BETTER_NEUTRAL);
	is_int(lb_metric_defs_define(&defs, "queue", LB_METRIC_COUNTER, LB_BETTER_LOWER), queue,
	       "a name declared again keeps its id (and its kind: the caller compares)");

	checked("cache_miss<100", &types, &defs, NULL);
	checked("hit_rate>0.9", &types, &defs, NULL);
	checked("hit_rate>=90%", &types, &defs, NULL);
	checked("queue<5", &types, &defs, NULL);
	checked("queue.max<=5", &types, &defs, NULL);
	checked("queue.max>-5", &types, &defs, NULL);
	checked("queue.min>=0", &types, &defs, NULL);
	checked("NewOrder.max<1s", &types, &defs, NULL);
	checked("cache_mis<100", &types, &defs, "threshold 'cache_mis<100': unknown metric 'cache_mis' (did you mean 'cache_miss'?)");
	checked("tps2>5", &types, &defs, "threshold 'tps2>5': unknown metric 'tps2' (did you mean 'tps'?)");
	checked("zzzz<1", &types, &defs, "threshold 'zzzz<1': unknown metric 'zzzz' (metrics: pNN (e.g. p95, p99.9), avg, min, max, tps, qps, errors, events or reconnects, or the script's: cache_miss, hit_rate, queue, never, idle)");
	checked("cache_miss.max<5", &types, &defs, "threshold 'cache_miss.max<5': 'cache_miss' is a counter: only a gauge has .last, .min and .max (name it alone: cache_miss)");
	checked("cache_miss<5%", &types, &defs, "threshold 'cache_miss<5%': unit '%' does not fit counter 'cache_miss' (units: none)");
	checked("NewOrder.min<5", &types, &defs, "threshold 'NewOrder.min<5': min is not measured per transaction type");
	checked("queue.avg<5", &types, &defs, "threshold 'queue.avg<5': 'queue' is a gauge: name it alone, or its .last, .min or .max");
	checked("Stock.max<5", &types, &defs, "threshold 'Stock.max<5': no transaction type 'Stock' (the script's types: NewOrder)");

	/* two workers' slots: the counter and the rate add up, the gauge's last is the later set */
	struct lb_stats w[2];
	struct lb_snap s;
	for (int i = 0; i < 2; i++)
		lb_stats_init(&w[i], 0, 0);
	lb_snap_init(&s);
	struct lb_metric_slot *m0 = lb_stats_metric_slots(&w[0]), *m1 = lb_stats_metric_slots(&w[1]);
	m0[miss].sum = 60, m1[miss].sum = 40;
	m0[hit].count = 10, m0[hit].sum = 9;
	m1[hit].count = 10, m1[hit].sum = 8;
	lb_metric_slot_set(&m0[queue], 7, 2000, 0);
	lb_metric_slot_set(&m1[queue], -3, 1000, 0);
	lb_metric_slot_set(&m1[queue], 2, 3000, 0);
	lb_metric_slot_set(&m0[queue], 50, 1500, 1); /* a later window: its 7 is not in window 0 */
	for (int i = 0; i < 2; i++)
		lb_snap_add_stats(&s, &w[i], 0);
	struct lb_result r = { .cfg = &cfg, .types = &types, .metrics = &defs, .snap = &s };
	lb_result_fill_stat(&r, 10.0, 0, 0);
	struct lb_threshold_outcome o;
	struct lb_threshold t;
	const struct { const char *text; bool pass; double observed; const char *unit; } cases[] = {
		{ "cache_miss<100", false, 100, "" },   { "cache_miss<=100", true, 100, "" },
		{ "hit_rate>0.9", false, 0.85, "fraction" }, { "hit_rate>=85%", true, 85, "%" },
		{ "queue<3", true, 2, "value" },       { "queue.last>=2", true, 2, "value" },
		{ "queue.min>-3", false, -3, "value" }, { "queue.max<2", false, 2, "value" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&o, 0, sizeof(o));
		if (check1(cases[i].text, &types, &defs, &t) < 0) {
			ok(0, "'%s': %s", cases[i].text, err);
			continue;
		}
		struct lb_thresholds ts = { .v = &t, .n = 1 };
		lb_thresholds_eval(&ts, &r, &o);
		ok(o.pass == cases[i].pass && !o.missing && near(o.observed, cases[i].observed) && !strcmp(o.unit, cases[i].unit),
		   "%s: %s, observed %g %s", cases[i].text, o.pass ? "pass" : "fail", o.observed, o.unit);
		free(t.text), free(t.type), free(t.metric), free(t.name);
	}
	const struct { const char *text, *missing; } none[] = {
		{ "never<1", "never set" }, { "idle>0.5", "no outcomes" },
	};
	for (size_t i = 0; i < 2; i++) {
		memset(&o, 0, sizeof(o));
		check1(none[i].text, &types, &defs, &t);
		struct lb_thresholds ts = { .v = &t, .n = 1 };
		lb_thresholds_eval(&ts, &r, &o);
		ok(!o.pass && o.missing && !strcmp(o.missing, none[i].missing), "%s fails: %s", none[i].text,
		   o.missing ? o.missing : "-");
		free(t.text), free(t.type), free(t.metric), free(t.name);
	}
	lb_snap_fini(&s);
	for (int i = 0; i < 2; i++)
		lb_stats_fini(&w[i]);
	lb_metric_defs_fini(&defs);
	lb_types_fini(&types);
}

int main(void)
{
	syntax();
	evaluation();
	named_metrics();
	return done_testing();
}
