/* Server statistics as a run result carries them (result.h: r->srvmon, r->srv): a sample of
 * the server's counters and the read-only view of the monitor that took it (counter names,
 * settings, what could not be read), which output renders. The monitor itself, which only the
 * engine drives, is srvmon.h. */
#ifndef LB_ENGINE_SRVSTATS_H
#define LB_ENGINE_SRVSTATS_H

#include <stdbool.h>
#include <stdint.h>

struct lb_srvmon;

struct lb_srv_conf {
	bool enabled;                /* --server-stats */
	const char *metrics_listen;  /* --metrics-listen (NULL: none; points into the options) */
};

/* The server's counters over one interval or window. values[i] belongs to counter i
 * (lb_srvmon_name()); a counter first seen later than the sample has no value in it (i >= n). */
struct lb_srv_sample {
	double interval_s;
	int n;               /* 0: no value (an interval too short to say anything: below) */
	double *values;      /* counters: the increase; gauges: the level at the end of an
	                      * interval, the mean of the interval readings over a window */
	int statements;      /* the statements run for the readings in it: the monitor's own, and
	                      * the sessions' publishing their counters (srvmon.h) */
};

/* The sample an interval names (lb_interval.srv), or NULL (no monitor, index -1). */
const struct lb_srv_sample *lb_srvmon_at(const struct lb_srvmon *m, int index);
/* The counters known so far, in the order of their first reading. */
int lb_srvmon_ncounters(const struct lb_srvmon *m);
const char *lb_srvmon_name(const struct lb_srvmon *m, int i);
bool lb_srvmon_is_gauge(const struct lb_srvmon *m, int i);
/* The value of counter `name` in s (0 when s has none). */
double lb_srv_value(const struct lb_srvmon *m, const struct lb_srv_sample *s, const char *name, bool *found);
/* The settings read at the start, sorted by name. */
int lb_srvmon_nsettings(const struct lb_srvmon *m);
void lb_srvmon_setting(const struct lb_srvmon *m, int i, const char **name, const char **value);
/* The settings changed but not in force at the start (a reload or a restart pending), sorted by
 * name; the value says what it waits for: "32MB (not in force: needs a reload)". */
int lb_srvmon_npending(const struct lb_srvmon *m);
void lb_srvmon_pending(const struct lb_srvmon *m, int i, const char **name, const char **value);
/* The driver's name ("pgsql", "mysql"): which counters to expect. */
const char *lb_srvmon_driver(const struct lb_srvmon *m);
/* The events the client counted in its window before the server's base reading (srvmon.h). */
int64_t lb_srvmon_offset_events(const struct lb_srvmon *m);
/* What could not be read for want of privileges ("" when nothing). */
const char *lb_srvmon_missing(const struct lb_srvmon *m);
/* Why the readings stopped during the run ("" when they did not): the window then has no
 * counters (lb_srvmon_window gives an empty sample). */
const char *lb_srvmon_error(const struct lb_srvmon *m);

#endif
