#include "engine/worker.h"

#include <stdlib.h>
#include <string.h>

#include "engine/ffi_engine.h"
#include "util/clock.h"
#include "engine/engine.h"
#include "util/util.h"

static __thread struct lb_worker *self;

struct lb_worker *lb_worker_new(struct lb_engine *eng, int tid, enum lb_worker_role role)
{
	struct lb_worker *w = aligned_alloc(LB_CACHELINE, (sizeof(*w) + LB_CACHELINE - 1) &
							      ~(size_t)(LB_CACHELINE - 1));
	if (!w)
		abort();
	memset(w, 0, sizeof(*w));
	w->eng = eng;
	w->tid = tid;
	w->role = role;
	lb_stats_init(&w->stats, role == LB_ROLE_WORKER && eng->rate_mode,
		      role == LB_ROLE_WORKER && eng->session.cfg.users > 0);
	/* Stream 0 is the control state; workers are 1 + tid; the reporter and command threads
	 * get streams of their own so no two Lua states ever share a sequence. */
	uint64_t stream = role == LB_ROLE_CONTROL ? 0 : role == LB_ROLE_WORKER ? 1 + (uint64_t)tid
		: role == LB_ROLE_REPORTER ? 1000003 : 2000003 + (uint64_t)tid;
	lb_rng_seed(&w->rng, &eng->session.cfg.rand, stream);
	return w;
}

void lb_worker_free(struct lb_worker *w)
{
	if (!w)
		return;
	lb_stats_fini(&w->stats);
	free(w->errmsg);
	free(w->first_error);
	free(w);
}

struct lb_worker *lb_worker_self(void)
{
	return self;
}

void lb_worker_set_self(struct lb_worker *w)
{
	self = w;
}

struct lb_worker *lb_worker_by_tid(int tid)
{
	struct lb_engine *e = self ? self->eng : NULL;
	if (e && tid >= 0 && tid < e->nworkers && e->workers)
		return e->workers[tid];
	return self;
}

/* --events: tickets are claimed in chunks so workers don't hit one shared counter per event;
 * chunks shrink as the end approaches, so the total is still exact. */
