/* The "run" command: worker threads, the start barrier, and the monitor loop that prints
 * intermediate reports, moves statistics windows (warm-up, checkpoints) and enforces shutdown. */
#include <errno.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bind/vm.h"
#include "util/clock.h"
#include "engine/engine.h"
#include "util/log.h"
#include "output/text_report.h"
#include "output/result_json.h"
#include "util/util.h"
#include "sys/sysmetrics.h"
#include "engine/worker.h"

#define ERRLEN 4096

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

void lb_engine_fail(struct lb_engine *e, const char *msg)
{
	pthread_mutex_lock(&e->lock);
	if (!e->fatal) {
		e->fatal = lb_xstrdup(msg);
		lb_fatal("%s", msg);
	}
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	sem_post(&e->wake);
}

void lb_engine_interrupt(struct lb_engine *e)
{
	on_signal(SIGINT);
	(void)e;
}

void lb_engine_collect(struct lb_engine *e, struct lb_snap *out)
{
	lb_snap_clear(out);
	uint32_t window = __atomic_load_n(&e->window, __ATOMIC_RELAXED);
	for (int i = 0; i < e->nworkers; i++)
		lb_snap_add_stats(out, &e->workers[i]->stats, window);
}

int lb_engine_threads_running(struct lb_engine *e)
{
	int n = 0;
	for (int i = 0; i < e->nworkers; i++)
		n += !__atomic_load_n(&e->workers[i]->finished, __ATOMIC_RELAXED);
	return n;
}

/* ---- worker threads ------------------------------------------------------------------------ */

static int worker_init(struct lb_worker *w, char *err)
{
	char msg[ERRLEN - 64];
	w->vm = lb_vm_new(w->eng, w, msg, sizeof(msg));
	if (!w->vm) {
		snprintf(err, ERRLEN, "%s", msg);
		return -1;
	}
	if (lb_vm_export_options(w->vm, msg, sizeof(msg)) < 0 ||
	    lb_vm_call(w->vm, "thread_init", true, msg, sizeof(msg)) < 0) {
		snprintf(err, ERRLEN, "`thread_init' function failed: %s", msg);
		return -1;
	}
	return 0;
}

/* Waits at the start barrier; returns true if the run started. */
static bool worker_barrier(struct lb_worker *w, int init_rc)
{
	struct lb_engine *e = w->eng;
	pthread_mutex_lock(&e->lock);
	w->ready = 1;
	e->initialized++;
	pthread_cond_broadcast(&e->cond);
	while (!e->started && !e->stop && init_rc == 0)
		pthread_cond_wait(&e->cond, &e->lock);
	bool go = e->started && init_rc == 0;
	pthread_mutex_unlock(&e->lock);
	return go;
}

/* The monitor reads the system's counters at the end of the run before the workers run
 * thread_done and close their connections: a database server's backends exit with them and
 * their CPU time would go uncounted. Bounded, so a stuck monitor can't hold the workers. */
static void wait_end_read(struct lb_engine *e)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&e->lock);
	while (!e->end_read && pthread_cond_timedwait(&e->cond, &e->lock, &ts) == 0)
		;
	pthread_mutex_unlock(&e->lock);
}

static void end_read(struct lb_engine *e)
{
	lb_sysmon_stop(e->sysmon, lb_now_ns());
	pthread_mutex_lock(&e->lock);
	e->end_read = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static void *worker_thread(void *arg)
{
	struct lb_worker *w = arg;
	struct lb_engine *e = w->eng;
	char *err = lb_xzalloc(ERRLEN);
	lb_worker_set_self(w);
	lb_debug("Worker thread (#%d) started", w->tid);
	int rc = worker_init(w, err);
	if (rc < 0) {
		w->failed = 1;
		lb_engine_fail(e, err);
	} else {
		lb_debug("Worker thread (#%d) initialized", w->tid);
	}
	bool go = worker_barrier(w, rc);
	if (go && lb_vm_run_thread(w->vm, err, ERRLEN) < 0) {
		char *msg = lb_xasprintf("`thread_run' function failed: %s", err);
		w->failed = 1;
		lb_engine_fail(e, msg);
		free(msg);
		rc = -1;
	}
	lb_worker_give_back(w);
	__atomic_store_n(&w->stats.in_event, 0, __ATOMIC_RELAXED);
	w->end_ns = lb_engine_now(e);
	__atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&e->looping, 1, __ATOMIC_RELEASE);
	sem_post(&e->wake);
	if (go)
		wait_end_read(e);
	if (go && rc == 0 && lb_vm_call(w->vm, "thread_done", true, err, ERRLEN) < 0) {
		char *msg = lb_xasprintf("`thread_done' function failed: %s", err);
		lb_engine_fail(e, msg);
		free(msg);
	}
	lb_vm_free(w->vm);
	w->vm = NULL;
	free(err);
	return NULL;
}

