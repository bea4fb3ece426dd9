/* The run's result as a value: everything a report, a result file, a merge or a comparison
 * needs, and nothing of the machinery that measured it.
 *
 * The engine fills one struct lb_result per statistics window (a checkpoint, or the end of the
 * run) and hands it to its sink (engine.h); `luabench merge` fills one from result files. The
 * output layer reads nothing else. A result borrows its arrays from whoever filled it (the
 * engine, the merge): it stays valid until that owner goes away. */
#ifndef LB_ENGINE_RESULT_H
#define LB_ENGINE_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/config.h"
#include "engine/stats.h"

struct lb_machine;
struct lb_opts;
struct lb_proc_place;
struct lb_sys_sample;
struct lb_sysmon;
struct lb_srvmon;
struct lb_srv_sample;

/* The figures a report hook sees (sysbench's `stat` table), for an interval or a window. */
struct lb_report_stat {
	bool cumulative;
	bool final;          /* the end-of-run report (false for intervals and checkpoints) */
	int threads_running;
	double time_interval_s, time_total_s;
	uint64_t cnt[LB_CNT_MAX];
	double pct[LB_MAX_PERCENTILES];    /* latency percentiles in seconds */
	double pct_rank[LB_MAX_PERCENTILES];
	int npct;
	uint64_t queue_length;
	uint32_t concurrency;
	double oldest_s;           /* intervals: how long the oldest event in flight has run */
	double lag_s;
	/* cumulative only */
	double lat_min_s, lat_max_s, lat_avg_s, lat_sum_s;
	/* the snapshot these figures come from (per-type statistics) */
	const struct lb_snap *snap;
	const struct lb_types *types;
};

/* Fixed percentiles of the per-type figures (TPC-C and TPC-W style reports). */
#define LB_TYPE_NPCT 4
extern const double lb_type_pcts[LB_TYPE_NPCT];
/* The per-type table's percentiles: the fixed ones and the run's --percentile list, ascending,
 * each once. Returns how many were written to out (room for LB_TYPE_MAX_PCTS). */
#define LB_TYPE_MAX_PCTS (LB_TYPE_NPCT + LB_MAX_PERCENTILES)
int lb_type_pct_list(const struct lb_config *cfg, double *out);

/* One transaction type over one interval (luabench.stats). */
struct lb_interval_type {
	int id;                     /* its name: lb_types_name(result->types, id) */
	uint64_t done;
	double avg_ms, max_ms;      /* NAN when not known (a merge of avg without counts) */
	/* the per-type table's percentiles (lb_type_pct_list), so that every per-type row of a
	 * comparison has a series; NAN when not known */
	double pct_ms[LB_TYPE_MAX_PCTS];
};

/* One intermediate sample kept for the JSON/CSV time series. */
struct lb_interval {
	double time_s, interval_s;
	int threads_running;
	uint64_t cnt[LB_CNT_MAX];
	double lat_pct_ms[LB_MAX_PERCENTILES];
	double lat_max_ms;
	uint64_t queue_length;
	uint32_t concurrency;
	double oldest_ms;           /* the oldest event in flight at the sample (a stall shows) */
	double lag_ms;
	uint64_t type_cnt[LB_MAX_TYPES][LB_TCNT_MAX]; /* per type: done, errors, rollbacks, retries */
	struct lb_interval_type *types; /* the types seen in it (owned by the result's owner) */
	int ntypes;
	/* --report-statements: the statements run in it, id = the statement's index (owned as
	 * types); errors in type_cnt's sense are in stmt_errors */
	struct lb_interval_type *stmts;
	uint64_t *stmt_errors;
	int nstmts;
	struct lb_metric_value *metrics; /* the named metrics by id (owned as types) */
	int nmetrics;
	int sys;                    /* its system metrics: lb_sysmon_at(sysmon, sys); -1 = none */
	int srv;                    /* its server statistics: lb_srvmon_at(srvmon, srv); -1 = none */
};

/* One worker over the window (the fairness block, --debug). */
struct lb_thread_figures {
	uint64_t events;
	double time_s;              /* sum of its events' latencies */
	uint64_t lat_min_ns, lat_max_ns; /* exact over the window (0 when not known, as in a merge) */
	const struct lb_placement *place; /* where it ran, as the kernel said; NULL = it did not start */
};

/* A --threshold evaluated on the final window (output/thresholds.c). */
struct lb_threshold_outcome {
	const char *text;           /* as given: "p95<50ms" */
	const char *type;           /* transaction type; NULL = the whole run */
	const char *metric;         /* "p95", "tps", "errors", ... */
	const char *op;             /* "<", "<=", ">" or ">=" */
	double limit, observed;     /* in unit */
	const char *unit;           /* "ms", "per_s", "%" or "" (a count) */
	const char *missing;        /* the run has no such figure (why; it fails); NULL = observed */
	bool pass;
};