static bool claim_events(struct lb_worker *w)
{
	struct lb_engine *e = w->eng;
	uint64_t max = e->session.cfg.events;
	uint64_t cur = __atomic_load_n(&e->events_claimed, __ATOMIC_RELAXED);
	uint64_t chunk;
	do {
		if (cur >= max)
			return false;
		uint64_t remaining = max - cur;
		chunk = remaining / ((uint64_t)e->session.cfg.threads * 8);
		if (chunk < 1)
			chunk = 1;
		if (chunk > 1024)
			chunk = 1024;
	} while (!__atomic_compare_exchange_n(&e->events_claimed, &cur, cur + chunk, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	w->quota = chunk;
	w->took_last_events = cur + chunk == max;
	return true;
}

void lb_worker_give_back(struct lb_worker *w)
{
	if (w->quota) {
		__atomic_fetch_sub(&w->eng->events_claimed, w->quota, __ATOMIC_RELAXED);
		w->quota = 0;
	}
}

static inline void record_at(struct lb_worker *w, int64_t start_ns, int64_t now_ns)
{
	struct lb_engine *e = w->eng;
	int64_t d = now_ns - start_ns - w->think_ns;
	uint64_t lat = d > 0 ? (uint64_t)d : 0;
	w->think_ns = 0;
	lb_stats_event(&w->stats, lat, __atomic_load_n(&e->window, __ATOMIC_RELAXED));
	w->last_done_ns = now_ns;
	if (e->rate_mode)
		lb_hist_record(&w->stats.svc, (uint64_t)(now_ns - w->actual_ns));
	__atomic_store_n(&w->stats.in_event, 0, __ATOMIC_RELAXED);
}

static int64_t rate_start(struct lb_worker *w, int64_t now_ns)
{
	struct lb_engine *e = w->eng;
	int64_t t = lb_arrivals_take(&e->sched);
	if (t >= e->deadline_ns)
		return -1;
	if (t > now_ns) {
		lb_sleep_until_ns(e->epoch_ns + t);
		now_ns = lb_now_ns() - e->epoch_ns;
		if (__atomic_load_n(&e->stop, __ATOMIC_RELAXED))
			return -1;
	}
	w->actual_ns = now_ns;
	lb_arrivals_note_lag(&e->sched, now_ns - t);
	return t;
}

/* The time and event limits: may another event start now? */
static inline bool may_start(struct lb_worker *w, int64_t now_ns)
{
	struct lb_engine *e = w->eng;
	if (LB_UNLIKELY(__atomic_load_n(&e->stop, __ATOMIC_RELAXED)) || now_ns >= e->deadline_ns)
		return false;
	if (e->session.cfg.events) {
		if (!w->quota && !claim_events(w))
			return false;
		w->quota--;
	}
	return true;
}

static inline int64_t more_at(struct lb_worker *w, int64_t now_ns)
{
	struct lb_engine *e = w->eng;
	if (!may_start(w, now_ns))
		return -1;
	int64_t start = now_ns;
	if (e->rate_mode && (start = rate_start(w, now_ns)) < 0)
		return -1;
	__atomic_store_n(&w->stats.in_event, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&w->start_ns, start, __ATOMIC_RELAXED); /* read by stall reports */
	return start;
}

int64_t lb_worker_more(struct lb_worker *w)
{
	return more_at(w, lb_now_ns() - w->eng->epoch_ns);
}

void lb_worker_record(struct lb_worker *w, int64_t start_ns)
{
	record_at(w, start_ns, lb_now_ns() - w->eng->epoch_ns);
}

void lb_worker_note_error(struct lb_worker *w, const char *msg, size_t len)
{
	if (w->first_error)
		return;
	w->first_error = lb_xstrndup(msg ? msg : "", msg ? len : 0);
	w->first_error_ns = lb_now_ns() - w->eng->epoch_ns;
}

/* ---- FFI entry points ---------------------------------------------------------------------- */

LB_FFI double lb_event_next(struct lb_worker *w, double prev_start_ns)
{
	int64_t now = lb_now_ns() - w->eng->epoch_ns;
	if (prev_start_ns >= 0)
		record_at(w, (int64_t)prev_start_ns, now);
	return (double)more_at(w, now);
}

/* An event abandoned because the run cut its statement off is counted as such, with its age:
 * a stalled server shows in the report instead of as a quiet end. */
void lb_worker_cut_off(struct lb_worker *w, uint32_t n)
{
	struct lb_engine *e = w->eng;
	w->cut_off = false;
	if (!n)
		return;
	__atomic_add_fetch(&e->cut_off, n, __ATOMIC_RELAXED);
	int64_t age = lb_now_ns() - e->epoch_ns - w->start_ns;
	int64_t max = __atomic_load_n(&e->cut_off_age_max_ns, __ATOMIC_RELAXED);
	while (age > max && !__atomic_compare_exchange_n(&e->cut_off_age_max_ns, &max, age, true,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Returns 1 when the event is abandoned because the end of the run cut its statement off. */
LB_FFI int lb_event_abandon(struct lb_worker *w)
{
	bool cut = w->cut_off;
	if (cut)
		lb_worker_cut_off(w, 1);
	/* With emulated users the figure counts users inside an event; otherwise it is 0 or 1. */
	uint32_t n = w->eng->session.cfg.users && w->stats.in_event ? w->stats.in_event - 1 : 0;
	__atomic_store_n(&w->stats.in_event, n, __ATOMIC_RELAXED);
	w->think_ns = 0;
	return cut;
}

/* A duration a script gave, in whole ns: NaN and negatives are none, and one past a century is
 * cut there (such a double has no int64_t form: converting it is undefined). */
static int64_t duration_ns(double ns)
{
	return ns > 0 ? (ns < 4e18 ? (int64_t)ns : (int64_t)4e18) : 0;
}

LB_FFI void lb_think_ns(struct lb_worker *w, double ns)
{
	int64_t d = duration_ns(ns);
	if (!d)
		return;
	int64_t t0 = lb_now_ns();
	lb_sleep_until_ns(t0 + d);
	w->think_ns += lb_now_ns() - t0;
}

LB_FFI double lb_clock_ns(struct lb_worker *w)
{
	return (double)(lb_now_ns() - w->eng->epoch_ns);
}

LB_FFI void lb_counter_add(struct lb_worker *w, int counter, uint64_t n)
{
	if (counter >= 0 && counter < LB_CNT_MAX)
		lb_stats_add(&w->stats, (enum lb_cnt)counter, n);
}

LB_FFI void lb_error_note(struct lb_worker *w, const char *msg, size_t len)
{
	lb_worker_note_error(w, msg, len);
}

LB_FFI int lb_worker_tid(struct lb_worker *w)
{
	return w->tid;
}

LB_FFI struct lb_rng *lb_worker_rng(struct lb_worker *w)
{
	return &w->rng;
}

LB_FFI int lb_worker_stopping(struct lb_worker *w)
{
	struct lb_engine *e = w->eng;
	return __atomic_load_n(&e->stop, __ATOMIC_RELAXED) ||
	       (e->started && lb_now_ns() - e->epoch_ns >= e->deadline_ns);
}

LB_FFI void lb_worker_note_sessions(struct lb_worker *w)
{
	__atomic_store_n(&w->sql_sessions, 1, __ATOMIC_RELEASE);
}

LB_FFI uint32_t lb_worker_publish_due(struct lb_worker *w)
{
	uint32_t asked = __atomic_load_n(&w->eng->publish_request, __ATOMIC_ACQUIRE);
	return asked != w->published ? asked : 0;
}

LB_FFI void lb_worker_published(struct lb_worker *w, uint32_t request, int uncounted)
{
	uint64_t events = __atomic_load_n(&w->stats.cnt[LB_CNT_EVENT], __ATOMIC_RELAXED);
	__atomic_store_n(&w->published_events, events + (uncounted > 0 ? (uint64_t)uncounted : 0), __ATOMIC_RELAXED);
	__atomic_store_n(&w->published, request, __ATOMIC_RELEASE);
}

LB_FFI int lb_run_failed(struct lb_worker *w)
{
	struct lb_engine *e = w->eng;
	pthread_mutex_lock(&e->lock);
	int failed = e->fatal != NULL;
	pthread_mutex_unlock(&e->lock);
	return failed;
}

LB_FFI void lb_sleep_ns(double ns)
{
	int64_t d = duration_ns(ns);
	if (d)
		lb_sleep_until_ns(lb_now_ns() + d);
}

LB_FFI int lb_type_define(struct lb_worker *w, const char *name)
{
	return lb_types_define(&w->eng->types, name);
}

LB_FFI int lb_metric_define(struct lb_worker *w, const char *name, int kind, int better)
{
	if (kind < LB_METRIC_COUNTER || kind > LB_METRIC_GAUGE || better < LB_BETTER_NEUTRAL || better > LB_BETTER_LOWER)
		return LB_METRIC_FULL;
	return lb_metric_defs_define(&w->eng->metrics, name, (enum lb_metric_kind)kind, (enum lb_metric_better)better);
}

LB_FFI int lb_metric_kind(struct lb_worker *w, int id)
{
	const struct lb_metric_def *d = lb_metric_defs_get(&w->eng->metrics, id);
	return d ? (int)d->kind : -1;
}

LB_FFI int lb_metric_better(struct lb_worker *w, int id)
{
	const struct lb_metric_def *d = lb_metric_defs_get(&w->eng->metrics, id);
	return d ? (int)d->better : -1;
}

LB_FFI struct lb_metric_slot *lb_metric_slot(struct lb_worker *w, int id)
{
	return id >= 0 && id < LB_MAX_METRICS ? &lb_stats_metric_slots(&w->stats)[id] : NULL;
}

LB_FFI void lb_metric_set(struct lb_worker *w, int id, double value)
{
	if (id >= 0 && id < LB_MAX_METRICS)
		lb_metric_slot_set(&lb_stats_metric_slots(&w->stats)[id], value, lb_wall_ns(),
				   __atomic_load_n(&w->eng->window, __ATOMIC_RELAXED));
}

/* --report-statements: the SQL layer asks once, when it loads, whether to time statements. */
LB_FFI int lb_stmt_report_on(struct lb_worker *w)
{
	return w->eng->session.cfg.report_statements;
}

LB_FFI int lb_stmt_define(struct lb_worker *w, const char *text, size_t len)
{
	return lb_stmt_names_define(&w->eng->stmt_names, text, len);
}

/* The ns from a start mark a script handed back (any number: NaN, infinite, its own) to now;
 * 0 when it is not before now. In double: a cast of such a number to an integer is undefined. */
static uint64_t ns_since_mark(const struct lb_worker *w, double start_ns)
{
	double d = (double)(lb_now_ns() - w->eng->epoch_ns) - start_ns;
	return d > 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

LB_FFI void lb_stmt_record(struct lb_worker *w, int id, double start_ns, int ok)
{
	lb_stats_stmt(&w->stats, id, ns_since_mark(w, start_ns), ok != 0);
}

LB_FFI uint32_t lb_rand_unique(struct lb_worker *w)
{
	return lb_unique_next(&w->eng->unique);
}

/* The current event's start mark (thread mode): the same for every attempt of one event, so a
 * per-type timing can tell a retry from the next event (luabench.stats, T:begin()); -1 outside
 * an event (thread_init, a command), where every begin() is a fresh start. */
LB_FFI double lb_event_start_ns(struct lb_worker *w)
{
	if (!__atomic_load_n(&w->stats.in_event, __ATOMIC_RELAXED))
		return -1;
	return (double)__atomic_load_n(&w->start_ns, __ATOMIC_RELAXED);
}

LB_FFI void lb_type_record(struct lb_worker *w, int id, double start_ns, int outcome)
{
	uint64_t lat = ns_since_mark(w, start_ns);
	if (outcome < LB_OUTCOME_OK || outcome > LB_OUTCOME_RETRY)
		outcome = LB_OUTCOME_ERROR;
	lb_stats_type(&w->stats, id, lat, (enum lb_outcome)outcome);
}

/* ---- emulated users -------------------------------------------------------------------------- */

/* Users are dealt round-robin: worker t runs global users t, t + threads, t + 2 * threads... */
LB_FFI int lb_users_here(struct lb_worker *w)
{
	int users = w->eng->session.cfg.users, threads = w->eng->session.cfg.threads;
	if (!users || w->role != LB_ROLE_WORKER)
		return 0;
	return users / threads + (w->tid < users % threads);
}

LB_FFI int lb_users_total(struct lb_worker *w)
{
	return w->eng->session.cfg.users;
}

LB_FFI int lb_users_global_id(struct lb_worker *w, int i)
{
	return w->tid + i * w->eng->session.cfg.threads;
}

LB_FFI double lb_users_start_ns(struct lb_worker *w, int uid)
{
	const struct lb_config *c = &w->eng->session.cfg;
	if (c->ramp_rate_per_ns > 0)
		return (double)uid / c->ramp_rate_per_ns;
	if (c->ramp_up_ns && c->users)
		return (double)c->ramp_up_ns * uid / c->users;
	return 0;
}

LB_FFI int lb_users_pool_size(struct lb_worker *w)
{
	int conns = w->eng->session.cfg.connections, threads = w->eng->session.cfg.threads;
	return conns / threads + (w->tid < conns % threads);
}

LB_FFI double lb_user_event_next(struct lb_worker *w, double prev_start_ns, double excluded_ns)
{
	struct lb_engine *e = w->eng;
	int64_t now = lb_now_ns() - e->epoch_ns;
	if (prev_start_ns >= 0) {
		int64_t lat = now - (int64_t)prev_start_ns - (int64_t)excluded_ns;
		lb_stats_event(&w->stats, lat > 0 ? (uint64_t)lat : 0, __atomic_load_n(&e->window, __ATOMIC_RELAXED));
		__atomic_store_n(&w->stats.in_event, w->stats.in_event - 1, __ATOMIC_RELAXED);
		w->last_done_ns = now;
	}
	if (!may_start(w, now))
		return -1;
	__atomic_store_n(&w->stats.in_event, w->stats.in_event + 1, __ATOMIC_RELAXED);
	/* the newest user's start: stall and cut-off ages are lower bounds with users */
	__atomic_store_n(&w->start_ns, now, __ATOMIC_RELAXED);
	return (double)now;
}
