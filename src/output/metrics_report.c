#include "output/metrics_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

/* Enough digits for a value a script set to read back as it was set (0.1, not
 * 0.10000000000000001); sums are whole numbers. */
#define VALUE_FMT "%.15g"

static int count_of(const struct lb_result *r)
{
	return r->snap ? lb_metric_defs_count(r->metrics) : 0;
}

/* A metric's headline figure as text ("-" when it has none): as people read it, or exact (every
 * digit a double has: CSV). */
static void value_text(char *buf, size_t len, const struct lb_metric_def *d, const struct lb_metric_value *v,
		       bool exact)
{
	double x;
	if (!lb_metric_value_of(d, v, &x))
		snprintf(buf, len, "-");
	else if (d->kind == LB_METRIC_COUNTER)
		snprintf(buf, len, "%.0f", x);
	else if (exact)
		snprintf(buf, len, "%.17g", x);
	else
		snprintf(buf, len, d->kind == LB_METRIC_RATE ? "%.4f" : VALUE_FMT, x);
}

static void details(FILE *out, const struct lb_metric_def *d, const struct lb_metric_value *v, double time_s)
{
	switch (d->kind) {
	case LB_METRIC_COUNTER:
		fprintf(out, "%.2f per sec.", time_s > 0 ? v->sum / time_s : 0);
		break;
	case LB_METRIC_RATE:
		fprintf(out, "%.0f true of %.0f", v->sum, v->count);
		break;
	case LB_METRIC_GAUGE:
		if (lb_metric_has_extremes(v))
			fprintf(out, "last; min " VALUE_FMT ", max " VALUE_FMT ", set %.0f times", v->min, v->max, v->count);
		else
			fprintf(out, "last; not set in this window");
		break;
	}
	if (d->better != LB_BETTER_NEUTRAL)
		fprintf(out, "; %s is better", lb_metric_better_name(d->better));
}

void lb_metrics_report_block(FILE *out, const struct lb_result *r)
{
	int n = count_of(r);
	if (!n)
		return;
	fprintf(out, "Named metrics:\n");
	fprintf(out, "    %-32s %-8s %16s  %s\n", "name", "kind", "value", "details");
	for (int i = 0; i < n; i++) {
		const struct lb_metric_def *d = lb_metric_defs_get(r->metrics, i);
		const struct lb_metric_value *v = &r->snap->metrics[i];
		char value[64];
		value_text(value, sizeof(value), d, v, false);
		fprintf(out, "    %-32s %-8s %16s  ", d->name, lb_metric_kind_name(d->kind), value);
		details(out, d, v, r->st.time_total_s);
		fputc('\n', out);
	}
	fprintf(out, "\n");
}

void lb_metrics_report_line(FILE *out, const struct lb_result *r)
{
	int n = count_of(r);
	if (!n)
		return;
	fprintf(out, "[ %.0fs ] metrics:", r->st.time_total_s);
	for (int i = 0; i < n; i++) {
		const struct lb_metric_def *d = lb_metric_defs_get(r->metrics, i);
		char value[64];
		value_text(value, sizeof(value), d, &r->snap->metrics[i], false);
		fprintf(out, " %s=%s", d->name, value);
	}
	fputc('\n', out);
}

void lb_metrics_csv_header(FILE *out, const struct lb_metric_defs *defs)
{
	int n = lb_metric_defs_count(defs);
	for (int i = 0; i < n; i++) {
		const struct lb_metric_def *d = lb_metric_defs_get(defs, i);
		fprintf(out, ",metric_%s", d->name);
		if (d->kind == LB_METRIC_RATE)
			fprintf(out, ",metric_%s_outcomes", d->name);
	}
}

void lb_metrics_csv(FILE *out, const struct lb_result *r)
{
	int n = count_of(r);
	for (int i = 0; i < n; i++) {
		const struct lb_metric_def *d = lb_metric_defs_get(r->metrics, i);
		const struct lb_metric_value *v = &r->snap->metrics[i];
		char value[64];
		value_text(value, sizeof(value), d, v, true);
		fprintf(out, ",%s", strcmp(value, "-") ? value : "");
		if (d->kind == LB_METRIC_RATE)
			fprintf(out, ",%.0f", v->count);
	}
}

static void add_value(cJSON *o, const char *key, bool have, double v)
{
	if (have)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* What a metric's object holds in a result and in an interval: its value, and what a merge needs
 * to add it up exactly (a rate's counts, a gauge's sets and when it was set last). */
static void value_fields(cJSON *o, const struct lb_metric_def *d, const struct lb_metric_value *v)
{
	double x = 0;
	bool have = lb_metric_value_of(d, v, &x);
	add_value(o, "value", have, x);
	if (d->kind == LB_METRIC_RATE) {
		cJSON_AddNumberToObject(o, "true_outcomes", v->sum);
		cJSON_AddNumberToObject(o, "outcomes", v->count);
	} else if (d->kind == LB_METRIC_GAUGE) {
		cJSON_AddNumberToObject(o, "sets", v->count);
		add_value(o, "last_set_unix_us", v->last_wall_ns != 0, (double)(v->last_wall_ns / 1000));
	}
}

cJSON *lb_metrics_json(const struct lb_result *r)
{
	cJSON *o = cJSON_CreateObject();
	int n = count_of(r);
	for (int i = 0; i < n; i++) {
		const struct lb_metric_def *d = lb_metric_defs_get(r->metrics, i);
		const struct lb_metric_value *v = &r->snap->metrics[i];
		cJSON *m = cJSON_AddObjectToObject(o, d->name);
		cJSON_AddStringToObject(m, "kind", lb_metric_kind_name(d->kind));
		cJSON_AddStringToObject(m, "better", lb_metric_better_name(d->better));
		value_fields(m, d, v);
		if (d->kind == LB_METRIC_COUNTER)
			cJSON_AddNumberToObject(m, "per_s", r->st.time_total_s > 0 ? v->sum / r->st.time_total_s : 0);
		if (d->kind == LB_METRIC_GAUGE) {
			bool have = lb_metric_has_extremes(v);
			add_value(m, "min", have, v->min);
			add_value(m, "max", have, v->max);
		}
	}
	return o;
}

cJSON *lb_metrics_interval_json(const struct lb_metric_defs *defs, const struct lb_interval *iv)
{
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < iv->nmetrics; i++) {
		const struct lb_metric_def *d = lb_metric_defs_get(defs, i);
		if (d)
			value_fields(cJSON_AddObjectToObject(o, d->name), d, &iv->metrics[i]);
	}
	return o;
}
