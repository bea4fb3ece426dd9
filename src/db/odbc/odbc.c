/* ODBC driver on unixODBC: any server with an ODBC driver (psqlODBC, MariaDB Connector/ODBC,
 * Oracle Instant Client, Microsoft's SQL Server driver, DM8, ...). ODBC calls block, so each
 * operation is done when its *_start call returns (never LB_DB_PENDING); result sets are fetched
 * whole, as the native drivers' are. Prepared statements are in odbc_stmt.c, the options in
 * odbc_options.c. */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include "odbc_int.h"

/* ---- errors -------------------------------------------------------------------------------- */

/* "[unixODBC][Driver Manager]..." and "[MariaDB][ODBC 3.1 Driver][10.11.6-MariaDB]..." lead
 * every message: what follows is the server's (or the driver's) own text. */
static const char *strip_vendor_prefixes(const char *msg)
{
	while (*msg == '[') {
		const char *close = strchr(msg, ']');
		if (!close)
			break;
		msg = close + 1;
	}
	while (*msg == ' ')
		msg++;
	return msg;
}

/* psqlODBC says "ERROR: relation \"x\" does not exist;\nError while executing the query":
 * the server's message is what sits between. */
static const char *server_text(char *msg)
{
	const char *s = strip_vendor_prefixes(msg);
	char *nl = strchr(msg, '\n');
	size_t n;

	if (nl)
		*nl = '\0';
	n = strlen(s);
	if (n && s[n - 1] == ';')
		msg[s - msg + n - 1] = '\0';
	if (!strncmp(s, "ERROR: ", 7) || !strncmp(s, "FATAL: ", 7))
		s += 7;
	while (*s == ' ')
		s++;
	return s;
}

/* Connection-class SQLSTATEs, and what the drivers report instead when the server went away
 * under a statement: MariaDB's "server has gone away"/"lost connection" (2006, 2013, 2055) and
 * psqlODBC's HY000 "could not send query"/"no connection to the server", which ODBC 3.5's
 * SQL_ATTR_CONNECTION_DEAD confirms where the driver implements it. */
static bool connection_lost(struct lb_db_conn *c, const char *state, SQLINTEGER native,
			    const char *msg)
{
	SQLUINTEGER dead = SQL_CD_FALSE;

	if (!strncmp(state, "08", 2))
		return true;
	if (native == 2006 || native == 2013 || native == 2055)
		return true;
	if (strcasestr(msg, "no connection to the server") || strcasestr(msg, "could not send") ||
	    strcasestr(msg, "server closed the connection") || strcasestr(msg, "connection is dead"))
		return true;
	if (O(c)->dbc && SQL_SUCCEEDED(SQLGetConnectAttr(O(c)->dbc, SQL_ATTR_CONNECTION_DEAD, &dead,
							  0, NULL)))
		return dead == SQL_CD_TRUE;
	return false;
}

/* The first diagnostic record of handle `h` into the error descriptor; LB_DB_ESQL, or
 * LB_DB_ELOST when the connection is gone. */
int lb_odbc_error(struct lb_db_conn *c, SQLSMALLINT type, SQLHANDLE h, SQLRETURN ret)
{
	SQLCHAR state[6] = "HY000";
	SQLCHAR msg[LB_DB_ERRMSG_BYTES];
	SQLINTEGER native = 0;
	SQLSMALLINT len = 0;
	bool lost;

	msg[0] = '\0';
	if (!SQL_SUCCEEDED(SQLGetDiagRec(type, h, 1, state, &native, msg, sizeof(msg), &len))) {
		snprintf((char *)msg, sizeof(msg), "ODBC call failed (return code %d)", (int)ret);
		memcpy(state, "HY000", 6);
	}
	lost = connection_lost(c, (const char *)state, native, (const char *)msg);
	if (lost)
		O(c)->in_trans = false;
	lb_db_set_error(c, (int32_t)native, (const char *)state, lost, "%s",
			server_text((char *)msg));
	return lost ? LB_DB_ELOST : LB_DB_ESQL;
}

