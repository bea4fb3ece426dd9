#include "engine/arrivals.h"

#include <string.h>

void lb_arrivals_init(struct lb_arrivals *s, double rate_per_s, bool constant,
		   const struct lb_rand_conf *rc, int64_t start_ns)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->interval_ns = 1e9 / rate_per_s;
	s->constant = constant;
	/* A stream id no worker uses, so arrivals don't correlate with any worker's numbers. */
	lb_rng_seed(&s->rng, rc, 0x5c4ed);
	s->next_ns = start_ns;
}

void lb_arrivals_fini(struct lb_arrivals *s)
{
	pthread_mutex_destroy(&s->lock);
}

static double gap(struct lb_arrivals *s, struct lb_rng *r)
{
	return s->constant ? s->interval_ns : lb_rand_exp(r, s->interval_ns);
}

int64_t lb_arrivals_take(struct lb_arrivals *s)
{
	pthread_mutex_lock(&s->lock);
	int64_t t = s->next_ns;
	s->next_ns = t + (int64_t)gap(s, &s->rng);
	s->taken++;
	pthread_mutex_unlock(&s->lock);
	return t;
}

void lb_arrivals_note_lag(struct lb_arrivals *s, int64_t lag_ns)
{
	if (lag_ns <= __atomic_load_n(&s->max_lag_ns, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&s->lock);
	if (lag_ns > s->max_lag_ns)
		s->max_lag_ns = lag_ns;
	pthread_mutex_unlock(&s->lock);
}

uint64_t lb_arrivals_backlog(struct lb_arrivals *s, int64_t now_ns, uint64_t cap)
{
	pthread_mutex_lock(&s->lock);
	struct lb_rng r = s->rng;
	double t = (double)s->next_ns;
	pthread_mutex_unlock(&s->lock);
	/* Replay a copy of the generator: the count is exact, not an estimate. */
	uint64_t n = 0;
	while (t <= (double)now_ns && n < cap) {
		n++;
		t += gap(s, &r);
	}
	return n;
}

int64_t lb_arrivals_lag(struct lb_arrivals *s, int64_t now_ns)
{
	int64_t next = __atomic_load_n(&s->next_ns, __ATOMIC_RELAXED);
	return now_ns > next ? now_ns - next : 0;
}
