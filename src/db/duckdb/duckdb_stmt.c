/* DuckDB driver, prepared statements: duckdb_prepare once (DuckDB reads `?` placeholders
 * itself), the caller's values bound at every execution, then run: a SELECT streamed, its rows
 * pulled from DuckDB's chunks (duckdb_result.c), other statements materialised. (DuckDB 1.5
 * binds and plans a statement with parameters again at every execution, whatever the types of
 * the values: preparing saves the parsing.) */
#include "duckdb_int.h"

duckdb_state lb_duckdb_run(struct lb_db_conn *c, duckdb_prepared_statement ps, bool *pulled)
{
	struct duckdb_conn *p = D(c);
	duckdb_pending_result pending = NULL;
	duckdb_state st;

	*pulled = false;
	if (duckdb_prepared_statement_type(ps) != DUCKDB_STATEMENT_TYPE_SELECT)
		return duckdb_execute_prepared(ps, &p->result);
	if (duckdb_pending_prepared_streaming(ps, &pending) == DuckDBSuccess) {
		st = duckdb_execute_pending(pending, &p->result);
		if (st == DuckDBSuccess) {
			lb_duckdb_rows_pull(&p->rows, &p->result);
			*pulled = true;
		}
	} else {
		/* It failed before running (a binder error, an aborted transaction): a pending result
		 * tells the message but not its error type, which running it materialised gives (a
		 * SELECT: running it again changes nothing). */
		st = duckdb_execute_prepared(ps, &p->result);
	}
	duckdb_destroy_pending(&pending);
	return st;
}

static int prepare(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct duckdb_stmt *ds = s->priv;

	if (duckdb_prepare(D(c)->con, s->sql, &ds->ps) == DuckDBError) {
		int rc = lb_duckdb_error(c, DUCKDB_ERROR_INVALID, duckdb_prepare_error(ds->ps));
		duckdb_destroy_prepare(&ds->ps);
		ds->ps = NULL;
		return rc;
	}
	return LB_DB_OK;
}

int lb_duckdb_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	return prepare(c, s);
}

static duckdb_state bind_one(duckdb_prepared_statement ps, idx_t i, const struct lb_db_param *pp)
{
	if (pp->is_null || pp->type == LB_DB_TYPE_NONE)
		return duckdb_bind_null(ps, i);
	switch (pp->type) {
	case LB_DB_TYPE_TINYINT:
	case LB_DB_TYPE_SMALLINT:
	case LB_DB_TYPE_INT:
	case LB_DB_TYPE_BIGINT:
		return duckdb_bind_int64(ps, i, pp->i64);
	case LB_DB_TYPE_FLOAT:
	case LB_DB_TYPE_DOUBLE:
		return duckdb_bind_double(ps, i, pp->f64);
	default: /* CHAR, VARCHAR, and dates given as text: DuckDB casts to the column's type */
		return duckdb_bind_varchar_length(ps, i, pp->str ? pp->str : "", pp->len);
	}
}

int lb_duckdb_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct duckdb_stmt *ds = s->priv;
	struct duckdb_conn *p = D(c);
	duckdb_state st;
	bool pulled;
	int rc = LB_DB_OK;

	if (!ds->ps)
		rc = prepare(c, s); /* first use after a reconnect or a failure */
	if (rc == LB_DB_OK && s->nparams && !s->params)
		rc = lb_db_misuse(c, "statement parameters are not bound");
	if (rc != LB_DB_OK)
		return rc;
	for (uint32_t i = 0; i < s->nparams; i++) {
		if (bind_one(ds->ps, i + 1, &s->params[i]) == DuckDBError) {
			lb_db_set_error(c, 0, "22023", false, "duckdb: cannot bind parameter %u: %s",
					i + 1, duckdb_prepare_error(ds->ps) ? duckdb_prepare_error(ds->ps) : "bad value");
			return LB_DB_EINVAL;
		}
	}
	if (p->has_result) {
		duckdb_destroy_result(&p->result);
		p->has_result = false;
	}
	lb_duckdb_rows_reset(&p->rows);
	lb_duckdb_timeout_arm(c);
	st = lb_duckdb_run(c, ds->ps, &pulled);
	lb_duckdb_timeout_disarm(c);
	return lb_duckdb_finish(c, st, pulled, s->sql, s->sql_len);
}

void lb_duckdb_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
	struct duckdb_stmt *ds = s->priv;

	if (ds->ps)
		duckdb_destroy_prepare(&ds->ps);
	ds->ps = NULL;
}
