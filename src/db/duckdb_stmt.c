/* DuckDB driver, prepared statements: duckdb_prepare once (DuckDB reads `?` placeholders
 * itself), the caller's values bound at every execution, duckdb_execute_prepared. Results are
 * read as for text queries (lb_duckdb_finish). */
#include "duckdb_int.h"

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
	p->next_row = 0;
	lb_duckdb_timeout_arm(c);
	duckdb_state st = duckdb_execute_prepared(ds->ps, &p->result);
	lb_duckdb_timeout_disarm(c);
	return lb_duckdb_finish(c, st, s->sql, s->sql_len);
}

void lb_duckdb_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
	struct duckdb_stmt *ds = s->priv;

	if (ds->ps)
		duckdb_destroy_prepare(&ds->ps);
	ds->ps = NULL;
}
