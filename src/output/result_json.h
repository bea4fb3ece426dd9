/* Machine-readable results: the JSON document (schema in doc/results.md). */
#ifndef LB_RESULT_H
#define LB_RESULT_H

#include "engine/engine.h"
#include "output/text_report.h"

/* Renders the result document. status: "ok", "interrupted", "forced_shutdown", "error".
 * workload_json: extra JSON object from the workload (may be NULL). Caller frees. */
char *lb_result_json(struct lb_engine *e, const struct lb_final *f, const char *status,
		     const char *workload_json);
/* The same document as a cJSON tree (luabench merge renders merged results through it). */
struct cJSON *lb_result_doc(struct lb_engine *e, const struct lb_final *f, const char *status,
			    const char *workload_json);
/* Writes the document to --output atomically. A failure is reported (ALERT) and returns -1:
 * the run goes on to its end, then exits non-zero. */
int lb_result_write(struct lb_engine *e, const struct lb_final *f, const char *status,
		    const char *workload_json);
/* A result that only records a fatal error: written to --output, and printed on stdout with
 * --format=json (so a pipeline always gets a document). */
void lb_result_error(struct lb_engine *e, const char *msg);
/* Checks early that --output can be written (its directory exists and is writable). */
int lb_result_check_path(const char *path, char *err, int errlen);

#endif