/* ---- transactions --------------------------------------------------------------------------
 * ODBC says nothing of a transaction a script opened with BEGIN in autocommit mode, so the
 * driver follows the statements that open and end one (the SQL layer asks to roll back a failed
 * attempt's transaction before a retry). */

static bool first_word_is(const char *sql, size_t len, const char *word)
{
	size_t n = strlen(word);

	while (len && (isspace((unsigned char)*sql) || *sql == '('))
		sql++, len--;
	return len >= n && !strncasecmp(sql, word, n) && (len == n || !isalnum((unsigned char)sql[n]));
}

static bool rollback_to_savepoint(const char *sql, size_t len)
{
	const char *end = sql + len;
	const char *p = sql;

	while (p < end && isspace((unsigned char)*p))
		p++;
	p += p + 8 <= end ? 8 : 0; /* "ROLLBACK" */
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p + 2 <= end && !strncasecmp(p, "TO", 2);
}

void lb_odbc_track_transaction(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct odbc_conn *p = O(c);
	size_t skip = 0;

	while (skip < len && (isspace((unsigned char)sql[skip]) || sql[skip] == '('))
		skip++;
	/* after every statement: most start with none of these letters */
	if (skip == len || !strchr("BSCERbscer", sql[skip]))
		return;
	if (first_word_is(sql, len, "BEGIN") || first_word_is(sql, len, "START"))
		p->in_trans = true;
	else if (first_word_is(sql, len, "COMMIT") || first_word_is(sql, len, "END") ||
		 (first_word_is(sql, len, "ROLLBACK") && !rollback_to_savepoint(sql, len)))
		p->in_trans = false;
}

static int odbc_in_transaction(struct lb_db_conn *c)
{
	return O(c)->in_trans;
}

/* ---- result sets --------------------------------------------------------------------------- */

/* One value as text, appended with its terminator; a long value comes in several pieces. */
static int fetch_value(struct lb_db_conn *c, SQLHSTMT h, SQLUSMALLINT col, int64_t *cell)
{
	struct lb_db_buf *b = &O(c)->rows.data;
	size_t start = b->len;

	for (;;) {
		SQLLEN ind = 0;
		size_t room;
		lb_db_buf_reserve(b, 256);
		room = b->cap - b->len;
		SQLRETURN r = SQLGetData(h, col, SQL_C_CHAR, b->data + b->len, (SQLLEN)room, &ind);
		if (r == SQL_NO_DATA)
			break;
		if (!SQL_SUCCEEDED(r))
			return lb_odbc_error(c, SQL_HANDLE_STMT, h, r);
		if (ind == SQL_NULL_DATA) {
			cell[0] = -1;
			cell[1] = 0;
			return LB_DB_OK;
		}
		if (r == SQL_SUCCESS || (ind != SQL_NO_TOTAL && (size_t)ind < room)) {
			b->len += (size_t)ind;
			break;
		}
		b->len += room - 1; /* truncated: room - 1 bytes and a terminator were written */
		lb_db_buf_reserve(b, ind == SQL_NO_TOTAL ? b->cap : (size_t)ind);
	}
	lb_db_buf_reserve(b, 1);
	b->data[b->len++] = '\0';
	cell[0] = (int64_t)start;
	cell[1] = (int64_t)(b->len - 1 - start);
	return LB_DB_OK;
}

static int store_rows(struct lb_db_conn *c, SQLHSTMT h, SQLSMALLINT ncols,
		      struct odbc_block *blk)
{
	struct lb_db_rows *r = &O(c)->rows;
	uint64_t n = 0;
	SQLRETURN ret;
	int rc;

