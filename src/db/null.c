/* The null driver: no server, every call succeeds at once. It lets the engine, the Lua layer
 * and the workloads be tested without a database. So that their read/write/other counters mean
 * something, a statement is classed by its first keyword: SELECT/SHOW/WITH/VALUES/EXPLAIN give
 * an empty result set (READ), INSERT/UPDATE/DELETE/REPLACE affect one row (WRITE), anything
 * else is OTHER. */
#include <ctype.h>
#include <strings.h>

#include "db_int.h"

static bool starts_with_word(const char *sql, size_t len, const char *word)
{
	size_t n = strlen(word);
	return len >= n && strncasecmp(sql, word, n) == 0 &&
	       (len == n || !isalnum((unsigned char)sql[n]));
}

static void classify(struct lb_db_conn *c, const char *sql, size_t len)
{
	static const char *const reads[] = { "SELECT", "SHOW", "WITH", "VALUES", "EXPLAIN" };
	static const char *const writes[] = { "INSERT", "UPDATE", "DELETE", "REPLACE" };

	while (len && (isspace((unsigned char)*sql) || *sql == '('))
		sql++, len--;
	c->res.kind = LB_DB_KIND_OTHER;
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (starts_with_word(sql, len, reads[i]))
			c->res.kind = LB_DB_KIND_READ;
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		if (starts_with_word(sql, len, writes[i])) {
			c->res.kind = LB_DB_KIND_WRITE;
			c->res.affected_rows = 1;
		}
	}
}

static int null_connect_start(struct lb_db_conn *c, int64_t deadline_ns)
{
	return LB_DB_OK;
}

static void null_close(struct lb_db_conn *c)
{
}

static int null_query_start(struct lb_db_conn *c, const char *sql, size_t len)
{
	classify(c, sql, len);
	return LB_DB_OK;
}

static int null_step(struct lb_db_conn *c, uint32_t ready)
{
	return LB_DB_OK; /* never pending, so never called in practice */
}

static int null_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	return 0;
}

static void null_result_free(struct lb_db_conn *c)
{
}

static int null_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	return LB_DB_OK;
}

static int null_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	classify(c, s->sql, s->sql_len);
	return LB_DB_OK;
}

static void null_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
}

/* Pipelines: each statement is classified as it is queued, and the sync answers at once. */
static int null_pipeline_begin(struct lb_db_conn *c)
{
	return LB_DB_OK;
}

static int null_pipeline_query(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct lb_db_pipe_result *it = &c->pipe.items[c->pipe.count];

	memset(&c->res, 0, sizeof(c->res));
	classify(c, sql, len);
	it->r = c->res;
	it->status = LB_DB_PIPE_DONE;
	return LB_DB_OK;
}

static int null_pipeline_execute(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	return null_pipeline_query(c, s->sql, s->sql_len);
}

static int null_pipeline_sync_start(struct lb_db_conn *c)
{
	return LB_DB_OK;
}

static int null_pipeline_fetch_row(struct lb_db_conn *c, uint32_t i, uint64_t rowno,
				   const char **values, uint64_t *lengths)
{
	return 0;
}

static void null_pipeline_abort(struct lb_db_conn *c)
{
}

const struct lb_db_ops lb_db_null_ops = {
	.version = LB_DB_OPS_VERSION,
	.name = "null",
	.description = "no database: every statement succeeds at once (for tests)",
	.quoting = LB_DB_QUOTING_PGSQL,
	.default_ignore_errors = "",
	.connect_start = null_connect_start,
	.close = null_close,
	.query_start = null_query_start,
	.step = null_step,
	.fetch_row = null_fetch_row,
	.result_free = null_result_free,
	.prepare_start = null_prepare_start,
	.execute_start = null_execute_start,
	.stmt_release = null_stmt_release,
	.pipeline_begin = null_pipeline_begin,
	.pipeline_query = null_pipeline_query,
	.pipeline_execute = null_pipeline_execute,
	.pipeline_sync_start = null_pipeline_sync_start,
	.pipeline_fetch_row = null_pipeline_fetch_row,
	.pipeline_abort = null_pipeline_abort,
};
