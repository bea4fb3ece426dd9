/* Counter and histogram merging across workers, interval differences and window extremes. */
#include "../tap.h"
#include "engine/stats.h"

int main(void)
{
	enum { W = 4 };
	struct lb_stats w[W];
	for (int i = 0; i < W; i++)
		lb_stats_init(&w[i], 0, 0);
	for (int i = 0; i < W; i++) {
		for (int k = 0; k < 1000 * (i + 1); k++)
			lb_stats_event(&w[i], 1000 + (uint64_t)k, 0);
		lb_stats_add(&w[i], LB_CNT_READ, 14u * (unsigned)(i + 1));
		lb_stats_add(&w[i], LB_CNT_ERROR, 1);
	}
	struct lb_snap s, t, d;
	lb_snap_init(&s), lb_snap_init(&t), lb_snap_init(&d);
	for (int i = 0; i < W; i++)
		lb_snap_add_stats(&s, &w[i], 0);
	is_int(s.cnt[LB_CNT_EVENT], 10000, "events add up across workers");
	is_int(s.cnt[LB_CNT_READ], 140, "reads add up");
	is_int(s.cnt[LB_CNT_ERROR], 4, "errors add up");
	is_int(lb_hist_total(&s.lat), 10000, "merged histogram holds every sample");
	is_int(s.lat_min_ns, 1000, "min over workers");
	is_int(s.lat_max_ns, 1000 + 3999, "max over workers");
	uint64_t sum = 0;
	for (int i = 0; i < W; i++)
		for (int k = 0; k < 1000 * (i + 1); k++)
			sum += 1000 + (uint64_t)k;
	is_int(s.lat_sum_ns, sum, "latency sum is exact");

	/* A new window: extremes restart, counts continue and are windowed by subtraction. */
	lb_stats_event(&w[0], 50, 1);
	lb_snap_clear(&t);
	for (int i = 0; i < W; i++)
		lb_snap_add_stats(&t, &w[i], 1);
	lb_snap_diff(&d, &t, &s);
	is_int(d.cnt[LB_CNT_EVENT], 1, "window delta counts one event");
	is_int(t.lat_min_ns, 50, "window min only from the new window");
	is_int(t.lat_max_ns, 50, "window max only from the new window");
	is_int(lb_hist_total(&d.lat), 1, "window histogram holds one sample");

	struct lb_snap m;
	lb_snap_init(&m);
	lb_snap_merge(&m, &s);
	lb_snap_merge(&m, &s);
	is_int(m.cnt[LB_CNT_EVENT], 20000, "merging two snapshots adds counters");
	is_int(lb_hist_total(&m.lat), 20000, "and histograms");
	lb_snap_fini(&m), lb_snap_fini(&s), lb_snap_fini(&t), lb_snap_fini(&d);
	for (int i = 0; i < W; i++)
		lb_stats_fini(&w[i]);
	return done_testing();
}
