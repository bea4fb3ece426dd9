/* The engine's sink (engine.h) for a run started from the command line: the sysbench text
 * layout, CSV or JSON on stdout, the report hooks of the script, and the --output file. */
#ifndef LB_OUTPUT_RUN_OUTPUT_H
#define LB_OUTPUT_RUN_OUTPUT_H

#include "engine/engine.h"

struct lb_vm;
struct lb_personality;
struct lb_thresholds;

struct lb_metrics_http;

struct lb_run_output {
	const struct lb_personality *p; /* sysbench's layout only, or with luabench's additions */
	struct lb_engine *eng;     /* to create the reporter's state */
	struct lb_vm *control;     /* the script's global state: report hooks */
	struct lb_worker *reporter_w;
	struct lb_vm *reporter;    /* report_intermediate runs in a state of its own */
	const struct lb_thresholds *thresholds; /* --threshold (NULL: none), set by the caller */
	int thresholds_failed;     /* how many failed on the final window */
	int csv_types;             /* --format=csv: the types that got columns in the header */
	struct lb_metrics_http *metrics; /* --metrics-listen (NULL: none) */
};

extern const struct lb_run_sink lb_run_output_sink;

/* Connects the output to engine e (whose control state runs the report hooks). */
void lb_run_output_init(struct lb_run_output *o, struct lb_engine *e, const struct lb_personality *p);
void lb_run_output_fini(struct lb_run_output *o);

#endif
