/* What the MySQL driver's text queries (mysql.c) and prepared statements (mysql_stmt.c) share:
 * translating the library's errors, waiting for what the library waits for, and starting a
 * phase of a non-blocking call. */
#include "mysql_int.h"

/* ---- errors -------------------------------------------------------------------------------- */

static bool errno_means_lost(unsigned int e)
{
	switch (e) {
	case 0:                      /* a failure without a code: trust nothing (sysbench #213) */
	case CR_SERVER_GONE_ERROR:   /* 2006 */
	case CR_SERVER_LOST:         /* 2013 */
	case CR_SERVER_LOST_EXTENDED:/* 2055 */
	case 2011:                   /* CR_TCP_CONNECTION, in sysbench's reconnect list */
	case ER_SERVER_SHUTDOWN:     /* 1053 */
	case 1927:                   /* ER_CONNECTION_KILLED (MariaDB) */
	case 4031:                   /* ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8) */
		return true;
	}
	return false;
}

static int report(struct lb_db_conn *c, unsigned int e, const char *state, const char *msg)
{
	bool lost = errno_means_lost(e);
	lb_db_set_error(c, (int32_t)e, state, lost, "%s", msg && *msg ? msg : "unknown error");
	return lost ? LB_DB_ELOST : LB_DB_ESQL;
}

int lb_mysql_conn_error(struct lb_db_conn *c)
{
	MYSQL *m = M(c)->m;
	return report(c, mysql_errno(m), mysql_sqlstate(m), mysql_error(m));
}

int lb_mysql_stmt_error(struct lb_db_conn *c, MYSQL_STMT *h)
{
	return report(c, mysql_stmt_errno(h), mysql_stmt_sqlstate(h), mysql_stmt_error(h));
}

/* ---- waiting ------------------------------------------------------------------------------- */

/* The library says what it waits for; it may also want a timeout of its own (connect and read
 * timeouts), which is merged with the operation's deadline. */
int lb_mysql_wait_for(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	uint32_t ev = 0;
	int64_t deadline = p->deadline_ns;

	if (status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT))
		ev |= LB_DB_WAIT_READ;
	if (status & MYSQL_WAIT_WRITE)
		ev |= LB_DB_WAIT_WRITE;
	if (status & MYSQL_WAIT_TIMEOUT) {
		int64_t lib = lb_now_ns() + (int64_t)mysql_get_timeout_value_ms(p->m) * 1000000;
		if (!deadline || lib < deadline)
			deadline = lib;
	}
	lb_db_set_wait(c, (int)mysql_get_socket(p->m), ev, deadline);
	return LB_DB_PENDING;
}

/* ---- phases -------------------------------------------------------------------------------- */

/* The session is idle and alive here: COM_STMT_CLOSE needs no answer. */
void lb_mysql_close_orphans(struct lb_db_conn *c)
{
	struct my_conn *p = M(c);

	for (uint32_t i = 0; i < p->norphans; i++)
		mysql_stmt_close(p->orphans[i]);
	p->norphans = 0;
}

void lb_mysql_begin(struct lb_db_conn *c, int phase, struct lb_db_stmt *s)
{
	struct my_conn *p = M(c);

	if (p->norphans)
		lb_mysql_close_orphans(c);
	p->phase = phase;
	p->stmt = s;
	p->deadline_ns = lb_db_deadline_ms(c->cfg->read_timeout_ms);
}
