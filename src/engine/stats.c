#include "engine/stats.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void lb_stats_init(struct lb_stats *s, int with_service_hist, int with_wake_hist)
{
	memset(s, 0, sizeof(*s));
	s->lat_min_ns = UINT64_MAX;
	lb_hist_init(&s->lat);
	if (with_service_hist)
		lb_hist_init(&s->svc);
	if (with_wake_hist)
		lb_hist_init(&s->wake);
}

static struct lb_type_stats *type_new(void)
{
	struct lb_type_stats *t = lb_xzalloc(sizeof(*t));
	lb_hist_init(&t->lat);
	return t;
}

static void type_free(struct lb_type_stats *t)
{
	if (t) {
		lb_hist_fini(&t->lat);
		free(t);
	}
}

/* A worker's statistics and a snapshot hold the same owned parts: the histograms and the
 * per-type and per-statement blocks. */
static void free_parts(struct lb_hist *lat, struct lb_hist *svc, struct lb_hist *wake,
		       struct lb_type_stats **types, struct lb_type_stats **stmts)
{
	lb_hist_fini(lat);
	lb_hist_fini(svc);
	lb_hist_fini(wake);
	for (int i = 0; i < LB_MAX_TYPES; i++)
		type_free(types[i]);
	for (int i = 0; i < LB_MAX_STMTS; i++)
		type_free(stmts[i]);
}

void lb_stats_fini(struct lb_stats *s)
{
	free_parts(&s->lat, &s->svc, &s->wake, s->types, s->stmts);
	free(s->metrics);
}

struct lb_metric_slot *lb_stats_metric_slots_new(struct lb_stats *s)
{
	struct lb_metric_slot *m = aligned_alloc(LB_CACHELINE, sizeof(*m) * LB_MAX_METRICS);
	if (!m)
		abort();
	lb_metric_slots_init(m, LB_MAX_METRICS);
	__atomic_store_n(&s->metrics, m, __ATOMIC_RELEASE);
	return m;
}

void lb_types_init(struct lb_types *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
}

void lb_types_fini(struct lb_types *t)
{
	pthread_mutex_destroy(&t->lock);
}

int lb_types_define(struct lb_types *t, const char *name)
{
	pthread_mutex_lock(&t->lock);
	int id = -1;
	for (int i = 0; i < t->n && id < 0; i++)
		if (!strncmp(t->names[i], name, LB_TYPE_NAME_BYTES - 1))
			id = i;
	if (id < 0 && t->n < LB_MAX_TYPES) {
		snprintf(t->names[t->n], LB_TYPE_NAME_BYTES, "%s", name);
		id = t->n;
		__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&t->lock);
	return id;
}

const char *lb_types_name(const struct lb_types *t, int id)
{
	return id >= 0 && id < __atomic_load_n(&t->n, __ATOMIC_ACQUIRE) ? t->names[id] : "";
}

/* Type (or statement) `id` of a worker's array, allocated on first use. */
static struct lb_type_stats *slot(struct lb_type_stats **arr, int id)
{
	struct lb_type_stats *t = arr[id];
	if (!t) {
		t = type_new();
		__atomic_store_n(&arr[id], t, __ATOMIC_RELEASE);
	}
	return t;
}

static void count_one(struct lb_type_stats *t, enum lb_tcnt k)
{
	__atomic_store_n(&t->cnt[k], t->cnt[k] + 1, __ATOMIC_RELAXED);
}

static void record_done(struct lb_type_stats *t, uint64_t lat_ns)
{
	__atomic_store_n(&t->sum_ns, t->sum_ns + lat_ns, __ATOMIC_RELAXED);
	lb_hist_record(&t->lat, lat_ns);
	count_one(t, LB_TCNT_DONE);
}