	lb_db_rows_reset(r);
	rc = blk ? lb_odbc_block_store(c, blk, h, ncols, &n) : 1;
	if (rc < 0)
		return rc;
	if (rc == 0)
		goto done;
	while (SQL_SUCCEEDED(ret = SQLFetch(h))) {
		for (SQLSMALLINT i = 0; i < ncols; i++) {
			rc = fetch_value(c, h, (SQLUSMALLINT)(i + 1),
					 lb_db_rows_cell(r, n * (uint64_t)ncols + (uint64_t)i));
			if (rc < 0)
				return rc;
		}
		n++;
	}
	if (ret != SQL_NO_DATA)
		return lb_odbc_error(c, SQL_HANDLE_STMT, h, ret);
done:
	c->res.kind = LB_DB_KIND_READ;
	c->res.nfields = (uint32_t)ncols;
	c->res.nrows = n;
	return LB_DB_OK;
}

static int first_result(struct lb_db_conn *c, SQLHSTMT h, struct odbc_block *blk)
{
	SQLSMALLINT ncols = 0;
	SQLLEN count = 0;
	SQLRETURN r = SQLNumResultCols(h, &ncols);

	if (!SQL_SUCCEEDED(r))
		return lb_odbc_error(c, SQL_HANDLE_STMT, h, r);
	if (ncols > 0)
		return store_rows(c, h, ncols, blk);
	r = SQLRowCount(h, &count);
	if (!SQL_SUCCEEDED(r))
		return lb_odbc_error(c, SQL_HANDLE_STMT, h, r);
	c->res.affected_rows = count > 0 ? (uint64_t)count : 0;
	c->res.kind = count > 0 ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
	return LB_DB_OK;
}

/* What SQLExecute/SQLExecDirect returned, turned into the outcome of the operation. Results
 * after the first (a multi-statement text) are run and discarded, as the mysql driver does. */
int lb_odbc_finish(struct lb_db_conn *c, SQLHSTMT h, SQLRETURN ret, struct odbc_block *blk)
{
	bool single = blk != NULL;
	int rc = LB_DB_OK;

	if (ret == SQL_NO_DATA) {
		c->res.kind = LB_DB_KIND_OTHER; /* a searched UPDATE or DELETE that found nothing */
		return LB_DB_OK;
	}
	if (!SQL_SUCCEEDED(ret)) {
		rc = lb_odbc_error(c, SQL_HANDLE_STMT, h, ret);
		if (rc != LB_DB_ELOST)
			SQLFreeStmt(h, SQL_CLOSE);
		return rc;
	}
	rc = first_result(c, h, blk);
	/* Every ODBC call costs a trip through the driver manager and the driver: a prepared
	 * statement has one result, and one without a result set leaves no cursor to close. */
	if (single && rc == LB_DB_OK && c->res.kind != LB_DB_KIND_READ)
		return LB_DB_OK;
	while (!single && rc == LB_DB_OK && SQL_SUCCEEDED(ret = SQLMoreResults(h)))
		;
	if (!single && rc == LB_DB_OK && ret != SQL_NO_DATA && !SQL_SUCCEEDED(ret))
		rc = lb_odbc_error(c, SQL_HANDLE_STMT, h, ret);
	if (rc != LB_DB_ELOST)
		SQLFreeStmt(h, SQL_CLOSE);
	return rc;
}

static int odbc_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	return lb_db_rows_fetch(&O(c)->rows, c->res.nrows, c->res.nfields, values, lengths);
}

static void odbc_result_free(struct lb_db_conn *c)
{
	lb_db_rows_reset(&O(c)->rows);
}

/* ---- text queries -------------------------------------------------------------------------- */

static void set_query_timeout(struct lb_db_conn *c, SQLHSTMT h)
{
	uint32_t s = (c->cfg->read_timeout_ms + 999) / 1000;
	if (s)
		SQLSetStmtAttr(h, SQL_ATTR_QUERY_TIMEOUT, (SQLPOINTER)(uintptr_t)s, 0);
}