struct lb_result {
	/* What ran. */
	const struct lb_config *cfg;
	const char *workload;       /* the script's name as given ("" when unknown) */
	const struct lb_opts *opts; /* the options, for the result file (secrets are left out) */
	const struct lb_types *types; /* names of the transaction types */
	const struct lb_metric_defs *metrics; /* the named metrics (snap->metrics by id); NULL: none */
	const struct lb_stmt_names *stmt_names; /* --report-statements: snap->stmts' texts */
	bool sql;                   /* a DB driver was used: the SQL report layout */
	bool rate_mode;
	int64_t start_wall_ns, end_wall_ns; /* the command, CLOCK_REALTIME */
	/* Where it ran: the machine's fingerprint (NULL: read it when writing, as a merge does) and
	 * the process's CPU set and control group (NULL: not known, as in a merge). */
	const struct lb_machine *machine;
	const struct lb_proc_place *proc_place;
	/* How it ended: "ok", "cut_off" (events cut off at the end: a stalled server), "interrupted",
	 * "forced_shutdown", "error" ("checkpoint" for one). */
	const char *status;
	const char *error;          /* the fatal error of a failed run, NULL otherwise */

	/* The statistics window (all zero in the result of a run that failed before it). */
	uint32_t window;            /* its number: 0 from the start, +1 at the warm-up's end and at
				     * each checkpoint (what per-worker figures are tagged with) */
	int64_t window_start_wall_ns;
	double start_s;             /* when the window started, in s since the run started */
	double end_s;               /* when the window ended, in s since the run started */
	bool workers_done;          /* every worker had left its event loop */
	double workers_end_s;       /* then: when the last one did, in s since the run started (a
				     * wait past --time included, which end_s leaves out) */
	struct lb_report_stat st;   /* window totals and percentiles; st.snap = snap */
	const struct lb_snap *snap; /* counters, histograms and per-type statistics */
	int nthreads;
	const struct lb_thread_figures *threads;
	uint64_t unfinished;        /* events in flight at a forced shutdown */
	uint64_t cut_off;           /* events whose statement the end of the run cut off */
	const char *server;         /* the database server's product and version, NULL unknown */
	const char *driver_settings; /* an embedded engine's settings, "name=value" lines; NULL none */
	int64_t cut_off_age_max_ns; /* the longest such an event had been running */
	int64_t grace_excluded_ns;  /* time waited past --time for them, left out of the window */
	uint64_t overflow;          /* latencies beyond the histogram's range */
	int64_t max_lag_ns;         /* rate mode: the largest start lag */
	uint64_t unserved_arrivals; /* rate mode: arrivals due but not started at the end */
	const struct lb_sys_sample *sys; /* system metrics over the window; NULL = not sampled */
	const struct lb_srv_sample *srv; /* server statistics over the window (or interval); NULL = none */
	const struct lb_threshold_outcome *thresholds; /* --threshold, final window only */
	int nthresholds;

	/* The time series of the whole run. */
	const struct lb_interval *intervals;
	int nintervals;
	const struct lb_sysmon *sysmon; /* the intervals' system metrics (NULL: none) */
	const struct lb_srvmon *srvmon; /* the server's settings and counter names, the intervals' server
	                                 * statistics (NULL: none) */
};

/* Fills st's percentiles (those of cfg) from histogram h; min/max bound the extremes. */
void lb_result_fill_pct(struct lb_report_stat *st, const struct lb_config *cfg,
			const struct lb_hist *h, uint64_t min_ns, uint64_t max_ns);
/* Fills r->st from r->snap: the window's totals, min/max/avg/sum and percentiles, over
 * time_s seconds. */
void lb_result_fill_stat(struct lb_result *r, double time_s, uint64_t min_ns, uint64_t max_ns);
/* Fills iv's per-type and per-statement figures from the interval's snapshot s (allocates iv->types,
 * iv->stmts and iv->stmt_errors). */
void lb_interval_fill_types(struct lb_interval *iv, const struct lb_config *cfg, const struct lb_snap *s);
/* Copies the interval's named metrics from its snapshot s (allocates iv->metrics). */
void lb_interval_fill_metrics(struct lb_interval *iv, const struct lb_metric_defs *defs, const struct lb_snap *s);
/* Frees the per-type figures and metrics of n intervals (not the array). */
void lb_intervals_free_types(struct lb_interval *iv, int n);

#endif
