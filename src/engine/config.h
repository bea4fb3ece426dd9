/* The run's configuration: the general options (threads, limits, rate, reports, percentiles,
 * RNG, users) read once into a plain value that every layer above may read. */
#ifndef LB_ENGINE_CONFIG_H
#define LB_ENGINE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/rand.h"
#include "engine/srvstats.h"
#include "sys/placement.h"
#include "sys/sysmetrics.h"

struct lb_opts;

#define LB_MAX_PERCENTILES 32
#define LB_MAX_CHECKPOINTS 256

enum lb_format { LB_FORMAT_TEXT, LB_FORMAT_JSON, LB_FORMAT_CSV };

/* Settings derived from the options; fixed once the run starts. */
struct lb_config {
	int threads;
	int64_t time_ns;            /* 0 = no time limit */
	uint64_t events;            /* 0 = no event limit */
	double rate;                /* events/s, 0 = closed loop */
	bool rate_constant;         /* --rate-arrival=constant */
	int64_t report_interval_ns;
	int64_t warmup_ns;
	int64_t checkpoints_ns[LB_MAX_CHECKPOINTS];
	int ncheckpoints;
	struct lb_sys_conf sys;     /* --system-stats, --report-system, --db-server-* */
	struct lb_place_conf place; /* --cpu-affinity, --numa-node */
	struct lb_srv_conf srv;     /* --server-stats, --metrics-listen */
	double start_at;            /* --start-at: wall-clock start, s since the epoch (0 = now) */
#define LB_START_AT_TOLERANCE_S 1.0 /* how late a process may reach --start-at */
	int instance, instances;    /* --instance=i/n (0/1 when not given) */
	int64_t forced_shutdown_ns; /* after the time limit; -1 = off */
	int64_t thread_init_timeout_ns;
	uint64_t thread_stack_bytes;
	double percentiles[LB_MAX_PERCENTILES];
	int npercentiles;           /* 0 = percentiles disabled (--percentile=0) */
	bool histogram;
	bool report_statements;     /* --report-statements: per-statement latency (pgbench -r) */
	bool report_metrics;        /* --report-metrics: the named metrics' interval lines */
	bool debug;
	bool validate;
	enum lb_format format;
	const char *output_path;    /* --output, NULL = none */
	struct lb_rand_conf rand;
	bool seed_from_time;
	int users;                  /* --users: emulated users (0 = one per thread) */
	int connections;            /* --connections: pool size per process (0 = one per user) */
	int64_t ramp_up_ns;         /* --ramp-up over this long (0 = all at once) */
	double ramp_rate_per_ns;    /* --ramp-up N/min: users started per ns (0 = unused) */
	bool db_debug;              /* --db-debug: log every statement */
	int64_t db_reconnect_ns;    /* --db-reconnect-timeout */
	int64_t end_grace_ns;       /* --end-grace: statements still running after --time are cut off after it */
};

/* Registers the general, RNG and log options. */
int lb_config_register_options(struct lb_opts *opts, char *err, int errlen);
/* lb_config_read's return for a value that is not of the option's type: a command-line mistake,
 * which sysbench reports as such (not as a failure). */
#define LB_CONFIG_USAGE (-2)

/* Reads the general options (already registered) into c: 0, -1 or LB_CONFIG_USAGE. */
int lb_config_read(struct lb_config *c, const struct lb_opts *opts, char *err, int errlen);

#endif
