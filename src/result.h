/* Machine-readable results: the JSON document (schema in doc/results.md). */
#ifndef LB_RESULT_H
#define LB_RESULT_H

#include "engine.h"
#include "report.h"

/* Renders the result document. status: "ok", "interrupted", "forced_shutdown", "error".
 * workload_json: extra JSON object from the workload (may be NULL). Caller frees. */
char *lb_result_json(struct lb_engine *e, const struct lb_final *f, const char *status,
		     const char *workload_json);
/* Writes the document to --output atomically; a failure is reported, not fatal. */
void lb_result_write(struct lb_engine *e, const struct lb_final *f, const char *status,
		     const char *workload_json);
/* Writes a result that only records a fatal error. */
void lb_result_write_error(struct lb_engine *e, const char *msg);

#endif
