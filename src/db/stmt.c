/* Prepared statements (server-side through the driver, or emulated on the client: the text is
 * built in stmt_text.c), their survival across reconnects (reconnect.c), and bulk inserts. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "db_int.h"

static bool dry_run(const struct lb_db_conn *c)
{
	return c->cfg->opts.dry_run != 0;
}

static bool type_supported(int32_t t)
{
	return (t >= LB_DB_TYPE_NONE && t <= LB_DB_TYPE_DOUBLE) || t == LB_DB_TYPE_CHAR ||
	       t == LB_DB_TYPE_VARCHAR;
}

static struct lb_db_stmt *stmt_new(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct lb_db_stmt *s = lb_xzalloc(sizeof(*s));

	s->ops = c->ops;
	s->conn = c;
	s->sql = lb_xstrndup(sql, len);
	s->sql_len = len;
	s->nparams = lb_db_sql_placeholders(s->sql, len, c->ops->quoting, NULL, 0);
	s->ph_offsets = lb_xzalloc((s->nparams ? s->nparams : 1) * sizeof(*s->ph_offsets));
	lb_db_sql_placeholders(s->sql, len, c->ops->quoting, s->ph_offsets, s->nparams);
	s->priv = lb_xzalloc(c->ops->stmt_priv_size);
	s->id = ++c->next_stmt_id;
	s->emulated = c->cfg->opts.ps_mode == LB_DB_PS_DISABLE || !c->ops->prepare_start ||
		      dry_run(c);
	s->next = c->stmts;
	if (c->stmts)
		c->stmts->prev = s;
	c->stmts = s;
	return s;
}

static void stmt_unlink(struct lb_db_stmt *s)
{
	struct lb_db_conn *c = s->conn;

	if (s->prev)
		s->prev->next = s->next;
	else if (c)
		c->stmts = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
}

static void stmt_destroy(struct lb_db_stmt *s)
{
	if (s->ops->stmt_fini)
		s->ops->stmt_fini(s);
	free(s->sql);
	free(s->ph_offsets);
	free(s->priv);
	free(s);
}

/* Blocking server-side prepare of an existing statement object. */
static int prepare_on_server(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	int rc = lb_db_begin_op(c, LB_DB_OP_PREPARE, s);

	if (rc < 0)
		return rc;
	rc = c->ops->prepare_start(c, s);
	if (rc == LB_DB_EMULATE) {
		s->emulated = true;
		rc = LB_DB_OK;
	}
	rc = lb_db_end_op(c, rc, NULL);
	return rc == LB_DB_PENDING ? lb_db_wait(c, NULL) : rc;
}

int32_t lb_db_prepare(struct lb_db_conn *c, const char *sql, uint64_t len,
		      struct lb_db_stmt **out)
{
	struct lb_db_stmt *s;
	int rc;

	*out = NULL;
	if (!sql)
		return lb_db_misuse(c, "NULL statement text");
	if (c->state == LB_DB_STATE_BUSY || c->state == LB_DB_STATE_CONNECTING)
		return lb_db_begin_op(c, LB_DB_OP_PREPARE, NULL); /* sets the EBUSY descriptor */
	s = stmt_new(c, sql, (size_t)len);
	if (!s->emulated) {
		rc = prepare_on_server(c, s);
	} else {
		/* Nothing to send, but the call still ends the previous result set, as sysbench. */
		rc = lb_db_begin_op(c, LB_DB_OP_PREPARE, s);
		if (rc == LB_DB_OK)
			rc = lb_db_end_op(c, LB_DB_OK, NULL);
	}
	if (rc < 0) {
		stmt_unlink(s);
		stmt_destroy(s);
		return rc;
	}
	*out = s;
	return LB_DB_OK;
}

uint32_t lb_db_stmt_nparams(const struct lb_db_stmt *s)
{
	return s->nparams;
}

int32_t lb_db_stmt_bind(struct lb_db_stmt *s, const struct lb_db_param *params, uint32_t nparams)
{
	struct lb_db_conn *c = s->conn;
	char msg[96];

	if (!c)
		return LB_DB_EINVAL;
	if (c->state == LB_DB_STATE_BUSY)
		return LB_DB_EBUSY;
	if (nparams != s->nparams || (nparams && !params)) {
		snprintf(msg, sizeof(msg), "statement has %u parameters, %u bound", s->nparams,
			 nparams);
		return lb_db_misuse(c, msg);
	}
	for (uint32_t i = 0; i < nparams; i++) {
		if (!type_supported(params[i].type)) {
			snprintf(msg, sizeof(msg), "parameter %u: unsupported type %d", i + 1,
				 params[i].type);
			lb_db_misuse(c, msg);
			return LB_DB_ENOTSUP;
		}
	}
	s->params = params;
	if (!s->emulated && c->ops->bind)
		return c->ops->bind(c, s);
	return LB_DB_OK;
}

