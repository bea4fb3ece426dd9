/* Rendering of intermediate lines and final reports: the sysbench 1.0.20 text layout byte for
 * byte where sysbench has one (people parse it with grep and cut), new content in new lines. */
#ifndef LB_OUTPUT_TEXT_REPORT_H
#define LB_OUTPUT_TEXT_REPORT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include "engine/result.h"

/* An intermediate line from r->st (sysbench's "[ 1s ] thds: ..."). */
void lb_report_interval_text(FILE *out, const struct lb_result *r);
/* luabench's line under an interval line when an event in flight is older than the interval. */
void lb_report_stall_line(FILE *out, const struct lb_result *r);
/* The CSV header, with columns for the transaction types defined so far (luabench.stats);
 * returns how many types got columns (give it to every interval line). */
/* server: the run has server statistics (srv_* columns after the types'); the named metrics'
 * columns come last. */
int lb_report_csv_header(FILE *out, const struct lb_config *cfg, const struct lb_types *types,
			 const struct lb_metric_defs *metrics, bool server);
void lb_report_interval_csv(FILE *out, const struct lb_result *r, int ntypes);
/* The report of a statistics window. extra: workload text printed before "General
 * statistics:"; footer: after the summary (both may be NULL). */
/* additions: luabench's blocks after sysbench's (types, users, rate, system statistics). */
void lb_report_final_text(FILE *out, const struct lb_result *r, const char *extra, const char *footer,
			  bool additions);
/* --histogram: the latency distribution in sysbench's layout. */
void lb_report_histogram(FILE *out, const struct lb_hist *h);
/* "%3dth percentile"-style label for any percentile ("95th", "99.9th"). */
void lb_report_pct_label(char *buf, size_t len, double p);

#endif
