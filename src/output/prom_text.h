/* The figures of a report interval in the Prometheus text exposition format (version 0.0.4):
 * what --metrics-listen serves. Names are stable (doc/monitoring.md lists them): luabench_*
 * for the client's figures, luabench_system_* for the machine's, luabench_server_* for the
 * database server's. */
#ifndef LB_OUTPUT_PROM_TEXT_H
#define LB_OUTPUT_PROM_TEXT_H

#include <stdint.h>

#include "engine/result.h"
#include "engine/stats.h"
#include "util/util.h"

/* Counters since the run started (the *_total metrics), added up from the intervals. */
struct lb_prom_totals {
	uint64_t cnt[LB_CNT_MAX];
	double metric_sum[LB_MAX_METRICS], metric_count[LB_MAX_METRICS]; /* named metrics */
};

/* Appends the exposition of interval r (NULL before the first one) to out, and adds r's
 * counts to totals. */
void lb_prom_render(struct lb_buf *out, const struct lb_result *r, struct lb_prom_totals *totals);

#endif
