/* sysbench 1.0.20's C names, for scripts that declare and call them through the FFI.
 * They only get a thread id, so they look the worker up; none of them is on our own hot path. */
#include "api/ffi.h"
#include "util/clock.h"
#include "engine/engine.h"
#include "engine/rand.h"
#include "engine/stats.h"
#include "engine/worker.h"

_Static_assert((int)SB_CNT_TRX == (int)LB_CNT_EVENT && (int)SB_CNT_ERROR == (int)LB_CNT_ERROR &&
		       (int)SB_CNT_RECONNECT == (int)LB_CNT_RECONNECT && (int)SB_CNT_READ == (int)LB_CNT_READ,
	       "sysbench counter numbering must match ours");

LB_FFI void sb_counter_inc(int thread_id, sb_counter_type type)
{
	struct lb_worker *w = lb_worker_by_tid(thread_id);
	if (w && type >= 0 && type < SB_CNT_MAX)
		lb_stats_add(&w->stats, (enum lb_cnt)type, 1);
}

LB_FFI uint64_t sb_counter_val(int thread_id, sb_counter_type type)
{
	struct lb_worker *w = lb_worker_by_tid(thread_id);
	if (!w || type < 0 || type >= SB_CNT_MAX)
		return 0;
	return __atomic_load_n(&w->stats.cnt[type], __ATOMIC_RELAXED);
}

LB_FFI bool sb_more_events(int thread_id)
{
	struct lb_worker *w = lb_worker_by_tid(thread_id);
	return w && lb_worker_more(w) >= 0;
}

LB_FFI void sb_event_start(int thread_id)
{
	struct lb_worker *w = lb_worker_by_tid(thread_id);
	/* In --rate mode the event keeps its intended start, so queueing time counts. */
	if (w && !w->eng->rate_mode)
		w->start_ns = lb_now_ns() - w->eng->epoch_ns;
}

LB_FFI void sb_event_stop(int thread_id)
{
	struct lb_worker *w = lb_worker_by_tid(thread_id);
	if (w)
		lb_worker_record(w, w->start_ns);
}

static struct lb_rng *rng(void)
{
	static __thread struct lb_rng fallback;
	static __thread struct lb_rand_conf conf = { .type = LB_RAND_UNIFORM, .spec_iter = 12,
						     .spec_pct = 1, .spec_res = 75, .pareto_h = 0.2,
						     .zipf_exp = 0.8, .seed = 1 };
	struct lb_worker *w = lb_worker_self();
	if (w)
		return &w->rng;
	if (!fallback.conf)
		lb_rng_seed(&fallback, &conf, 0);
	return &fallback;
}

LB_FFI void sb_rand_str(const char *fmt, char *buf)
{
	uint32_t n = 0;
	while (fmt[n])
		n++;
	lb_rand_str(rng(), fmt, buf, n);
}

LB_FFI uint32_t sb_rand_uniform(uint32_t a, uint32_t b)
{
	return lb_rand_uniform(rng(), a, b);
}

LB_FFI uint32_t sb_rand_gaussian(uint32_t a, uint32_t b)
{
	return lb_rand_gaussian(rng(), a, b);
}

LB_FFI uint32_t sb_rand_special(uint32_t a, uint32_t b)
{
	return lb_rand_special(rng(), a, b);
}

LB_FFI uint32_t sb_rand_pareto(uint32_t a, uint32_t b)
{
	return lb_rand_pareto(rng(), a, b);
}

LB_FFI uint32_t sb_rand_zipfian(uint32_t a, uint32_t b)
{
	return lb_rand_zipfian(rng(), a, b);
}

LB_FFI uint32_t sb_rand_unique(void)
{
	struct lb_worker *w = lb_worker_self();
	return w ? lb_rand_unique(w) : 0;
}

LB_FFI uint32_t sb_rand_default(uint32_t a, uint32_t b)
{
	return lb_rand_default(rng(), a, b);
}

LB_FFI uint64_t sb_rand_uniform_uint64(void)
{
	return lb_rng_next(rng());
}

LB_FFI double sb_rand_uniform_double(void)
{
	return lb_rng_double(rng());
}

LB_FFI uint64_t lb_rand_u64(struct lb_rng *r)
{
	return lb_rng_next(r);
}

LB_FFI double lb_rand_double(struct lb_rng *r)
{
	return lb_rng_double(r);
}

LB_FFI sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max)
{
	return lb_script_hist_new((uint32_t)size, range_min, range_max);
}

LB_FFI void sb_histogram_delete(sb_histogram_t *h)
{
	lb_script_hist_free(h);
}

LB_FFI void sb_histogram_update(sb_histogram_t *h, double value)
{
	lb_script_hist_update(h, value);
}

LB_FFI void sb_histogram_print(sb_histogram_t *h)
{
	lb_script_hist_print(h);
}
