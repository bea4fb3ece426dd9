/* Internal to the run command (run.c, run_threads.c, run_window.c): the monitor's state and
 * what the three files call of each other. Not part of the engine's interface (engine.h). */
#ifndef LB_ENGINE_RUN_INTERNAL_H
#define LB_ENGINE_RUN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/stats.h"

#define ERRLEN 4096

struct lb_engine;
struct lb_window_buffers;

struct monitor {
	struct lb_snap cur, prev, delta;
	int64_t prev_ns;
	int64_t interrupted_ns; /* when the first signal was seen; -1: none yet */
	bool hook_failed;       /* a report hook raised an error: the run exits non-zero */
	int64_t next_report_ns;
	int next_checkpoint;
	bool warm;
};

/* The worker threads (run_threads.c). */
int lb_start_threads(struct lb_engine *e);
int lb_wait_initialized(struct lb_engine *e);
int lb_wait_start_at(struct lb_engine *e);
void lb_release_barrier(struct lb_engine *e);
void lb_serve_proc_reads(struct lb_engine *e);
void lb_end_read(struct lb_engine *e);
void lb_join_threads(struct lb_engine *e);

/* The statistics windows and the reports (run_window.c). */
void lb_new_window(struct lb_engine *e, int64_t now, const struct lb_window_buffers *reported);
void lb_interval_report(struct lb_engine *e, struct monitor *m, int64_t now);
int lb_report_window(struct lb_engine *e, int64_t end_ns, bool final, const char *status,
		     struct lb_window_buffers *b);
void lb_report_failure(struct lb_engine *e, const char *msg);

#endif
