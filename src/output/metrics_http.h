/* --metrics-listen: a small HTTP endpoint that serves the last report interval's figures in the
 * Prometheus text format (prom_text.h) to a scraper, for dashboards of long runs. One thread
 * of its own answers one request at a time; the run's threads only swap in the text of each
 * new interval. No authentication: it listens on 127.0.0.1 unless an address is given. */
#ifndef LB_OUTPUT_METRICS_HTTP_H
#define LB_OUTPUT_METRICS_HTTP_H

#include <stddef.h>

#include "engine/result.h"

struct lb_metrics_http;

/* Listens at "[ADDR:]PORT" ("9100", "0.0.0.0:9100", "[::1]:9100"). NULL with one line in err. */
struct lb_metrics_http *lb_metrics_http_start(const char *listen, char *err, size_t errlen);
/* The address it listens at, as "ADDR:PORT" (PORT 0 asks the system for a free one). */
const char *lb_metrics_http_address(const struct lb_metrics_http *h);
/* What it serves from now on: interval r's figures. */
void lb_metrics_http_update(struct lb_metrics_http *h, const struct lb_result *r);
/* Stops listening and frees. NULL is a no-op. */
void lb_metrics_http_stop(struct lb_metrics_http *h);

#endif