static int run_query(struct lb_db_conn *c)
{
	struct odbc_conn *p = O(c);
	SQLRETURN r = SQLExecDirect(p->text, (SQLCHAR *)(uintptr_t)p->job_sql, (SQLINTEGER)p->job_len);
	int rc = lb_odbc_finish(c, p->text, r, NULL);

	if (rc == LB_DB_OK)
		lb_odbc_track_transaction(c, p->job_sql, p->job_len);
	return rc;
}

static int odbc_query_start(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct odbc_conn *p = O(c);

	if (len > INT32_MAX)
		return lb_db_misuse(c, "query longer than 2 GiB");
	p->job_sql = sql;
	p->job_len = len;
	p->busy = p->text;
	return lb_odbc_offload(c, run_query, lb_db_deadline_ms(c->cfg->read_timeout_ms));
}

/* Strings reach ODBC text the way they reach the server's own SQL: MySQL reads backslash
 * escapes in literals, the others only double the quote. */
static int64_t odbc_escape(struct lb_db_conn *c, char *dst, const char *src, size_t len)
{
	bool backslash = O(c)->family == ODBC_FAMILY_MYSQL;
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char ch = src[i];
		if (ch == '\'')
			dst[o++] = '\'';
		else if (backslash && ch == '\\')
			dst[o++] = '\\';
		else if (backslash && ch == '\0') {
			dst[o++] = '\\';
			ch = '0';
		}
		dst[o++] = ch;
	}
	dst[o] = '\0';
	return (int64_t)o;
}

/* ---- connect ------------------------------------------------------------------------------- */

/* A value in a connection string: braced when it holds a character that would end it. */
static void append_attr(struct lb_db_buf *b, const char *key, const char *value)
{
	bool brace = strpbrk(value, ";{}=") || isspace((unsigned char)value[0]);

	if (b->len && b->data[b->len - 1] != ';')
		lb_db_buf_append(b, ";", 1);
	lb_db_buf_append(b, key, strlen(key));
	lb_db_buf_append(b, brace ? "={" : "=", brace ? 2 : 1);
	for (const char *s = value; *s; s++) {
		lb_db_buf_append(b, s, 1);
		if (brace && *s == '}')
			lb_db_buf_append(b, "}", 1); /* "}}" is a literal brace */
	}
	if (brace)
		lb_db_buf_append(b, "}", 1);
}

static void build_connection_string(const struct lb_db_options *o, struct lb_db_buf *b)
{
	if (o->odbc_connection_string && *o->odbc_connection_string)
		lb_db_buf_append(b, o->odbc_connection_string, strlen(o->odbc_connection_string));
	else if (o->odbc_dsn)
		append_attr(b, "DSN", o->odbc_dsn);
	if (o->user && *o->user)
		append_attr(b, "UID", o->user);
	if (o->password && *o->password)
		append_attr(b, "PWD", o->password);
	lb_db_buf_append(b, "", 1);
}

/* Names the data source without the connection string, which may hold a password. */
static const char *target(const struct lb_db_options *o, char *buf, size_t len)
{
	if (o->odbc_connection_string && *o->odbc_connection_string)
		return "the --odbc-connection-string data source";
	snprintf(buf, len, "DSN '%.100s'", o->odbc_dsn ? o->odbc_dsn : "");
	return buf;
}

static int connect_error(struct lb_db_conn *c, SQLSMALLINT type, SQLHANDLE h, const char *what)
{
	SQLCHAR state[6] = "HY000", msg[LB_DB_ERRMSG_BYTES] = "";
	SQLINTEGER native = 0;
	SQLSMALLINT len;
	char tbuf[128];

	if (h)
		SQLGetDiagRec(type, h, 1, state, &native, msg, sizeof(msg), &len);
	lb_db_set_error(c, (int32_t)native, (const char *)state, false,
			"odbc: connection to %s failed: %s", target(&c->cfg->opts, tbuf, sizeof(tbuf)),
			msg[0] ? strip_vendor_prefixes((const char *)msg) : what);
	return LB_DB_ECONNECT;
}

