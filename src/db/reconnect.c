/* Reconnecting a lost connection: a new session (with backoff until the caller's deadline) and
 * every prepared statement prepared again on it, so a script's statements survive a server
 * restart. */
#include <errno.h>
#include <time.h>

#include "db_int.h"

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One blocking connect attempt that ends by the attempt timeout or the caller's deadline. */
static int connect_once(struct lb_db_conn *c, int64_t deadline_ns)
{
	int64_t attempt = lb_db_deadline_ms(c->cfg->connect_timeout_ms);
	int rc;

	if (deadline_ns > lb_now_ns() && deadline_ns < attempt)
		attempt = deadline_ns;
	rc = lb_db_connect_by(c, attempt);
	return rc == LB_DB_PENDING ? lb_db_wait(c, NULL) : rc;
}

int32_t lb_db_reconnect(struct lb_db_conn *c, int64_t deadline_ns)
{
	int64_t delay_ns = 1000000;
	int rc;

	if (!c)
		return LB_DB_EINVAL;
	lb_db_abandon_op(c);
	lb_db_close_session(c);
	for (;;) {
		rc = connect_once(c, deadline_ns);
		if (rc == LB_DB_OK)
			rc = lb_db_reconnect_finish(c);
		if (rc == LB_DB_OK)
			return LB_DB_OK;
		int64_t left = deadline_ns - lb_now_ns();
		if (left <= 0)
			return LB_DB_ECONNECT;
		sleep_ns(delay_ns < left ? delay_ns : left);
		delay_ns = delay_ns * 2 > 1000000000 ? 1000000000 : delay_ns * 2;
	}
}

int32_t lb_db_reconnect_finish(struct lb_db_conn *c)
{
	if (!c)
		return LB_DB_EINVAL;
	int rc = c->cfg->opts.dry_run ? LB_DB_OK : lb_db_stmts_reprepare(c);
	if (rc == LB_DB_OK)
		c->reconnects++;
	return rc;
}
