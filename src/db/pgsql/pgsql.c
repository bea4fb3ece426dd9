/* PostgreSQL driver on libpq's asynchronous interface (PQconnectStartParams/PQconnectPoll,
 * PQsend*, PQflush, PQconsumeInput/PQisBusy/PQgetResult). Every request goes through the same
 * two phases: flush the request to the socket, then collect results without blocking.
 *
 * Prepared statements: `?` becomes `$n`; the statement is prepared with explicit parameter
 * types as soon as they are known (first bind), parameters travel in binary (no formatting,
 * no length limit, exact doubles) and results are requested as text so rows can be read. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>

#include <libpq-fe.h>

#include "pgsql_int.h"

/* Type OIDs from PostgreSQL's pg_type catalog; they are fixed across server versions. */
static void quiet_notices(void *arg, const char *message)
{
}

/* ---- errors -------------------------------------------------------------------------------- */

bool pg_sqlstate_means_lost(const char *st)
{
	/* class 08: connection exception; 57P01..57P03: admin/crash shutdown, cannot connect now */
	return st && (strncmp(st, "08", 2) == 0 || strcmp(st, "57P01") == 0 ||
		      strcmp(st, "57P02") == 0 || strcmp(st, "57P03") == 0);
}

/* Whole libpq messages start with the severity ("FATAL:  ..."); the descriptor keeps the text. */
const char *pg_skip_severity(const char *msg)
{
	static const char *const levels[] = { "FATAL:", "ERROR:", "PANIC:" };
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (strncmp(msg, levels[i], 6) == 0)
			return msg + 6 + strspn(msg + 6, " ");
	return msg;
}

int pg_lost_error(struct lb_db_conn *c, const char *what)
{
	const char *msg = P(c)->pg ? pg_skip_severity(PQerrorMessage(P(c)->pg)) : "";
	lb_db_set_error(c, 0, "08006", true, "%s%s", what, msg[0] ? msg : "connection lost");
	return LB_DB_ELOST;
}

static int timeout_error(struct lb_db_conn *c)
{
	if (c->cfg->read_timeout_ms)
		lb_db_set_error(c, 0, "HYT00", true, "pgsql: no answer within %u ms (read "
				"timeout); connection dropped", c->cfg->read_timeout_ms);
	else
		lb_db_set_error(c, 0, "HYT00", true, "pgsql: operation abandoned; connection "
				"dropped");
	return LB_DB_ELOST;
}

/* libpq says `connection to server at "h" (a), port p failed: FATAL:  msg` and may repeat
 * itself once per attempt; keep one line, and name the endpoint only for network failures. */
static int connect_error(struct lb_db_conn *c, const char *text)
{
	char first[LB_DB_ERRMSG_BYTES];
	const char *rest, *failed;

	snprintf(c->connect_report, sizeof(c->connect_report), "Connection to database failed: %s", text);
	snprintf(first, sizeof(first), "%s", text);
	first[strcspn(first, "\r\n")] = '\0';
	failed = strstr(first, " failed: ");
	rest = strncmp(first, "connection to server", 20) == 0 && failed ? failed + 9 : first;
	if (strncmp(rest, "FATAL:", 6) == 0) {
		rest += 6;
		rest += strspn(rest, " ");
		lb_db_set_error(c, 0, "08001", false, "pgsql: %s", rest);
	} else {
		lb_db_set_error(c, 0, "08001", false, "pgsql: connection to %s failed: %s",
				c->ep->label, rest);
	}
	return LB_DB_ECONNECT;
}

/* ---- connect ------------------------------------------------------------------------------- */

static int pg_check_options(const struct lb_db_options *o, char *err, size_t errlen)
{
	static const char *const modes[] = { "disable", "allow", "prefer", "require", "verify-ca",
					     "verify-full" };
	if (!o->ssl_mode || !*o->ssl_mode)
		return 0;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(o->ssl_mode, modes[i]) == 0)
			return 0;
	snprintf(err, errlen, "invalid sslmode '%.40s' (want disable, allow, prefer, require, "
		 "verify-ca or verify-full)", o->ssl_mode);
	return LB_DB_EINVAL;
}

