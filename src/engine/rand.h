/* Per-worker random number generation and the sysbench 1.0.20 distributions.
 *
 * Every worker (and the control state) owns one struct lb_rng; nothing is shared on the hot
 * path except rand.unique(), whose sequence is one per run by definition. Streams are seeded
 * from (--rand-seed, stream id), so a given seed reproduces every thread's numbers. */
#ifndef LB_ENGINE_RAND_H
#define LB_ENGINE_RAND_H

#include <stdint.h>

enum lb_rand_type {
	LB_RAND_UNIFORM,
	LB_RAND_GAUSSIAN,
	LB_RAND_SPECIAL,
	LB_RAND_PARETO,
	LB_RAND_ZIPFIAN,
};

/* Distribution parameters from --rand-* options; written once before workers start. */
struct lb_rand_conf {
	enum lb_rand_type type;
	int spec_iter;    /* --rand-spec-iter */
	double spec_pct;  /* --rand-spec-pct */
	double spec_res;  /* --rand-spec-res */
	double pareto_h;  /* --rand-pareto-h */
	double zipf_exp;  /* --rand-zipfian-exp */
	uint64_t seed;    /* effective seed (never 0 after lb_rand_conf_seed) */
};

struct lb_zipf_cache {
	uint32_t n;
	double s, h_x1, h_n, k;
};

struct lb_rng {
	uint64_t s[4]; /* xoshiro256** state */
	const struct lb_rand_conf *conf;
	struct lb_zipf_cache zipf;
};

/* Seeds stream `stream` (0 = control state, 1 + tid for workers, ...) from conf->seed. */
void lb_rng_seed(struct lb_rng *r, const struct lb_rand_conf *conf, uint64_t stream);
/* rand.unique(): one permutation of the 32-bit values per run, shared by its threads. */
struct lb_unique {
	uint32_t base, xor_mask;
	uint32_t next;
};

/* Seeds the permutation; call before threads start. */
void lb_unique_seed(struct lb_unique *u, uint64_t seed);
/* The next value; thread-safe. */
uint32_t lb_unique_next(struct lb_unique *u);

static inline uint64_t lb_rng_next(struct lb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5;
	uint64_t result = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}

/* Uniform double in [0, 1) from 53 random bits. */
static inline double lb_rng_double(struct lb_rng *r)
{
	return (double)(lb_rng_next(r) >> 11) * 0x1.0p-53;
}

uint32_t lb_rand_uniform(struct lb_rng *r, uint32_t a, uint32_t b);
uint32_t lb_rand_gaussian(struct lb_rng *r, uint32_t a, uint32_t b);
uint32_t lb_rand_special(struct lb_rng *r, uint32_t a, uint32_t b);
uint32_t lb_rand_pareto(struct lb_rng *r, uint32_t a, uint32_t b);
uint32_t lb_rand_zipfian(struct lb_rng *r, uint32_t a, uint32_t b);
uint32_t lb_rand_default(struct lb_rng *r, uint32_t a, uint32_t b);
/* Exponentially distributed value with the given mean (for arrivals and think times). */
double lb_rand_exp(struct lb_rng *r, double mean);
/* Fills buf[0..len) from a template: '#' -> digit, '@' -> lowercase letter, other bytes copied. */
void lb_rand_str(struct lb_rng *r, const char *fmt, char *buf, uint32_t len);

#endif