static void learn_server(struct lb_db_conn *c)
{
	struct odbc_conn *p = O(c);
	char name[48] = "", ver[48] = "";
	SQLSMALLINT len;

	SQLGetInfo(p->dbc, SQL_DBMS_NAME, name, sizeof(name), &len);
	SQLGetInfo(p->dbc, SQL_DBMS_VER, ver, sizeof(ver), &len);
	snprintf(p->dbms, sizeof(p->dbms), "%s %s", name, ver);
	if (strcasestr(name, "PostgreSQL"))
		p->family = ODBC_FAMILY_PGSQL;
	else if (strcasestr(name, "MySQL") || strcasestr(name, "MariaDB"))
		p->family = ODBC_FAMILY_MYSQL;
}

/* --db-statement-timeout, in the server's own words where luabench knows them. */
static int session_setup(struct lb_db_conn *c)
{
	struct odbc_conn *p = O(c);
	int32_t ms = c->cfg->opts.statement_timeout_ms;
	char sql[96];
	SQLRETURN r;

	if (ms <= 0)
		return LB_DB_OK;
	if (p->family == ODBC_FAMILY_PGSQL)
		snprintf(sql, sizeof(sql), "SET statement_timeout = %d", (int)ms);
	else if (p->family == ODBC_FAMILY_MYSQL)
		snprintf(sql, sizeof(sql), "SET SESSION max_statement_time = %.3f", ms / 1000.0);
	else
		return LB_DB_OK; /* SQL_ATTR_QUERY_TIMEOUT is per statement: see set_query_timeout */
	r = SQLExecDirect(p->text, (SQLCHAR *)sql, SQL_NTS);
	SQLFreeStmt(p->text, SQL_CLOSE);
	return SQL_SUCCEEDED(r) ? LB_DB_OK : connect_error(c, SQL_HANDLE_STMT, p->text, sql);
}

static void odbc_close(struct lb_db_conn *c);

/* One SQLDriverConnect at a time in the process: psqlodbc's sets the locale (setlocale), which
 * is not thread-safe; two at once freed each other's locale names (ASan, bookstore prepare on
 * two threads). Process-wide because the library's state is. */
static pthread_mutex_t driver_connect_lock = PTHREAD_MUTEX_INITIALIZER;

static int run_connect(struct lb_db_conn *c)
{
	struct odbc_conn *p = O(c);
	struct lb_db_buf cs = { 0 };
	int64_t deadline_ns = p->job_deadline_ns;
	int64_t left_ms = deadline_ns ? (deadline_ns - lb_now_ns()) / 1000000 : 0;
	SQLRETURN r;

	if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_ENV, SQL_NULL_HANDLE, &p->env)))
		return connect_error(c, 0, NULL, "cannot allocate an ODBC environment");
	SQLSetEnvAttr(p->env, SQL_ATTR_ODBC_VERSION, (SQLPOINTER)SQL_OV_ODBC3, 0);
	if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_DBC, p->env, &p->dbc)))
		return connect_error(c, SQL_HANDLE_ENV, p->env, "cannot allocate a connection");
	if (left_ms > 0)
		SQLSetConnectAttr(p->dbc, SQL_ATTR_LOGIN_TIMEOUT,
				  (SQLPOINTER)(uintptr_t)((left_ms + 999) / 1000), 0);
	build_connection_string(&c->cfg->opts, &cs);
	pthread_mutex_lock(&driver_connect_lock);
	r = SQLDriverConnect(p->dbc, NULL, (SQLCHAR *)cs.data, SQL_NTS, NULL, 0, NULL,
			     SQL_DRIVER_NOPROMPT);
	pthread_mutex_unlock(&driver_connect_lock);
	memset(cs.data, 0, cs.cap); /* the password */
	lb_db_buf_free(&cs);
	if (!SQL_SUCCEEDED(r))
		return connect_error(c, SQL_HANDLE_DBC, p->dbc, "SQLDriverConnect failed");
	p->connected = true;
	learn_server(c);
	if (!SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_STMT, p->dbc, &p->text)))
		return connect_error(c, SQL_HANDLE_DBC, p->dbc, "cannot allocate a statement");
	set_query_timeout(c, p->text);
	return session_setup(c);
}

