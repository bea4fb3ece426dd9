#include "engine/latency_hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void lb_hist_init(struct lb_hist *h)
{
	/* calloc of a large block is served by fresh mmap pages: untouched buckets cost no RSS. */
	h->counts = lb_xcalloc(LB_HIST_LEN, sizeof(uint64_t));
	h->overflow = 0;
	h->lo = LB_HIST_LEN;
	h->hi = -1;
}

void lb_hist_fini(struct lb_hist *h)
{
	free(h->counts);
	h->counts = NULL;
}

void lb_hist_clear(struct lb_hist *h)
{
	if (h->hi >= h->lo)
		memset(h->counts + h->lo, 0, (size_t)(h->hi - h->lo + 1) * sizeof(uint64_t));
	h->overflow = 0;
	h->lo = LB_HIST_LEN;
	h->hi = -1;
}

uint64_t lb_hist_value_at(int i)
{
	int bucket = (i >> LB_HIST_HALF_BITS) - 1;
	uint64_t sub = (uint64_t)(i & ((1 << LB_HIST_HALF_BITS) - 1)) + (1u << LB_HIST_HALF_BITS);
	if (bucket < 0) {
		sub -= 1u << LB_HIST_HALF_BITS;
		bucket = 0;
	}
	return sub << bucket;
}

uint64_t lb_hist_width_at(int i)
{
	int bucket = (i >> LB_HIST_HALF_BITS) - 1;
	return (uint64_t)1 << (bucket < 0 ? 0 : bucket);
}

static void widen(struct lb_hist *dst, int lo, int hi)
{
	if (lo < dst->lo)
		dst->lo = lo;
	if (hi > dst->hi)
		dst->hi = hi;
}

void lb_hist_add(struct lb_hist *dst, const struct lb_hist *src)
{
	int lo = __atomic_load_n(&src->lo, __ATOMIC_RELAXED);
	int hi = __atomic_load_n(&src->hi, __ATOMIC_RELAXED);
	for (int i = lo; i <= hi; i++)
		dst->counts[i] += __atomic_load_n(&src->counts[i], __ATOMIC_RELAXED);
	if (hi >= lo)
		widen(dst, lo, hi);
	dst->overflow += __atomic_load_n(&src->overflow, __ATOMIC_RELAXED);
}

void lb_hist_diff(struct lb_hist *dst, const struct lb_hist *a, const struct lb_hist *b)
{
	lb_hist_clear(dst);
	for (int i = a->lo; i <= a->hi; i++) {
		uint64_t prev = (i >= b->lo && i <= b->hi) ? b->counts[i] : 0;
		/* Counts only grow; a smaller value would mean a torn read, so treat it as no change. */
		dst->counts[i] = a->counts[i] > prev ? a->counts[i] - prev : 0;
		/* The range covers only what the interval holds, so its top is the interval's max. */
		if (dst->counts[i])
			widen(dst, i, i);
	}
	dst->overflow = a->overflow > b->overflow ? a->overflow - b->overflow : 0;
}

uint64_t lb_hist_max(const struct lb_hist *h)
{
	return h->hi >= h->lo ? lb_hist_value_at(h->hi) + lb_hist_width_at(h->hi) - 1 : 0;
}

void lb_hist_add_value(struct lb_hist *h, uint64_t v_ns, uint64_t count)
{
	if (v_ns >= LB_HIST_MAX_NS) {
		h->overflow += count;
		return;
	}
	int i = lb_hist_index(v_ns);
	h->counts[i] += count;
	widen(h, i, i);
}

uint64_t lb_hist_total(const struct lb_hist *h)
{
	uint64_t n = h->overflow;
	for (int i = h->lo; i <= h->hi; i++)
		n += h->counts[i];
	return n;
}

uint64_t lb_hist_percentile(const struct lb_hist *h, double p, uint64_t min_ns, uint64_t max_ns)
{
	uint64_t n = lb_hist_total(h);
	if (n == 0)
		return 0;
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0, v = max_ns;
	for (int i = h->lo; i <= h->hi; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			v = lb_hist_value_at(i) + lb_hist_width_at(i) / 2;
			break;
		}
	}
	/* Ranks that fall into the overflow count are reported as the exact maximum. */
	if (v < min_ns)
		v = min_ns;
	if (v > max_ns)
		v = max_ns;
	return v;
}