static int fail_start(struct lb_db_conn *c, int rc, struct lb_db_result *out)
{
	if (out) {
		memset(out, 0, sizeof(*out));
		out->kind = LB_DB_KIND_ERROR;
	}
	(void)c;
	return rc;
}

int32_t lb_db_execute_start(struct lb_db_stmt *s, struct lb_db_result *out)
{
	struct lb_db_conn *c = s->conn;
	int rc;

	if (!c)
		return fail_start(c, LB_DB_EINVAL, out);
	/* A dry run pretends every client call succeeds, an execute before bind_param included
	 * (sysbench: select_random_points --random_points=0 prepares one `?` and binds none). */
	if (s->nparams && !s->params && !dry_run(c))
		return fail_start(c, lb_db_misuse(c, "execute before bind"), out);
	rc = lb_db_begin_op(c, LB_DB_OP_EXECUTE, s);
	if (rc < 0)
		return fail_start(c, rc, out);
	if (dry_run(c)) {
		c->res.kind = LB_DB_KIND_OTHER;
		return lb_db_end_op(c, LB_DB_OK, out);
	}
	rc = s->emulated ? LB_DB_EMULATE : c->ops->execute_start(c, s);
	if (rc == LB_DB_EMULATE) {
		s->emulated = true;
		rc = lb_db_emulate_text(c, s);
		if (rc == LB_DB_OK)
			rc = c->ops->query_start(c, c->text.data, c->text.len);
	}
	return lb_db_end_op(c, rc, out);
}

int32_t lb_db_execute(struct lb_db_stmt *s, struct lb_db_result *out)
{
	int rc = lb_db_execute_start(s, out);
	return rc == LB_DB_PENDING ? lb_db_wait(s->conn, out) : rc;
}

void lb_db_stmt_free(struct lb_db_stmt *s)
{
	struct lb_db_conn *c;

	if (!s)
		return;
	c = s->conn;
	if (c && c->state == LB_DB_STATE_BUSY && c->op_stmt == s)
		lb_db_step(c, LB_DB_WAIT_TIMEOUT, NULL); /* abandons it; the session is lost */
	if (c && c->result_stmt == s)
		lb_db_free_result(c);
	if (c && !s->emulated)
		c->ops->stmt_release(c, s, c->state == LB_DB_STATE_IDLE);
	stmt_unlink(s);
	stmt_destroy(s);
}

int lb_db_stmts_reprepare(struct lb_db_conn *c)
{
	for (struct lb_db_stmt *s = c->stmts; s; s = s->next) {
		if (s->emulated)
			continue;
		if (prepare_on_server(c, s) == LB_DB_ELOST)
			return LB_DB_ELOST;
	}
	return LB_DB_OK;
}

/* ---- bulk insert ---------------------------------------------------------------------------- */

/* The server may accept less than our packet size (MySQL max_allowed_packet); ask once per
 * session, leaving room for the protocol header. */
static size_t bulk_limit(struct lb_db_conn *c)
{
	size_t limit = c->cfg->bulk_packet_bytes;
	struct lb_db_row row;

	if (c->bulk_limit)
		return c->bulk_limit;
	if (c->ops->max_packet_sql && !dry_run(c) && c->state == LB_DB_STATE_IDLE &&
	    lb_db_query(c, c->ops->max_packet_sql, strlen(c->ops->max_packet_sql), NULL) == 0 &&
	    lb_db_fetch_row(c, &row) == 1 && row.nfields && row.values[0]) {
		unsigned long long server = strtoull(row.values[0], NULL, 10);
		if (server > 1024 && server - 1024 < limit)
			limit = (size_t)(server - 1024);
	}
	lb_db_free_result(c);
	c->bulk_limit = limit;
	return limit;
}