/* A socket given as a file (/dir/.s.PGSQL.5432) becomes libpq's host=dir port=5432. */
static void socket_to_host(const char *path, char *dir, size_t dirlen, char *port, size_t plen)
{
	const char *base = strrchr(path, '/');

	snprintf(dir, dirlen, "%s", path);
	if (base && strncmp(base + 1, ".s.PGSQL.", 9) == 0) {
		snprintf(port, plen, "%s", base + 10);
		dir[(base - path) ? (size_t)(base - path) : 1] = '\0';
	}
}

/* Only options actually given go to libpq, so its PG* environment variables fill the rest. */
static void add_kw(const char **kw, const char **val, int *n, const char *k, const char *v)
{
	if (v && *v) {
		kw[*n] = k;
		val[(*n)++] = v;
	}
}

static int pg_connect_start(struct lb_db_conn *c, int64_t deadline_ns)
{
	const struct lb_db_options *o = &c->cfg->opts;
	const char *kw[16], *val[16];
	char port[16] = "", dir[256] = "", options[64] = "";
	int n = 0;

#define ADD(k, v) add_kw(kw, val, &n, (k), (v))
	if (c->ep->socket) {
		socket_to_host(c->ep->socket, dir, sizeof(dir), port, sizeof(port));
		ADD("host", dir);
	} else {
		ADD("host", c->ep->host);
		if (c->ep->port)
			snprintf(port, sizeof(port), "%u", c->ep->port);
	}
	ADD("port", port);
	ADD("user", o->user);
	ADD("password", o->password);
	ADD("dbname", o->db);
	ADD("sslmode", o->ssl_mode);
	ADD("sslrootcert", o->ssl_ca);
	ADD("sslcert", o->ssl_cert);
	ADD("sslkey", o->ssl_key);
	ADD("fallback_application_name", "luabench");
	/* --db-statement-timeout: set at session start, so reconnected sessions have it too. */
	if (o->statement_timeout_ms > 0)
		snprintf(options, sizeof(options), "-c statement_timeout=%d", o->statement_timeout_ms);
	ADD("options", options);
#undef ADD
	kw[n] = val[n] = NULL;

	struct pg_conn *p = P(c);
	p->pg = PQconnectStartParams(kw, val, 0);
	if (!p->pg)
		return connect_error(c, "out of memory");
	if (PQstatus(p->pg) == CONNECTION_BAD)
		return connect_error(c, PQerrorMessage(p->pg));
	PQsetNoticeProcessor(p->pg, quiet_notices, NULL);
	p->phase = PH_CONNECT;
	p->deadline_ns = deadline_ns;
	/* libpq's rule: behave as if PQconnectPoll had asked for write readiness. */
	lb_db_set_wait(c, PQsocket(p->pg), LB_DB_WAIT_WRITE, deadline_ns);
	return LB_DB_PENDING;
}

static int connect_poll(struct lb_db_conn *c, uint32_t ready)
{
	struct pg_conn *p = P(c);

	if (ready & LB_DB_WAIT_TIMEOUT) {
		char msg[64];
		snprintf(msg, sizeof(msg), "timed out after %u ms", c->cfg->connect_timeout_ms);
		return connect_error(c, msg);
	}
	switch (PQconnectPoll(p->pg)) {
	case PGRES_POLLING_READING:
		lb_db_set_wait(c, PQsocket(p->pg), LB_DB_WAIT_READ, p->deadline_ns);
		return LB_DB_PENDING;
	case PGRES_POLLING_WRITING:
		lb_db_set_wait(c, PQsocket(p->pg), LB_DB_WAIT_WRITE, p->deadline_ns);
		return LB_DB_PENDING;
	case PGRES_POLLING_OK:
		if (PQsetnonblocking(p->pg, 1) != 0)
			return connect_error(c, PQerrorMessage(p->pg));
		p->phase = PH_IDLE;
		p->broken = false;
		return LB_DB_OK;
	default:
		return connect_error(c, PQerrorMessage(p->pg));
	}
}

static void pg_close(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);

	PQclear(p->res);
	PQclear(p->collected);
	pg_pipeline_fini(c);
	if (p->pg)
		PQfinish(p->pg);
	memset(p, 0, sizeof(*p));
}

/* ---- sending and collecting ---------------------------------------------------------------- */

