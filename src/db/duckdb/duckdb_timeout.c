/* DuckDB driver, the statement timeout. DuckDB 1.5 has no setting for one, but a connection's
 * running statement can be interrupted from another thread (duckdb_interrupt): it then fails
 * with an INTERRUPT error, its transaction is rolled back (or aborted, inside BEGIN), and the
 * connection takes the next statement. A watchdog thread per connection, started when a timeout
 * is first set, interrupts a statement still running at its deadline.
 *
 * The timeout is set as on PostgreSQL: --db-statement-timeout at every connect, or
 * `SET statement_timeout = <ms>` (the pgsql dialect's text, which dbt3 sends), which the driver
 * takes itself instead of passing to DuckDB. An interrupt that lands just after the statement
 * ended is harmless: DuckDB clears the flag when the next statement starts. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include "duckdb_int.h"

struct lb_duckdb_watchdog {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;    /* on CLOCK_MONOTONIC, as the deadlines */
	duckdb_connection con;
	int64_t deadline_ns;    /* 0: no statement under the timeout is running */
	bool idle;              /* waiting without a deadline: arming must wake it */
	bool fired;             /* the running statement was interrupted */
	bool stop;
};

/* Sleeps until the deadline of the running statement; one wake-up per deadline at most, so that
 * a stream of short statements costs no context switch each. */
static void *watch(void *arg)
{
	struct lb_duckdb_watchdog *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		if (!w->deadline_ns) {
			w->idle = true;
			pthread_cond_wait(&w->cond, &w->mu);
			w->idle = false;
		} else if (lb_now_ns() >= w->deadline_ns) {
			/* Again every millisecond until the statement is disarmed: an interrupt that
			 * lands while DuckDB still prepares or plans is cleared when execution starts
			 * (a 1 ms timeout cut no query, or all, depending on how fast planning went). */
			duckdb_interrupt(w->con);
			w->fired = true;
			w->deadline_ns = lb_now_ns() + LB_NS_PER_MS;
		} else {
			struct timespec ts = lb_ns_to_timespec(w->deadline_ns);
			pthread_cond_timedwait(&w->cond, &w->mu, &ts);
		}
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static int watchdog_start(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);
	struct lb_duckdb_watchdog *w = lb_xcalloc(1, sizeof(*w));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	int err;

	w->con = p->con;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setstacksize(&ta, 256 * 1024); /* it only waits and sets a flag */
	err = pthread_create(&w->thread, &ta, watch, w);
	pthread_attr_destroy(&ta);
	if (err) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->mu);
		free(w);
		lb_db_set_error(c, 0, "HY000", false,
				"duckdb: cannot start the statement timeout's thread: %s", strerror(err));
		return LB_DB_ESQL;
	}
	p->watchdog = w;
	return LB_DB_OK;
}

void lb_duckdb_timeout_stop(struct lb_db_conn *c)
{
	struct lb_duckdb_watchdog *w = D(c)->watchdog;

	D(c)->timeout_ms = 0;
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->mu);
	free(w);
	D(c)->watchdog = NULL;
}

int lb_duckdb_timeout_set(struct lb_db_conn *c, int32_t ms)
{
	struct duckdb_conn *p = D(c);

	if (ms > 0 && !p->watchdog) {
		int rc = watchdog_start(c);
		if (rc != LB_DB_OK)
			return rc;
	}
	p->timeout_ms = ms > 0 ? ms : 0;
	return LB_DB_OK;
}

void lb_duckdb_timeout_arm(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);
	struct lb_duckdb_watchdog *w = p->watchdog;

	p->timed_out = false;
	if (!p->timeout_ms || !w)
		return;
	pthread_mutex_lock(&w->mu);
	w->deadline_ns = lb_now_ns() + (int64_t)p->timeout_ms * LB_NS_PER_MS;
	w->fired = false;
	if (w->idle)
		pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->mu);
}

void lb_duckdb_timeout_disarm(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);
	struct lb_duckdb_watchdog *w = p->watchdog;

	if (!p->timeout_ms || !w)
		return;
	pthread_mutex_lock(&w->mu);
	w->deadline_ns = 0;
	p->timed_out = w->fired;
	w->fired = false;
	pthread_mutex_unlock(&w->mu);
}

/* ---- SET statement_timeout ------------------------------------------------------------------ */

static const char *skip_space(const char *s, const char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	return s;
}

/* The word at s (case-insensitive, whole word): the text after it, else NULL. */
static const char *word(const char *s, const char *end, const char *w)
{
	size_t n = strlen(w);

	s = skip_space(s, end);
	if ((size_t)(end - s) < n || strncasecmp(s, w, n))
		return NULL;
	s += n;
	return s < end && (isalnum((unsigned char)*s) || *s == '_') ? NULL : s;
}

/* Only spaces and a `;` left. */
static bool at_end(const char *s, const char *end)
{
	s = skip_space(s, end);
	if (s < end && *s == ';')
		s = skip_space(s + 1, end);
	return s == end;
}

/* "1500", "'1500ms'", "2s", "DEFAULT" up to the end (a `;` allowed): milliseconds, or -1. */
static long long timeout_value(const char *s, const char *end, int32_t dflt)
{
	long long ms = 0, unit = 1;
	bool quoted, digits = false;

	s = skip_space(s, end);
	while (end > s && (isspace((unsigned char)end[-1]) || end[-1] == ';'))
		end--;
	if (word(s, end, "DEFAULT") == end)
		return dflt > 0 ? dflt : 0;
	quoted = s < end && *s == '\'';
	if (quoted) {
		if (end - s < 2 || end[-1] != '\'')
			return -1;
		s++, end--;
	}
	for (; s < end && isdigit((unsigned char)*s); s++, digits = true)
		if ((ms = ms * 10 + (*s - '0')) > INT32_MAX)
			return -1;
	if (s < end && (end - s != 2 || strncasecmp(s, "ms", 2))) {
		if (end - s != 1 || tolower((unsigned char)*s) != 's')
			return -1;
		unit = 1000;
	}
	return digits && ms * unit <= INT32_MAX ? ms * unit : -1;
}

/* `SET [SESSION] statement_timeout {=|TO} <ms>` and `RESET statement_timeout` set this
 * connection's timeout (true, *rc the outcome); any other statement is DuckDB's (false). */
bool lb_duckdb_timeout_statement(struct lb_db_conn *c, const char *sql, size_t len, int *rc)
{
	const char *end = sql + len, *s, *t;
	int32_t dflt = c->cfg->opts.statement_timeout_ms;
	long long ms;

	if ((s = word(sql, end, "RESET")) && (t = word(s, end, "statement_timeout")) && at_end(t, end)) {
		ms = dflt > 0 ? dflt : 0;
	} else {
		if (!(s = word(sql, end, "SET")))
			return false;
		if ((t = word(s, end, "SESSION")))
			s = t;
		if (!(s = word(s, end, "statement_timeout")))
			return false;
		s = skip_space(s, end);
		if (s < end && *s == '=')
			s++;
		else if (!(s = word(s, end, "TO")))
			return false;
		if ((ms = timeout_value(s, end, dflt)) < 0) {
			lb_db_set_error(c, 0, "22023", false,
					"duckdb: invalid statement_timeout in '%.*s' (expected milliseconds, e.g. SET statement_timeout = 1500)",
					(int)(len > 200 ? 200 : len), sql);
			*rc = LB_DB_ESQL;
			return true;
		}
	}
	*rc = lb_duckdb_timeout_set(c, (int32_t)ms);
	if (*rc == LB_DB_OK)
		c->res.kind = LB_DB_KIND_OTHER;
	return true;
}
