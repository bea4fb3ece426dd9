/* MySQL driver, prepared statements: mysql_stmt_* with the binary protocol. Results are stored
 * on the client and every column is bound as a string into buffers owned by the statement and
 * reused across executions, so the rows of a prepared SELECT read like those of a text query.
 * A statement the server cannot prepare (ER_UNSUPPORTED_PS) is handed back to the core for
 * client-side emulation. */
#include <stdio.h>

#include "mysql_int.h"

MYSQL_STMT *lb_mysql_cur_handle(struct lb_db_conn *c)
{
	return ((struct my_stmt *)M(c)->stmt->priv)->h;
}

static int begin_prepare(struct lb_db_conn *c, struct lb_db_stmt *s, bool then_execute)
{
	struct my_conn *p = M(c);
	struct my_stmt *ms = s->priv;
	my_bool on = 1;

	ms->h = mysql_stmt_init(p->m);
	ms->params_bound = false;
	if (!ms->h)
		return lb_mysql_conn_error(c);
	/* Lets store_result record each column's longest value, which sizes our buffers. */
	mysql_stmt_attr_set(ms->h, STMT_ATTR_UPDATE_MAX_LENGTH, &on);
	lb_mysql_begin(c, MY_PREPARE, s);
	p->then_execute = then_execute;
	return lb_mysql_prepared(c, mysql_stmt_prepare_start(&p->ret_int, ms->h, s->sql,
						    (unsigned long)s->sql_len));
}

int lb_mysql_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	return begin_prepare(c, s, false);
}

static int start_execute(struct lb_db_conn *c, struct lb_db_stmt *s);

static int prepare_failed(struct lb_db_conn *c, struct my_stmt *ms, int rc)
{
	mysql_stmt_close(ms->h); /* never prepared on the server: nothing to send */
	ms->h = NULL;
	return rc;
}

int lb_mysql_prepared(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	struct lb_db_stmt *s = p->stmt;
	struct my_stmt *ms = s->priv;

	if (status)
		return lb_mysql_wait_for(c, status);
	p->phase = MY_IDLE;
	if (p->ret_int) {
		bool unsupported = mysql_stmt_errno(ms->h) == ER_UNSUPPORTED_PS;
		return prepare_failed(c, ms, unsupported ? LB_DB_EMULATE : lb_mysql_stmt_error(c, ms->h));
	}
	if (mysql_stmt_param_count(ms->h) != s->nparams) {
		char msg[96];
		snprintf(msg, sizeof(msg), "server counts %lu placeholders, luabench %u",
			 (unsigned long)mysql_stmt_param_count(ms->h), s->nparams);
		return prepare_failed(c, ms, lb_db_misuse(c, msg));
	}
	if (!ms->params && s->nparams) {
		ms->params = lb_xzalloc(s->nparams * sizeof(*ms->params));
		ms->param_lens = lb_xzalloc(s->nparams * sizeof(*ms->param_lens));
	}
	return p->then_execute ? start_execute(c, s) : LB_DB_OK;
}

/* The MYSQL_BIND points straight at the caller's value; the library reads it (and a string's
 * length through b->length) during execute. Returns whether the binding itself changed: its type
 * or where the value lives. (MYSQL_BIND.buffer is not const, but parameters are only read.) */
static bool bind_param(MYSQL_BIND *b, unsigned long *len, const struct lb_db_param *pp)
{
	enum enum_field_types type = MYSQL_TYPE_LONGLONG;
	void *buf = (void *)(uintptr_t)&pp->i64;

	if (pp->is_null || pp->type == LB_DB_TYPE_NONE) {
		type = MYSQL_TYPE_NULL;
		buf = NULL;
	} else if (pp->type == LB_DB_TYPE_FLOAT || pp->type == LB_DB_TYPE_DOUBLE) {
		type = MYSQL_TYPE_DOUBLE;
		buf = (void *)(uintptr_t)&pp->f64;
	} else if (pp->type == LB_DB_TYPE_CHAR || pp->type == LB_DB_TYPE_VARCHAR) {
		*len = (unsigned long)pp->len;
		type = MYSQL_TYPE_STRING;
		buf = (void *)(uintptr_t)(pp->str ? pp->str : "");
	}
	if (b->buffer_type == type && b->buffer == buf)
		return false;
	memset(b, 0, sizeof(*b));
	b->buffer_type = type;
	b->buffer = buf;
	if (type == MYSQL_TYPE_STRING) {
		b->buffer_length = *len;
		b->length = len;
	}
	return true;
}

