/* The server monitor: the database server's own view of a run, beside the client's figures.
 * At the start of a run it opens a connection of its own to the server the workload uses,
 * records the server's settings (those that differ from its defaults, and a fixed list of the
 * ones that matter for performance), and takes a first reading of its cumulative counters;
 * then it reads them again at each report interval, at window boundaries and at the end, and
 * keeps the increases (counters) and levels (gauges: sessions, wait events).
 *
 * Only the engine's monitor thread calls these functions, so the workers never see any of it.
 * Each reading is one or two statements on the server; the monitor subtracts its own
 * statements from the counters they land in (db/monitor.h, `own`). */
#ifndef LB_ENGINE_SRVMON_H
#define LB_ENGINE_SRVMON_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/srvstats.h"

struct lb_opts;
struct lb_db_config;

int lb_srvmon_register_options(struct lb_opts *opts, char *err, int errlen);
int lb_srvmon_configure(const struct lb_opts *opts, struct lb_srv_conf *conf, char *err, int errlen);

/* Connects with cfg, reads the settings, finds which counters it may read and takes the first
 * reading. NULL (after a warning saying why, when there is a reason worth telling) when the
 * driver has no monitor, the connection is a dry run or the server cannot be reached. A later
 * reading that takes longer than reading_timeout_ms ends the readings (a warning): the
 * monitor thread must keep its time for the run's reports and its end. */
struct lb_srvmon *lb_srvmon_new(struct lb_db_config *cfg, int32_t reading_timeout_ms, int64_t now_ns);
/* Every function below accepts NULL and does nothing. */
void lb_srvmon_free(struct lb_srvmon *m);
/* Reads the counters and keeps the interval since the previous sample; its index, or -1. An
 * interval shorter than min_ns (a fraction of the report interval) is kept as one with no value
 * (n = 0: figures not available, never 0) and its counts go into the next interval: a server
 * publishes its counters in steps (PostgreSQL a session's at most once a second), and a few
 * milliseconds of them say nothing. */
int lb_srvmon_sample(struct lb_srvmon *m, int64_t now_ns, int64_t min_ns);
/* Whether the server publishes a session's counters late, so that the workers' sessions should
 * publish theirs before each reading (db/monitor.h, publish_sql). */
bool lb_srvmon_wants_publish(const struct lb_srvmon *m);
/* The statements other sessions ran for the monitor so far (publishing their counters): left
 * out of the counters its own statements land in, as its own are. */
void lb_srvmon_other_statements(struct lb_srvmon *m, uint64_t total);
/* The events the client counted in its window that the sessions completed before the server's
 * base reading (run_window.c): how far the server's window starts after the client's, in work. */
void lb_srvmon_window_offset(struct lb_srvmon *m, int64_t events);
/* Those already in the first reading (run before it): not to be left out again. */
void lb_srvmon_other_statements_before(struct lb_srvmon *m, uint64_t total);
/* A new statistics window starts now (end of warm-up, checkpoint): the window's base reading.
 * The intervals go on from the previous sample (an interval is not cut at a window start). */
void lb_srvmon_new_window(struct lb_srvmon *m, int64_t now_ns);
/* The run is over: the last reading, after the workers' sessions ended when `settle` (a
 * server may count a session's work when it ends). Later windows end there. */
void lb_srvmon_stop(struct lb_srvmon *m, int64_t now_ns, bool settle);
/* Fills `out` with the current window (up to the stop, or now); false without a monitor. */
bool lb_srvmon_window(struct lb_srvmon *m, int64_t now_ns, struct lb_srv_sample *out);
void lb_srv_sample_fini(struct lb_srv_sample *s);

#endif
