/* Log-linear latency histogram in nanoseconds (HdrHistogram layout: 3 significant digits).
 *
 * Values 0..2047 ns are recorded exactly; above that each power-of-two range is split into
 * 1024 equal sub-buckets, so a recorded value is known to within 1/1024 (< 0.1%) of itself.
 * Values up to LB_HIST_MAX_NS (2^43 ns, about 2.4 hours) are tracked; larger values are counted
 * in `overflow` and never clipped into the last bucket.
 *
 * Thread safety: one writer per histogram (its worker) using lb_hist_record(); any number of
 * readers may call lb_hist_add() concurrently. Writers and readers use relaxed atomic accesses,
 * so no locks or read-modify-write instructions are needed on the hot path. */
#ifndef LB_ENGINE_LATENCY_HIST_H
#define LB_ENGINE_LATENCY_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LB_HIST_SUB_BITS 11 /* 2048 sub-buckets: 3 significant decimal digits */
#define LB_HIST_HALF_BITS (LB_HIST_SUB_BITS - 1)
#define LB_HIST_MAX_BITS 43
#define LB_HIST_MAX_NS ((uint64_t)1 << LB_HIST_MAX_BITS)
#define LB_HIST_LEN ((LB_HIST_MAX_BITS - LB_HIST_SUB_BITS + 2) << LB_HIST_HALF_BITS)

struct lb_hist {
	uint64_t *counts;  /* LB_HIST_LEN entries, lazily faulted in (calloc) */
	uint64_t overflow; /* values >= LB_HIST_MAX_NS */
	int32_t lo, hi;    /* touched index range; lo > hi when empty */
};

void lb_hist_init(struct lb_hist *h);
void lb_hist_fini(struct lb_hist *h);
void lb_hist_clear(struct lb_hist *h);

static inline int lb_hist_index(uint64_t v)
{
	int pow2ceil = 64 - __builtin_clzll(v | ((1u << LB_HIST_SUB_BITS) - 1));
	int bucket = pow2ceil - LB_HIST_SUB_BITS;
	return (bucket << LB_HIST_HALF_BITS) + (int)(v >> bucket);
}

/* Single-writer record. */
static inline void lb_hist_record(struct lb_hist *h, uint64_t v_ns)
{
	if (__builtin_expect(v_ns >= LB_HIST_MAX_NS, 0)) {
		__atomic_store_n(&h->overflow, h->overflow + 1, __ATOMIC_RELAXED);
		return;
	}
	int i = lb_hist_index(v_ns);
	__atomic_store_n(&h->counts[i], h->counts[i] + 1, __ATOMIC_RELAXED);
	if (__builtin_expect(i > h->hi, 0))
		__atomic_store_n(&h->hi, i, __ATOMIC_RELAXED);
	if (__builtin_expect(i < h->lo, 0))
		__atomic_store_n(&h->lo, i, __ATOMIC_RELAXED);
}

/* Lowest value that maps to index i, and the width of that bucket. */
uint64_t lb_hist_value_at(int i);
uint64_t lb_hist_width_at(int i);

/* dst += src (reads src with relaxed loads; safe while src's writer runs). */
void lb_hist_add(struct lb_hist *dst, const struct lb_hist *src);
/* dst = a - b, where b is an earlier snapshot of the same counts (interval histogram). */
void lb_hist_diff(struct lb_hist *dst, const struct lb_hist *a, const struct lb_hist *b);
/* Adds `count` samples at value v (used when loading a result file). */
void lb_hist_add_value(struct lb_hist *h, uint64_t v_ns, uint64_t count);

uint64_t lb_hist_total(const struct lb_hist *h); /* includes overflow */
/* The highest value the histogram may hold (the top of its highest non-empty bucket), 0 if empty. */
uint64_t lb_hist_max(const struct lb_hist *h);

/* Value at percentile p (0 < p <= 100) by nearest rank: the smallest recorded value v such that
 * at least ceil(p/100 * n) samples are <= v, reported as its bucket's midpoint and clamped to
 * [min_ns, max_ns] (the exact extremes the caller tracks). Returns 0 for an empty histogram. */
uint64_t lb_hist_percentile(const struct lb_hist *h, double p, uint64_t min_ns, uint64_t max_ns);

#endif