static int collect(struct lb_db_conn *c);

int pg_flush(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);
	int r = PQflush(p->pg);

	if (r < 0)
		return pg_lost_error(c, "");
	if (r == 1) {
		/* The server may need us to read before it reads more of ours. */
		lb_db_set_wait(c, PQsocket(p->pg), LB_DB_WAIT_READ | LB_DB_WAIT_WRITE,
			       p->deadline_ns);
		return LB_DB_PENDING;
	}
	p->phase = PH_RESULTS;
	return collect(c);
}

/* After PQsend*: 1 = queued. 0 = refused, usually because the connection broke. */
int pg_sent(struct lb_db_conn *c, int ok)
{
	struct pg_conn *p = P(c);

	if (!ok) {
		bool lost = PQstatus(p->pg) == CONNECTION_BAD;
		lb_db_set_error(c, 0, lost ? "08006" : "HY000", lost, "%s", PQerrorMessage(p->pg));
		return lost ? LB_DB_ELOST : LB_DB_ESQL;
	}
	p->phase = PH_FLUSH;
	return pg_flush(c);
}

bool pg_is_error(const PGresult *r)
{
	ExecStatusType st = PQresultStatus(r);
	return st == PGRES_FATAL_ERROR || st == PGRES_BAD_RESPONSE || st == PGRES_NONFATAL_ERROR;
}

/* Keeps the result that answers the request: the last one, or the first error (the server
 * skips the rest of a multi-statement string after an error). */
static int keep_result(struct lb_db_conn *c, PGresult *r)
{
	struct pg_conn *p = P(c);
	ExecStatusType st = PQresultStatus(r);

	if (st == PGRES_COPY_IN) {
		PQputCopyEnd(p->pg, "COPY FROM STDIN is not supported by luabench");
		PQclear(r);
		return LB_DB_OK;
	}
	if (st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH) {
		PQclear(r);
		lb_db_set_error(c, 0, "0A000", true, "pgsql: COPY TO STDOUT is not supported; "
				"connection dropped");
		return LB_DB_ELOST;
	}
	if (p->collected && pg_is_error(p->collected)) {
		PQclear(r);
		return LB_DB_OK;
	}
	PQclear(p->collected);
	p->collected = r;
	return LB_DB_OK;
}

static int request_done(struct lb_db_conn *c, PGresult *r);

static int collect(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);

	if (p->request == REQ_PIPELINE)
		return pg_pipeline_collect(c);
	while (!PQisBusy(p->pg)) {
		PGresult *r = PQgetResult(p->pg);
		if (!r) {
			r = p->collected;
			p->collected = NULL;
			return request_done(c, r);
		}
		if (p->request == REQ_COPY && PQresultStatus(r) == PGRES_COPY_IN) {
			PQclear(r);
			return pg_copy_send(c);
		}
		if (p->request == REQ_COPY_PUT && PQresultStatus(r) == PGRES_COPY_IN) {
			/* what came before the COPY in the same string is answered: the COPY's
			 * result, at its end, is the request's */
			PQclear(r);
			PQclear(p->collected);
			p->collected = NULL;
			return pg_copy_queue(c, p->copy_data, p->copy_len);
		}
		int rc = keep_result(c, r);
		if (rc < 0)
			return rc;
	}
	lb_db_set_wait(c, PQsocket(p->pg), LB_DB_WAIT_READ, p->deadline_ns);
	return LB_DB_PENDING;
}

static int pg_step(struct lb_db_conn *c, uint32_t ready)
{
	struct pg_conn *p = P(c);

	if (p->phase == PH_CONNECT)
		return connect_poll(c, ready);
	if (ready & LB_DB_WAIT_TIMEOUT)
		return timeout_error(c);
	if ((ready & LB_DB_WAIT_READ) && !PQconsumeInput(p->pg))
		return pg_lost_error(c, "");
	if (p->phase == PH_COPY_FLUSH)
		return pg_copy_flush(c);
	return p->phase == PH_FLUSH ? pg_flush(c) : collect(c);
}

