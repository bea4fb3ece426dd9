/* The run's worker threads: each one's life (placement, thread_init, the start barrier, its loop,
 * the end reads of /proc, thread_done), and starting, releasing and joining them. */
#include <errno.h>
#include <stdio.h>
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
void lb_serve_proc_reads(struct lb_engine *e)
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

void lb_end_read(struct lb_engine *e)
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

int lb_start_threads(struct lb_engine *e)
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
int lb_wait_initialized(struct lb_engine *e)
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

void lb_release_barrier(struct lb_engine *e)
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
int lb_wait_start_at(struct lb_engine *e)
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

void lb_join_threads(struct lb_engine *e)
{
	for (int i = 0; i < e->nworkers; i++)
		pthread_join(e->workers[i]->thread, NULL);
}