/* The smallest --thread-stack-size used. A worker runs a LuaJIT state (and a database client)
 * on this stack: 16K crashed the cpu test and an empty script, 24K was the least that ran
 * them, so the floor keeps a margin of more than 2x (it is also sysbench's default). */
#define LB_MIN_THREAD_STACK (64 * 1024)

static size_t thread_stack_size(const struct lb_engine *e)
{
	size_t stack = e->cfg.thread_stack_bytes;
	size_t floor = LB_MIN_THREAD_STACK > PTHREAD_STACK_MIN ? LB_MIN_THREAD_STACK : PTHREAD_STACK_MIN;
	if (stack >= floor)
		return stack;
	if (stack % 1024)
		lb_warn("--thread-stack-size=%zu (bytes) is too small for a LuaJIT state, using %zuK",
			stack, floor / 1024);
	else
		lb_warn("--thread-stack-size=%zuK is too small for a LuaJIT state, using %zuK",
			stack / 1024, floor / 1024);
	return floor;
}

static int start_threads(struct lb_engine *e)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, thread_stack_size(e));
	e->looping = e->cfg.threads;
	for (int i = 0; i < e->nworkers; i++) {
		int rc = pthread_create(&e->workers[i]->thread, &attr, worker_thread, e->workers[i]);
		if (rc) {
			pthread_attr_destroy(&attr);
			char *msg = lb_xasprintf("cannot create worker thread %d of %d: %s", i + 1,
						 e->nworkers, strerror(rc));
			lb_engine_fail(e, msg);
			free(msg);
			e->looping -= e->nworkers - i;
			e->nworkers = i;
			return -1;
		}
	}
	pthread_attr_destroy(&attr);
	return 0;
}

/* Waits until every worker passed thread_init. Returns 0, -1 (a worker failed) or -2 (timeout). */
static int wait_initialized(struct lb_engine *e)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += e->cfg.thread_init_timeout_ns / LB_NS_PER_S;
	int rc = 0;
	pthread_mutex_lock(&e->lock);
	while (e->initialized < e->nworkers && !e->fatal && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&e->cond, &e->lock, &until);
	int result = e->fatal ? -1 : e->initialized < e->nworkers ? -2 : 0;
	pthread_mutex_unlock(&e->lock);
	return result;
}