int pg_start_request(struct lb_db_conn *c, int request, struct lb_db_stmt *s)
{
	struct pg_conn *p = P(c);

	if (p->broken || !p->pg)
		return pg_lost_error(c, "pgsql: connection unusable: ");
	p->request = request;
	p->stmt = s;
	p->deadline_ns = lb_db_deadline_ms(c->cfg->read_timeout_ms);
	return LB_DB_OK;
}

static int pg_query_start(struct lb_db_conn *c, const char *sql, size_t len)
{
	int rc = pg_start_request(c, REQ_QUERY, NULL);
	return rc < 0 ? rc : pg_sent(c, PQsendQuery(P(c)->pg, sql));
}

/* ---- results ------------------------------------------------------------------------------- */

static void set_result(struct lb_db_conn *c, PGresult *r)
{
	struct pg_conn *p = P(c);
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_EMPTY_QUERY;

	if (st == PGRES_TUPLES_OK) {
		c->res.kind = LB_DB_KIND_READ;
		c->res.nrows = (uint64_t)PQntuples(r);
		c->res.nfields = (uint32_t)PQnfields(r);
		p->res = r;
		p->row = 0;
		return;
	}
	c->res.affected_rows = r ? strtoull(PQcmdTuples(r), NULL, 10) : 0;
	c->res.kind = c->res.affected_rows > 0 ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
	PQclear(r);
}

int pg_send_rollback(struct lb_db_conn *c)
{
	P(c)->request = REQ_ROLLBACK;
	return pg_sent(c, PQsendQuery(P(c)->pg, "ROLLBACK"));
}

/* Records the error. Inside a transaction block the session is now "aborted" and would reject
 * every statement with 25P02 until the script rolls back, so roll back here. */
static int request_failed(struct lb_db_conn *c, PGresult *r)
{
	struct pg_conn *p = P(c);
	const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	bool lost = PQstatus(p->pg) == CONNECTION_BAD || pg_sqlstate_means_lost(st);

	if (!msg || !*msg)
		msg = pg_skip_severity(*PQresultErrorMessage(r) ? PQresultErrorMessage(r)
							     : PQerrorMessage(p->pg));
	lb_db_set_error(c, 0, st ? st : lost ? "08006" : "HY000", lost, "%s", msg);
	PQclear(r);
	if (lost)
		return LB_DB_ELOST;
	if (PQtransactionStatus(p->pg) == PQTRANS_INERROR) {
		int rc = pg_send_rollback(c);
		return rc == LB_DB_OK ? LB_DB_ESQL : rc; /* PENDING until the ROLLBACK completes */
	}
	return LB_DB_ESQL;
}

static int send_exec(struct lb_db_conn *c, struct lb_db_stmt *s);

static int request_done(struct lb_db_conn *c, PGresult *r)
{
	struct pg_conn *p = P(c);

	p->phase = PH_IDLE;
	if (p->request == REQ_ROLLBACK) {
		/* The statement's error is already in the descriptor; only a lost session adds. */
		PQclear(r);
		if (PQstatus(p->pg) == CONNECTION_BAD)
			c->err.lost = 1;
		return c->err.lost ? LB_DB_ELOST : LB_DB_ESQL;
	}
	if (!r && PQstatus(p->pg) == CONNECTION_BAD)
		return pg_lost_error(c, "");
	if (r && pg_is_error(r))
		return request_failed(c, r);
	if (p->request == REQ_COPY_PUT) {
		PQclear(r);
		lb_db_set_error(c, 0, "42601", false, "pgsql: copy_init() needs a COPY ... FROM STDIN "
				"statement; the server ran it without asking for rows");
		return LB_DB_ESQL;
	}
	if (p->request == REQ_PREPARE || p->request == REQ_PREPARE_THEN_EXEC) {
		struct pg_stmt *ps = p->stmt->priv;
		PQclear(r);
		ps->prepared = true;
		return p->request == REQ_PREPARE ? LB_DB_OK : send_exec(c, p->stmt);
	}
	set_result(c, r);
	return LB_DB_OK;
}

static int pg_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	struct pg_conn *p = P(c);
	int nf;

	if (!p->res || p->row >= PQntuples(p->res))
		return 0;
	nf = PQnfields(p->res);
	for (int i = 0; i < nf; i++) {
		bool null = PQgetisnull(p->res, p->row, i);
		values[i] = null ? NULL : PQgetvalue(p->res, p->row, i);
		lengths[i] = null ? 0 : (uint64_t)PQgetlength(p->res, p->row, i);
	}
	p->row++;
	return 1;
}

