/* SQLite driver, running statements: a text query (one or more statements; the first one's
 * result is the result, the others run and are discarded, as the mysql driver does), prepared
 * statements (sqlite3_prepare_v3 once, values bound at each execution), result sets read whole,
 * and waiting for a lock another connection holds.
 *
 * Lock waits. SQLite lets one connection write at a time; another that needs the lock gets
 * SQLITE_BUSY unless a busy handler waits. A thread with one connection (--threads) waits in
 * the handler, sleeping as SQLite's own busy_timeout does, up to --sqlite-busy-timeout. With
 * emulated users (--users) one thread runs many connections, and the holder of the lock may be
 * a user of the same thread: sleeping there would stall it until the timeout. So the handler
 * declines at once, the statement is reset, and the call returns LB_DB_PENDING with a timerfd
 * to wait on; the step that follows runs the statement again. SQLite returns SQLITE_BUSY
 * without calling the handler when waiting could not help (two transactions that each hold
 * what the other needs): that fails at once in both modes, an error the default ignore list
 * retries, as a deadlock on a server. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <strings.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "sqlite_int.h"

/* SQLite's own busy_timeout schedule (milliseconds), the last one repeated. */
static const uint8_t BACKOFF_MS[] = { 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 };

static int64_t backoff_ns(uint32_t n)
{
	size_t i = n < sizeof(BACKOFF_MS) ? n : sizeof(BACKOFF_MS) - 1;
	return (int64_t)BACKOFF_MS[i] * 1000000;
}

int lb_sqlite_busy_handler(void *arg, int count)
{
	struct lb_db_conn *c = arg;
	struct sqlite_conn *p = SQ(c);
	int64_t left = p->op.lock_deadline_ns - lb_now_ns();
	int64_t ns = backoff_ns((uint32_t)count);

	p->busy_seen = true;
	if (p->nonblocking || !p->op.lock_deadline_ns || left <= 0)
		return 0;
	ns = ns < left ? ns : left;
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
	nanosleep(&ts, NULL);
	return 1;
}

/* --db-read-timeout and --db-statement-timeout: SQLite calls this every 1000 instructions of
 * the virtual machine; nonzero interrupts the statement (SQLITE_INTERRUPT). */
int lb_sqlite_progress_handler(void *arg)
{
	struct sqlite_conn *p = SQ((struct lb_db_conn *)arg);
	return p->read_deadline_ns && lb_now_ns() > p->read_deadline_ns;
}

static void op_begin(struct lb_db_conn *c, bool nonblocking)
{
	struct sqlite_conn *p = SQ(c);
	const struct lb_db_options *o = &c->cfg->opts;
	uint32_t read_ms = c->cfg->read_timeout_ms;

	if (o->statement_timeout_ms > 0 && (!read_ms || (uint32_t)o->statement_timeout_ms < read_ms))
		read_ms = (uint32_t)o->statement_timeout_ms;
	memset(&p->op, 0, sizeof(p->op));
	p->nonblocking = nonblocking;
	p->op.lock_deadline_ns = lb_db_deadline_ms((uint32_t)(o->sqlite_busy_timeout_ms > 0
								  ? o->sqlite_busy_timeout_ms : 0));
	p->read_deadline_ns = lb_db_deadline_ms(read_ms);
}

void lb_sqlite_op_end(struct lb_db_conn *c)
{
	struct sqlite_conn *p = SQ(c);

	if (p->op.st && p->op.own)
		sqlite3_finalize(p->op.st);
	else if (p->op.st)
		sqlite3_reset(p->op.st);
	memset(&p->op, 0, sizeof(p->op));
	p->read_deadline_ns = 0;
}

/* ---- result sets --------------------------------------------------------------------------- */

/* Values as SQLite converts them to text (integers in decimal, reals with 15 significant
 * digits, blobs as their bytes). */
static void store_row(struct lb_db_rows *r, sqlite3_stmt *st, int ncols, uint64_t row)
{
	for (int i = 0; i < ncols; i++) {
		const unsigned char *v = sqlite3_column_text(st, i);
		lb_db_rows_append(r, (const char *)v, v ? (size_t)sqlite3_column_bytes(st, i) : 0,
				  lb_db_rows_cell(r, row * (uint64_t)ncols + (uint64_t)i));
	}
}

int lb_sqlite_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	return lb_db_rows_fetch(&SQ(c)->rows, c->res.nrows, c->res.nfields, values, lengths);
}

void lb_sqlite_result_free(struct lb_db_conn *c)
{
	lb_db_rows_reset(&SQ(c)->rows);
}

/* ---- waiting for a lock -------------------------------------------------------------------- */

