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

#include "engine/engine.h"
#include "engine/worker.h"
#include "sys/sysmetrics.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/util.h"

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

void lb_engine_interrupt(struct lb_engine *e)
{
	on_signal(SIGINT);
	(void)e;
}

/* ---- worker threads ------------------------------------------------------------------------ */

static int worker_init(struct lb_worker *w, char *err)
{
	const struct lb_host *host = w->eng->host;
	char msg[ERRLEN - 64];
	/* Before the Lua state exists, so that its memory comes from the node asked for. */
	const struct lb_place_conf *place = &w->eng->session.cfg.place;
	if (lb_place_wanted(place) && lb_place_apply(place, w->tid, err, ERRLEN) < 0)
		return -1;
	/* Where it runs, asked or inherited (taskset, a container's cpuset): every result says. */
	lb_place_read(&w->place);
	if (lb_place_wanted(place))
		lb_info("Worker thread (#%d) placed on CPUs %s, memory policy %s%s%s", w->tid, w->place.cpus,
			w->place.mem_policy, *w->place.mem_nodes ? " " : "", w->place.mem_nodes);
	w->vm = host->state_new(w->eng, w, msg, sizeof(msg));
	if (!w->vm) {
		snprintf(err, ERRLEN, "%s", msg);
		return -1;
	}
	if (host->call(w->vm, "thread_init", true, msg, sizeof(msg)) < 0) {
		snprintf(err, ERRLEN, "`thread_init' function failed: %s", msg);
		return -1;
	}
	/* What thread_init did (preparing statements: a commit each on PostgreSQL) is published
	 * before the monitor's first reading, not counted in the run (ffi_engine.h). */
	const struct lb_config *c = &w->eng->session.cfg;
	if (c->srv.enabled && w->eng->session.additions &&
	    host->call(w->vm, "sysbench._sql_loop.publish", false, msg, sizeof(msg)) < 0)
		lb_warn("publishing the sessions' statistics failed: %s", msg);
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

/* A worker runs thread_done and closes its connections as soon as its own loop ends, as in
 * sysbench (a connection kept open until every worker has finished could hold locks another
 * worker waits for). When database server processes are watched (--db-server-pid/-name), the
 * monitor first adds up their CPU time: a server process exits with its connection and its
 * time would go uncounted. A worker asks for that reading and waits for it (bounded, so a
 * stuck monitor can't hold it), never for the other workers. */
static void read_before_close(struct lb_engine *e)
{
	if (!lb_sysmon_watches_procs(e->sysmon))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&e->lock);
	uint64_t ticket = ++e->proc_reads_asked;
	pthread_mutex_unlock(&e->lock);
	sem_post(&e->wake);
	pthread_mutex_lock(&e->lock);
	while (!e->end_read && e->proc_reads_done < ticket &&
	       pthread_cond_timedwait(&e->cond, &e->lock, &ts) == 0)
		;
	pthread_mutex_unlock(&e->lock);
}

/* At the end of its loop the worker's sessions publish their counters, and it waits for the
 * monitor's last reading of the server's (taken once every loop has ended: end_read) before
 * thread_done: that reading then counts all of the run's work and none of thread_done's (closing
 * prepared statements: a commit each on PostgreSQL). Not when a session is left in a transaction
 * or a statement: it may hold locks another thread waits for, and closes at once (as before).
 * Returns whether to wait. */
static bool publish_at_end(struct lb_engine *e, struct lb_worker *w)
{
	char err[ERRLEN];
	if (!e->publish_sessions || !__atomic_load_n(&w->sql_sessions, __ATOMIC_ACQUIRE))
		return false;
	int rc = e->host->call(w->vm, "sysbench._sql_loop.publish", false, err, sizeof(err));
	if (rc < 0)
		lb_warn("publishing the sessions' statistics failed: %s", err);
	return rc == 0;
}

/* Bounded, as read_before_close: a stuck monitor can't hold the worker. */
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