/* mysql_stmt_bind_param() only when a binding changed: besides its own cost, it makes the next
 * execute send every parameter's type to the server again. */
static int start_execute(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct my_conn *p = M(c);
	struct my_stmt *ms = s->priv;
	bool changed = !ms->params_bound;

	for (uint32_t i = 0; i < s->nparams; i++)
		changed |= bind_param(&ms->params[i], &ms->param_lens[i], &s->params[i]);
	if (s->nparams && changed) {
		if (mysql_stmt_bind_param(ms->h, ms->params))
			return lb_mysql_stmt_error(c, ms->h);
		ms->params_bound = true;
	}
	p->phase = MY_EXECUTE;
	return lb_mysql_executed(c, mysql_stmt_execute_start(&p->ret_int, ms->h));
}

int lb_mysql_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct my_stmt *ms = s->priv;

	if (!ms->h)
		return begin_prepare(c, s, true); /* first use after a reconnect or a failure */
	lb_mysql_begin(c, MY_EXECUTE, s);
	return start_execute(c, s);
}

int lb_mysql_executed(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	MYSQL_STMT *h = lb_mysql_cur_handle(c);

	if (status)
		return lb_mysql_wait_for(c, status);
	p->phase = MY_IDLE;
	if (p->ret_int)
		return lb_mysql_stmt_error(c, h);
	if (mysql_stmt_field_count(h) == 0) {
		my_ulonglong n = mysql_stmt_affected_rows(h);
		c->res.affected_rows = n == (my_ulonglong)-1 ? 0 : (uint64_t)n;
		c->res.kind = c->res.affected_rows > 0 ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
		return LB_DB_OK;
	}
	p->phase = MY_STMT_STORE;
	return lb_mysql_stmt_stored(c, mysql_stmt_store_result_start(&p->ret_int, h));
}

static void size_column(struct my_stmt *ms, uint32_t i, unsigned long need)
{
	if (need <= ms->caps[i])
		return;
	ms->bufs[i] = lb_xrealloc(ms->bufs[i], need);
	ms->caps[i] = need;
}

static void grow_columns(struct my_stmt *ms, uint32_t n)
{
	uint32_t old = ms->ncols_cap;

	if (n <= old)
		return;
	ms->cols = lb_xrealloc(ms->cols, n * sizeof(*ms->cols));
	ms->bufs = lb_xrealloc(ms->bufs, n * sizeof(*ms->bufs));
	ms->caps = lb_xrealloc(ms->caps, n * sizeof(*ms->caps));
	ms->lens = lb_xrealloc(ms->lens, n * sizeof(*ms->lens));
	ms->nulls = lb_xrealloc(ms->nulls, n * sizeof(*ms->nulls));
	ms->errs = lb_xrealloc(ms->errs, n * sizeof(*ms->errs));
	for (uint32_t i = old; i < n; i++) {
		ms->bufs[i] = NULL;
		ms->caps[i] = 0;
	}
	ms->ncols_cap = n;
}

/* Every column is fetched as a string (the library formats numbers and dates), into buffers
 * that only grow. The handle's own field array carries max_length after store_result; the
 * allocating mysql_stmt_result_metadata() is avoided on this per-execute path. */
static void bind_columns(struct my_stmt *ms, uint32_t n)
{
	MYSQL_FIELD *f = ms->h->fields;

	grow_columns(ms, n);
	for (uint32_t i = 0; i < n; i++) {
		unsigned long want = f && f[i].max_length > 64 ? f[i].max_length : 64;
		MYSQL_BIND *b = &ms->cols[i];
		size_column(ms, i, want + 1);
		memset(b, 0, sizeof(*b));
		b->buffer_type = MYSQL_TYPE_STRING;
		b->buffer = ms->bufs[i];
		b->buffer_length = ms->caps[i];
		b->length = &ms->lens[i];
		b->is_null = &ms->nulls[i];
		b->error = &ms->errs[i];
	}
}