static int arm_timer(struct lb_db_conn *c)
{
	struct sqlite_conn *p = SQ(c);
	int64_t left = p->op.lock_deadline_ns - lb_now_ns();
	int64_t ns = backoff_ns(p->op.retries++);
	struct itimerspec its = { 0 };

	if (p->timer_fd <= 0)
		p->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (p->timer_fd <= 0)
		return -1;
	ns = ns < left ? ns : left;
	its.it_value.tv_sec = ns / 1000000000;
	its.it_value.tv_nsec = ns % 1000000000;
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	if (timerfd_settime(p->timer_fd, 0, &its, NULL) < 0)
		return -1;
	lb_db_set_wait(c, p->timer_fd, LB_DB_WAIT_READ, 0);
	return 0;
}

/* A failed step or prepare: LB_DB_PENDING when it is a lock worth waiting for without
 * blocking (see the top of the file), else the error. */
static int failed(struct lb_db_conn *c, int rc)
{
	struct sqlite_conn *p = SQ(c);

	if ((rc & 0xff) == SQLITE_BUSY && p->busy_seen && p->nonblocking &&
	    p->op.lock_deadline_ns && lb_now_ns() < p->op.lock_deadline_ns && arm_timer(c) == 0)
		return LB_DB_PENDING;
	return lb_sqlite_error(c, rc);
}

/* ---- running statements -------------------------------------------------------------------- */

/* Steps st to its end; `store` keeps its rows and counts as the operation's result. Affected
 * rows are SQLite's changes() only when this statement changed rows: changes() still holds the
 * count of the last INSERT/UPDATE/DELETE after a BEGIN or a CREATE. */
static int run_stmt(struct lb_db_conn *c, sqlite3_stmt *st, bool store)
{
	struct sqlite_conn *p = SQ(c);
	sqlite3_int64 before = sqlite3_total_changes64(p->db);
	int ncols = sqlite3_column_count(st);
	uint64_t n = 0;
	int rc;

	if (store)
		lb_db_rows_reset(&p->rows);
	p->busy_seen = false;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (store && ncols > 0)
			store_row(&p->rows, st, ncols, n);
		n++;
	}
	if (rc != SQLITE_DONE) {
		int out = failed(c, rc);
		sqlite3_reset(st);
		return out;
	}
	if (store && ncols > 0) {
		c->res.kind = LB_DB_KIND_READ;
		c->res.nfields = (uint32_t)ncols;
		c->res.nrows = n;
	} else if (store) {
		sqlite3_int64 changed = sqlite3_total_changes64(p->db) != before
					? sqlite3_changes64(p->db) : 0;
		c->res.affected_rows = changed > 0 ? (uint64_t)changed : 0;
		c->res.kind = changed > 0 ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
	}
	sqlite3_reset(st);
	return LB_DB_OK;
}

static int run_text(struct lb_db_conn *c)
{
	struct sqlite_conn *p = SQ(c);
	struct sqlite_op *op = &p->op;
	int rc;

	for (;;) {
		if (!op->st) {
			const char *next = NULL;
			if (!op->tail_len)
				break;
			p->busy_seen = false;
			rc = sqlite3_prepare_v2(p->db, op->tail, (int)op->tail_len, &op->st, &next);
			if (rc != SQLITE_OK) {
				op->st = NULL;
				return failed(c, rc);
			}
			op->tail_len -= (size_t)(next - op->tail);
			op->tail = next;
			if (!op->st)
				continue; /* only a comment or white space */
		}
		rc = run_stmt(c, op->st, !op->stored);
		if (rc == LB_DB_PENDING)
			return rc;
		sqlite3_finalize(op->st);
		op->st = NULL;
		if (rc < 0)
			return rc;
		op->stored = true;
	}
	if (!op->stored)
		c->res.kind = LB_DB_KIND_OTHER;
	return LB_DB_OK;
}

static int run_prepared(struct lb_db_conn *c)
{
	int rc = run_stmt(c, SQ(c)->op.st, true);

	if (rc != LB_DB_PENDING)
		SQ(c)->op.st = NULL;
	return rc;
}

/* --sqlite-begin: the workloads send a bare BEGIN (sysbench's text); "BEGIN IMMEDIATE" takes
 * the write lock at once, so that writers queue on the busy handler instead of failing when
 * their snapshot went stale (SQLITE_BUSY_SNAPSHOT) and retrying the transaction. */
static bool bare_begin(const char *sql, size_t len)
{
	while (len && isspace((unsigned char)sql[len - 1]))
		len--;
	if (len && sql[len - 1] == ';')
		len--;
	while (len && isspace((unsigned char)*sql))
		sql++, len--;
	while (len && isspace((unsigned char)sql[len - 1]))
		len--;
	return len == 5 && !strncasecmp(sql, "BEGIN", 5);
}

static const char *begin_text(struct lb_db_conn *c, const char *sql, size_t *len)
{
	const char *mode = c->cfg->opts.sqlite_begin;

	if (!mode || !*mode || !strcasecmp(mode, "deferred") || !bare_begin(sql, *len))
		return sql;
	sql = !strcasecmp(mode, "immediate") ? "BEGIN IMMEDIATE" : "BEGIN EXCLUSIVE";
	*len = strlen(sql);
	return sql;
}

