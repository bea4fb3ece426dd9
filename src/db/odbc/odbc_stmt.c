/* ODBC driver, prepared statements: SQLPrepare once, SQLBindParameter pointing at the caller's
 * values (strings copied into buffers of the statement, rebound only when one must grow),
 * SQLExecute per execution.
 * Results are read as for text queries (lb_odbc_finish). A statement the server cannot prepare
 * (MySQL's 1295, ER_UNSUPPORTED_PS) goes back to the core for client-side emulation. */
#include <stdio.h>

#include "odbc_int.h"

#define MYSQL_ER_UNSUPPORTED_PS 1295

static void free_handle(struct odbc_stmt *os)
{
	lb_odbc_block_free(&os->block); /* bindings go with the handle */
	if (os->h)
		SQLFreeHandle(SQL_HANDLE_STMT, os->h);
	os->h = NULL;
}

static void forget_bindings(struct lb_db_stmt *s)
{
	struct odbc_stmt *os = s->priv;

	for (uint32_t i = 0; i < s->nparams; i++)
		os->bound_type[i] = -1;
}

static int prepare(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct odbc_stmt *os = s->priv;
	SQLRETURN r;
	uint32_t secs = (c->cfg->read_timeout_ms + 999) / 1000;

	if (s->sql_len > INT32_MAX)
		return lb_db_misuse(c, "statement longer than 2 GiB");
	if (!os->ind && s->nparams) {
		os->ind = lb_xzalloc(s->nparams * sizeof(*os->ind));
		os->bound = lb_xzalloc(s->nparams * sizeof(*os->bound));
		os->bound_type = lb_xzalloc(s->nparams * sizeof(*os->bound_type));
		os->bound_size = lb_xzalloc(s->nparams * sizeof(*os->bound_size));
		os->strs = lb_xzalloc(s->nparams * sizeof(*os->strs));
		os->str_caps = lb_xzalloc(s->nparams * sizeof(*os->str_caps));
	}
	forget_bindings(s);
	r = SQLAllocHandle(SQL_HANDLE_STMT, O(c)->dbc, &os->h);
	if (!SQL_SUCCEEDED(r))
		return lb_odbc_error(c, SQL_HANDLE_DBC, O(c)->dbc, r);
	if (secs)
		SQLSetStmtAttr(os->h, SQL_ATTR_QUERY_TIMEOUT, (SQLPOINTER)(uintptr_t)secs, 0);
	r = SQLPrepare(os->h, (SQLCHAR *)s->sql, (SQLINTEGER)s->sql_len);
	if (SQL_SUCCEEDED(r))
		return LB_DB_OK;
	int rc = lb_odbc_error(c, SQL_HANDLE_STMT, os->h, r);
	bool unsupported = c->err.sql_errno == MYSQL_ER_UNSUPPORTED_PS;
	free_handle(os);
	return unsupported && rc == LB_DB_ESQL ? LB_DB_EMULATE : rc;
}

static int run_prepare(struct lb_db_conn *c)
{
	return prepare(c, O(c)->job_stmt);
}

int lb_odbc_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	O(c)->job_stmt = s;
	O(c)->busy = NULL;
	return lb_odbc_offload(c, run_prepare, lb_db_deadline_ms(c->cfg->read_timeout_ms));
}

struct binding {
	SQLSMALLINT c_type, sql_type;
	SQLULEN size;
	const void *where;
	SQLLEN ind;
};

/* The statement's copy of a string value, grown to fit (which moves it: bind again). */
static const char *string_copy(struct odbc_stmt *os, uint32_t i, const struct lb_db_param *pp)
{
	size_t len = pp->is_null ? 0 : (size_t)pp->len;

	if (!os->strs[i] || len > os->str_caps[i]) {
		size_t cap = os->str_caps[i] ? os->str_caps[i] : 256;
		while (cap < len)
			cap *= 2;
		free(os->strs[i]);
		os->strs[i] = lb_xzalloc(cap);
		os->str_caps[i] = cap;
	}
	if (len)
		memcpy(os->strs[i], pp->str, len);
	return os->strs[i];
}

