/* The "run" command: its lifecycle (init, the threads' start, the monitor loop that prints
 * intermediate reports, moves statistics windows and enforces shutdown, the end) and signals. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/run_internal.h"
#include "engine/worker.h"
#include "sys/sysmetrics.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/util.h"

/* Signal handlers can only reach the engine through a global. */
static struct lb_engine *signal_engine;

static void on_signal(int sig)
{
	struct lb_engine *e = signal_engine;
	if (!e)
		return;
	e->last_signal = sig;
	__atomic_add_fetch(&e->interrupts, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED);
	sem_post(&e->wake);
}

static void install_signals(struct lb_engine *e)
{
	signal_engine = e;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void lb_engine_interrupt(struct lb_engine *e)
{
	on_signal(SIGINT);
	(void)e;
}

/* ---- the monitor loop ---------------------------------------------------------------------- */

/* How long running events may take to finish after the first SIGINT/SIGTERM when no
 * --forced-shutdown is given: a supervisor (timeout, Kubernetes) waits some seconds between
 * SIGTERM and SIGKILL, and the report must be out before then. */
#define LB_SIGNAL_GRACE_NS (5 * LB_NS_PER_S)

static int64_t signal_grace_ns(const struct lb_engine *e)
{
	return e->session.cfg.forced_shutdown_ns >= 0 ? e->session.cfg.forced_shutdown_ns : LB_SIGNAL_GRACE_NS;
}

static int64_t next_wake(struct lb_engine *e, struct monitor *m)
{
	int64_t w = m->next_report_ns;
	if (m->next_checkpoint < e->session.cfg.ncheckpoints && e->session.cfg.checkpoints_ns[m->next_checkpoint] < w)
		w = e->session.cfg.checkpoints_ns[m->next_checkpoint];
	if (!m->warm && e->session.cfg.warmup_ns < w)
		w = e->session.cfg.warmup_ns;
	if (e->session.cfg.forced_shutdown_ns >= 0 && e->deadline_ns != INT64_MAX &&
	    e->deadline_ns + e->session.cfg.forced_shutdown_ns < w)
		w = e->deadline_ns + e->session.cfg.forced_shutdown_ns;
	if (m->interrupted_ns >= 0 && m->interrupted_ns + signal_grace_ns(e) < w)
		w = m->interrupted_ns + signal_grace_ns(e);
	return w;
}

static void wait_until(struct lb_engine *e, int64_t rel_ns)
{
	if (rel_ns == INT64_MAX) {
		while (sem_wait(&e->wake) < 0 && errno == EINTR)
			;
		return;
	}
	struct timespec ts = lb_ns_to_timespec(e->epoch_ns + rel_ns);
	while (sem_clockwait(&e->wake, CLOCK_MONOTONIC, &ts) < 0 && errno == EINTR)
		;
}

static void checkpoint(struct lb_engine *e, struct monitor *m, int64_t now)
{
	struct lb_window_buffers b;
	if (lb_report_window(e, now, false, "checkpoint", &b) < 0)
		m->hook_failed = true;
	lb_new_window(e, now, &b);
	lb_window_buffers_fini(&b);
	m->next_checkpoint++;
}

/* Runs until every worker has left its loop. Returns false on a forced shutdown. */
static bool monitor_loop(struct lb_engine *e, struct monitor *m)
{
	bool told = false;
	while (__atomic_load_n(&e->looping, __ATOMIC_ACQUIRE) > 0) {
		wait_until(e, next_wake(e, m));
		lb_serve_proc_reads(e);
		int64_t now = lb_engine_now(e);
		int interrupts = __atomic_load_n(&e->interrupts, __ATOMIC_RELAXED);
		if (interrupts && !told) {
			lb_notice("\n%s received, stopping the run (running events get %.0f seconds; send it again to force shutdown)...",
				  e->last_signal == SIGTERM ? "SIGTERM" : "SIGINT",
				  (double)signal_grace_ns(e) / 1e9);
			told = true;
			m->interrupted_ns = now;
		}
		if (!m->warm && now >= e->session.cfg.warmup_ns) {
			lb_new_window(e, now, NULL);
			m->warm = true;
		}
		if (now >= m->next_report_ns) {
			lb_interval_report(e, m, now);
			int64_t step = e->session.cfg.report_interval_ns ? e->session.cfg.report_interval_ns : LB_NS_PER_S;
			while (m->next_report_ns <= now)
				m->next_report_ns += step;
		}
		if (m->next_checkpoint < e->session.cfg.ncheckpoints &&
		    now >= e->session.cfg.checkpoints_ns[m->next_checkpoint])
			checkpoint(e, m, now);
		bool forced_due = e->session.cfg.forced_shutdown_ns >= 0 && e->deadline_ns != INT64_MAX &&
				  now >= e->deadline_ns + e->session.cfg.forced_shutdown_ns;
		bool grace_over = m->interrupted_ns >= 0 && now >= m->interrupted_ns + signal_grace_ns(e);
		if (forced_due || grace_over || interrupts >= 2)
			return false;
	}
	return true;
}

/* ---- the run command ----------------------------------------------------------------------- */

static void create_workers(struct lb_engine *e)
{
	e->nworkers = e->session.cfg.threads;
	e->workers = lb_xcalloc((size_t)e->nworkers, sizeof(*e->workers));
	for (int i = 0; i < e->nworkers; i++)
		e->workers[i] = lb_worker_new(e, i, LB_ROLE_WORKER);
	e->window_base_events = lb_xcalloc((size_t)e->nworkers, sizeof(uint64_t));
	e->window_base_sum_ns = lb_xcalloc((size_t)e->nworkers, sizeof(uint64_t));
}

static void monitor_init(struct lb_engine *e, struct monitor *m)
{
	memset(m, 0, sizeof(*m));
	lb_snap_init(&m->cur);
	lb_snap_init(&m->prev);
	lb_snap_init(&m->delta);
	/* Without --report-interval the series is still sampled every second for the result file. */
	bool series = e->session.cfg.report_interval_ns || e->session.cfg.output_path || e->session.cfg.format != LB_FORMAT_TEXT;
	m->next_report_ns = e->session.cfg.report_interval_ns ? e->session.cfg.report_interval_ns
				: series ? LB_NS_PER_S : INT64_MAX;
	m->warm = e->session.cfg.warmup_ns == 0;
	m->interrupted_ns = -1;
	/* A checkpoint at 0 s is listed in the header but never reached (sysbench). */
	while (m->next_checkpoint < e->session.cfg.ncheckpoints && e->session.cfg.checkpoints_ns[m->next_checkpoint] <= 0)
		m->next_checkpoint++;
}

static void monitor_fini(struct monitor *m)
{
	lb_snap_fini(&m->cur);
	lb_snap_fini(&m->prev);
	lb_snap_fini(&m->delta);
}

/* sysbench's --verbosity=4 lines at the end of a run: each thread that stopped at the time
 * limit says so (its duplicate-line suppression folds the repeats), then "Done." (the event
 * limit's line comes from the worker, see worker_thread). */
static void print_done(struct lb_engine *e)
{
	int timed_out = 0;
	for (int i = 0; i < e->nworkers; i++)
		timed_out += e->session.cfg.time_ns && !e->workers[i]->failed && e->workers[i]->end_ns >= e->deadline_ns;
	if (timed_out)
		lb_info("Time limit exceeded, exiting...");
	if (timed_out > 1)
		lb_info("(last message repeated %d times)", timed_out - 1);
	lb_info("Done.\n\n");
}

/* With --users a failing event does not stop the run (a failing customer does not close the
 * shop): the user backs off and goes on. So that a script failing in every event does not end as
 * a success with no events, a run in which more than half of the users' events failed (over the
 * whole run) fails like a thread's error: FATAL, no report, status "error", exit code 1. */
static void check_failed_events(struct lb_engine *e)
{
	uint64_t failed = 0, done = 0;
	if (!e->session.cfg.users || e->fatal)
		return;
	for (int i = 0; i < e->nworkers; i++) {
		const struct lb_stats *s = &e->workers[i]->stats;
		failed += __atomic_load_n(&s->cnt[LB_CNT_FAILED], __ATOMIC_RELAXED);
		done += __atomic_load_n(&s->cnt[LB_CNT_EVENT], __ATOMIC_RELAXED);
	}
	if (failed <= done)
		return;
	char *msg = lb_xasprintf("more than half of the emulated users' events failed (%llu failed, "
				 "%llu completed); the ALERT lines above show each thread's first error",
				 (unsigned long long)failed, (unsigned long long)done);
	lb_engine_fail(e, msg);
	free(msg);
}

/* Where the measured window ends: when the last worker's loop ended, except that time a worker
 * spent past --time waiting for events the end then cut off (--end-grace) is not in it: rates are
 * the events counted over the time they completed in, and those events are not counted. */
static int64_t window_end(struct lb_engine *e, int64_t *waited_ns)
{
	int64_t end = 0, end_waited = 0;
	for (int i = 0; i < e->nworkers; i++) {
		const struct lb_worker *w = e->workers[i];
		int64_t t = w->end_ns;
		if (e->session.cfg.time_ns && t > e->deadline_ns) {
			int64_t counted = w->last_done_ns > e->deadline_ns ? w->last_done_ns : e->deadline_ns;
			if (counted < t)
				t = counted;
		}
		if (t > end)
			end = t;
		if (w->end_ns > end_waited)
			end_waited = w->end_ns;
	}
	*waited_ns = end_waited > end ? end_waited - end : 0;
	return end;
}

/* Returns the exit code: 0, 1 (error, or a report hook failed), 2 (forced shutdown) or 128 +
 * the signal (interrupted). */
static int finish_run(struct lb_engine *e, bool completed, bool hook_failed)
{
	int64_t end = window_end(e, &e->grace_excluded_ns);
	if (!completed) {
		e->forced = true;
		e->threads_stuck = true;
		end = lb_engine_now(e);
		int interrupts = __atomic_load_n(&e->interrupts, __ATOMIC_RELAXED);
		if (interrupts >= 2)
			lb_fatal("Interrupted again, forcing shutdown without waiting for running events...");
		else if (interrupts)
			lb_fatal("Running events did not finish within %.0f seconds of the signal, forcing shutdown...",
				 (double)signal_grace_ns(e) / 1e9);
		else
			lb_fatal("The --max-time limit has expired, forcing shutdown...");
	}
	if (e->rate_mode) {
		/* The window can end after --time's deadline (an event in flight then completed), but
		 * arrivals due after the deadline were never due in the run. */
		int64_t due_until = e->session.cfg.time_ns && end > e->deadline_ns ? e->deadline_ns : end;
		e->unserved_arrivals = lb_arrivals_backlog(&e->sched, due_until, 100000000);
	}
	/* After the workers closed their sessions: a server may count a session's work then. */
	lb_srvmon_stop(e->srvmon, lb_now_ns(), completed);
	e->end_wall_ns = lb_wall_ns();
	bool cut_off = __atomic_load_n(&e->cut_off, __ATOMIC_RELAXED) > 0;
	const char *status = e->fatal ? "error" : !completed ? "forced_shutdown"
			     : e->interrupts ? "interrupted" : cut_off ? "cut_off" : "ok";
	if (completed && !e->fatal && !e->interrupts && e->session.additions &&
	    (e->nothing_done = lb_engine_nothing_completed(e, end)))
		status = "failed";
	if (!e->fatal) {
		struct lb_window_buffers b;
		if (lb_report_window(e, end, true, status, &b) < 0)
			hook_failed = true;
		lb_window_buffers_fini(&b);
	}
	if (e->fatal)
		lb_report_failure(e, e->fatal);
	if (e->nothing_done)
		lb_fatal("%s", e->nothing_done); /* after the report, whose counters it sums up */
	if (e->fatal || e->nothing_done || hook_failed)
		return 1;
	if (!completed)
		return 2;
	if (e->interrupts)
		return 128 + (e->last_signal ? e->last_signal : SIGINT);
	return cut_off ? 3 : 0;
}

/* Fails the run before it started: one line, the error result, exit code rc. */
static int fail_early(struct lb_engine *e, const char *msg, int rc)
{
	if (*msg) /* empty: a built-in test logged its failure itself, at its levels */
		lb_fatal("%s", msg);
	lb_report_failure(e, msg);
	return rc;
}

static int init_hook(struct lb_engine *e)
{
	char err[ERRLEN];
	if (e->host->call(e->control, "init", false, err, sizeof(err)) >= 0)
		return 0;
	char *msg = e->session.plain_init_errors ? lb_xstrdup(err) : lb_xasprintf("`init' function failed: %s", err);
	fail_early(e, msg, 1);
	free(msg);
	return -1;
}

/* The server monitor's first reading, with the workers connected and waiting at the barrier. */
static void start_server_monitor(struct lb_engine *e)
{
	const struct lb_config *c = &e->session.cfg;
	if (!c->srv.enabled || !e->session.additions)
		return;
	pthread_mutex_lock(&e->lock);
	struct lb_db_config *db = e->srv_db;
	pthread_mutex_unlock(&e->lock);
	/* A reading may take a quarter of the report interval, between 0.25 and 2 s. */
	int64_t quarter_ms = (c->report_interval_ns ? c->report_interval_ns : LB_NS_PER_S) / 4 / 1000000;
	int32_t timeout_ms = (int32_t)(quarter_ms < 250 ? 250 : quarter_ms > 2000 ? 2000 : quarter_ms);
	if (db)
		e->srvmon = lb_srvmon_new(db, timeout_ms, lb_now_ns());
	/* decided once, before the workers start, which read it; what they published after
	 * thread_init is in the first reading */
	e->publish_sessions = lb_srvmon_wants_publish(e->srvmon);
	lb_srvmon_other_statements_before(e->srvmon, __atomic_load_n(&e->publish_statements, __ATOMIC_RELAXED));
}

/* Starts the threads and waits until they are initialized and --start-at is due. Returns 0 or
 * the exit code. */
static int start_run(struct lb_engine *e)
{
	e->sysmon = lb_sysmon_new(&e->session.cfg.sys);
	if (lb_start_threads(e) < 0) {
		lb_join_threads(e);
		return 1;
	}
	int init = lb_wait_initialized(e);
	if (init == -2) {
		char *msg = lb_xasprintf("Worker threads failed to initialize within %lld seconds!",
					 (long long)(e->session.cfg.thread_init_timeout_ns / LB_NS_PER_S));
		fail_early(e, msg, 2);
		free(msg);
		e->threads_stuck = true;
		return 2;
	}
	if (init == -1)
		lb_fatal("Thread initialization failed!"); /* after the worker's own line, as sysbench */
	char err[ERRLEN];
	bool refused = false;
	/* The server monitor connects and reads the settings before the common start, which must
	 * not wait for that (it takes a few round trips); its first reading is taken again when
	 * the start was waited for, so the server's window is the run's. */
	if (init == 0) {
		start_server_monitor(e);
		lb_engine_read_server_storage(e);
	}
	int waited = init == 0 ? lb_wait_start_at(e) : -1;
	if (waited > 0)
		lb_srvmon_new_window(e->srvmon, lb_now_ns());
	if (waited >= 0) {
		/* "Threads started!" comes before any line a worker prints, as in sysbench. The sink
		 * may refuse the run (a --threshold on a type the script does not define). */
		lb_metric_defs_close(&e->metrics);
		refused = e->sink->started(e->sink_ctx, &e->session.cfg, &e->types, &e->metrics,
					   e->srvmon != NULL, err, sizeof(err)) < 0;
		if (!refused) {
			lb_release_barrier(e);
			return 0;
		}
		lb_engine_fail(e, err);
	}
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&e->cond);
	lb_join_threads(e);
	lb_report_failure(e, e->fatal);
	return 1;
}

