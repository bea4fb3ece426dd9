/* Machine-readable results: the JSON document (schema in doc/results.md). */
#ifndef LB_OUTPUT_RESULT_JSON_H
#define LB_OUTPUT_RESULT_JSON_H

#include "engine/result.h"

struct cJSON;

/* The result document. workload_json: extra JSON object from the workload (may be NULL). */
struct cJSON *lb_result_json_doc(const struct lb_result *r, const char *workload_json);
/* The same as text; caller frees. */
char *lb_result_json(const struct lb_result *r, const char *workload_json);
/* Writes the document to r->cfg->output_path atomically. A failure is reported (ALERT) and
 * returns -1: the run goes on to its end, then exits non-zero. */
int lb_result_json_write(const struct lb_result *r, const char *workload_json);
/* The document of a failed run (r->error): written to --output, and printed on stdout with
 * --format=json (so a pipeline always gets a document). */
void lb_result_json_error(const struct lb_result *r);
/* Checks early that --output can be written (its directory exists and is writable). */
int lb_result_json_check_path(const char *path, char *err, int errlen);

#endif