static void pg_result_free(struct lb_db_conn *c)
{
	PQclear(P(c)->res);
	P(c)->res = NULL;
	pg_pipeline_results_free(c);
}

static int64_t pg_escape(struct lb_db_conn *c, char *dst, const char *src, size_t len)
{
	int err = 0;
	size_t n = PQescapeStringConn(P(c)->pg, dst, src, len, &err);

	if (err) {
		lb_db_set_error(c, 0, "22021", false, "pgsql: %s", PQerrorMessage(P(c)->pg));
		return LB_DB_ESQL;
	}
	return (int64_t)n;
}

/* ---- prepared statements ------------------------------------------------------------------ */

char *pg_rewrite_placeholders(const struct lb_db_stmt *s)
{
	size_t cap = s->sql_len + (size_t)s->nparams * 11 + 1, o = 0, pos = 0;
	char *out = lb_xzalloc(cap);

	for (uint32_t i = 0; i < s->nparams; i++) {
		memcpy(out + o, s->sql + pos, s->ph_offsets[i] - pos);
		o += s->ph_offsets[i] - pos;
		o += (size_t)snprintf(out + o, cap - o, "$%u", i + 1);
		pos = s->ph_offsets[i] + 1;
	}
	memcpy(out + o, s->sql + pos, s->sql_len - pos);
	return out;
}

static Oid type_oid(int32_t type)
{
	switch (type) {
	case LB_DB_TYPE_TINYINT:
	case LB_DB_TYPE_SMALLINT: return PG_OID_INT2;
	case LB_DB_TYPE_INT: return PG_OID_INT4;
	case LB_DB_TYPE_BIGINT: return PG_OID_INT8;
	case LB_DB_TYPE_FLOAT: return PG_OID_FLOAT4;
	case LB_DB_TYPE_DOUBLE: return PG_OID_FLOAT8;
	case LB_DB_TYPE_CHAR: return PG_OID_BPCHAR;
	case LB_DB_TYPE_VARCHAR: return PG_OID_VARCHAR;
	}
	return PG_OID_UNSPECIFIED;
}

static int send_prepare(struct lb_db_conn *c, struct lb_db_stmt *s, int request)
{
	struct pg_stmt *ps = s->priv;
	int rc = pg_start_request(c, request, s);

	if (rc < 0)
		return rc;
	/* A new name per attempt: a statement re-prepared with other types must not collide. */
	snprintf(ps->name, sizeof(ps->name), "lb%u_%u", s->id, ++ps->generation);
	return pg_sent(c, PQsendPrepare(P(c)->pg, ps->name, ps->sql, (int)s->nparams, ps->types));
}

/* Parameter types are only known at bind time; until then the prepare is deferred. */
static int pg_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct pg_stmt *ps = s->priv;

	if (!ps->sql)
		ps->sql = pg_rewrite_placeholders(s);
	if (s->nparams && !ps->types_known)
		return LB_DB_OK;
	return send_prepare(c, s, REQ_PREPARE);
}

static int pg_bind(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct pg_stmt *ps = s->priv;
	bool changed = !ps->types_known;
	uint32_t n = s->nparams;

	if (!ps->types && n) {
		ps->types = lb_xzalloc(n * sizeof(*ps->types));
		ps->values = lb_xzalloc(n * sizeof(*ps->values));
		ps->lengths = lb_xzalloc(n * sizeof(*ps->lengths));
		ps->formats = lb_xzalloc(n * sizeof(*ps->formats));
		ps->scratch = lb_xzalloc(n * sizeof(*ps->scratch));
	}
	for (uint32_t i = 0; i < n; i++) {
		Oid t = type_oid(s->params[i].type);
		if (ps->types[i] != t)
			changed = true;
		ps->types[i] = t;
	}
	if (changed)
		ps->prepared = false;
	ps->types_known = true;
	return LB_DB_OK;
}

static void put_be(unsigned char *d, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--, v >>= 8)
		d[i] = (unsigned char)(v & 0xff);
}

