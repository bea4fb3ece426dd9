/* Monotonic time in nanoseconds. Header-only: no state. */
#ifndef LB_UTIL_CLOCK_H
#define LB_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

#define LB_NS_PER_US 1000LL
#define LB_NS_PER_MS 1000000LL
#define LB_NS_PER_S 1000000000LL

/* CLOCK_MONOTONIC in ns; a vDSO call (~25 ns here), cheap enough for two per event. */
static inline int64_t lb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * LB_NS_PER_S + ts.tv_nsec;
}

/* Wall-clock time in ns since the epoch (for result files only). */
static inline int64_t lb_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * LB_NS_PER_S + ts.tv_nsec;
}

static inline struct timespec lb_ns_to_timespec(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / LB_NS_PER_S, .tv_nsec = ns % LB_NS_PER_S };
	return ts;
}

/* Sleeps until an absolute CLOCK_MONOTONIC time; returns early only on signals. */
static inline void lb_sleep_until_ns(int64_t deadline_ns)
{
	struct timespec ts = lb_ns_to_timespec(deadline_ns);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

#endif
