/* sysbench.histogram: user histograms with log-spaced buckets over a fixed range, as in
 * sysbench (values outside the range land in the edge buckets). Updates are atomic so one
 * histogram created in shared memory can be fed by every thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/ffi.h"
#include "util/util.h"

struct lb_script_hist {
	uint32_t size;
	double range_min, range_max;
	double mult, deduct; /* index = log(v) * mult - deduct */
	uint64_t *counts;
};

LB_FFI struct lb_script_hist *lb_script_hist_new(uint32_t size, double range_min, double range_max)
{
	if (size < 2 || !(range_min > 0) || !(range_max > range_min))
		return NULL;
	struct lb_script_hist *h = lb_xzalloc(sizeof(*h));
	h->size = size;
	h->range_min = range_min;
	h->range_max = range_max;
	h->mult = (size - 1) / log(range_max / range_min);
	h->deduct = log(range_min) * h->mult;
	h->counts = lb_xcalloc(size, sizeof(uint64_t));
	return h;
}

LB_FFI void lb_script_hist_free(struct lb_script_hist *h)
{
	if (h) {
		free(h->counts);
		free(h);
	}
}

LB_FFI void lb_script_hist_update(struct lb_script_hist *h, double value)
{
	double v = value < h->range_min ? h->range_min : value > h->range_max ? h->range_max : value;
	uint32_t i = (uint32_t)floor(log(v) * h->mult - h->deduct + 0.5);
	if (i >= h->size)
		i = h->size - 1;
	__atomic_fetch_add(&h->counts[i], 1, __ATOMIC_RELAXED);
}

static double bucket_value(const struct lb_script_hist *h, uint32_t i)
{
	return exp((i + h->deduct) / h->mult);
}

LB_FFI double lb_script_hist_percentile(struct lb_script_hist *h, double pct)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < h->size; i++)
		total += __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED);
	if (!total)
		return 0;
	uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)total), seen = 0;
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < h->size; i++) {
		seen += __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED);
		if (seen >= rank)
			return bucket_value(h, i);
	}
	return h->range_max;
}

LB_FFI void lb_script_hist_print(struct lb_script_hist *h)
{
	uint64_t maxc = 0;
	for (uint32_t i = 0; i < h->size; i++)
		if (h->counts[i] > maxc)
			maxc = h->counts[i];
	printf("       value  ------------- distribution ------------- count\n");
	for (uint32_t i = 0; i < h->size; i++) {
		uint64_t c = __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED);
		if (!c)
			continue;
		int bar = (int)floor((double)c * 40.0 / (double)maxc + 0.5);
		printf("%12.3f |%-40.*s %llu\n", bucket_value(h, i), bar,
		       "****************************************", (unsigned long long)c);
	}
	fflush(stdout);
}