/* The monitor's side of read_before_close. */
static void serve_proc_reads(struct lb_engine *e)
{
	pthread_mutex_lock(&e->lock);
	uint64_t asked = e->proc_reads_asked;
	pthread_mutex_unlock(&e->lock);
	if (asked == e->proc_reads_done)
		return;
	lb_sysmon_note_procs(e->sysmon);
	pthread_mutex_lock(&e->lock);
	e->proc_reads_done = asked;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static void end_read(struct lb_engine *e)
{
	struct lb_task_sched *ended = lb_xcalloc((size_t)e->nworkers + 1, sizeof(*ended));
	for (int i = 0; i < e->nworkers; i++)
		if (__atomic_load_n(&e->workers[i]->finished, __ATOMIC_ACQUIRE))
			ended[i] = e->workers[i]->sched_end;
	lb_sysmon_stop(e->sysmon, lb_now_ns(), ended, e->nworkers);
	free(ended);
	/* The workers' sessions published at the end of their loops and wait for this reading
	 * (publish_at_end); without that, the reading waits for the sessions to end (finish_run). */
	if (e->publish_sessions) {
		lb_srvmon_other_statements(e->srvmon, __atomic_load_n(&e->publish_statements, __ATOMIC_RELAXED));
		lb_srvmon_stop(e->srvmon, lb_now_ns(), false);
	}
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
	if (go && e->host->run_thread(w->vm, err, ERRLEN) < 0) {
		char *msg = lb_xasprintf("`thread_run' function failed: %s", err);
		w->failed = 1;
		lb_engine_fail(e, msg);
		free(msg);
		rc = -1;
	}
	bool used_last_events = w->took_last_events && !w->quota;
	lb_worker_give_back(w);
	__atomic_store_n(&w->stats.in_event, 0, __ATOMIC_RELAXED);
	w->end_ns = lb_engine_now(e);
	/* sysbench's --verbosity=4 line, from the thread that took the last event, before its
	 * thread_done; the others stop without a word. */
	if (go && rc == 0 && used_last_events && w->end_ns < e->deadline_ns && !e->interrupts)
		lb_info("Event limit exceeded, exiting...");
	/* The thread may be gone when the system metrics read the end of the run: its time
	 * waiting for a CPU is read now (before `finished` publishes it). */
	if (e->sysmon && !lb_schedstat_self("/proc", &w->sched_end))
		w->sched_end.tid = 0;
	bool published = go && publish_at_end(e, w);
	__atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&e->looping, 1, __ATOMIC_RELEASE);
	sem_post(&e->wake);
	if (go)
		read_before_close(e);
	if (published)
		wait_end_read(e);
	if (go && rc == 0 && e->host->call(w->vm, "thread_done", true, err, ERRLEN) < 0) {
		char *msg = lb_xasprintf("`thread_done' function failed: %s", err);
		lb_engine_fail(e, msg);
		free(msg);
	}
	if (w->vm)
		e->host->state_free(w->vm);
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
	size_t stack = e->session.cfg.thread_stack_bytes;
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
	e->looping = e->session.cfg.threads;
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
	until.tv_sec += e->session.cfg.thread_init_timeout_ns / LB_NS_PER_S;
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
	int64_t limit = e->session.cfg.time_ns ? e->session.cfg.time_ns + e->session.cfg.warmup_ns : INT64_MAX;
	e->deadline_ns = limit;
	e->window_start_ns = 0;
	if (e->rate_mode)
		lb_arrivals_init(&e->sched, e->session.cfg.rate, e->session.cfg.rate_constant, &e->session.cfg.rand, 0);
	e->started = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

/* --start-at: the threads are ready (connected, thread_init done); wait for the common start.
 * Processes launched together by an orchestrator then measure the same window. 1 if it waited,
 * 0 if it did not have to, -1 when it was too late. */
static int wait_start_at(struct lb_engine *e)
{
	if (!e->session.cfg.start_at)
		return 0;
	int64_t at = (int64_t)(e->session.cfg.start_at * 1e9);
	double wait_s = (double)(at - lb_wall_ns()) / 1e9;
	if (wait_s < -LB_START_AT_TOLERANCE_S) {
		char *msg = lb_xasprintf("the threads were ready %.1f seconds after --start-at=%.3f: give a later start time",
					 -wait_s, e->session.cfg.start_at);
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
	return 1;
}

static void join_threads(struct lb_engine *e)
{
	for (int i = 0; i < e->nworkers; i++)
		pthread_join(e->workers[i]->thread, NULL);
}

/* ---- statistics windows and reports -------------------------------------------------------- */

/* How long the monitor waits for the workers' sessions to publish their counters before a
 * reading of the server's: the events under way end first (a worker answers between events). A
 * quarter of the report interval, within 0.1 .. 0.5 s. */
static int64_t publish_wait_ns(const struct lb_engine *e)
{
	int64_t step = e->session.cfg.report_interval_ns ? e->session.cfg.report_interval_ns : LB_NS_PER_S;
	int64_t q = step / 4;
	return q < LB_NS_PER_S / 10 ? LB_NS_PER_S / 10 : q > LB_NS_PER_S / 2 ? LB_NS_PER_S / 2 : q;
}

/* Asks the workers that hold database sessions to have them publish their counters, and waits
 * until they did (bounded: a worker in a long statement answers later): a server that publishes
 * late (PostgreSQL, a session's counts at most once a second) would otherwise count up to a
 * second of work after the reading that follows it, e.g. warm-up commits in the measured window,
 * or an interval's in the next. false when some did not answer in time. */
static bool ask_publish(struct lb_engine *e, int64_t wait_ns)
{
	if (!e->publish_sessions || !lb_srvmon_wants_publish(e->srvmon))
		return true;
	uint32_t request = __atomic_add_fetch(&e->publish_request, 1, __ATOMIC_RELEASE);
	int64_t deadline = lb_now_ns() + wait_ns;
	for (;;) {
		bool answered = true;
		for (int i = 0; i < e->nworkers && answered; i++) {
			struct lb_worker *w = e->workers[i];
			answered = !__atomic_load_n(&w->sql_sessions, __ATOMIC_ACQUIRE) ||
				   __atomic_load_n(&w->finished, __ATOMIC_ACQUIRE) ||
				   __atomic_load_n(&w->published, __ATOMIC_ACQUIRE) == request;
		}
		if (answered || lb_now_ns() >= deadline) {
			lb_srvmon_other_statements(e->srvmon, __atomic_load_n(&e->publish_statements, __ATOMIC_RELAXED));
			return answered;
		}
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}


/* The events counted in the window that the workers' sessions completed before they published
 * for its base reading (between the window's start and their answer): the server's window
 * starts after the client's by that much work. A busy monitor thread answers late, so this is
 * measured, not bounded (server statistics in doc/results.md). */
static int64_t events_before_publish(const struct lb_engine *e)
{
	int64_t n = 0;
	if (!e->publish_sessions || !lb_srvmon_wants_publish(e->srvmon))
		return 0; /* no request was made: the answers on record are older ones */
	for (int i = 0; i < e->nworkers; i++) {
		const struct lb_worker *w = e->workers[i];
		if (__atomic_load_n(&w->sql_sessions, __ATOMIC_ACQUIRE) &&
		    __atomic_load_n(&w->published, __ATOMIC_ACQUIRE) == e->publish_request)
			n += (int64_t)(__atomic_load_n(&w->published_events, __ATOMIC_RELAXED) - e->window_base_events[i]);
	}
	return n;
}

/* Starts a statistics window at `now`. `reported` is the snapshot the previous window was just
 * reported from (a checkpoint), or NULL (the warm-up's end): starting from the very snapshot
 * that ended the last window leaves no event between the two, where a second reading would
 * lose those that completed in between. */
static void new_window(struct lb_engine *e, int64_t now, const struct lb_window_buffers *reported)
{
	/* The start first: a worker that sees the new window number reads its start (fileio counts
	 * its per-second series from it). */
	__atomic_store_n(&e->window_start_ns, now, __ATOMIC_RELAXED);
	__atomic_add_fetch(&e->window, 1, __ATOMIC_RELEASE);
	if (reported) {
		lb_snap_copy(&e->window_base, &reported->cur);
		memcpy(e->window_base_events, reported->events_raw, (size_t)e->nworkers * sizeof(uint64_t));
		memcpy(e->window_base_sum_ns, reported->lat_sum_raw_ns, (size_t)e->nworkers * sizeof(uint64_t));
	} else {
		/* Each worker's events as the base counted them: read again later, they would also
		 * hold those completed meanwhile (a monitor thread off the CPU: many), which the
		 * server's window offset would then leave out. */
		lb_engine_collect(e, &e->window_base, e->window_base_events, e->window_base_sum_ns);
	}
	lb_sysmon_new_window(e->sysmon, e->epoch_ns + now);
	/* The window's base waits longer than an interval's reading: up to a second, by when a busy
	 * PostgreSQL session has published on its own. */
	if (ask_publish(e, LB_NS_PER_S))
		lb_srvmon_window_offset(e->srvmon, events_before_publish(e));
	lb_srvmon_new_window(e->srvmon, lb_now_ns());
	/* Lets a workload snapshot its own counters (e.g. NOPM) where the measurement starts. */
	char err[ERRLEN];
	if (e->host->call(e->control, "luabench.hooks.window_start", false, err, sizeof(err)) < 0)
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
	iv->oldest_ms = st->oldest_s * 1e3;
	iv->lag_ms = st->lag_s * 1e3;
	for (int i = 0; i < LB_MAX_TYPES; i++)
		if (st->snap->types[i])
			memcpy(iv->type_cnt[i], st->snap->types[i]->cnt, sizeof(iv->type_cnt[i]));
	lb_interval_fill_types(iv, &e->session.cfg, st->snap);
	lb_interval_fill_metrics(iv, &e->metrics, st->snap);
}

/* What ran and how it ended: the part of a result that exists even when the run failed. */
static void result_head(struct lb_engine *e, struct lb_result *r, const char *status)
{
	memset(r, 0, sizeof(*r));
	r->cfg = &e->session.cfg;
	r->workload = e->session.workload ? e->session.workload : "";
	r->opts = e->session.opts;
	r->types = &e->types;
	r->metrics = &e->metrics;
	r->stmt_names = &e->stmt_names;
	r->sql = e->sql_used;
	r->rate_mode = e->rate_mode;
	r->start_wall_ns = e->start_wall_ns;
	r->end_wall_ns = e->end_wall_ns ? e->end_wall_ns : e->start_wall_ns;
	r->status = status;
	r->error = e->fatal ? e->fatal : e->nothing_done;
	r->intervals = e->intervals;
	r->nintervals = e->nintervals;
	r->sysmon = e->sysmon;
	r->srvmon = e->srvmon;
	r->machine = e->machine;
	r->proc_place = e->proc_place.set ? &e->proc_place : NULL;
}

/* How long the oldest event in flight has been running (in users mode: the newest event of
 * each worker, a lower bound). */
static int64_t oldest_in_flight_ns(struct lb_engine *e, int64_t now)
{
	int64_t oldest = 0;
	for (int i = 0; i < e->nworkers; i++) {
		struct lb_worker *w = e->workers[i];
		if (!__atomic_load_n(&w->stats.in_event, __ATOMIC_RELAXED))
			continue;
		int64_t age = now - __atomic_load_n(&w->start_ns, __ATOMIC_RELAXED);
		oldest = age > oldest ? age : oldest;
	}
	return oldest;
}

static void interval_report(struct lb_engine *e, struct monitor *m, int64_t now)
{
	lb_engine_collect(e, &m->cur, NULL, NULL);
	lb_snap_diff(&m->delta, &m->cur, &m->prev);
	struct lb_report_stat st = { .cumulative = false, .types = &e->types };
	st.threads_running = lb_engine_threads_running(e);
	st.time_total_s = (double)now / 1e9;
	st.time_interval_s = (double)(now - m->prev_ns) / 1e9;
	memcpy(st.cnt, m->delta.cnt, sizeof(st.cnt));
	/* The interval's maximum comes from its histogram: exact extremes are per window. */
	uint64_t max_ns = lb_hist_max(&m->delta.lat);
	lb_result_fill_pct(&st, &e->session.cfg, &m->delta.lat, 0, max_ns);
	st.concurrency = m->cur.concurrency;
	st.oldest_s = (double)oldest_in_flight_ns(e, now) / 1e9;
	st.snap = &m->delta;
	if (e->rate_mode) {
		st.queue_length = lb_arrivals_backlog(&e->sched, now, 100000000);
		st.lag_s = (double)lb_arrivals_lag(&e->sched, now) / 1e9;
	}
	push_interval(e, &st, max_ns);
	int sys = lb_sysmon_sample(e->sysmon, lb_now_ns());
	e->intervals[e->nintervals - 1].sys = sys;
	/* A server interval shorter than a quarter of the report interval has no value (srvmon.h). */
	int64_t step = e->session.cfg.report_interval_ns ? e->session.cfg.report_interval_ns : LB_NS_PER_S;
	/* Not every session published in time: the reading would say less than was done, so the
	 * interval has no server value and its counts go into the next. */
	bool published = ask_publish(e, publish_wait_ns(e));
	int srv = lb_srvmon_sample(e->srvmon, lb_now_ns(), published ? step / 4 : INT64_MAX);
	e->intervals[e->nintervals - 1].srv = srv;
	struct lb_result r;
	result_head(e, &r, "running");
	r.st = st;
	r.snap = &m->delta;
	r.sys = lb_sysmon_at(e->sysmon, sys);
	r.srv = lb_srvmon_at(e->srvmon, srv);
	if (e->sink->interval(e->sink_ctx, &r) < 0)
		m->hook_failed = true;
	lb_snap_copy(&m->prev, &m->cur);
	m->prev_ns = now;
}

static void window_buffers_init(struct lb_engine *e, struct lb_window_buffers *b)
{
	memset(b, 0, sizeof(*b));
	b->threads = lb_xcalloc((size_t)e->nworkers + 1, sizeof(*b->threads));
	b->events_raw = lb_xcalloc((size_t)e->nworkers + 1, sizeof(uint64_t));
	b->lat_sum_raw_ns = lb_xcalloc((size_t)e->nworkers + 1, sizeof(uint64_t));
	lb_snap_init(&b->cur);
	lb_snap_init(&b->delta);
}

void lb_window_buffers_fini(struct lb_window_buffers *b)
{
	if (b->have_sys)
		lb_sys_sample_fini(&b->sys);
	if (b->have_srv)
		lb_srv_sample_fini(&b->srv);
	free(b->threads);
	free(b->events_raw);
	free(b->lat_sum_raw_ns);
	lb_snap_fini(&b->cur);
	lb_snap_fini(&b->delta);
	memset(b, 0, sizeof(*b));
}

/* Whether every worker has left its loop, and when the last one did (past any grace wait:
 * window_end leaves that out, a report of the workers' own activity keeps it). */
static bool workers_done(struct lb_engine *e, int64_t *last_end_ns)
{
	int finished = 0;
	*last_end_ns = 0;
	for (int i = 0; i < e->nworkers; i++)
		finished += __atomic_load_n(&e->workers[i]->finished, __ATOMIC_ACQUIRE) != 0;
	if (!e->nworkers || finished != e->nworkers)
		return false;
	for (int i = 0; i < e->nworkers; i++)
		if (e->workers[i]->end_ns > *last_end_ns)
			*last_end_ns = e->workers[i]->end_ns;
	return true;
}

/* The result of the current statistics window ending at `end_ns`; with the server's statistics
 * when `server` (reading them is a query on the monitor's connection: the monitor's thread only). */
static void window_result(struct lb_engine *e, int64_t end_ns, const char *status, bool server,
			  struct lb_window_buffers *b, struct lb_result *r)
{
	result_head(e, r, status);
	lb_engine_collect(e, &b->cur, b->events_raw, b->lat_sum_raw_ns);
	lb_snap_diff(&b->delta, &b->cur, &e->window_base);
	r->window = __atomic_load_n(&e->window, __ATOMIC_ACQUIRE);
	r->window_start_wall_ns = e->epoch_wall_ns + e->window_start_ns;
	r->start_s = (double)e->window_start_ns / 1e9;
	r->end_s = (double)end_ns / 1e9;
	int64_t last_end_ns;
	r->workers_done = workers_done(e, &last_end_ns);
	r->workers_end_s = (double)last_end_ns / 1e9;
	r->snap = &b->delta;
	uint64_t n = b->delta.cnt[LB_CNT_EVENT];
	lb_result_fill_stat(r, (double)(end_ns - e->window_start_ns) / 1e9, n ? b->cur.lat_min_ns : 0,
			    n ? b->cur.lat_max_ns : 0);
	r->st.threads_running = lb_engine_threads_running(e);
	r->st.concurrency = b->cur.concurrency;
	r->nthreads = e->nworkers;
	for (int i = 0; i < e->nworkers; i++) {
		struct lb_stats *s = &e->workers[i]->stats;
		struct lb_thread_figures *t = &b->threads[i];
		t->events = b->events_raw[i] - e->window_base_events[i];
		t->time_s = (double)(b->lat_sum_raw_ns[i] - e->window_base_sum_ns[i]) / 1e9;
		t->lat_min_ns = t->events ? __atomic_load_n(&s->lat_min_ns, __ATOMIC_RELAXED) : 0;
		t->lat_max_ns = __atomic_load_n(&s->lat_max_ns, __ATOMIC_RELAXED);
		t->place = e->workers[i]->place.set ? &e->workers[i]->place : NULL;
	}
	r->threads = b->threads;
	if (e->forced)
		r->unfinished = b->cur.concurrency;
	r->cut_off = __atomic_load_n(&e->cut_off, __ATOMIC_RELAXED);
	r->server = __atomic_load_n(&e->server_set, __ATOMIC_ACQUIRE) == 2 ? e->server : NULL;
	r->driver_settings = r->server && e->driver_settings[0] ? e->driver_settings : NULL;
	r->cut_off_age_max_ns = __atomic_load_n(&e->cut_off_age_max_ns, __ATOMIC_RELAXED);
	r->grace_excluded_ns = e->grace_excluded_ns;
	r->max_lag_ns = e->sched.max_lag_ns;
	r->unserved_arrivals = e->unserved_arrivals;
	b->have_sys = lb_sysmon_window(e->sysmon, lb_now_ns(), &b->sys);
	r->sys = b->have_sys ? &b->sys : NULL;
	b->have_srv = server && lb_srvmon_window(e->srvmon, lb_now_ns(), &b->srv);
	r->srv = b->have_srv ? &b->srv : NULL;
}

/* Hands the window ending at `end_ns` to the sink, read into `b` (the caller's, to free). -1
 * if a report hook or the result file failed (the rest was done), so the run's exit code shows
 * that the report is incomplete. */
static int report_window(struct lb_engine *e, int64_t end_ns, bool final, const char *status,
			 struct lb_window_buffers *b)
{
	window_buffers_init(e, b);
	struct lb_result r;
	window_result(e, end_ns, status, true, b, &r);
	r.st.final = final;
	if (final && e->reporter) {
		/* Closing the reporter's state first lets what it prints as it closes (a JSON
		 * array's closing bracket) precede the summary. */
		lb_engine_close_reporter(e);
		e->sink->attach(e->sink_ctx, e->control, NULL);
	}
	return e->sink->window(e->sink_ctx, &r);
}

bool lb_engine_window_now(struct lb_engine *e, struct lb_window_buffers *b, struct lb_result *r)
{
	if (!e->workers)
		return false;
	window_buffers_init(e, b);
	window_result(e, lb_engine_now(e), "running", false, b, r);
	return true;
}

/* The sink's record of a run that failed before its report. */
static void report_failure(struct lb_engine *e, const char *msg)
{
	struct lb_result r;
	result_head(e, &r, "error");
	r.error = msg;
	e->sink->failed(e->sink_ctx, &r);
}

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
	if (report_window(e, now, false, "checkpoint", &b) < 0)
		m->hook_failed = true;
	new_window(e, now, &b);
	lb_window_buffers_fini(&b);
	m->next_checkpoint++;
}

/* Runs until every worker has left its loop. Returns false on a forced shutdown. */
static bool monitor_loop(struct lb_engine *e, struct monitor *m)
{
	bool told = false;
	while (__atomic_load_n(&e->looping, __ATOMIC_ACQUIRE) > 0) {
		wait_until(e, next_wake(e, m));
		serve_proc_reads(e);
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
			new_window(e, now, NULL);
			m->warm = true;
		}
		if (now >= m->next_report_ns) {
			interval_report(e, m, now);
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

/* Returns the exit code: 0, 1 (error, or a report hook failed), 2 (forced shutdown) or 128 +
 * the signal (interrupted). */
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
		if (report_window(e, end, true, status, &b) < 0)
			hook_failed = true;
		lb_window_buffers_fini(&b);
	}
	if (e->fatal)
		report_failure(e, e->fatal);
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
	report_failure(e, msg);
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
	if (start_threads(e) < 0) {
		join_threads(e);
		return 1;
	}
	int init = wait_initialized(e);
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
	int waited = init == 0 ? wait_start_at(e) : -1;
	if (waited > 0)
		lb_srvmon_new_window(e->srvmon, lb_now_ns());
	if (waited >= 0) {
		/* "Threads started!" comes before any line a worker prints, as in sysbench. The sink
		 * may refuse the run (a --threshold on a type the script does not define). */
		lb_metric_defs_close(&e->metrics);
		refused = e->sink->started(e->sink_ctx, &e->session.cfg, &e->types, &e->metrics,
					   e->srvmon != NULL, err, sizeof(err)) < 0;
		if (!refused) {
			release_barrier(e);
			return 0;
		}
		lb_engine_fail(e, err);
	}
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&e->cond);
	join_threads(e);
	report_failure(e, e->fatal);
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
	end_read(e);
	bool hook_failed = m.hook_failed;
	monitor_fini(&m);
	if (completed) {
		join_threads(e);
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