static int odbc_connect_start(struct lb_db_conn *c, int64_t deadline_ns)
{
	struct odbc_conn *p = O(c);

	p->job_deadline_ns = deadline_ns;
	p->busy = NULL;
	/* the helper's own deadline is the login timeout; ours leaves it a second to report */
	return lb_odbc_offload(c, run_connect, deadline_ns ? deadline_ns + 1000000000 : 0);
}

static void odbc_close(struct lb_db_conn *c)
{
	struct odbc_conn *p = O(c);
	struct lb_db_rows rows = p->rows;
	struct odbc_io *io = p->io;

	if (p->text)
		SQLFreeHandle(SQL_HANDLE_STMT, p->text);
	if (p->connected)
		SQLDisconnect(p->dbc);
	if (p->dbc)
		SQLFreeHandle(SQL_HANDLE_DBC, p->dbc);
	if (p->env)
		SQLFreeHandle(SQL_HANDLE_ENV, p->env);
	memset(p, 0, sizeof(*p));
	p->rows = rows; /* buffers and the helper thread are kept for the next session */
	p->io = io;
	lb_db_rows_reset(&p->rows);
}

static void odbc_conn_fini(struct lb_db_conn *c)
{
	struct odbc_conn *p = O(c);

	lb_odbc_io_stop(c);
	lb_db_rows_free(&p->rows);
}

static int odbc_check_options(const struct lb_db_options *o, char *err, size_t errlen)
{
	if (o->dry_run || (o->odbc_dsn && *o->odbc_dsn) ||
	    (o->odbc_connection_string && *o->odbc_connection_string))
		return 0;
	snprintf(err, errlen, "no data source: give --odbc-dsn=NAME or --odbc-connection-string=...");
	return LB_DB_EINVAL;
}

/* "PostgreSQL 15.10", "MariaDB 10.11.6-MariaDB-0+deb12u1", "Oracle 19.00.0000": SQL_DBMS_NAME
 * then SQL_DBMS_VER; luabench.dialect picks the dialect from the first word. */
static void odbc_server_version(struct lb_db_conn *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", O(c)->dbms);
}

const struct lb_db_ops lb_db_odbc_ops = {
	.version = LB_DB_OPS_VERSION,
	.name = "odbc",
	.description = "ODBC driver (unixODBC; blocking calls)",
	.quoting = LB_DB_QUOTING_PGSQL, /* standard quoting for finding `?` */
	.conn_priv_size = sizeof(struct odbc_conn),
	.stmt_priv_size = sizeof(struct odbc_stmt),
	/* deadlocks, serialization failures, lock wait timeouts, unique violations (pgsql's
	 * 23505) as SQLSTATEs, and MySQL's native 1213/1020/1205 */
	.default_ignore_errors = "40001,40P01,23505,1213,1020,1205",
	.check_options = odbc_check_options,
	.conn_fini = odbc_conn_fini,
	.connect_start = odbc_connect_start,
	.close = odbc_close,
	.query_start = odbc_query_start,
	.step = lb_odbc_step,
	.fetch_row = odbc_fetch_row,
	.result_free = odbc_result_free,
	.prepare_start = lb_odbc_prepare_start,
	.execute_start = lb_odbc_execute_start,
	.stmt_release = lb_odbc_stmt_release,
	.stmt_fini = lb_odbc_stmt_fini,
	.escape = odbc_escape,
	.options = lb_odbc_options,
	.read_options = lb_odbc_read_options,
	.in_transaction = odbc_in_transaction,
	.server_version = odbc_server_version,
	.thread_stack_bytes = 2 * 1024 * 1024,
};
