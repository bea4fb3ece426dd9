/* The named metrics of a result (luabench.counter, .rate, .gauge; engine/named_metrics.h) in
 * every form a run reports: the final text block, the --report-metrics interval line, CSV
 * columns and the JSON objects of the result and of each interval (doc/results.md). */
#ifndef LB_OUTPUT_METRICS_REPORT_H
#define LB_OUTPUT_METRICS_REPORT_H

#include <stdio.h>

#include "engine/named_metrics.h"
#include "engine/result.h"

struct cJSON;

/* "Named metrics:", after luabench's per-type and per-statement blocks; nothing without metrics. */
void lb_metrics_report_block(FILE *out, const struct lb_result *r);
/* --report-metrics: "[ 5s ] metrics: name=value ..." for interval r; nothing without metrics. */
void lb_metrics_report_line(FILE *out, const struct lb_result *r);
/* The CSV columns: ",metric_NAME..." in the header, and interval r's values. */
void lb_metrics_csv_header(FILE *out, const struct lb_metric_defs *defs);
void lb_metrics_csv(FILE *out, const struct lb_result *r);
/* The result's "metrics" object (r->snap's values), and an interval's. */
struct cJSON *lb_metrics_json(const struct lb_result *r);
struct cJSON *lb_metrics_interval_json(const struct lb_metric_defs *defs, const struct lb_interval *iv);

#endif
