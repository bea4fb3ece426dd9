/* The run's statistics windows (warm-up's end, checkpoints, the end) and its reports: each
 * interval's, each window's result, and the record of a run that failed. */
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
void lb_new_window(struct lb_engine *e, int64_t now, const struct lb_window_buffers *reported)
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

void lb_interval_report(struct lb_engine *e, struct monitor *m, int64_t now)
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
int lb_report_window(struct lb_engine *e, int64_t end_ns, bool final, const char *status,
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
void lb_report_failure(struct lb_engine *e, const char *msg)
{
	struct lb_result r;
	result_head(e, &r, "error");
	r.error = msg;
	e->sink->failed(e->sink_ctx, &r);
}
