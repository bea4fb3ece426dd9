#include "stats.h"

#include <string.h>

void lb_stats_init(struct lb_stats *s, int with_service_hist)
{
	memset(s, 0, sizeof(*s));
	s->lat_min_ns = UINT64_MAX;
	lb_hist_init(&s->lat);
	if (with_service_hist)
		lb_hist_init(&s->svc);
}

void lb_stats_fini(struct lb_stats *s)
{
	lb_hist_fini(&s->lat);
	lb_hist_fini(&s->svc);
}

void lb_snap_init(struct lb_snap *s)
{
	memset(s, 0, sizeof(*s));
	lb_hist_init(&s->lat);
	lb_hist_init(&s->svc);
	s->lat_min_ns = UINT64_MAX;
}

void lb_snap_fini(struct lb_snap *s)
{
	lb_hist_fini(&s->lat);
	lb_hist_fini(&s->svc);
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
}

void lb_snap_add_stats(struct lb_snap *s, const struct lb_stats *w, uint32_t window)
{
	for (int i = 0; i < LB_CNT_MAX; i++)
		s->cnt[i] += __atomic_load_n(&w->cnt[i], __ATOMIC_RELAXED);
	s->lat_sum_ns += __atomic_load_n(&w->lat_sum_ns, __ATOMIC_RELAXED);
	if (__atomic_load_n(&w->window, __ATOMIC_ACQUIRE) == window) {
		uint64_t mn = __atomic_load_n(&w->lat_min_ns, __ATOMIC_RELAXED);
		uint64_t mx = __atomic_load_n(&w->lat_max_ns, __ATOMIC_RELAXED);
		if (mn < s->lat_min_ns)
			s->lat_min_ns = mn;
		if (mx > s->lat_max_ns)
			s->lat_max_ns = mx;
	}
	s->concurrency += __atomic_load_n(&w->in_event, __ATOMIC_RELAXED);
	lb_hist_add(&s->lat, &w->lat);
	if (w->svc.counts)
		lb_hist_add(&s->svc, &w->svc);
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
}
