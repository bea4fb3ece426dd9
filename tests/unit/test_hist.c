/* Histogram percentiles against an exact sort, over random and adversarial inputs. */
#include <math.h>
#include <stdlib.h>

#include "../tap.h"
#include "engine/latency_hist.h"
#include "engine/rand.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted values. */
static uint64_t exact(const uint64_t *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	return v[rank - 1];
}

static void check(const char *name, uint64_t *v, size_t n)
{
	struct lb_hist h;
	lb_hist_init(&h);
	uint64_t mn = UINT64_MAX, mx = 0;
	for (size_t i = 0; i < n; i++) {
		lb_hist_record(&h, v[i]);
		if (v[i] < mn)
			mn = v[i];
		if (v[i] > mx)
			mx = v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	static const double ps[] = { 0.001, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 99.999, 100 };
	int bad = 0;
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t e = exact(v, n, ps[i]);
		uint64_t got = lb_hist_percentile(&h, ps[i], mn, mx);
		/* Within the bucket width (1/1024 of the value) and never outside [min, max]. */
		double tol = e >= LB_HIST_MAX_NS ? 0 : (double)e / 1024.0 + 1;
		bool in_range = got >= mn && got <= mx;
		if (e >= LB_HIST_MAX_NS)
			tol = 0, e = mx; /* overflowed ranks are reported as the exact maximum */
		if (fabs((double)got - (double)e) > tol || !in_range) {
			bad++;
			diag("%s p%g: got %llu, exact %llu", name, ps[i], (unsigned long long)got,
			     (unsigned long long)e);
		}
	}
	ok(bad == 0, "%s: percentiles match an exact sort within the bucket width", name);
	is_int(lb_hist_total(&h), n, "%s: total count", name);
	lb_hist_fini(&h);
}

int main(void)
{
	enum { N = 200000 };
	uint64_t *v = malloc(N * sizeof(uint64_t));
	struct lb_rand_conf conf = { .seed = 42, .spec_iter = 12 };
	struct lb_rng r;
	lb_rng_seed(&r, &conf, 1);

	for (int i = 0; i < N; i++) /* log-uniform from 100 ns to 10 s */
		v[i] = (uint64_t)exp(log(100) + lb_rng_double(&r) * (log(1e10) - log(100)));
	check("log-uniform", v, N);

	for (int i = 0; i < N; i++)
		v[i] = 123456;
	check("constant", v, N);

	for (int i = 0; i < N; i++) /* bimodal: 1 us and 1 s */
		v[i] = (lb_rng_next(&r) & 1) ? 1000 + lb_rng_next(&r) % 50 : 1000000000 + lb_rng_next(&r) % 5000;
	check("bimodal", v, N);

	for (int i = 0; i < N; i++) /* huge outliers beyond the tracked range */
		v[i] = i % 1000 == 0 ? LB_HIST_MAX_NS * 3 + (uint64_t)i : 50000 + (uint64_t)(i % 977);
	check("huge outliers", v, N);

	for (int i = 0; i < N; i++) /* tiny values, recorded exactly */
		v[i] = lb_rng_next(&r) % 2048;
	check("sub-2us exact range", v, N);

	v[0] = 777;
	check("single value", v, 1);

	/* Interval arithmetic: (a+b) - a == b, and values added by value equal recorded ones. */
	struct lb_hist a, b, sum, d;
	lb_hist_init(&a), lb_hist_init(&b), lb_hist_init(&sum), lb_hist_init(&d);
	for (int i = 0; i < 1000; i++) {
		lb_hist_record(&a, 1000 + (uint64_t)i * 37);
		lb_hist_add_value(&b, 5000000 + (uint64_t)i * 1001, 2);
	}
	lb_hist_add(&sum, &a);
	lb_hist_add(&sum, &b);
	lb_hist_diff(&d, &sum, &a);
	is_int(lb_hist_total(&d), 2000, "diff keeps only the later samples");
	is_int(lb_hist_value_at(d.lo) >= 5000000 * 0.999, 1, "diff's range starts at its own lowest sample");
	is_int(lb_hist_max(&d) >= 5000000 + 999 * 1001 && lb_hist_max(&d) < (5000000 + 999 * 1001) * 1.001, 1,
	       "diff's max is its own highest sample");
	is_int(lb_hist_percentile(&d, 100, 0, UINT64_MAX) >= 5000000, 1, "diff's max is from b");
	is_int(lb_hist_percentile(&sum, 50, 0, UINT64_MAX) <= 1000 + 999 * 37 + 40, 0,
	       "median of sum lies in b (b has twice the samples)");
	lb_hist_fini(&a), lb_hist_fini(&b), lb_hist_fini(&sum), lb_hist_fini(&d);

	struct lb_hist e;
	lb_hist_init(&e);
	is_int(lb_hist_percentile(&e, 95, 0, 0), 0, "empty histogram reports 0");
	is_int(lb_hist_value_at(lb_hist_index(123456789)) <= 123456789, 1, "bucket lower bound <= value");
	is_int(lb_hist_value_at(lb_hist_index(123456789)) + lb_hist_width_at(lb_hist_index(123456789)) > 123456789,
	       1, "bucket upper bound > value");
	lb_hist_fini(&e);
	free(v);
	return done_testing();
}