int lb_engine_run(struct lb_engine *e)
{
	char err[ERRLEN];
	e->deadline_ns = INT64_MAX;
	e->start_wall_ns = lb_wall_ns();
	lb_engine_read_fingerprint(e);
	install_signals(e);
	if (init_hook(e) < 0)
		return 1;
	if (lb_engine_open_reporter(e) < 0)
		return 1;
	e->sink->attach(e->sink_ctx, e->control, e->reporter);
	if (e->sink->header(e->sink_ctx, &e->session.cfg) < 0)
		return 1;
	if (e->host->call(e->control, "sysbench.hooks.before_threads", false, err, sizeof(err)) < 0)
		return fail_early(e, err, 1);
	if (e->sink->ready)
		e->sink->ready(e->sink_ctx);
	/* A workload that ends by itself (memory: --memory-total-size) ignores --events, as in
	 * sysbench; the header above still shows what was given. */
	if (e->host->has_hook(e->control, "_ignore_events"))
		e->session.cfg.events = 0;
	create_workers(e);
	int rc = start_run(e);
	if (rc)
		return rc;
	struct monitor m;
	monitor_init(e, &m);
	bool completed = monitor_loop(e, &m);
	lb_end_read(e);
	bool hook_failed = m.hook_failed;
	monitor_fini(&m);
	if (completed) {
		lb_join_threads(e);
		check_failed_events(e);
		print_done(e);
	}
	rc = finish_run(e, completed, hook_failed);
	if (completed && e->host->call(e->control, "done", false, err, sizeof(err)) < 0) {
		lb_fatal("`done' function failed: %s", err);
		rc = rc ? rc : 1;
	}
	signal_engine = NULL;
	return rc;
}
