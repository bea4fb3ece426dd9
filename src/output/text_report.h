/* Rendering of intermediate lines and final reports: the sysbench 1.0.20 text layout byte for
 * byte where sysbench has one (people parse it with grep and cut), new content in new lines. */
#ifndef LB_REPORT_H
#define LB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/engine.h"
#include "engine/stats.h"

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
	double lag_s;
	/* cumulative only */
	double lat_min_s, lat_max_s, lat_avg_s, lat_sum_s;
	/* the snapshot these figures come from (per-type statistics) */
	const struct lb_snap *snap;
};

/* Fixed percentiles of the per-type table (TPC-C and TPC-W style reports). */
#define LB_TYPE_NPCT 4
extern const double lb_type_pcts[LB_TYPE_NPCT];

/* The final (or checkpoint) report of a statistics window. */
struct lb_final {
	struct lb_report_stat st;
	const struct lb_snap *snap;   /* window deltas, including the histograms */
	int nthreads;
	const uint64_t *thread_events;
	const double *thread_time_s;
	uint64_t unfinished;          /* events in flight at a forced shutdown */
	uint64_t overflow;            /* latencies beyond the histogram range */
	const struct lb_sys_sample *sys; /* system metrics over the window; NULL = not sampled */
};

void lb_report_fill_pct(struct lb_report_stat *st, const struct lb_config *cfg,
			const struct lb_hist *h, uint64_t min_ns, uint64_t max_ns);
void lb_report_interval_text(FILE *out, const struct lb_engine *eng, const struct lb_report_stat *st);
void lb_report_csv_header(FILE *out, const struct lb_config *cfg);
void lb_report_interval_csv(FILE *out, const struct lb_config *cfg, const struct lb_report_stat *st);
/* extra: workload text printed before "General statistics:" (may be NULL). */
/* extra: workload text printed before "General statistics:"; footer: after the summary
 * (both may be NULL). */
void lb_report_final_text(FILE *out, const struct lb_engine *eng, const struct lb_final *f,
			  const char *extra, const char *footer);
/* --histogram: the latency distribution in sysbench's layout. */
void lb_report_histogram(FILE *out, const struct lb_hist *h);
/* "%3dth percentile"-style label for any percentile ("95th", "99.9th"). */
void lb_report_pct_label(char *buf, size_t len, double p);

#endif