static int range_error(struct lb_db_conn *c, uint32_t i, int64_t v, const char *type)
{
	char msg[96];
	snprintf(msg, sizeof(msg), "parameter %u: %lld is out of range for %s", i + 1,
		 (long long)v, type);
	return lb_db_misuse(c, msg);
}

/* Binary wire format: big-endian integers and IEEE floats; strings are their bytes. */
int pg_encode_param(struct lb_db_conn *c, struct pg_stmt *ps, uint32_t i,
			const struct lb_db_param *p)
{
	unsigned char *d = ps->scratch[i];
	uint64_t bits;
	uint32_t b32;
	float f;

	ps->formats[i] = PG_FORMAT_BINARY;
	ps->values[i] = (const char *)d;
	if (p->is_null || p->type == LB_DB_TYPE_NONE) {
		ps->values[i] = NULL;
		ps->lengths[i] = 0;
		return LB_DB_OK;
	}
	switch (ps->types[i]) {
	case PG_OID_INT2:
		if (p->i64 < INT16_MIN || p->i64 > INT16_MAX)
			return range_error(c, i, p->i64, "SMALLINT");
		put_be(d, (uint64_t)p->i64, ps->lengths[i] = 2);
		break;
	case PG_OID_INT4:
		if (p->i64 < INT32_MIN || p->i64 > INT32_MAX)
			return range_error(c, i, p->i64, "INT");
		put_be(d, (uint64_t)p->i64, ps->lengths[i] = 4);
		break;
	case PG_OID_INT8:
		put_be(d, (uint64_t)p->i64, ps->lengths[i] = 8);
		break;
	case PG_OID_FLOAT4:
		f = (float)p->f64;
		memcpy(&b32, &f, sizeof(b32));
		put_be(d, b32, ps->lengths[i] = 4);
		break;
	case PG_OID_FLOAT8:
		memcpy(&bits, &p->f64, sizeof(bits));
		put_be(d, bits, ps->lengths[i] = 8);
		break;
	default:
		if (p->len > INT_MAX)
			return lb_db_misuse(c, "string parameter longer than 2 GiB");
		ps->values[i] = p->str ? p->str : "";
		ps->lengths[i] = (int)p->len;
	}
	return LB_DB_OK;
}

static int send_exec(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct pg_stmt *ps = s->priv;

	for (uint32_t i = 0; i < s->nparams; i++) {
		int rc = pg_encode_param(c, ps, i, &s->params[i]);
		if (rc < 0)
			return rc;
	}
	P(c)->request = REQ_EXEC;
	return pg_sent(c, PQsendQueryPrepared(P(c)->pg, ps->name, (int)s->nparams, ps->values,
					   ps->lengths, ps->formats, PG_FORMAT_TEXT));
}

static int pg_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct pg_stmt *ps = s->priv;
	int rc;

	if (!ps->sql)
		ps->sql = pg_rewrite_placeholders(s);
	if (!ps->prepared)
		return send_prepare(c, s, REQ_PREPARE_THEN_EXEC);
	rc = pg_start_request(c, REQ_EXEC, s);
	return rc < 0 ? rc : send_exec(c, s);
}

/* Reads the answers that are due and drops them: up to the end of the request (until_sync
 * false) or up to a pipeline's sync point. Blocking, bounded by the read timeout (or 5 s); a
 * session that does not get there is in an unknown state and is marked broken. */
void pg_drain(struct lb_db_conn *c, bool until_sync)
{
	struct pg_conn *p = P(c);
	uint32_t ms = c->cfg->read_timeout_ms ? c->cfg->read_timeout_ms : 5000;
	int64_t deadline = lb_now_ns() + (int64_t)ms * 1000000;

	for (;;) {
		int f = PQflush(p->pg);
		if (f < 0)
			break;
		bool ended = false; /* pipeline: two NULLs in a row = nothing more until it answers */
		while (f == 0 && !PQisBusy(p->pg)) {
			PGresult *r = PQgetResult(p->pg);
			if (!r && (!until_sync || ended))
				break;
			ended = !r;
			bool sync = r && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
			PQclear(r);
			if (sync && !PQexitPipelineMode(p->pg))
				p->broken = true;
			if (sync)
				return;
		}
		if (!until_sync && f == 0 && !PQisBusy(p->pg))
			return;
		int64_t left = deadline - lb_now_ns();
		if (left <= 0 || PQstatus(p->pg) == CONNECTION_BAD)
			break;
		struct pollfd pfd = { .fd = PQsocket(p->pg), .events = POLLIN | (f ? POLLOUT : 0) };
		if (poll(&pfd, 1, (int)(left / 1000000) + 1) < 0 && errno != EINTR)
			break;
		if (!PQconsumeInput(p->pg))
			break;
	}
	p->broken = true;
}