static void release_barrier(struct lb_engine *e)
{
	/* The baseline reading of /proc comes first: the start itself must not wait for it. */
	lb_sysmon_start(e->sysmon, lb_now_ns());
	pthread_mutex_lock(&e->lock);
	e->epoch_ns = lb_now_ns();
	e->epoch_wall_ns = lb_wall_ns();
	int64_t limit = e->cfg.time_ns ? e->cfg.time_ns + e->cfg.warmup_ns : INT64_MAX;
	e->deadline_ns = limit;
	e->window_start_ns = 0;
	if (e->rate_mode)
		lb_sched_init(&e->sched, e->cfg.rate, e->cfg.rate_constant, &e->cfg.rand, 0);
	e->started = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

/* --start-at: the threads are ready (connected, thread_init done); wait for the common start.
 * Processes launched together by an orchestrator then measure the same window. */
static int wait_start_at(struct lb_engine *e)
{
	if (!e->cfg.start_at)
		return 0;
	int64_t at = (int64_t)(e->cfg.start_at * 1e9);
	double wait_s = (double)(at - lb_wall_ns()) / 1e9;
	if (wait_s < -LB_START_AT_TOLERANCE_S) {
		char *msg = lb_xasprintf("the threads were ready %.1f seconds after --start-at=%.3f: give a later start time",
					 -wait_s, e->cfg.start_at);
		lb_engine_fail(e, msg);
		free(msg);
		return -1;
	}
	if (wait_s <= 0)
		return 0;
	char when[64];
	time_t sec = (time_t)(at / LB_NS_PER_S);
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", gmtime_r(&sec, &tm));
	FILE *info = lb_log_info_stream();
	fprintf(info, "Waiting %.3f seconds for the start time %s.%03dZ (--start-at)...\n\n", wait_s, when,
		(int)(at / LB_NS_PER_MS % 1000));
	fflush(info);
	/* sem_timedwait measures CLOCK_REALTIME, the clock --start-at is given in; a signal or a
	 * failing worker posts the semaphore and ends the wait early. */
	struct timespec ts = lb_ns_to_timespec(at);
	while (!__atomic_load_n(&e->stop, __ATOMIC_RELAXED) && sem_timedwait(&e->wake, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

static void join_threads(struct lb_engine *e)
{
	for (int i = 0; i < e->nworkers; i++)
		pthread_join(e->workers[i]->thread, NULL);
}

/* ---- statistics windows and reports -------------------------------------------------------- */

static void new_window(struct lb_engine *e, int64_t now)
{
	__atomic_add_fetch(&e->window, 1, __ATOMIC_RELEASE);
	lb_engine_collect(e, &e->window_base);
	for (int i = 0; i < e->nworkers; i++) {
		struct lb_stats *s = &e->workers[i]->stats;
		e->window_base_events[i] = __atomic_load_n(&s->cnt[LB_CNT_EVENT], __ATOMIC_RELAXED);
		e->window_base_sum_ns[i] = __atomic_load_n(&s->lat_sum_ns, __ATOMIC_RELAXED);
	}
	e->window_start_ns = now;
	lb_sysmon_new_window(e->sysmon, e->epoch_ns + now);
	/* Lets a workload snapshot its own counters (e.g. NOPM) where the measurement starts. */
	char err[ERRLEN];
	if (lb_vm_call(e->control, "luabench.hooks.window_start", false, err, sizeof(err)) < 0)
		lb_alert("luabench.hooks.window_start failed: %s", err);
}

/* How long running events may take to finish after the first SIGINT/SIGTERM when no
 * --forced-shutdown is given: a supervisor (timeout, Kubernetes) waits some seconds between
 * SIGTERM and SIGKILL, and the report must be out before then. */
#define LB_SIGNAL_GRACE_NS (5 * LB_NS_PER_S)

struct monitor {
	struct lb_snap cur, prev, delta;
	int64_t prev_ns;
	int64_t interrupted_ns; /* when the first signal was seen; -1: none yet */
	bool hook_failed;       /* a report hook raised an error: the run exits non-zero */
	int64_t next_report_ns;
	int next_checkpoint;
	bool warm;
	FILE *out;
};

static void push_interval(struct lb_engine *e, const struct lb_report_stat *st, uint64_t max_ns)
{
	if (e->nintervals == e->capintervals) {
		e->capintervals = e->capintervals ? e->capintervals * 2 : 64;
		e->intervals = lb_xrealloc(e->intervals, (size_t)e->capintervals * sizeof(*e->intervals));
	}
	struct lb_interval *iv = &e->intervals[e->nintervals++];
	memset(iv, 0, sizeof(*iv));
	iv->time_s = st->time_total_s;
	iv->interval_s = st->time_interval_s;
	iv->threads_running = st->threads_running;
	memcpy(iv->cnt, st->cnt, sizeof(iv->cnt));
	for (int i = 0; i < st->npct; i++)
		iv->lat_pct_ms[i] = st->pct[i] * 1e3;
	iv->lat_max_ms = (double)max_ns / 1e6;
	iv->queue_length = st->queue_length;
	iv->concurrency = st->concurrency;
	iv->lag_ms = st->lag_s * 1e3;
	for (int i = 0; i < LB_MAX_TYPES; i++)
		iv->type_done[i] = st->snap->types[i] ? st->snap->types[i]->cnt[LB_TCNT_DONE] : 0;
}

static void interval_report(struct lb_engine *e, struct monitor *m, int64_t now)
{
	lb_engine_collect(e, &m->cur);
	lb_snap_diff(&m->delta, &m->cur, &m->prev);
	struct lb_report_stat st = { .cumulative = false };
	st.threads_running = lb_engine_threads_running(e);
	st.time_total_s = (double)now / 1e9;
	st.time_interval_s = (double)(now - m->prev_ns) / 1e9;
	memcpy(st.cnt, m->delta.cnt, sizeof(st.cnt));
	/* The interval's maximum comes from its histogram: exact extremes are per window. */
	uint64_t max_ns = lb_hist_max(&m->delta.lat);
	lb_report_fill_pct(&st, &e->cfg, &m->delta.lat, 0, max_ns);
	st.concurrency = m->cur.concurrency;
	st.snap = &m->delta;
	if (e->rate_mode) {
		st.queue_length = lb_sched_backlog(&e->sched, now, 100000000);
		st.lag_s = (double)lb_sched_lag(&e->sched, now) / 1e9;
	}
	push_interval(e, &st, max_ns);
	int sys = lb_sysmon_sample(e->sysmon, lb_now_ns());
	e->intervals[e->nintervals - 1].sys = sys;
	char err[ERRLEN];
	if (e->cfg.format == LB_FORMAT_CSV) {
		lb_report_interval_csv(stdout, &e->cfg, &st);
	} else if (!e->cfg.report_interval_ns) {
		/* sampled only for the result file's time series */
	} else if (e->reporter) {
		if (lb_vm_report(e->reporter, "report_intermediate", &st, err, sizeof(err)) < 0) {
			lb_alert("report_intermediate hook failed: %s", err);
			m->hook_failed = true;
		}
	} else if (e->cfg.format == LB_FORMAT_TEXT) {
		lb_report_interval_text(stdout, e, &st);
	}
	if (e->cfg.sys.report && e->cfg.report_interval_ns && e->cfg.format == LB_FORMAT_TEXT && sys >= 0)
		lb_sys_report_line(stdout, st.time_total_s, lb_sysmon_at(e->sysmon, sys));
	fflush(stdout);
	lb_snap_copy(&m->prev, &m->cur);
	m->prev_ns = now;
}

/* Computes the report of the current statistics window ending at `end_ns`. */
static void window_final(struct lb_engine *e, struct lb_snap *cur, struct lb_snap *delta,
			 int64_t end_ns, struct lb_final *f, uint64_t *tev, double *ttime)
{
	lb_engine_collect(e, cur);
	lb_snap_diff(delta, cur, &e->window_base);
	memset(f, 0, sizeof(*f));
	struct lb_report_stat *st = &f->st;
	st->cumulative = true;
	st->threads_running = lb_engine_threads_running(e);
	st->time_total_s = (double)(end_ns - e->window_start_ns) / 1e9;
	st->time_interval_s = st->time_total_s;
	memcpy(st->cnt, delta->cnt, sizeof(st->cnt));
	uint64_t n = delta->cnt[LB_CNT_EVENT];
	uint64_t mn = n ? cur->lat_min_ns : 0, mx = n ? cur->lat_max_ns : 0;
	st->lat_min_s = (double)mn / 1e9;
	st->lat_max_s = (double)mx / 1e9;
	st->lat_sum_s = (double)delta->lat_sum_ns / 1e9;
	st->lat_avg_s = n ? st->lat_sum_s / (double)n : 0;
	lb_report_fill_pct(st, &e->cfg, &delta->lat, mn, mx);
	st->concurrency = cur->concurrency;
	f->snap = delta;
	st->snap = delta;
	f->nthreads = e->nworkers;
	for (int i = 0; i < e->nworkers; i++) {
		struct lb_stats *s = &e->workers[i]->stats;
		tev[i] = __atomic_load_n(&s->cnt[LB_CNT_EVENT], __ATOMIC_RELAXED) - e->window_base_events[i];
		ttime[i] = (double)(__atomic_load_n(&s->lat_sum_ns, __ATOMIC_RELAXED) -
				    e->window_base_sum_ns[i]) / 1e9;
	}
	f->thread_events = tev;
	f->thread_time_s = ttime;
	f->overflow = delta->lat.overflow;
}

/* Prints (or hands to the Lua hook) a cumulative report; writes the result file if final.
 * Returns -1 if the report_cumulative hook or writing the result file failed (after doing
 * the rest), so the run's exit code shows that the report is incomplete. */
static int emit_final(struct lb_engine *e, struct lb_final *f, bool final, const char *status)
{
	char err[ERRLEN];
	int rc = 0;
	f->st.final = final;
	bool hook = lb_vm_has_hook(e->control, "report_cumulative");
	char *workload_json = final ? lb_vm_report_json(e->control, &f->st) : NULL;
	FILE *out = e->cfg.format == LB_FORMAT_TEXT ? stdout : lb_log_info_stream();
	if (e->cfg.format == LB_FORMAT_TEXT || !final) {
		if (hook) {
			if (lb_vm_report(e->control, "report_cumulative", &f->st, err, sizeof(err)) < 0) {
				lb_alert("report_cumulative hook failed: %s", err);
				rc = -1;
			}
		} else {
			if (e->cfg.histogram)
				lb_report_histogram(out, &f->snap->lat);
			char *extra = lb_vm_report_text(e->control, "report_text", &f->st);
			char *footer = lb_vm_report_text(e->control, "report_footer", &f->st);
			lb_report_final_text(out, e, f, extra, footer);
			free(extra);
			free(footer);
		}
	} else if (e->cfg.format == LB_FORMAT_JSON) {
		char *doc = lb_result_json(e, f, status, workload_json);
		fputs(doc, stdout);
		fputc('\n', stdout);
		free(doc);
	}
	fflush(stdout);
	if (final && e->cfg.output_path && lb_result_write(e, f, status, workload_json) < 0)
		rc = -1;
	free(workload_json);
	return rc;
}

static int report_window(struct lb_engine *e, int64_t end_ns, bool final, const char *status)
{
	struct lb_snap cur, delta;
	lb_snap_init(&cur);
	lb_snap_init(&delta);
	uint64_t *tev = lb_xcalloc((size_t)e->nworkers, sizeof(uint64_t));
	double *ttime = lb_xcalloc((size_t)e->nworkers, sizeof(double));
	struct lb_final f;
	window_final(e, &cur, &delta, end_ns, &f, tev, ttime);
	struct lb_sys_sample sys;
	if (lb_sysmon_window(e->sysmon, lb_now_ns(), &sys))
		f.sys = &sys;
	if (e->forced)
		f.unfinished = cur.concurrency;
	int rc = emit_final(e, &f, final, status);
	if (f.sys)
		lb_sys_sample_fini(&sys);
	free(tev);
	free(ttime);
	lb_snap_fini(&cur);
	lb_snap_fini(&delta);
	return rc;
}

static int64_t signal_grace_ns(const struct lb_engine *e)
{
	return e->cfg.forced_shutdown_ns >= 0 ? e->cfg.forced_shutdown_ns : LB_SIGNAL_GRACE_NS;
}

static int64_t next_wake(struct lb_engine *e, struct monitor *m)
{
	int64_t w = m->next_report_ns;
	if (m->next_checkpoint < e->cfg.ncheckpoints && e->cfg.checkpoints_ns[m->next_checkpoint] < w)
		w = e->cfg.checkpoints_ns[m->next_checkpoint];
	if (!m->warm && e->cfg.warmup_ns < w)
		w = e->cfg.warmup_ns;
	if (e->cfg.forced_shutdown_ns >= 0 && e->deadline_ns != INT64_MAX &&
	    e->deadline_ns + e->cfg.forced_shutdown_ns < w)
		w = e->deadline_ns + e->cfg.forced_shutdown_ns;
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
	fprintf(e->cfg.format == LB_FORMAT_TEXT ? stdout : lb_log_info_stream(),
		"[ %.0fs ] Checkpoint report:\n", (double)now / 1e9);
	if (report_window(e, now, false, "checkpoint") < 0)
		m->hook_failed = true;
	new_window(e, now);
	m->next_checkpoint++;
}

/* Runs until every worker has left its loop. Returns false on a forced shutdown. */
static bool monitor_loop(struct lb_engine *e, struct monitor *m)
{
	bool told = false;
	while (__atomic_load_n(&e->looping, __ATOMIC_ACQUIRE) > 0) {
		wait_until(e, next_wake(e, m));
		int64_t now = lb_engine_now(e);
		int interrupts = __atomic_load_n(&e->interrupts, __ATOMIC_RELAXED);
		if (interrupts && !told) {
			lb_notice("\n%s received, stopping the run (running events get %.0f seconds; send it again to force shutdown)...",
				  e->last_signal == SIGTERM ? "SIGTERM" : "SIGINT",
				  (double)signal_grace_ns(e) / 1e9);
			told = true;
			m->interrupted_ns = now;
		}
		if (!m->warm && now >= e->cfg.warmup_ns) {
			new_window(e, now);
			m->warm = true;
		}
		if (now >= m->next_report_ns) {
			interval_report(e, m, now);
			int64_t step = e->cfg.report_interval_ns ? e->cfg.report_interval_ns : LB_NS_PER_S;
			while (m->next_report_ns <= now)
				m->next_report_ns += step;
		}
		if (m->next_checkpoint < e->cfg.ncheckpoints &&
		    now >= e->cfg.checkpoints_ns[m->next_checkpoint])
			checkpoint(e, m, now);
		bool forced_due = e->cfg.forced_shutdown_ns >= 0 && e->deadline_ns != INT64_MAX &&
				  now >= e->deadline_ns + e->cfg.forced_shutdown_ns;
		bool grace_over = m->interrupted_ns >= 0 && now >= m->interrupted_ns + signal_grace_ns(e);
		if (forced_due || grace_over || interrupts >= 2)
			return false;
	}
	return true;
}

/* ---- the run command ----------------------------------------------------------------------- */

static void print_run_header(struct lb_engine *e)
{
	const struct lb_config *c = &e->cfg;
	FILE *out = lb_log_info_stream();
	if (!c->time_ns && !c->events)
		lb_warn("Both event and time limits are disabled, running an endless test");
	if (lb_log_verbosity() < LB_LOG_NOTICE)
		return;
	fprintf(out, "Running the test with following options:\n");
	fprintf(out, "Number of threads: %d\n", c->threads);
	if (c->rate > 0)
		fprintf(out, "Target transaction rate: %g/sec\n", c->rate);
	if (c->report_interval_ns)
		fprintf(out, "Report intermediate results every %lld second(s)\n",
			(long long)(c->report_interval_ns / LB_NS_PER_S));
	if (c->ncheckpoints) {
		fprintf(out, "Report checkpoint(s) at ");
		for (int i = 0; i < c->ncheckpoints; i++)
			fprintf(out, "%s%g", i ? ", " : "", (double)c->checkpoints_ns[i] / 1e9);
		fprintf(out, " seconds\n");
	}
	if (c->debug)
		fprintf(out, "Debug mode enabled.\n\n");
	if (c->validate)
		fprintf(out, "Validation checks: on.\n\n");
	if (c->seed_from_time)
		fprintf(out, "Initializing random number generator from current time\n");
	else
		fprintf(out, "Initializing random number generator from seed (%llu).\n",
			(unsigned long long)c->rand.seed);
	fprintf(out, "\n");
	if (c->forced_shutdown_ns >= 0)
		fprintf(out, "Forcing shutdown in %.0f seconds\n",
			(double)(c->time_ns + c->warmup_ns + c->forced_shutdown_ns) / 1e9);
	fprintf(out, "\n");
	fflush(out);
}

static int create_workers(struct lb_engine *e)
{
	e->nworkers = e->cfg.threads;
	e->workers = lb_xcalloc((size_t)e->nworkers, sizeof(*e->workers));
	for (int i = 0; i < e->nworkers; i++)
		e->workers[i] = lb_worker_new(e, i, LB_ROLE_WORKER);
	e->window_base_events = lb_xcalloc((size_t)e->nworkers, sizeof(uint64_t));
	e->window_base_sum_ns = lb_xcalloc((size_t)e->nworkers, sizeof(uint64_t));
	lb_snap_init(&e->window_base);
	/* Intermediate hooks print text: only in text mode (JSON/CSV keep stdout machine-readable). */
	if (e->cfg.report_interval_ns && e->cfg.format == LB_FORMAT_TEXT &&
	    lb_vm_has_hook(e->control, "report_intermediate")) {
		char err[ERRLEN];
		e->reporter_w = lb_worker_new(e, e->cfg.threads, LB_ROLE_REPORTER);
		e->reporter = lb_vm_new(e, e->reporter_w, err, sizeof(err));
		if (!e->reporter || lb_vm_export_options(e->reporter, err, sizeof(err)) < 0) {
			lb_fatal("cannot create the reporter's Lua state: %s", err);
			return -1;
		}
	}
	return 0;
}

static void print_run_extra(struct lb_engine *e)
{
	FILE *out = lb_log_info_stream();
	/* The workload's own header lines (e.g. "Prime numbers limit"), on the info stream so they
	 * never mix with JSON or CSV on stdout. */
	char *text = lb_vm_report_text(e->control, "run_header", NULL);
	if (text && *text)
		fprintf(out, "%s%s", text, text[strlen(text) - 1] == '\n' ? "" : "\n");
	free(text);
	if (lb_log_verbosity() >= LB_LOG_NOTICE)
		fprintf(out, "Initializing worker threads...\n\n");
	fflush(out);
}

static void monitor_init(struct lb_engine *e, struct monitor *m)
{
	memset(m, 0, sizeof(*m));
	lb_snap_init(&m->cur);
	lb_snap_init(&m->prev);
	lb_snap_init(&m->delta);
	/* Without --report-interval the series is still sampled every second for the result file. */
	bool series = e->cfg.report_interval_ns || e->cfg.output_path || e->reporter ||
		      e->cfg.format != LB_FORMAT_TEXT;
	m->next_report_ns = e->cfg.report_interval_ns ? e->cfg.report_interval_ns
				: series ? LB_NS_PER_S : INT64_MAX;
	m->warm = e->cfg.warmup_ns == 0;
	m->interrupted_ns = -1;
}

static void monitor_fini(struct monitor *m)
{
	lb_snap_fini(&m->cur);
	lb_snap_fini(&m->prev);
	lb_snap_fini(&m->delta);
}

/* sysbench's --verbosity=4 lines at the end of a run: each thread that stopped at the time
 * limit says so (its duplicate-line suppression folds the repeats), then "Done.". */
static void print_done(struct lb_engine *e)
{
	int timed_out = 0;
	for (int i = 0; i < e->nworkers; i++)
		timed_out += e->cfg.time_ns && !e->workers[i]->failed && e->workers[i]->end_ns >= e->deadline_ns;
	if (timed_out)
		lb_info("Time limit exceeded, exiting...");
	if (timed_out > 1)
		lb_info("(last message repeated %d times)", timed_out - 1);
	lb_info("Done.\n\n");
}

/* Returns the exit code: 0, 1 (error, or a report hook failed), 2 (forced shutdown) or 128 +
 * the signal (interrupted). */
static int finish_run(struct lb_engine *e, bool completed, bool hook_failed)
{
	int64_t end = 0;
	for (int i = 0; i < e->nworkers; i++)
		if (e->workers[i]->end_ns > end)
			end = e->workers[i]->end_ns;
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
	if (e->rate_mode)
		e->unserved_arrivals = lb_sched_backlog(&e->sched, end, 100000000);
	e->end_wall_ns = lb_wall_ns();
	/* Closing the reporter's state first lets report_json's closing bracket precede the summary. */
	lb_vm_free(e->reporter);
	e->reporter = NULL;
	const char *status = e->fatal ? "error" : !completed ? "forced_shutdown"
			     : e->interrupts ? "interrupted" : "ok";
	if (!e->fatal && report_window(e, end, true, status) < 0)
		hook_failed = true;
	if (e->fatal)
		lb_result_error(e, e->fatal);
	if (e->fatal || hook_failed)
		return 1;
	if (!completed)
		return 2;
	return e->interrupts ? 128 + (e->last_signal ? e->last_signal : SIGINT) : 0;
}

/* The workloads that are C tests in sysbench: their init() errors are option checks that
 * print sysbench's own message ("Invalid value of cpu-max-prime: -5."), not a Lua failure. */
static bool c_test(const struct lb_engine *e)
{
	static const char *const names[] = { "cpu", "memory", "threads", "mutex" };
	for (size_t i = 0; e->script->builtin && i < LB_ARRAY_LENGTH(names); i++)
		if (!strcmp(e->script->name, names[i]))
			return true;
	return false;
}

int lb_engine_run(struct lb_engine *e)
{
	char err[ERRLEN];
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	sem_init(&e->wake, 0, 0);
	e->deadline_ns = INT64_MAX;
	e->start_wall_ns = lb_wall_ns();
	install_signals(e);
	if (lb_vm_call(e->control, "init", false, err, sizeof(err)) < 0) {
		char *msg = c_test(e) ? lb_xstrdup(err) : lb_xasprintf("`init' function failed: %s", err);
		lb_fatal("%s", msg);
		lb_result_error(e, msg);
		free(msg);
		return 1;
	}
	print_run_header(e);
	/* A workload that ends by itself (memory: --memory-total-size) ignores --events, as in
	 * sysbench; the header above still shows what was given. */
	if (lb_vm_has_hook(e->control, "_ignore_events"))
		e->cfg.events = 0;
	if (create_workers(e) < 0)
		return 1;
	print_run_extra(e);
	e->sysmon = lb_sysmon_new(&e->cfg.sys);
	if (start_threads(e) < 0) {
		join_threads(e);
		return 1;
	}
	int init = wait_initialized(e);
	if (init == -2) {
		char *msg = lb_xasprintf("Worker threads failed to initialize within %lld seconds!",
					 (long long)(e->cfg.thread_init_timeout_ns / LB_NS_PER_S));
		lb_fatal("%s", msg);
		lb_result_error(e, msg);
		free(msg);
		e->threads_stuck = true;
		return 2;
	}
	if (init < 0 || wait_start_at(e) < 0) {
		__atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&e->cond);
		join_threads(e);
		lb_result_error(e, e->fatal);
		return 1;
	}
	release_barrier(e);
	FILE *info = lb_log_info_stream();
	fprintf(info, "Threads started!\n\n");
	if (e->cfg.warmup_ns)
		fprintf(info, "Warming up for %lld seconds...\n\n", (long long)(e->cfg.warmup_ns / LB_NS_PER_S));
	if (e->cfg.format == LB_FORMAT_CSV)
		lb_report_csv_header(stdout, &e->cfg);
	fflush(NULL);
	struct monitor m;
	monitor_init(e, &m);
	bool completed = monitor_loop(e, &m);
	end_read(e);
	bool hook_failed = m.hook_failed;
	monitor_fini(&m);
	if (completed) {
		join_threads(e);
		print_done(e);
	}
	int rc = finish_run(e, completed, hook_failed);
	if (completed && lb_vm_call(e->control, "done", false, err, sizeof(err)) < 0) {
		lb_fatal("`done' function failed: %s", err);
		rc = rc ? rc : 1;
	}
	signal_engine = NULL;
	return rc;
}