/* A COPY that is one statement per flush (LOAD DATA LOCAL INFILE) costs a round trip each:
 * larger pieces keep the server busy longer per wait of the client. A streaming COPY (the
 * driver's copy_put) sends smaller pieces without waiting, so that the socket is fed while the
 * next rows are made and the server never waits long for input. */
#define COPY_FLUSH_BYTES (4u << 20)
#define COPY_STREAM_PIECE_BYTES (256u << 10)

static size_t flush_limit(struct lb_db_conn *c)
{
	if (!c->copy_sql)
		return bulk_limit(c);
	return c->ops->copy_put ? COPY_STREAM_PIECE_BYTES : COPY_FLUSH_BYTES;
}

static int bulk_send(struct lb_db_conn *c, struct lb_db_result *out)
{
	if (!c->copy_sql)
		return lb_db_query(c, c->bulk.data, c->bulk.len, out);
	if (c->ops->copy_put)
		return lb_db_copy_put(c, c->copy_sql, c->bulk.data, c->bulk.len, out);
	return lb_db_copy(c, c->copy_sql, c->bulk.data, c->bulk.len, out);
}

static int bulk_flush(struct lb_db_conn *c, struct lb_db_result *out)
{
	int rc = bulk_send(c, out);

	c->bulk.len = c->bulk_prefix_len;
	c->bulk.data[c->bulk.len] = '\0';
	c->bulk_rows = 0;
	return rc;
}

static void none_result(struct lb_db_result *out)
{
	if (out) {
		memset(out, 0, sizeof(*out));
		out->kind = LB_DB_KIND_NONE;
	}
}

int32_t lb_db_bulk_insert_init(struct lb_db_conn *c, const char *prefix, uint64_t len)
{
	if (!prefix)
		return lb_db_misuse(c, "bulk_insert_init() without a prefix");
	if (c->copy_open)
		return lb_db_misuse(c, "a COPY is streaming: call copy_done() first");
	free(c->copy_sql);
	c->copy_sql = NULL;
	c->bulk.len = 0;
	/* Sized for a whole packet now, so that rows never trigger a reallocation. */
	lb_db_buf_reserve(&c->bulk, c->cfg->bulk_packet_bytes + 1);
	lb_db_buf_append(&c->bulk, prefix, (size_t)len);
	c->bulk_prefix_len = (size_t)len;
	c->bulk_rows = 0;
	c->bulk_active = true;
	return LB_DB_OK;
}

int32_t lb_db_bulk_insert_next(struct lb_db_conn *c, const char *row, uint64_t len,
			       struct lb_db_result *out)
{
	int rc = LB_DB_OK;

	none_result(out);
	if (!c->bulk_active)
		return lb_db_misuse(c, "bulk_insert_next() called before bulk_insert_init()");
	if (!row)
		return lb_db_misuse(c, "bulk_insert_next() without a row");
	if (c->bulk_rows && c->bulk.len + 1 + len > flush_limit(c))
		rc = bulk_flush(c, out);
	if (c->bulk_rows && !c->copy_sql)
		lb_db_buf_append(&c->bulk, ",", 1);
	lb_db_buf_append(&c->bulk, row, (size_t)len);
	if (c->copy_sql)
		lb_db_buf_append(&c->bulk, "\n", 1);
	c->bulk_rows++;
	return rc;
}

int32_t lb_db_bulk_insert_done(struct lb_db_conn *c, struct lb_db_result *out)
{
	int rc = LB_DB_OK;

	none_result(out);
	if (!c->bulk_active)
		return lb_db_misuse(c, "bulk_insert_done() called before bulk_insert_init()");
	if (c->bulk_rows)
		rc = bulk_flush(c, out);
	/* A streaming COPY's result (rows, or the error of any piece) comes with its end. */
	if (rc == LB_DB_OK && c->copy_open)
		rc = lb_db_copy_end(c, out);
	c->bulk_active = false;
	return rc;
}

int32_t lb_db_copy_init(struct lb_db_conn *c, const char *sql, uint64_t len)
{
	if (!sql)
		return lb_db_misuse(c, "copy_init() without a COPY statement");
	if (!c->ops->copy_start) {
		lb_db_set_error(c, 0, "0A000", false, "%s: COPY FROM STDIN is PostgreSQL's; use bulk_insert_init()",
				c->ops->name);
		return LB_DB_ENOTSUP;
	}
	int rc = lb_db_bulk_insert_init(c, "", 0);
	c->copy_sql = lb_xstrndup(sql, (size_t)len);
	return rc;
}