/* Runs a statement whose result nobody wants, blocking (cold path: statement close). */
static void exec_quiet(struct lb_db_conn *c, const char *sql)
{
	if (!PQsendQuery(P(c)->pg, sql)) {
		P(c)->broken = true;
		return;
	}
	pg_drain(c, false);
}

static void pg_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
	struct pg_stmt *ps = s->priv;
	char sql[64];

	pg_pipeline_forget_stmt(c, s);
	/* Inside a pipeline the DEALLOCATE would join it: the session drops the statement. */
	if (alive && ps->prepared && P(c)->pg && !P(c)->broken &&
	    PQpipelineStatus(P(c)->pg) == PQ_PIPELINE_OFF) {
		snprintf(sql, sizeof(sql), "DEALLOCATE %s", ps->name);
		exec_quiet(c, sql);
	}
	ps->prepared = false;
}

static void pg_stmt_fini(struct lb_db_stmt *s)
{
	struct pg_stmt *ps = s->priv;

	free(ps->sql);
	free(ps->types);
	free(ps->values);
	free(ps->lengths);
	free(ps->formats);
	free(ps->scratch);
}

/* libpq tracks it from every ReadyForQuery message; INERROR does not outlive request_failed()'s
 * ROLLBACK, but is open too. */
static int pg_in_transaction(struct lb_db_conn *c)
{
	PGconn *pg = P(c)->pg;
	PGTransactionStatusType st = pg ? PQtransactionStatus(pg) : PQTRANS_UNKNOWN;
	return st == PQTRANS_INTRANS || st == PQTRANS_INERROR;
}

/* server_version is a parameter the server reports at startup ("15.10 (Debian 15.10-0+deb12u1)"). */
static void pg_server_version(struct lb_db_conn *c, char *buf, size_t len)
{
	PGconn *pg = P(c)->pg;
	const char *v = pg ? PQparameterStatus(pg, "server_version") : NULL;
	if (v)
		snprintf(buf, len, "PostgreSQL %s", v);
}

const struct lb_db_ops lb_db_pgsql_ops = {
	.wait_on_socket = 1,
	.version = LB_DB_OPS_VERSION,
	.monitor = &lb_pgsql_monitor,
	.name = "pgsql",
	.description = "PostgreSQL driver (libpq, non-blocking)",
	.quoting = LB_DB_QUOTING_PGSQL,
	.conn_priv_size = sizeof(struct pg_conn),
	.stmt_priv_size = sizeof(struct pg_stmt),
	.default_ignore_errors = "40P01,23505,40001",
	.check_options = pg_check_options,
	.connect_start = pg_connect_start,
	.close = pg_close,
	.query_start = pg_query_start,
	.step = pg_step,
	.fetch_row = pg_fetch_row,
	.result_free = pg_result_free,
	.prepare_start = pg_prepare_start,
	.bind = pg_bind,
	.execute_start = pg_execute_start,
	.stmt_release = pg_stmt_release,
	.stmt_fini = pg_stmt_fini,
	.escape = pg_escape,
	.copy_start = pg_copy_start,
	.copy_put = pg_copy_put,
	.copy_end = pg_copy_end,
	.options = lb_pgsql_options,
	.read_options = lb_pgsql_read_options,
	.in_transaction = pg_in_transaction,
	.server_version = pg_server_version,
	.pipeline_begin = pg_pipeline_begin,
	.pipeline_query = pg_pipeline_query,
	.pipeline_execute = pg_pipeline_execute,
	.pipeline_sync_start = pg_pipeline_sync_start,
	.pipeline_fetch_row = pg_pipeline_fetch_row,
	.pipeline_abort = pg_pipeline_abort,
};
