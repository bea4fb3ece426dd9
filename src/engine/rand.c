#include "engine/rand.h"

#include "engine/ffi_engine.h"

#include <math.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void lb_rng_seed(struct lb_rng *r, const struct lb_rand_conf *conf, uint64_t stream)
{
	/* Mix seed and stream through splitmix64 so neighbouring streams are unrelated. */
	uint64_t x = conf->seed ^ (stream * 0xd1b54a32d192ed03ULL);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
	r->conf = conf;
	memset(&r->zipf, 0, sizeof(r->zipf));
}

/* How many values [a, b] holds. With b < a the range wraps past 2^32, as sysbench's uint32
 * arithmetic does; never negative (a draw cast from a negative double is undefined). */
static double span(uint32_t a, uint32_t b)
{
	return (double)(uint32_t)(b - a) + 1.0;
}

uint32_t lb_rand_uniform(struct lb_rng *r, uint32_t a, uint32_t b)
{
	return a + (uint32_t)(lb_rng_double(r) * span(a, b));
}

/* Irwin-Hall: the mean of `iter` uniforms approximates a normal distribution over [0, 1). */
static double irwin_hall(struct lb_rng *r, int iter)
{
	double sum = 0;
	if (iter < 1)
		iter = 1;
	for (int i = 0; i < iter; i++)
		sum += lb_rng_double(r);
	return sum / iter;
}

uint32_t lb_rand_gaussian(struct lb_rng *r, uint32_t a, uint32_t b)
{
	return a + (uint32_t)(irwin_hall(r, r->conf->spec_iter) * span(a, b));
}

/* sysbench's "special": spec_res% of draws land in a band of spec_pct% of the range around
 * its middle, the rest are gaussian over the whole range. */
uint32_t lb_rand_special(struct lb_rng *r, uint32_t a, uint32_t b)
{
	if (a >= b)
		return a;
	double range = (double)b - (double)a + 1.0;
	if (lb_rng_double(r) * 100.0 < r->conf->spec_res) {
		double band = range * r->conf->spec_pct / 100.0;
		if (band < 1)
			band = 1;
		double start = (double)a + (range - band) / 2.0;
		return (uint32_t)(start + irwin_hall(r, r->conf->spec_iter) * band);
	}
	return lb_rand_gaussian(r, a, b);
}

uint32_t lb_rand_pareto(struct lb_rng *r, uint32_t a, uint32_t b)
{
	double h = r->conf->pareto_h;
	double power = log(h) / log(1.0 - h);
	return a + (uint32_t)(span(a, b) * pow(lb_rng_double(r), power));
}

/* Zipf over 1..n with exponent s by rejection-inversion (Hormann & Derflinger, 1996): O(1) per
 * draw with no table, so it works for any n. h(x) is the integral of x^-s. */
static double zipf_h(double x, double s)
{
	double e = 1.0 - s;
	return fabs(e) < 1e-8 ? log(x) : (pow(x, e) - 1.0) / e;
}

static double zipf_h_inv(double x, double s)
{
	double e = 1.0 - s;
	return fabs(e) < 1e-8 ? exp(x) : pow(x * e + 1.0, 1.0 / e);
}

static void zipf_prepare(struct lb_zipf_cache *z, uint32_t n, double s)
{
	z->n = n;
	z->s = s;
	z->h_x1 = zipf_h(1.5, s) - 1.0;
	z->h_n = zipf_h((double)n + 0.5, s);
	z->k = 2.0 - zipf_h_inv(zipf_h(2.5, s) - pow(2.0, -s), s);
}

uint32_t lb_rand_zipfian(struct lb_rng *r, uint32_t a, uint32_t b)
{
	if (a >= b)
		return a;
	uint32_t n = b - a + 1;
	double s = r->conf->zipf_exp;
	struct lb_zipf_cache *z = &r->zipf;
	if (z->n != n || z->s != s)
		zipf_prepare(z, n, s);
	for (;;) {
		double u = z->h_n + lb_rng_double(r) * (z->h_x1 - z->h_n);
		double x = zipf_h_inv(u, s);
		double k = floor(x + 0.5);
		if (k < 1)
			k = 1;
		else if (k > n)
			k = n;
		if (k - x <= z->k || u >= zipf_h(k + 0.5, s) - pow(k, -s))
			return a + (uint32_t)k - 1;
	}
}

uint32_t lb_rand_default(struct lb_rng *r, uint32_t a, uint32_t b)
{
	switch (r->conf->type) {
	case LB_RAND_GAUSSIAN:
		return lb_rand_gaussian(r, a, b);
	case LB_RAND_SPECIAL:
		return lb_rand_special(r, a, b);
	case LB_RAND_PARETO:
		return lb_rand_pareto(r, a, b);
	case LB_RAND_ZIPFIAN:
		return lb_rand_zipfian(r, a, b);
	default:
		return lb_rand_uniform(r, a, b);
	}
}

/* unique(): a permutation of all 32-bit values, walked by one counter per run. Quadratic
 * residues modulo a prime p = 3 mod 4 permute [0, p); the 5 values above p map to themselves. */

static uint32_t permute_qpr(uint32_t x)
{
	const uint32_t p = 4294967291u;
	if (x >= p)
		return x;
	uint32_t residue = (uint32_t)(((uint64_t)x * x) % p);
	return x <= p / 2 ? residue : p - residue;
}

void lb_unique_seed(struct lb_unique *u, uint64_t seed)
{
	uint64_t x = seed;
	u->base = (uint32_t)splitmix64(&x);
	u->xor_mask = (uint32_t)splitmix64(&x);
	u->next = 0;
}

uint32_t lb_unique_next(struct lb_unique *u)
{
	uint32_t i = __atomic_fetch_add(&u->next, 1, __ATOMIC_RELAXED);
	return permute_qpr((permute_qpr(i) + u->base) ^ u->xor_mask);
}

double lb_rand_exp(struct lb_rng *r, double mean)
{
	/* 1 - u is in (0, 1], so the log is finite. */
	return -log(1.0 - lb_rng_double(r)) * mean;
}

void lb_rand_str(struct lb_rng *r, const char *fmt, char *buf, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++) {
		char c = fmt[i];
		if (c == '#')
			buf[i] = (char)('0' + lb_rng_next(r) % 10);
		else if (c == '@')
			buf[i] = (char)('a' + lb_rng_next(r) % 26);
		else
			buf[i] = c;
	}
}