void lb_stats_type(struct lb_stats *s, int id, uint64_t lat_ns, enum lb_outcome outcome)
{
	if (id < 0 || id >= LB_MAX_TYPES)
		return;
	struct lb_type_stats *t = slot(s->types, id);
	switch (outcome) {
	case LB_OUTCOME_ERROR:
		count_one(t, LB_TCNT_ERROR);
		return;
	case LB_OUTCOME_RETRY:
		count_one(t, LB_TCNT_RETRY);
		return;
	case LB_OUTCOME_ROLLBACK:
		count_one(t, LB_TCNT_ROLLBACK);
		break;
	default:
		break;
	}
	record_done(t, lat_ns);
}

void lb_stats_stmt(struct lb_stats *s, int id, uint64_t lat_ns, bool ok)
{
	if (id < 0 || id >= LB_MAX_STMTS)
		return;
	struct lb_type_stats *t = slot(s->stmts, id);
	if (ok)
		record_done(t, lat_ns);
	else
		count_one(t, LB_TCNT_ERROR);
}

void lb_stmt_names_init(struct lb_stmt_names *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
}

void lb_stmt_names_fini(struct lb_stmt_names *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->names[i]);
	pthread_mutex_destroy(&t->lock);
}

int lb_stmt_names_define(struct lb_stmt_names *t, const char *text, size_t len)
{
	pthread_mutex_lock(&t->lock);
	int id = -1;
	for (int i = 0; i < t->n && id < 0; i++)
		if (strlen(t->names[i]) == len && !memcmp(t->names[i], text, len))
			id = i;
	if (id < 0 && t->n < LB_MAX_STMTS - 1) {
		char *copy = lb_xzalloc(len + 1);
		memcpy(copy, text, len);
		copy[len] = '\0';
		t->names[t->n] = copy;
		id = t->n;
		__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
	} else if (id < 0) {
		id = LB_MAX_STMTS - 1;
		if (t->n == LB_MAX_STMTS - 1) {
			t->names[t->n] = lb_xstrdup("(other statements)");
			__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return id;
}

const char *lb_stmt_names_text(const struct lb_stmt_names *t, int id)
{
	return id >= 0 && id < __atomic_load_n(&t->n, __ATOMIC_ACQUIRE) ? t->names[id] : "";
}

/* dst += src for one type's counters, allocating dst on first use. */
static void type_add_counts(struct lb_type_stats **dst, const struct lb_type_stats *src)
{
	if (!src)
		return;
	if (!*dst)
		*dst = type_new();
	for (int i = 0; i < LB_TCNT_MAX; i++)
		(*dst)->cnt[i] += __atomic_load_n(&src->cnt[i], __ATOMIC_RELAXED);
	(*dst)->sum_ns += __atomic_load_n(&src->sum_ns, __ATOMIC_RELAXED);
}

static void type_add(struct lb_type_stats **dst, const struct lb_type_stats *src)
{
	type_add_counts(dst, src);
	if (src)
		lb_hist_add(&(*dst)->lat, &src->lat);
}

static void types_clear(struct lb_type_stats **types, int n)
{
	for (int i = 0; i < n; i++) {
		if (types[i]) {
			memset(types[i]->cnt, 0, sizeof(types[i]->cnt));
			types[i]->sum_ns = 0;
			lb_hist_clear(&types[i]->lat);
		}
	}
}

void lb_snap_init(struct lb_snap *s)
{
	memset(s, 0, sizeof(*s));
	lb_hist_init(&s->lat);
	lb_hist_init(&s->svc);
	lb_hist_init(&s->wake);
	s->lat_min_ns = UINT64_MAX;
	lb_metric_values_clear(s->metrics, LB_MAX_METRICS);
}

void lb_snap_fini(struct lb_snap *s)
{
	free_parts(&s->lat, &s->svc, &s->wake, s->types, s->stmts);
}

void lb_snap_clear(struct lb_snap *s)
{
	memset(s->cnt, 0, sizeof(s->cnt));
	s->lat_sum_ns = 0;
	s->lat_min_ns = UINT64_MAX;
	s->lat_max_ns = 0;
	s->concurrency = 0;
	lb_hist_clear(&s->lat);
	lb_hist_clear(&s->svc);
	lb_hist_clear(&s->wake);
	types_clear(s->types, LB_MAX_TYPES);
	types_clear(s->stmts, LB_MAX_STMTS);
	lb_metric_values_clear(s->metrics, LB_MAX_METRICS);
}

/* One worker's counters, read together. */
struct counter_read {
	uint64_t cnt[LB_CNT_MAX], lat_sum_ns;
	uint64_t type_cnt[LB_MAX_TYPES][LB_TCNT_MAX], type_sum_ns[LB_MAX_TYPES];
};

static void counters_read(struct counter_read *c, const struct lb_stats *w,
			  const struct lb_type_stats **types)
{
	for (int i = 0; i < LB_CNT_MAX; i++)
		c->cnt[i] = __atomic_load_n(&w->cnt[i], __ATOMIC_RELAXED);
	c->lat_sum_ns = __atomic_load_n(&w->lat_sum_ns, __ATOMIC_RELAXED);
	for (int i = 0; i < LB_MAX_TYPES; i++) {
		types[i] = __atomic_load_n(&w->types[i], __ATOMIC_ACQUIRE);
		if (!types[i])
			continue;
		for (int k = 0; k < LB_TCNT_MAX; k++)
			c->type_cnt[i][k] = __atomic_load_n(&types[i]->cnt[k], __ATOMIC_RELAXED);
		c->type_sum_ns[i] = __atomic_load_n(&types[i]->sum_ns, __ATOMIC_RELAXED);
	}
}

/* A window's baseline of events and of types must agree (fileio's total I/Os against its event
 * count), but the worker goes on completing events while they are read, and a reader preempted
 * between the two would see thousands apart. So the counters are read into a copy, and read
 * again if the worker's event count moved meanwhile; histograms, which take tens of
 * microseconds to add, come after. */
static void counters_add(struct lb_snap *s, const struct lb_stats *w,
			 const struct lb_type_stats **types)
{
	struct counter_read c;

	for (int tries = 0; tries < 16; tries++) {
		counters_read(&c, w, types);
		if (__atomic_load_n(&w->cnt[LB_CNT_EVENT], __ATOMIC_ACQUIRE) == c.cnt[LB_CNT_EVENT])
			break;
	}
	for (int i = 0; i < LB_CNT_MAX; i++)
		s->cnt[i] += c.cnt[i];
	s->lat_sum_ns += c.lat_sum_ns;
	for (int i = 0; i < LB_MAX_TYPES; i++) {
		if (!types[i])
			continue;
		if (!s->types[i])
			s->types[i] = type_new();
		for (int k = 0; k < LB_TCNT_MAX; k++)
			s->types[i]->cnt[k] += c.type_cnt[i][k];
		s->types[i]->sum_ns += c.type_sum_ns[i];
	}
}

void lb_snap_add_stats(struct lb_snap *s, const struct lb_stats *w, uint32_t window)
{
	const struct lb_type_stats *types[LB_MAX_TYPES];

	counters_add(s, w, types);
	if (__atomic_load_n(&w->window, __ATOMIC_ACQUIRE) == window) {
		uint64_t mn = __atomic_load_n(&w->lat_min_ns, __ATOMIC_RELAXED);
		uint64_t mx = __atomic_load_n(&w->lat_max_ns, __ATOMIC_RELAXED);
		if (mn < s->lat_min_ns)
			s->lat_min_ns = mn;
		if (mx > s->lat_max_ns)
			s->lat_max_ns = mx;
	}
	s->concurrency += __atomic_load_n(&w->in_event, __ATOMIC_RELAXED);
	const struct lb_metric_slot *slots = __atomic_load_n(&w->metrics, __ATOMIC_ACQUIRE);
	if (slots)
		lb_metric_values_add_slots(s->metrics, slots, LB_MAX_METRICS, window);
	lb_hist_add(&s->lat, &w->lat);
	if (w->svc.counts)
		lb_hist_add(&s->svc, &w->svc);
	if (w->wake.counts)
		lb_hist_add(&s->wake, &w->wake);
	for (int i = 0; i < LB_MAX_TYPES; i++)
		if (types[i])
			lb_hist_add(&s->types[i]->lat, &types[i]->lat);
	for (int i = 0; i < LB_MAX_STMTS; i++)
		type_add(&s->stmts[i], __atomic_load_n(&w->stmts[i], __ATOMIC_ACQUIRE));
}

/* dst[i] = a[i] - b[i] for n types (or statements). */
static void types_diff(struct lb_type_stats **dst, struct lb_type_stats *const *a,
		       struct lb_type_stats *const *b, int n)
{
	for (int i = 0; i < n; i++) {
		const struct lb_type_stats *ta = a[i], *tb = b[i];
		if (!ta)
			continue;
		if (!dst[i])
			dst[i] = type_new();
		struct lb_type_stats *d = dst[i];
		for (int k = 0; k < LB_TCNT_MAX; k++)
			d->cnt[k] = ta->cnt[k] - (tb && tb->cnt[k] <= ta->cnt[k] ? tb->cnt[k] : 0);
		d->sum_ns = ta->sum_ns - (tb && tb->sum_ns <= ta->sum_ns ? tb->sum_ns : 0);
		if (tb)
			lb_hist_diff(&d->lat, &ta->lat, &tb->lat);
		else {
			lb_hist_clear(&d->lat);
			lb_hist_add(&d->lat, &ta->lat);
		}
	}
}

void lb_snap_diff(struct lb_snap *dst, const struct lb_snap *a, const struct lb_snap *b)
{
	for (int i = 0; i < LB_CNT_MAX; i++)
		dst->cnt[i] = a->cnt[i] >= b->cnt[i] ? a->cnt[i] - b->cnt[i] : 0;
	dst->lat_sum_ns = a->lat_sum_ns >= b->lat_sum_ns ? a->lat_sum_ns - b->lat_sum_ns : 0;
	dst->lat_min_ns = a->lat_min_ns;
	dst->lat_max_ns = a->lat_max_ns;
	dst->concurrency = a->concurrency;
	lb_hist_diff(&dst->lat, &a->lat, &b->lat);
	lb_hist_diff(&dst->svc, &a->svc, &b->svc);
	lb_hist_diff(&dst->wake, &a->wake, &b->wake);
	types_diff(dst->types, a->types, b->types, LB_MAX_TYPES);
	types_diff(dst->stmts, a->stmts, b->stmts, LB_MAX_STMTS);
	lb_metric_values_diff(dst->metrics, a->metrics, b->metrics, LB_MAX_METRICS);
}

void lb_snap_copy(struct lb_snap *dst, const struct lb_snap *src)
{
	lb_snap_clear(dst);
	lb_snap_merge(dst, src);
	dst->lat_min_ns = src->lat_min_ns;
	dst->lat_max_ns = src->lat_max_ns;
	dst->concurrency = src->concurrency;
}

void lb_snap_merge(struct lb_snap *dst, const struct lb_snap *src)
{
	for (int i = 0; i < LB_CNT_MAX; i++)
		dst->cnt[i] += src->cnt[i];
	dst->lat_sum_ns += src->lat_sum_ns;
	if (src->lat_min_ns < dst->lat_min_ns)
		dst->lat_min_ns = src->lat_min_ns;
	if (src->lat_max_ns > dst->lat_max_ns)
		dst->lat_max_ns = src->lat_max_ns;
	dst->concurrency += src->concurrency;
	lb_hist_add(&dst->lat, &src->lat);
	lb_hist_add(&dst->svc, &src->svc);
	lb_hist_add(&dst->wake, &src->wake);
	for (int i = 0; i < LB_MAX_TYPES; i++)
		type_add(&dst->types[i], src->types[i]);
	for (int i = 0; i < LB_MAX_STMTS; i++)
		type_add(&dst->stmts[i], src->stmts[i]);
	lb_metric_values_merge(dst->metrics, src->metrics, LB_MAX_METRICS);
}
