/* The SQL side of the FFI surface: the driver layer wrapped with what a benchmark needs around
 * every statement: accounting in the worker's counters (sysbench's read/write/other/error
 * rules), waiting that never outlives the run, reconnects that are counted, and --db-debug. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ffi_sql.h"
#include "util/clock.h"
#include "engine/dbopts.h"
#include "db/monitor.h"
#include "engine/engine.h"
#include "util/log.h"
#include "util/util.h"
#include "engine/worker.h"

#define POLL_SLICE_MS 100

/* One configuration per driver for the whole run: every connection of every thread shares it,
 * and it lives until the run's engine goes, so no finalizer order can free it under a
 * connection. */
struct cached_config {
	char name[32];
	struct lb_db_config *cfg;
};
struct config_cache {
	pthread_mutex_t lock;
	struct cached_config configs[8];
};

static void *cache_create(struct lb_engine *e)
{
	struct config_cache *c = lb_xzalloc(sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void cache_destroy(void *state)
{
	struct config_cache *c = state;
	for (size_t i = 0; i < LB_ARRAY_LENGTH(c->configs) && c->configs[i].cfg; i++)
		lb_db_config_free(c->configs[i].cfg);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static const struct lb_ext_kind cache_kind = { "SQL configurations", cache_create, cache_destroy };

/* The server monitor watches the first server the workload configures that it can read. */
static void watch_server(struct lb_engine *e, struct lb_db_config *cfg)
{
	pthread_mutex_lock(&e->lock);
	if (!e->srv_db || !lb_db_monitor_of(e->srv_db))
		e->srv_db = cfg;
	pthread_mutex_unlock(&e->lock);
}

/* The checks sysbench makes when a script creates its first driver, in its order: the
 * prepared statements mode, then the driver's name (an empty --db-driver names none of the
 * several there are). 0, or -1 with sysbench's line in err. */
static int driver_problem(const struct lb_opts *opts, const char **name, char *err, uint32_t errlen)
{
	const char *ps = lb_opts_str(opts, "db-ps-mode");
	if (strcmp(ps, "auto") && strcmp(ps, "disable")) {
		snprintf(err, errlen, "Invalid value for db-ps-mode: %s", ps);
		return -1;
	}
	if (!*name || !**name)
		*name = lb_opts_str(opts, "db-driver");
	if (!**name) {
		snprintf(err, errlen, "Multiple DB drivers are available. Use --db-driver=name to specify "
			 "which one to use");
		return -1;
	}
	if (!lb_db_find_driver(*name)) {
		snprintf(err, errlen, "invalid database driver name: '%s'", *name);
		return -1;
	}
	return 0;
}

/* The run's configuration for driver `name` (NULL or empty: --db-driver's), made on first use;
 * NULL and why in err. */
static struct lb_db_config *config_for(struct lb_engine *e, const char *name, char *err, uint32_t errlen)
{
	struct config_cache *cache = lb_engine_ext(e, &cache_kind);
	struct cached_config *configs = cache->configs;
	struct lb_db_config *cfg = NULL;
	err[0] = '\0';
	pthread_mutex_lock(&cache->lock);
	int bad = driver_problem(e->session.opts, &name, err, errlen);
	size_t i;
	for (i = 0; !bad && i < LB_ARRAY_LENGTH(cache->configs) && configs[i].cfg; i++)
		if (!strcmp(configs[i].name, name))
			cfg = configs[i].cfg;
	if (!bad && !cfg && i < LB_ARRAY_LENGTH(cache->configs)) {
		const struct lb_db_ops *drv = lb_db_find_driver(name);
		struct lb_db_options o;
		lb_dbopts_build(e->session.opts, name, &o);
		if (lb_db_config_new(drv, &o, &cfg, err, errlen) == LB_DB_OK) {
			snprintf(configs[i].name, sizeof(configs[i].name), "%s", name);
			configs[i].cfg = cfg;
			watch_server(e, cfg);
		} else if (!e->session.additions) {
			/* sysbench's driver names no driver in its line */
			size_t n = strlen(name);
			if (!strncmp(err, name, n) && !strncmp(err + n, ": ", 2))
				memmove(err, err + n + 2, strlen(err + n + 2) + 1);
		}
	}
	pthread_mutex_unlock(&cache->lock);
	return cfg;
}

LB_FFI struct lb_db_config *lb_sql_config(struct lb_worker *w, const char *name, char *err,
					  uint32_t errlen)
{
	struct lb_engine *e = w->eng;
	struct lb_db_config *cfg = config_for(e, name, err, errlen);
	/* sysbench says why on a line of its own, then fails with the bare reason. */
	if (!cfg && err[0] && !e->session.additions) {
		lb_fatal("%s", err);
		err[0] = '\0';
	}
	if (cfg)
		e->sql_used = true;
	return cfg;
}

/* An embedded engine starts its threads in the thread that opens it, which they inherit the
 * CPUs of: more threads than those CPUs share them (a worker pinned by --cpu-affinity, taskset).
 * Checked at each connection (the engine may be opened again by another thread), said once. */
static void check_engine_threads(struct lb_engine *e, struct lb_db_conn *c)
{
	if (__atomic_load_n(&e->engine_threads_warned, __ATOMIC_RELAXED))
		return;
	char settings[sizeof(e->driver_settings)];
	lb_db_conn_settings(c, settings, sizeof(settings));
	const char *t = strstr(settings, "threads=");
	if (!t || (t != settings && t[-1] != '\n'))
		return;
	int threads = atoi(t + 8), cpus = lb_thread_cpus();
	if (threads > cpus && !__atomic_exchange_n(&e->engine_threads_warned, 1, __ATOMIC_RELAXED))
		lb_warn("the database engine runs %d threads on the %d CPU%s the thread that opened it may use "
			"(its threads inherit them: --cpu-affinity pins each worker to one CPU, taskset limits the "
			"process); give --cpu-affinity-mode=process or fewer threads (--duckdb-threads=%d)",
			threads, cpus, cpus == 1 ? "" : "s", cpus);
}

LB_FFI void lb_sql_connected(struct lb_worker *w, struct lb_db_conn *c)
{
	struct lb_engine *e = w->eng;
	int none = 0;
	check_engine_threads(e, c);
	if (__atomic_load_n(&e->server_set, __ATOMIC_ACQUIRE))
		return;
	char v[sizeof(e->server)], s[sizeof(e->driver_settings)];
	lb_db_conn_server_version(c, v, sizeof(v));
	lb_db_conn_settings(c, s, sizeof(s));
	if (!v[0] || !__atomic_compare_exchange_n(&e->server_set, &none, 1, false, __ATOMIC_ACQ_REL,
						  __ATOMIC_RELAXED))
		return;
	memcpy(e->server, v, sizeof(v));
	memcpy(e->driver_settings, s, sizeof(s));
	__atomic_store_n(&e->server_set, 2, __ATOMIC_RELEASE);
}

LB_FFI int lb_sql_driver_known(struct lb_worker *w, const char *name)
{
	char err[256];
	return config_for(w->eng, name, err, sizeof(err)) != NULL;
}

LB_FFI const char *lb_sql_driver_name(struct lb_db_config *cfg)
{
	return cfg ? lb_db_driver_name(lb_db_config_driver(cfg)) : "";
}

LB_FFI int32_t lb_sql_driver_supports(struct lb_db_config *cfg, const char *feature)
{
	return cfg ? lb_db_driver_supports(lb_db_config_driver(cfg), feature) : 0;
}

/* Absolute CLOCK_MONOTONIC time after which nothing may keep waiting for the server. */
static int64_t hard_stop_ns(const struct lb_engine *e)
{
	if (__atomic_load_n(&e->interrupts, __ATOMIC_RELAXED))
		return 0;
	if (!e->started || e->deadline_ns == INT64_MAX)
		return INT64_MAX;
	return e->epoch_ns + e->deadline_ns + e->session.cfg.end_grace_ns;
}

/* When a wait must end: the run's hard stop. The control state's statements after the run
 * (done(), the final report's hooks) get --end-grace from the wait's start when that is later:
 * a run whose end cut statements off can still record its results, and a stalled server
 * still cannot hold the process. An interruption stops them all at once. */
static int64_t wait_stop_ns(const struct lb_worker *w, int64_t own_ns)
{
	int64_t stop = hard_stop_ns(w->eng);
	if (w->role != LB_ROLE_CONTROL || stop == 0 || stop == INT64_MAX)
		return stop;
	return own_ns > stop ? own_ns : stop;
}

static int32_t wait_done(struct lb_worker *w, struct lb_db_conn *c, struct lb_db_result *out)
{
	int64_t own = lb_now_ns() + w->eng->session.cfg.end_grace_ns;
	for (;;) {
		struct lb_db_wait wi;
		lb_db_conn_wait_info(c, &wi);
		if (wi.fd < 0)
			return lb_db_wait(c, out);
		int64_t now = lb_now_ns(), stop = wait_stop_ns(w, own);
		int64_t until = wi.deadline_ns && wi.deadline_ns < stop ? wi.deadline_ns : stop;
		uint32_t ready = 0;
		if (now >= until) {
			ready = LB_DB_WAIT_TIMEOUT;
			w->cut_off |= until == stop; /* the run's end, not the statement's own timeout */
		} else {
			int64_t left_ms = (until - now) / LB_NS_PER_MS + 1;
			struct pollfd p = { .fd = wi.fd,
					    .events = (short)(((wi.events & LB_DB_WAIT_READ) ? POLLIN : 0) |
							      ((wi.events & LB_DB_WAIT_WRITE) ? POLLOUT : 0)) };
			int n = poll(&p, 1, (int)(left_ms < POLL_SLICE_MS ? left_ms : POLL_SLICE_MS));
			if (n < 0 && errno != EINTR)
				ready = LB_DB_WAIT_TIMEOUT;
			else if (n > 0)
				ready = ((p.revents & (POLLIN | POLLERR | POLLHUP)) ? LB_DB_WAIT_READ : 0) |
					((p.revents & (POLLOUT | POLLERR | POLLHUP)) ? LB_DB_WAIT_WRITE : 0);
			else
				continue; /* re-check the deadlines */
		}
		int32_t rc = lb_db_step(c, ready, out);
		if (rc != LB_DB_PENDING)
			return rc;
	}
}

static const int kind_counter[] = {
	[LB_DB_KIND_READ] = LB_CNT_READ,
	[LB_DB_KIND_WRITE] = LB_CNT_WRITE,
	[LB_DB_KIND_OTHER] = LB_CNT_OTHER,
	[LB_DB_KIND_ERROR] = LB_CNT_ERROR,
};

static void debug_log(struct lb_worker *w, struct lb_sql_result *rs, int32_t rc, const char *what,
		      uint64_t len, int64_t t0)
{
	static const char *const kinds[] = { "buffered", "read", "write", "other", "error" };
	const struct lb_db_error *e = lb_db_conn_error(rs->conn);
	lb_notice("db-debug: thread %d: %.*s -> %s, %llu rows, %.3f ms%s%s", w->tid,
		  (int)(len > 300 ? 300 : len), what,
		  rc == LB_DB_OK ? kinds[rs->r.kind] : lb_db_strerror(rc),
		  (unsigned long long)(rs->r.kind == LB_DB_KIND_READ ? rs->r.nrows : rs->r.affected_rows),
		  t0 ? (double)(lb_now_ns() - t0) / 1e6 : 0.0, rc == LB_DB_OK ? "" : ": ", rc == LB_DB_OK ? "" : e->message);
}

/* A result box whose connection was closed (con:disconnect() sets rs.conn = NULL). sql.lua
 * refuses such calls first; this keeps a call that gets through from crashing: nothing is sent,
 * nothing is counted, and the answer is LB_DB_EINVAL. */
static int32_t closed(struct lb_sql_result *rs)
{
	if (rs) {
		memset(&rs->r, 0, sizeof(rs->r));
		rs->nrows = 0;
		rs->nfields = 0;
		rs->affected_rows = 0;
	}
	return LB_DB_EINVAL;
}

#define REFUSE_CLOSED(rs)                              \
	do {                                           \
		if (LB_UNLIKELY(!(rs) || !(rs)->conn)) \
			return closed(rs);             \
	} while (0)

/* The first failed statement of a worker is the one a run that completed no event names. */
__attribute__((cold, noinline)) static void note_error(struct lb_worker *w, struct lb_db_conn *c)
{
	if (!w->first_error) {
		const char *m = lb_db_conn_error(c)->message;
		lb_worker_note_error(w, m, strlen(m));
	}
}

/* Counts a finished statement and fills the sysbench-visible fields of rs. */
static int32_t finish(struct lb_worker *w, struct lb_sql_result *rs, int32_t rc, const char *what,
		      uint64_t len, int64_t t0)
{
	struct lb_db_result *r = &rs->r;
	if (rc == LB_DB_ESQL) {
		r->kind = LB_DB_KIND_ERROR;
		note_error(w, rs->conn);
	} else if (rc != LB_DB_OK)
		r->kind = LB_DB_KIND_NONE; /* lost connections count as reconnects, misuse as nothing */
	if (r->kind != LB_DB_KIND_NONE) {
		rs->counter = kind_counter[r->kind];
		lb_stats_add(&w->stats, (enum lb_cnt)rs->counter, 1);
	}
	bool rows = r->kind == LB_DB_KIND_READ;
	bool changed = r->kind == LB_DB_KIND_WRITE || r->kind == LB_DB_KIND_OTHER;
	rs->affected_rows = changed ? (double)r->affected_rows : 0.0;
	rs->nrows = (uint32_t)(rows ? r->nrows : changed ? r->affected_rows : 0);
	rs->nfields = rows ? r->nfields : 0;
	rs->freed = 0;
	if (LB_UNLIKELY(w->eng->session.cfg.db_debug))
		debug_log(w, rs, rc, what, len, t0);
	return rc;
}

LB_FFI int32_t lb_sql_connect(struct lb_worker *w, struct lb_db_conn *c)
{
	if (!c)
		return LB_DB_EINVAL;
	int32_t rc = lb_db_connect_start(c);
	if (rc == LB_DB_PENDING) {
		struct lb_db_result ignored;
		rc = wait_done(w, c, &ignored);
		if (rc != LB_DB_OK && lb_db_conn_state(c) != LB_DB_STATE_IDLE && rc != LB_DB_ECONNECT)
			rc = LB_DB_ECONNECT;
	}
	return rc;
}

LB_FFI int lb_sql_connect_failure_logged(struct lb_worker *w, struct lb_db_conn *c)
{
	const char *report = lb_db_conn_connect_report(c);
	if (w->eng->session.additions || !*report)
		return 0;
	/* libpq's message ends in a newline of its own, which sysbench prints as it is */
	lb_fatal("%s\n", report);
	return 1;
}

LB_FFI int32_t lb_sql_query(struct lb_worker *w, struct lb_sql_result *rs, const char *sql, uint64_t len)
{
	REFUSE_CLOSED(rs);
	int64_t t0 = w->eng->session.cfg.db_debug ? lb_now_ns() : 0;
	int32_t rc = lb_db_query_start(rs->conn, sql, len, &rs->r);
	if (rc == LB_DB_PENDING)
		rc = wait_done(w, rs->conn, &rs->r);
	return finish(w, rs, rc, sql, len, t0);
}

LB_FFI int32_t lb_sql_execute(struct lb_worker *w, struct lb_sql_result *rs, struct lb_db_stmt *s)
{
	REFUSE_CLOSED(rs);
	if (LB_UNLIKELY(!s))
		return closed(rs);
	int64_t t0 = w->eng->session.cfg.db_debug ? lb_now_ns() : 0;
	int32_t rc = lb_db_execute_start(s, &rs->r);
	if (rc == LB_DB_PENDING)
		rc = wait_done(w, rs->conn, &rs->r);
	return finish(w, rs, rc, "(prepared statement)", 20, t0);
}

LB_FFI int32_t lb_sql_query_start(struct lb_worker *w, struct lb_sql_result *rs, const char *sql, uint64_t len)
{
	REFUSE_CLOSED(rs);
	int32_t rc = lb_db_query_start(rs->conn, sql, len, &rs->r);
	return rc == LB_DB_PENDING ? rc : finish(w, rs, rc, sql, len, 0);
}

LB_FFI int32_t lb_sql_execute_start(struct lb_worker *w, struct lb_sql_result *rs, struct lb_db_stmt *s)
{
	REFUSE_CLOSED(rs);
	if (LB_UNLIKELY(!s))
		return closed(rs);
	int32_t rc = lb_db_execute_start(s, &rs->r);
	return rc == LB_DB_PENDING ? rc : finish(w, rs, rc, "(prepared statement)", 20, 0);
}

LB_FFI int32_t lb_sql_step(struct lb_worker *w, struct lb_sql_result *rs, uint32_t ready)
{
	REFUSE_CLOSED(rs);
	int32_t rc = lb_db_step(rs->conn, ready, &rs->r);
	return rc == LB_DB_PENDING ? rc : finish(w, rs, rc, "(non-blocking statement)", 24, 0);
}

LB_FFI int32_t lb_sql_bulk_next(struct lb_worker *w, struct lb_sql_result *rs, const char *row, uint64_t len)
{
	REFUSE_CLOSED(rs);
	int64_t t0 = w->eng->session.cfg.db_debug ? lb_now_ns() : 0;
	int32_t rc = lb_db_bulk_insert_next(rs->conn, row, len, &rs->r);
	if (rc == LB_DB_OK && rs->r.kind == LB_DB_KIND_NONE)
		return rc; /* only buffered */
	return finish(w, rs, rc, "(bulk insert flush)", 19, t0);
}

LB_FFI int32_t lb_sql_bulk_done(struct lb_worker *w, struct lb_sql_result *rs)
{
	REFUSE_CLOSED(rs);
	int64_t t0 = w->eng->session.cfg.db_debug ? lb_now_ns() : 0;
	int32_t rc = lb_db_bulk_insert_done(rs->conn, &rs->r);
	return finish(w, rs, rc, "(bulk insert flush)", 19, t0);
}

/* Counts every statement of a finished pipeline, as finish() counts one. */
static int32_t pipeline_finish(struct lb_worker *w, struct lb_sql_result *rs, int32_t rc, int64_t t0)
{
	uint32_t n = lb_db_pipeline_count(rs->conn);
	/* A pipeline the connection lost before its sync point counts nothing: the server rolls
	 * back its implicit transaction, and the retry runs every statement again (answers that
	 * arrived before the loss were counted twice). */
	bool lost = false;
	for (uint32_t i = 0; i < n && !lost; i++)
		lost = lb_db_pipeline_result(rs->conn, i)->status == LB_DB_PIPE_LOST;
	for (uint32_t i = 0; i < n && !lost; i++) {
		const struct lb_db_pipe_result *it = lb_db_pipeline_result(rs->conn, i);
		if (it->status != LB_DB_PIPE_QUEUED && it->r.kind != LB_DB_KIND_NONE) {
			lb_stats_add(&w->stats, (enum lb_cnt)kind_counter[it->r.kind], 1);
			if (it->r.kind == LB_DB_KIND_ERROR)
				note_error(w, rs->conn);
		}
	}
	memset(&rs->r, 0, sizeof(rs->r));
	rs->nrows = 0;
	rs->nfields = 0;
	rs->affected_rows = 0;
	rs->freed = 0;
	if (LB_UNLIKELY(w->eng->session.cfg.db_debug)) {
		char what[64];
		int len = snprintf(what, sizeof(what), "(pipeline of %u statements)", n);
		rs->r.kind = rc == LB_DB_OK ? LB_DB_KIND_OTHER : LB_DB_KIND_ERROR;
		debug_log(w, rs, rc, what, (uint64_t)len, t0);
		rs->r.kind = LB_DB_KIND_NONE;
	}
	return rc;
}

LB_FFI int32_t lb_sql_pipeline_run(struct lb_worker *w, struct lb_sql_result *rs)
{
	REFUSE_CLOSED(rs);
	int64_t t0 = w->eng->session.cfg.db_debug ? lb_now_ns() : 0;
	int32_t rc = lb_db_pipeline_run_start(rs->conn, &rs->r);
	if (rc == LB_DB_PENDING)
		rc = wait_done(w, rs->conn, &rs->r);
	return pipeline_finish(w, rs, rc, t0);
}

LB_FFI int32_t lb_sql_pipeline_start(struct lb_worker *w, struct lb_sql_result *rs)
{
	REFUSE_CLOSED(rs);
	int32_t rc = lb_db_pipeline_run_start(rs->conn, &rs->r);
	return rc == LB_DB_PENDING ? rc : pipeline_finish(w, rs, rc, 0);
}

LB_FFI int32_t lb_sql_pipeline_step(struct lb_worker *w, struct lb_sql_result *rs, uint32_t ready)
{
	REFUSE_CLOSED(rs);
	int32_t rc = lb_db_step(rs->conn, ready, &rs->r);
	return rc == LB_DB_PENDING ? rc : pipeline_finish(w, rs, rc, 0);
}

LB_FFI int32_t lb_sql_publish_stats(struct lb_worker *w, struct lb_db_conn *c)
{
	int done = lb_db_conn_publish_stats(c);
	if (done)
		__atomic_add_fetch(&w->eng->publish_statements, 1, __ATOMIC_RELAXED);
	return done;
}

/* asked: the script called con:reconnect(); otherwise the connection was lost under a statement. */
LB_FFI int32_t lb_sql_reconnect(struct lb_worker *w, struct lb_db_conn *c, int asked)
{
	if (!c)
		return LB_DB_EINVAL;
	/* Once the run is over, a lost connection stays lost: no new session, none counted, no
	 * wait of --db-connect-timeout on a server that does not answer. */
	if (!asked && lb_worker_stopping(w)) {
		lb_db_disconnect(c);
		return LB_DB_ECONNECT;
	}
	int64_t deadline = lb_now_ns() + w->eng->session.cfg.db_reconnect_ns;
	int64_t stop = wait_stop_ns(w, lb_now_ns() + w->eng->session.cfg.end_grace_ns);
	if (stop < deadline)
		deadline = stop;
	int32_t rc = lb_db_reconnect(c, deadline);
	if (rc == LB_DB_OK)
		lb_stats_add(&w->stats, LB_CNT_RECONNECT, 1);
	return rc;
}

LB_FFI int32_t lb_sql_reconnected(struct lb_worker *w, struct lb_db_conn *c)
{
	int32_t rc = lb_db_reconnect_finish(c);
	if (rc == LB_DB_OK)
		lb_stats_add(&w->stats, LB_CNT_RECONNECT, 1);
	return rc;
}