int lb_sqlite_query_start(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct sqlite_conn *p = SQ(c);

	sql = begin_text(c, sql, &len);
	if (len > INT_MAX)
		return lb_db_misuse(c, "query longer than 2 GiB");
	op_begin(c, c->offload);
	p->op.own = true;
	p->op.tail = sql;
	p->op.tail_len = len;
	return run_text(c);
}

int lb_sqlite_step(struct lb_db_conn *c, uint32_t ready)
{
	struct sqlite_conn *p = SQ(c);
	uint64_t n;

	if (ready & LB_DB_WAIT_TIMEOUT) {
		lb_sqlite_op_end(c);
		lb_db_set_error(c, SQLITE_BUSY, "40001", true, "sqlite: gave up waiting for the "
				"database lock; connection dropped");
		return LB_DB_ELOST;
	}
	while (p->timer_fd > 0 && read(p->timer_fd, &n, sizeof(n)) > 0)
		;
	return p->op.own ? run_text(c) : run_prepared(c);
}

/* ---- prepared statements ------------------------------------------------------------------- */

int lb_sqlite_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct sqlite_stmt *ss = s->priv;
	char msg[128];
	int rc;

	if (s->sql_len > INT_MAX)
		return lb_db_misuse(c, "statement longer than 2 GiB");
	size_t len = s->sql_len;
	const char *sql = begin_text(c, s->sql, &len);

	op_begin(c, false); /* a prepare only waits for the schema lock: briefly */
	rc = sqlite3_prepare_v3(SQ(c)->db, sql, (int)len, SQLITE_PREPARE_PERSISTENT, &ss->st, NULL);
	lb_sqlite_op_end(c);
	if (rc != SQLITE_OK) {
		ss->st = NULL;
		return lb_sqlite_error(c, rc);
	}
	if (!ss->st)
		return lb_db_misuse(c, "empty statement");
	if ((uint32_t)sqlite3_bind_parameter_count(ss->st) != s->nparams) {
		snprintf(msg, sizeof(msg), "statement has %d parameters for SQLite, %u '?' for "
			 "luabench (only '?' placeholders are supported)",
			 sqlite3_bind_parameter_count(ss->st), s->nparams);
		sqlite3_finalize(ss->st);
		ss->st = NULL;
		return lb_db_misuse(c, msg);
	}
	return LB_DB_OK;
}

/* Strings are bound SQLITE_STATIC: the caller's bytes stay in place until the execution ends,
 * and every execution binds again before SQLite reads them. */
static int bind_params(struct lb_db_conn *c, struct lb_db_stmt *s, sqlite3_stmt *st)
{
	for (uint32_t i = 0; i < s->nparams; i++) {
		const struct lb_db_param *pp = &s->params[i];
		int idx = (int)i + 1, rc;

		if (pp->is_null || pp->type == LB_DB_TYPE_NONE) {
			rc = sqlite3_bind_null(st, idx);
		} else if (pp->type == LB_DB_TYPE_FLOAT || pp->type == LB_DB_TYPE_DOUBLE) {
			rc = sqlite3_bind_double(st, idx, pp->f64);
		} else if (pp->type == LB_DB_TYPE_CHAR || pp->type == LB_DB_TYPE_VARCHAR) {
			if (pp->len > INT_MAX || (pp->len && !pp->str))
				return lb_db_misuse(c, "string parameter too long or without data");
			rc = sqlite3_bind_text(st, idx, pp->str ? pp->str : "", (int)pp->len,
					       SQLITE_STATIC);
		} else {
			rc = sqlite3_bind_int64(st, idx, pp->i64);
		}
		if (rc != SQLITE_OK)
			return lb_sqlite_error(c, rc);
	}
	return LB_DB_OK;
}

int lb_sqlite_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct sqlite_stmt *ss = s->priv;
	int rc = LB_DB_OK;

	if (!ss->st)
		rc = lb_sqlite_prepare_start(c, s); /* it failed to prepare again after a reconnect */
	if (rc == LB_DB_OK && s->nparams && !s->params)
		rc = lb_db_misuse(c, "statement parameters are not bound");
	if (rc == LB_DB_OK)
		rc = bind_params(c, s, ss->st);
	if (rc != LB_DB_OK)
		return rc;
	op_begin(c, c->offload);
	SQ(c)->op.st = ss->st;
	return run_prepared(c);
}

void lb_sqlite_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
	struct sqlite_stmt *ss = s->priv;

	(void)alive;
	if (c && SQ(c)->op.st == ss->st)
		memset(&SQ(c)->op, 0, sizeof(SQ(c)->op));
	sqlite3_finalize(ss->st); /* NULL is a no-op */
	ss->st = NULL;
}