static struct binding binding_of(const struct lb_db_param *pp)
{
	struct binding b = { SQL_C_SBIGINT, SQL_INTEGER, 0, &pp->i64, 0 };

	switch (pp->type) {
	case LB_DB_TYPE_BIGINT:
		b.sql_type = SQL_BIGINT;
		break;
	case LB_DB_TYPE_FLOAT:
	case LB_DB_TYPE_DOUBLE:
		b.c_type = SQL_C_DOUBLE;
		b.sql_type = SQL_DOUBLE;
		b.where = &pp->f64;
		break;
	case LB_DB_TYPE_CHAR:
	case LB_DB_TYPE_VARCHAR:
	case LB_DB_TYPE_NONE:
		b.c_type = SQL_C_CHAR;
		b.sql_type = SQL_VARCHAR;
		b.ind = (SQLLEN)pp->len;
		break;
	}
	if (pp->is_null || pp->type == LB_DB_TYPE_NONE)
		b.ind = SQL_NULL_DATA;
	return b;
}

/* SQLBindParameter only when a binding changed: it costs a driver round of checks, not I/O. */
static int bind_params(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct odbc_stmt *os = s->priv;

	for (uint32_t i = 0; i < s->nparams; i++) {
		const struct lb_db_param *pp = &s->params[i];
		struct binding b = binding_of(pp);

		if (b.c_type == SQL_C_CHAR) {
			if (pp->len && !pp->str && !pp->is_null)
				return lb_db_misuse(c, "string parameter with NULL data");
			b.where = string_copy(os, i, pp);
			b.size = os->str_caps[i];
		}
		os->ind[i] = b.ind;
		if (os->bound_type[i] == pp->type && os->bound[i] == b.where &&
		    os->bound_size[i] >= b.size)
			continue;
		SQLRETURN r = SQLBindParameter(os->h, (SQLUSMALLINT)(i + 1), SQL_PARAM_INPUT,
					       b.c_type, b.sql_type, b.size, 0,
					       (SQLPOINTER)(uintptr_t)b.where, b.size > 0 ? (SQLLEN)b.size : 0,
					       &os->ind[i]);
		if (!SQL_SUCCEEDED(r))
			return lb_odbc_error(c, SQL_HANDLE_STMT, os->h, r);
		os->bound_type[i] = pp->type;
		os->bound[i] = b.where;
		os->bound_size[i] = b.size;
	}
	return LB_DB_OK;
}

static int run_execute(struct lb_db_conn *c)
{
	struct lb_db_stmt *s = O(c)->job_stmt;
	struct odbc_stmt *os = s->priv;
	int rc = LB_DB_OK;

	if (!os->h)
		rc = prepare(c, s); /* first use after a reconnect or a failure */
	if (rc == LB_DB_OK && s->nparams && !s->params)
		rc = lb_db_misuse(c, "statement parameters are not bound");
	if (rc == LB_DB_OK)
		rc = bind_params(c, s);
	if (rc != LB_DB_OK)
		return rc;
	rc = lb_odbc_finish(c, os->h, SQLExecute(os->h), &os->block);
	if (rc == LB_DB_OK)
		lb_odbc_track_transaction(c, s->sql, s->sql_len);
	return rc;
}

int lb_odbc_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	O(c)->job_stmt = s;
	O(c)->busy = ((struct odbc_stmt *)s->priv)->h;
	return lb_odbc_offload(c, run_execute, lb_db_deadline_ms(c->cfg->read_timeout_ms));
}

void lb_odbc_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
	(void)c;
	(void)alive; /* freeing before SQLDisconnect is allowed on a broken session too */
	free_handle(s->priv);
}

void lb_odbc_stmt_fini(struct lb_db_stmt *s)
{
	struct odbc_stmt *os = s->priv;

	free(os->ind);
	free(os->bound);
	free(os->bound_type);
	free(os->bound_size);
	for (uint32_t i = 0; os->strs && i < s->nparams; i++)
		free(os->strs[i]);
	free(os->strs);
	free(os->str_caps);
}
