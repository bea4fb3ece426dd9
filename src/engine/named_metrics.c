#include "engine/named_metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lb_metric_defs_init(struct lb_metric_defs *d)
{
	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->lock, NULL);
}

void lb_metric_defs_fini(struct lb_metric_defs *d)
{
	pthread_mutex_destroy(&d->lock);
}

int lb_metric_defs_define(struct lb_metric_defs *d, const char *name, enum lb_metric_kind kind,
			  enum lb_metric_better better)
{
	pthread_mutex_lock(&d->lock);
	int id = -1;
	for (int i = 0; i < d->n && id < 0; i++)
		if (!strncmp(d->v[i].name, name, LB_METRIC_NAME_BYTES - 1))
			id = i;
	if (id < 0 && d->closed)
		id = LB_METRIC_CLOSED;
	else if (id < 0 && d->n == LB_MAX_METRICS)
		id = LB_METRIC_FULL;
	else if (id < 0) {
		struct lb_metric_def *m = &d->v[d->n];
		snprintf(m->name, sizeof(m->name), "%s", name);
		m->kind = kind;
		m->better = better;
		id = d->n;
		__atomic_store_n(&d->n, d->n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&d->lock);
	return id;
}

void lb_metric_defs_close(struct lb_metric_defs *d)
{
	pthread_mutex_lock(&d->lock);
	d->closed = true;
	pthread_mutex_unlock(&d->lock);
}

int lb_metric_defs_count(const struct lb_metric_defs *d)
{
	return d ? __atomic_load_n(&d->n, __ATOMIC_ACQUIRE) : 0;
}

const struct lb_metric_def *lb_metric_defs_get(const struct lb_metric_defs *d, int id)
{
	return id >= 0 && id < lb_metric_defs_count(d) ? &d->v[id] : NULL;
}

int lb_metric_defs_find(const struct lb_metric_defs *d, const char *name)
{
	int n = lb_metric_defs_count(d);
	for (int i = 0; i < n; i++)
		if (!strcmp(d->v[i].name, name))
			return i;
	return -1;
}

const char *lb_metric_kind_name(enum lb_metric_kind k)
{
	return k == LB_METRIC_RATE ? "rate" : k == LB_METRIC_GAUGE ? "gauge" : "counter";
}

const char *lb_metric_better_name(enum lb_metric_better b)
{
	return b == LB_BETTER_HIGHER ? "higher" : b == LB_BETTER_LOWER ? "lower" : "neutral";
}

void lb_metric_slots_init(struct lb_metric_slot *s, int n)
{
	memset(s, 0, (size_t)n * sizeof(*s));
	for (int i = 0; i < n; i++)
		s[i].window = UINT32_MAX;
}

static void store_double(double *p, double v)
{
	__atomic_store(p, &v, __ATOMIC_RELAXED);
}

static double load_double(const double *p, int order)
{
	double v;
	__atomic_load(p, &v, order);
	return v;
}

void lb_metric_slot_set(struct lb_metric_slot *s, double v, int64_t wall_ns, uint32_t window)
{
	if (s->window != window) {
		store_double(&s->min, v);
		store_double(&s->max, v);
		/* after the extremes: a reader that sees the window reads this window's extremes */
		__atomic_store_n(&s->window, window, __ATOMIC_RELEASE);
	} else {
		if (v < s->min)
			store_double(&s->min, v);
		if (v > s->max)
			store_double(&s->max, v);
	}
	store_double(&s->last, v);
	__atomic_store_n(&s->last_wall_ns, wall_ns, __ATOMIC_RELEASE);
	store_double(&s->count, s->count + 1);
}

void lb_metric_values_clear(struct lb_metric_value *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = (struct lb_metric_value){ .min = INFINITY, .max = -INFINITY };
}

/* The later of two last values; a tie keeps dst's (the earlier input of a merge). */
static void take_last(struct lb_metric_value *dst, double last, int64_t wall_ns)
{
	if (wall_ns > dst->last_wall_ns) {
		dst->last = last;
		dst->last_wall_ns = wall_ns;
	}
}

static void take_extremes(struct lb_metric_value *dst, double min, double max)
{
	if (min < dst->min)
		dst->min = min;
	if (max > dst->max)
		dst->max = max;
}

void lb_metric_values_add_slots(struct lb_metric_value *v, const struct lb_metric_slot *s, int n, uint32_t window)
{
	for (int i = 0; i < n; i++) {
		/* the true outcomes before all outcomes: the worker stores them the other way round,
		 * so a rate read while it runs is never above 1 */
		v[i].sum += load_double(&s[i].sum, __ATOMIC_ACQUIRE);
		v[i].count += load_double(&s[i].count, __ATOMIC_RELAXED);
		int64_t at = __atomic_load_n(&s[i].last_wall_ns, __ATOMIC_ACQUIRE);
		if (at)
			take_last(&v[i], load_double(&s[i].last, __ATOMIC_RELAXED), at);
		if (__atomic_load_n(&s[i].window, __ATOMIC_ACQUIRE) == window)
			take_extremes(&v[i], load_double(&s[i].min, __ATOMIC_RELAXED),
				      load_double(&s[i].max, __ATOMIC_RELAXED));
	}
}

static double minus(double a, double b)
{
	return a > b ? a - b : 0;
}

void lb_metric_values_diff(struct lb_metric_value *dst, const struct lb_metric_value *a,
			   const struct lb_metric_value *b, int n)
{
	for (int i = 0; i < n; i++) {
		dst[i] = a[i];
		dst[i].sum = minus(a[i].sum, b[i].sum);
		dst[i].count = minus(a[i].count, b[i].count);
	}
}

void lb_metric_values_merge(struct lb_metric_value *dst, const struct lb_metric_value *src, int n)
{
	for (int i = 0; i < n; i++) {
		dst[i].sum += src[i].sum;
		dst[i].count += src[i].count;
		take_last(&dst[i], src[i].last, src[i].last_wall_ns);
		take_extremes(&dst[i], src[i].min, src[i].max);
	}
}

bool lb_metric_value_of(const struct lb_metric_def *d, const struct lb_metric_value *v, double *out)
{
	switch (d->kind) {
	case LB_METRIC_COUNTER:
		*out = v->sum;
		return true;
	case LB_METRIC_RATE:
		*out = v->count > 0 ? v->sum / v->count : 0;
		return v->count > 0;
	case LB_METRIC_GAUGE:
		*out = v->last;
		return v->last_wall_ns != 0;
	}
	return false;
}

bool lb_metric_has_extremes(const struct lb_metric_value *v)
{
	return v->min <= v->max;
}
