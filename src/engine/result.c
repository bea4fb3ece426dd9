#include "engine/result.h"

#include <stdlib.h>
#include <string.h>

#include "engine/latency_hist.h"
#include "util/util.h"

const double lb_type_pcts[LB_TYPE_NPCT] = { 50, 90, 95, 99 };

static void insert_sorted(double *v, int *n, double p)
{
	int i = 0;
	while (i < *n && v[i] < p)
		i++;
	if (i < *n && v[i] == p)
		return;
	memmove(&v[i + 1], &v[i], (size_t)(*n - i) * sizeof(*v));
	v[i] = p;
	(*n)++;
}

int lb_type_pct_list(const struct lb_config *cfg, double *out)
{
	int n = 0;
	for (int i = 0; i < LB_TYPE_NPCT; i++)
		insert_sorted(out, &n, lb_type_pcts[i]);
	for (int i = 0; cfg && i < cfg->npercentiles; i++)
		insert_sorted(out, &n, cfg->percentiles[i]);
	return n;
}

void lb_result_fill_pct(struct lb_report_stat *st, const struct lb_config *cfg,
			const struct lb_hist *h, uint64_t min_ns, uint64_t max_ns)
{
	st->npct = cfg->npercentiles;
	for (int i = 0; i < cfg->npercentiles; i++) {
		st->pct_rank[i] = cfg->percentiles[i];
		st->pct[i] = (double)lb_hist_percentile(h, cfg->percentiles[i], min_ns, max_ns) / 1e9;
	}
}

void lb_result_fill_stat(struct lb_result *r, double time_s, uint64_t min_ns, uint64_t max_ns)
{
	struct lb_report_stat *st = &r->st;
	const struct lb_snap *s = r->snap;
	memset(st, 0, sizeof(*st));
	st->cumulative = true;
	st->time_total_s = st->time_interval_s = time_s;
	memcpy(st->cnt, s->cnt, sizeof(st->cnt));
	uint64_t n = s->cnt[LB_CNT_EVENT];
	st->lat_min_s = (double)min_ns / 1e9;
	st->lat_max_s = (double)max_ns / 1e9;
	st->lat_sum_s = (double)s->lat_sum_ns / 1e9;
	st->lat_avg_s = n ? st->lat_sum_s / (double)n : 0;
	lb_result_fill_pct(st, r->cfg, &s->lat, min_ns, max_ns);
	st->snap = s;
	st->types = r->types;
	r->overflow = s->lat.overflow;
}

/* The latency figures of each of the n slots (types or statements) with something in the
 * interval: done ones, and with errors_out also those with errors only. */
static struct lb_interval_type *fill_slots(struct lb_type_stats *const *slots, int n, const double *pcts,
					   int npct, int *count, uint64_t **errors_out)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += slots[i] && (slots[i]->cnt[LB_TCNT_DONE] || (errors_out && slots[i]->cnt[LB_TCNT_ERROR]));
	*count = 0;
	if (errors_out)
		*errors_out = k ? lb_xcalloc((size_t)k, sizeof(**errors_out)) : NULL;
	struct lb_interval_type *out = k ? lb_xcalloc((size_t)k, sizeof(*out)) : NULL;
	for (int i = 0; i < n; i++) {
		const struct lb_type_stats *t = slots[i];
		if (!t || !(t->cnt[LB_TCNT_DONE] || (errors_out && t->cnt[LB_TCNT_ERROR])))
			continue;
		struct lb_interval_type *it = &out[*count];
		if (errors_out)
			(*errors_out)[*count] = t->cnt[LB_TCNT_ERROR];
		(*count)++;
		uint64_t max = lb_hist_max(&t->lat);
		it->id = i;
		it->done = t->cnt[LB_TCNT_DONE];
		it->avg_ms = it->done ? (double)t->sum_ns / (double)it->done / 1e6 : 0;
		it->max_ms = (double)max / 1e6;
		for (int q = 0; q < npct; q++)
			it->pct_ms[q] = (double)lb_hist_percentile(&t->lat, pcts[q], 0, max) / 1e6;
	}
	return out;
}

void lb_interval_fill_types(struct lb_interval *iv, const struct lb_config *cfg, const struct lb_snap *s)
{
	double pcts[LB_TYPE_MAX_PCTS];
	int npct = lb_type_pct_list(cfg, pcts);
	iv->types = fill_slots(s->types, LB_MAX_TYPES, pcts, npct, &iv->ntypes, NULL);
	/* statements: the --percentile list, as their final figures */
	iv->stmts = fill_slots(s->stmts, LB_MAX_STMTS, cfg->percentiles, cfg->npercentiles, &iv->nstmts,
			       &iv->stmt_errors);
}

void lb_interval_fill_metrics(struct lb_interval *iv, const struct lb_metric_defs *defs, const struct lb_snap *s)
{
	iv->nmetrics = lb_metric_defs_count(defs);
	iv->metrics = iv->nmetrics ? lb_xcalloc((size_t)iv->nmetrics, sizeof(*iv->metrics)) : NULL;
	if (iv->nmetrics)
		memcpy(iv->metrics, s->metrics, (size_t)iv->nmetrics * sizeof(*iv->metrics));
}

void lb_intervals_free_types(struct lb_interval *iv, int n)
{
	for (int i = 0; i < n; i++) {
		free(iv[i].metrics);
		free(iv[i].types);
		free(iv[i].stmts);
		free(iv[i].stmt_errors);
	}
}