int lb_mysql_stmt_stored(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	struct lb_db_stmt *s = p->stmt;
	struct my_stmt *ms = s->priv;
	uint32_t n = mysql_stmt_field_count(ms->h);

	if (status)
		return lb_mysql_wait_for(c, status);
	p->phase = MY_IDLE;
	if (p->ret_int)
		return lb_mysql_stmt_error(c, ms->h);
	/* Columns are bound at the first fetch: most statements' rows are only counted. */
	ms->cols_bound = false;
	p->res_stmt = s;
	c->res.kind = LB_DB_KIND_READ;
	c->res.nrows = mysql_stmt_num_rows(ms->h);
	c->res.nfields = n;
	return LB_DB_OK;
}

/* A value longer than its buffer: grow it, fetch that column again, and rebind so that the
 * following rows use the larger buffer. */
static void refetch_column(struct my_stmt *ms, uint32_t i)
{
	size_column(ms, i, ms->lens[i] + 1);
	ms->cols[i].buffer = ms->bufs[i];
	ms->cols[i].buffer_length = ms->caps[i];
	mysql_stmt_fetch_column(ms->h, &ms->cols[i], i, 0);
	mysql_stmt_bind_result(ms->h, ms->cols);
}

int lb_mysql_fetch_stmt_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	struct my_stmt *ms = M(c)->res_stmt->priv;

	if (!ms->cols_bound) {
		bind_columns(ms, c->res.nfields);
		if (mysql_stmt_bind_result(ms->h, ms->cols))
			return lb_mysql_stmt_error(c, ms->h);
		ms->cols_bound = true;
	}
	int r = mysql_stmt_fetch(ms->h);   /* stored result: no I/O */

	if (r == MYSQL_NO_DATA)
		return 0;
	if (r == 1)
		return lb_mysql_stmt_error(c, ms->h);
	for (uint32_t i = 0; i < c->res.nfields; i++) {
		if (ms->nulls[i]) {
			values[i] = NULL;
			lengths[i] = 0;
			continue;
		}
		if (ms->lens[i] >= ms->caps[i])
			refetch_column(ms, i);
		ms->bufs[i][ms->lens[i]] = '\0';
		values[i] = ms->bufs[i];
		lengths[i] = ms->lens[i];
	}
	return 1;
}

static void stmt_free_result(struct lb_db_conn *c)
{
	struct my_stmt *ms = M(c)->res_stmt->priv;

	if (ms->h)
		mysql_stmt_free_result(ms->h);
	M(c)->res_stmt = NULL;
}

/* On an idle session the handle is closed now (COM_STMT_CLOSE needs no answer). Otherwise the
 * connection keeps it: a busy session cannot take a command now, and closing a handle of a
 * session that is going away would write to a dead or hung socket. */
void lb_mysql_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
	struct my_conn *p = M(c);
	struct my_stmt *ms = s->priv;

	if (p->res_stmt == s)
		stmt_free_result(c);
	if (!ms->h)
		return;
	if (alive) {
		mysql_stmt_close(ms->h);
	} else {
		if (p->norphans == p->orphans_cap) {
			p->orphans_cap = p->orphans_cap ? 2 * p->orphans_cap : 8;
			p->orphans = lb_xrealloc(p->orphans, p->orphans_cap * sizeof(*p->orphans));
		}
		p->orphans[p->norphans++] = ms->h;
	}
	ms->h = NULL;
}

void lb_mysql_stmt_fini(struct lb_db_stmt *s)
{
	struct my_stmt *ms = s->priv;

	for (uint32_t i = 0; i < ms->ncols_cap; i++)
		free(ms->bufs[i]);
	free(ms->params);
	free(ms->param_lens);
	free(ms->cols);
	free(ms->bufs);
	free(ms->caps);
	free(ms->lens);
	free(ms->nulls);
	free(ms->errs);
}

