/* PostgreSQL driver: COPY FROM STDIN, as one statement per piece (copy_start) or as one COPY
 * streamed from the first piece to copy_end (copy_put). */
#include "pgsql_int.h"

#include <limits.h>

/* The server is ready for our COPY's input: queue all of it and the end, then flush and collect
 * the command's result as for any request. In non-blocking mode libpq grows its output buffer
 * rather than refuse data, so a refusal means the session is gone. */
int pg_copy_send(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);

	if (PQputCopyData(p->pg, p->copy_data, (int)p->copy_len) != 1 || PQputCopyEnd(p->pg, NULL) != 1)
		return pg_lost_error(c, "pgsql: sending COPY data: ");
	p->phase = PH_FLUSH;
	return pg_flush(c);
}

/* A streaming COPY queues each piece and sends what the socket takes now: the rest goes with
 * the next piece, while the server works on what it has. libpq's buffer only grows, so past
 * this much unsent input wait until it has all gone. */
#define PG_COPY_BACKLOG_BYTES (16u << 20)

int pg_copy_flush(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);
	int r = PQflush(p->pg);

	if (r < 0)
		return pg_lost_error(c, "pgsql: sending COPY data: ");
	if (r == 0)
		p->copy_unflushed_bytes = 0;
	else if (p->copy_unflushed_bytes > PG_COPY_BACKLOG_BYTES) {
		lb_db_set_wait(c, PQsocket(p->pg), LB_DB_WAIT_READ | LB_DB_WAIT_WRITE,
			       p->deadline_ns);
		return LB_DB_PENDING;
	}
	p->phase = PH_IDLE;
	c->res.kind = LB_DB_KIND_NONE;
	return LB_DB_OK;
}

int pg_copy_queue(struct lb_db_conn *c, const char *data, size_t len)
{
	struct pg_conn *p = P(c);

	if (PQputCopyData(p->pg, data, (int)len) != 1)
		return pg_lost_error(c, "pgsql: sending COPY data: ");
	p->copy_unflushed_bytes += len;
	p->phase = PH_COPY_FLUSH;
	return pg_copy_flush(c);
}

int pg_copy_start(struct lb_db_conn *c, const char *sql, const char *data, size_t len)
{
	struct pg_conn *p = P(c);
	int rc = pg_start_request(c, REQ_COPY, NULL);

	if (rc < 0)
		return rc;
	if (len > INT_MAX) {
		lb_db_set_error(c, 0, "54000", false, "pgsql: %zu bytes of COPY data in one piece", len);
		return LB_DB_ESQL;
	}
	p->copy_data = data;
	p->copy_len = len;
	return pg_sent(c, PQsendQuery(p->pg, sql));
}

/* A piece of a streaming COPY: the first opens it with `sql` and waits for the server to take
 * input; each piece ends once queued and flushed as far as the socket takes it (see
 * copy_flush), without waiting for the server to process it. */
int pg_copy_put(struct lb_db_conn *c, const char *sql, const char *data, size_t len)
{
	struct pg_conn *p = P(c);
	int rc = pg_start_request(c, REQ_COPY_PUT, NULL);

	if (rc < 0)
		return rc;
	if (len > INT_MAX) {
		lb_db_set_error(c, 0, "54000", false, "pgsql: %zu bytes of COPY data in one piece", len);
		return LB_DB_ESQL;
	}
	if (c->copy_open)
		return pg_copy_queue(c, data, len);
	p->copy_unflushed_bytes = 0;
	p->copy_data = data;
	p->copy_len = len;
	return pg_sent(c, PQsendQuery(p->pg, sql));
}

/* The end of a streaming COPY: the server's answer to the whole COPY (rows, or the error of
 * any piece) is this request's. */
int pg_copy_end(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);
	int rc = pg_start_request(c, REQ_COPY_END, NULL);

	if (rc < 0)
		return rc;
	p->copy_unflushed_bytes = 0;
	if (PQputCopyEnd(p->pg, NULL) != 1)
		return pg_lost_error(c, "pgsql: ending COPY: ");
	p->phase = PH_FLUSH;
	return pg_flush(c);
}
