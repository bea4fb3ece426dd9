/* The engine's sink (engine/sink.h) for a run started from the command line: the sysbench text
 * layout, CSV or JSON on stdout, the report hooks of the script, and the --output file. */
#ifndef LB_OUTPUT_RUN_OUTPUT_H
#define LB_OUTPUT_RUN_OUTPUT_H

#include "engine/sink.h"

struct lb_vm;
struct lb_personality;
struct lb_thresholds;

struct lb_metrics_http;

struct lb_run_output {
	const struct lb_personality *p; /* sysbench's layout only, or with luabench's additions */
	struct lb_vm *control;     /* the script's global state: report hooks (the engine's) */
	struct lb_vm *reporter;    /* report_intermediate's state (the engine's), or NULL */
	struct lb_thresholds *thresholds; /* --threshold (NULL: none), set by the caller */
	int thresholds_failed;     /* how many failed on the final window */
	int csv_types;             /* --format=csv: the types that got columns in the header */
	struct lb_metrics_http *metrics; /* --metrics-listen (NULL: none) */
};

extern const struct lb_run_sink lb_run_output_sink;

/* An output in personality p; the engine attaches its Lua states when the run starts. */
void lb_run_output_init(struct lb_run_output *o, const struct lb_personality *p);
/* Stops what the output started for the run (the --metrics-listen server). */
void lb_run_output_fini(struct lb_run_output *o);

#endif
