/* Where a run's reports go: the interface between the engine, which measures, and an output,
 * which renders. Everything crosses as a configuration, a run result (result.h) or a Lua state
 * borrowed for the script's report hooks. */
#ifndef LB_ENGINE_SINK_H
#define LB_ENGINE_SINK_H

#include <stdbool.h>

#include "engine/config.h"
#include "engine/result.h"

struct lb_vm;

/* ctx is lb_engine.sink_ctx. */
struct lb_run_sink {
	/* First of all: the states the script's report hooks run in, valid until the run
	 * returns. control is the global state; reporter, a state of its own for
	 * report_intermediate (NULL unless the script has that hook and an interval is set). */
	void (*attach)(void *ctx, struct lb_vm *control, struct lb_vm *reporter);
	/* Before the threads start: the options header and the workload's own lines. -1 ends the
	 * run (exit code 1) after the sink said why. */
	int (*header)(void *ctx, const struct lb_config *cfg);
	/* The threads are ready (the script's types and metrics are known; server_stats: the
	 * server monitor reads the database server, so results have server statistics): the start
	 * barrier is released right after this returns 0. -1: the run ends before it starts (exit
	 * code 1), err says why. */
	int (*started)(void *ctx, const struct lb_config *cfg, const struct lb_types *types,
		       const struct lb_metric_defs *metrics, bool server_stats, char *err, size_t errlen);
	/* An intermediate sample, as a result whose st holds the interval's figures (r->sys its
	 * system metrics); it is in the time series too. -1: a report hook failed. */
	int (*interval)(void *ctx, const struct lb_result *r);
	/* A statistics window ended: a checkpoint (r->status "checkpoint") or the end of the run.
	 * -1: a report hook or the result file failed. */
	int (*window)(void *ctx, const struct lb_result *r);
	/* The run failed before it could report: r holds what ran and r->error. */
	void (*failed)(void *ctx, const struct lb_result *r);
	/* After the header and the workload's before_threads hook (which opens what the run needs,
	 * as sysbench's file test does after its header), just before the threads start. May be
	 * NULL. */
	void (*ready)(void *ctx);
};

#endif
