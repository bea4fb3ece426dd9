/* Arrival schedule for --rate mode.
 *
 * One open-loop arrival process for the whole run (Poisson by default, as sysbench, or constant
 * spacing). Each worker that becomes free takes the next arrival's *intended* start time; if it
 * is in the future the worker sleeps until then, if it is in the past the event is late and its
 * latency, measured from the intended start, includes the time it waited. This is a single
 * queue served by all workers (like sysbench's ring), but nothing is ever dropped or aborted:
 * a backlog is only reported (queue length and lag). */
#ifndef LB_ENGINE_ARRIVALS_H
#define LB_ENGINE_ARRIVALS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/rand.h"

struct lb_arrivals {
	pthread_mutex_t lock;
	double interval_ns;  /* mean gap between arrivals */
	bool constant;       /* fixed gaps instead of exponential ones */
	int64_t next_ns;     /* intended start of the next arrival, ns since the run started */
	struct lb_rng rng;
	uint64_t taken;      /* arrivals handed to workers */
	int64_t max_lag_ns;  /* largest (actual start - intended start) seen */
};

void lb_arrivals_init(struct lb_arrivals *s, double rate_per_s, bool constant,
		   const struct lb_rand_conf *rc, int64_t start_ns);
void lb_arrivals_fini(struct lb_arrivals *s);
/* Takes the next arrival; returns its intended start. Thread-safe. */
int64_t lb_arrivals_take(struct lb_arrivals *s);
/* Notes how late an event actually started. Thread-safe. */
void lb_arrivals_note_lag(struct lb_arrivals *s, int64_t lag_ns);
/* Arrivals due at or before now_ns that no worker has taken yet (capped at `cap`). */
uint64_t lb_arrivals_backlog(struct lb_arrivals *s, int64_t now_ns, uint64_t cap);
/* Current lag: now - intended start of the oldest arrival not yet taken (0 if none is due). */
int64_t lb_arrivals_lag(struct lb_arrivals *s, int64_t now_ns);

#endif
