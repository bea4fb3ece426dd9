/* DuckDB driver on DuckDB's official C library: an in-process engine, so there is no server and
 * no socket. Every operation is done when its *_start call returns (never LB_DB_PENDING), as the
 * odbc driver's. Connections of one process that name the same database file (or :memory:)
 * share one database instance through DuckDB's instance cache: one connection per worker, as
 * DuckDB wants it. A SELECT streams: its rows are DuckDB's data chunks, read in place
 * (duckdb_result.c). COPY ... FROM STDIN goes through DuckDB's appender (duckdb_copy.c). */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <strings.h>

#include "duckdb_int.h"

/* The instance cache is the process's one piece of DuckDB state: made once, then only used
 * (DuckDB locks it), so that every connection to a path reaches the same database. */
static duckdb_instance_cache instance_cache;

static int duckdb_library_init(void)
{
	if (lb_duckdb_load(NULL, 0) < 0)
		return LB_DB_ENOTSUP;
	instance_cache = duckdb_create_instance_cache();
	return instance_cache ? 0 : LB_DB_ENOTSUP;
}

/* ---- errors -------------------------------------------------------------------------------- */

int lb_duckdb_error(struct lb_db_conn *c, duckdb_error_type type, const char *msg)
{
	/* "Constraint Error: Duplicate key ..." and "TransactionContext Error: Conflict on ...":
	 * DuckDB's messages can run over several lines; the first says what happened. */
	lb_db_set_error(c, (int32_t)type, lb_duckdb_sqlstate(type, msg), false, "%s",
			msg && *msg ? msg : "DuckDB call failed");
	return LB_DB_ESQL;
}

/* ---- transactions --------------------------------------------------------------------------
 * The C API does not say whether a connection is inside a transaction: follow the statements
 * that open and end one (the SQL layer rolls back a failed attempt's transaction before a
 * retry): a transaction whose statement failed stays open, aborted, until ROLLBACK. */

static bool first_word_is(const char *sql, size_t len, const char *word)
{
	size_t n = strlen(word);

	while (len && (isspace((unsigned char)*sql) || *sql == '('))
		sql++, len--;
	return len >= n && !strncasecmp(sql, word, n) && (len == n || !isalnum((unsigned char)sql[n]));
}

static void track_transaction(struct lb_db_conn *c, const char *sql, size_t len)
{
	if (first_word_is(sql, len, "BEGIN") || first_word_is(sql, len, "START"))
		D(c)->in_trans = true;
	else if (first_word_is(sql, len, "COMMIT") || first_word_is(sql, len, "END") ||
		 first_word_is(sql, len, "ROLLBACK") || first_word_is(sql, len, "ABORT"))
		D(c)->in_trans = false;
}

static int duckdb_in_transaction(struct lb_db_conn *c)
{
	return D(c)->in_trans;
}

/* ---- results ------------------------------------------------------------------------------- */

static void result_reset(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);

	if (p->has_result) {
		duckdb_destroy_result(&p->result);
		p->has_result = false;
	}
	lb_duckdb_rows_reset(&p->rows);
}

/* The failure of the statement in p->result: the statement timeout's interrupt as such. */
static int result_error(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);
	int rc;

	if (p->timed_out && duckdb_result_error_type(&p->result) == DUCKDB_ERROR_INTERRUPT) {
		lb_db_set_error(c, DUCKDB_ERROR_INTERRUPT, "57014", false,
				"duckdb: canceling statement due to statement timeout (%d ms)", (int)p->timeout_ms);
		rc = LB_DB_ESQL;
	} else {
		rc = lb_duckdb_error(c, duckdb_result_error_type(&p->result), duckdb_result_error(&p->result));
	}
	result_reset(c);
	/* A failed statement leaves its transaction open and aborted ("please ROLLBACK"): in_trans
	 * stays, so that the SQL layer rolls it back before a retry. */
	return rc;
}

/* A result set: its rows pulled from DuckDB's chunks (a materialised result's now). */
static void take_rows(struct lb_db_conn *c, bool pulled)
{
	struct duckdb_conn *p = D(c);

	c->res.kind = LB_DB_KIND_READ;
	c->res.nfields = (uint32_t)duckdb_column_count(&p->result);
	if (!pulled)
		lb_duckdb_rows_pull(&p->rows, &p->result);
	duckdb_destroy_result(&p->result);
	p->has_result = false;
	c->res.nrows = p->rows.nrows;
}

/* The outcome of a statement: a result set (READ), rows changed (WRITE) or nothing (OTHER). A
 * statement that changes rows answers with one row holding the count: that row is not a result
 * set for the caller. */
int lb_duckdb_finish(struct lb_db_conn *c, duckdb_state st, bool pulled, const char *sql, size_t len)
{
	struct duckdb_conn *p = D(c);
	duckdb_statement_type type;

	p->has_result = true;
	/* a streamed statement can also fail while its rows are pulled */
	if (st == DuckDBError || (pulled && duckdb_result_error(&p->result)))
		return result_error(c);
	if (sql)
		track_transaction(c, sql, len);
	type = duckdb_result_statement_type(p->result);
	if (type == DUCKDB_STATEMENT_TYPE_INSERT || type == DUCKDB_STATEMENT_TYPE_UPDATE ||
	    type == DUCKDB_STATEMENT_TYPE_DELETE) {
		uint64_t n = duckdb_rows_changed(&p->result);
		c->res.kind = n ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
		c->res.affected_rows = n;
		result_reset(c);
		return LB_DB_OK;
	}
	if (type != DUCKDB_STATEMENT_TYPE_SELECT && type != DUCKDB_STATEMENT_TYPE_EXPLAIN &&
	    type != DUCKDB_STATEMENT_TYPE_PRAGMA && type != DUCKDB_STATEMENT_TYPE_CALL &&
	    type != DUCKDB_STATEMENT_TYPE_EXECUTE && type != DUCKDB_STATEMENT_TYPE_RELATION) {
		c->res.kind = LB_DB_KIND_OTHER;
		result_reset(c);
		return LB_DB_OK;
	}
	take_rows(c, pulled);
	return LB_DB_OK;
}

static void duckdb_result_free(struct lb_db_conn *c)
{
	result_reset(c);
}

/* ---- statements ---------------------------------------------------------------------------- */

/* A text of one statement is prepared and run as a prepared statement is, so that a SELECT
 * streams; several statements in one text (the last one's result is the text's), and a
 * statement DuckDB cannot prepare (whose error, typed, comes from running it), go through
 * duckdb_query. */
static duckdb_state run_text(struct lb_db_conn *c, const char *sql, bool *pulled)
{
	struct duckdb_conn *p = D(c);
	duckdb_extracted_statements ext = NULL;
	duckdb_prepared_statement ps = NULL;
	duckdb_state st;

	*pulled = false;
	/* sql is NUL-terminated at sql[len] (driver.h) */
	if (duckdb_extract_statements(p->con, sql, &ext) == 1 &&
	    duckdb_prepare_extracted_statement(p->con, ext, 0, &ps) == DuckDBSuccess)
		st = lb_duckdb_run(c, ps, pulled);
	else
		st = duckdb_query(p->con, sql, &p->result);
	duckdb_destroy_prepare(&ps);
	duckdb_destroy_extracted(&ext);
	return st;
}

static int duckdb_query_start(struct lb_db_conn *c, const char *sql, size_t len)
{
	duckdb_state st;
	bool pulled;
	int rc;

	result_reset(c);
	if (lb_duckdb_timeout_statement(c, sql, len, &rc))
		return rc;
	lb_duckdb_timeout_arm(c);
	st = run_text(c, sql, &pulled);
	lb_duckdb_timeout_disarm(c);
	return lb_duckdb_finish(c, st, pulled, sql, len);
}

static int duckdb_step(struct lb_db_conn *c, uint32_t ready)
{
	return LB_DB_OK; /* nothing is ever pending */
}

/* ---- connect ------------------------------------------------------------------------------- */

static int connect_error(struct lb_db_conn *c, const char *path, const char *why)
{
	lb_db_set_error(c, 0, "08001", false, "duckdb: cannot open the database '%s': %s", path,
			why ? why : "unknown error");
	return LB_DB_ECONNECT;
}

static int set_config(struct lb_db_conn *c, duckdb_config cfg, const char *name, const char *value)
{
	if (duckdb_set_config(cfg, name, value) == DuckDBError) {
		lb_db_set_error(c, 0, "08001", false, "duckdb: invalid setting %s = '%s'", name, value);
		return LB_DB_ECONNECT;
	}
	return LB_DB_OK;
}

/* The settings that decide how fast DuckDB runs, for the results, as in force on the database:
 * threads (one query's parallelism), memory_limit (past it operators spill), temp_directory
 * (where they spill to: which disk), preserve_insertion_order (false lets large results and
 * loads run out of order, in less memory) and checkpoint_threshold (how much WAL a write
 * workload accumulates before a checkpoint writes it into the file). */
static const char SETTINGS_SQL[] =
	"SELECT current_setting('threads')::VARCHAR, current_setting('memory_limit')::VARCHAR, "
	"current_setting('checkpoint_threshold')::VARCHAR, "
	"current_setting('preserve_insertion_order')::VARCHAR, "
	"current_setting('temp_directory')::VARCHAR";
static const char *const SETTINGS[] = { "threads", "memory_limit", "checkpoint_threshold",
					 "preserve_insertion_order", "temp_directory" };

/* "DuckDB 1.5.6 (threads=2, memory_limit=18.8 GiB, ...)", or the version alone should DuckDB
 * refuse the query. */
static void describe(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);
	const char *v = duckdb_library_version();
	duckdb_result r;
	size_t n;

	n = (size_t)snprintf(p->version, sizeof(p->version), "DuckDB %s", v + (v[0] == 'v'));
	p->settings[0] = '\0';
	if (duckdb_query(p->con, SETTINGS_SQL, &r) == DuckDBError) {
		duckdb_destroy_result(&r);
		return;
	}
	size_t s = 0;
	for (idx_t i = 0; i < sizeof(SETTINGS) / sizeof(SETTINGS[0]) && n < sizeof(p->version); i++) {
		char *val = duckdb_value_varchar(&r, i, 0);
		n += (size_t)snprintf(p->version + n, sizeof(p->version) - n, "%s%s=%s", i ? ", " : " (",
				      SETTINGS[i], val ? val : "");
		if (s < sizeof(p->settings))
			s += (size_t)snprintf(p->settings + s, sizeof(p->settings) - s, "%s=%s\n", SETTINGS[i], val ? val : "");
		duckdb_free(val);
	}
	if (n < sizeof(p->version))
		snprintf(p->version + n, sizeof(p->version) - n, ")");
	duckdb_destroy_result(&r);
}

static int duckdb_connect_start(struct lb_db_conn *c, int64_t deadline_ns)
{
	struct duckdb_conn *p = D(c);
	const struct lb_db_options *o = &c->cfg->opts;
	const char *path = o->db && *o->db ? o->db : LB_DUCKDB_DEFAULT_PATH;
	duckdb_config cfg = NULL;
	char *err = NULL;
	char threads[24];
	int rc = LB_DB_OK;

	if (duckdb_create_config(&cfg) == DuckDBError)
		return connect_error(c, path, "cannot create a configuration");
	/* The extensions DuckDB needs are linked in: never reach for the network to fetch one. */
	rc = set_config(c, cfg, "autoinstall_known_extensions", "false");
	/* DuckDB's own default is every online CPU; under taskset or a container's cpuset that is
	 * more threads than CPUs: the default follows the CPUs the process may use. (The process's
	 * set, not this thread's: every connection to the instance must ask for the same.) */
	snprintf(threads, sizeof(threads), "%d", o->duckdb_threads > 0 ? (int)o->duckdb_threads : lb_process_cpus());
	if (rc == LB_DB_OK)
		rc = set_config(c, cfg, "threads", threads);
	if (rc == LB_DB_OK && o->duckdb_memory_limit && *o->duckdb_memory_limit)
		rc = set_config(c, cfg, "memory_limit", o->duckdb_memory_limit);
	if (rc == LB_DB_OK &&
	    duckdb_get_or_create_from_cache(instance_cache, path, &p->db, cfg, &err) == DuckDBError) {
		rc = connect_error(c, path, err);
		p->db = NULL;
	}
	duckdb_free(err);
	duckdb_destroy_config(&cfg);
	if (rc != LB_DB_OK)
		return rc;
	if (duckdb_connect(p->db, &p->con) == DuckDBError) {
		duckdb_close(&p->db);
		return connect_error(c, path, "cannot connect to it");
	}
	describe(c);
	/* --db-statement-timeout: every session starts with it, reconnected ones too */
	return lb_duckdb_timeout_set(c, o->statement_timeout_ms) == LB_DB_OK ? LB_DB_OK : LB_DB_ECONNECT;
}

static void duckdb_close_session(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);

	result_reset(c);
	lb_duckdb_appender_drop(c);
	lb_duckdb_timeout_stop(c); /* before the connection its thread interrupts goes */
	if (p->con)
		duckdb_disconnect(&p->con);
	if (p->db)
		duckdb_close(&p->db);
	p->con = NULL;
	p->db = NULL;
	p->in_trans = false;
}

static void duckdb_conn_fini(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);

	duckdb_close_session(c);
	lb_duckdb_rows_free(&p->rows);
}

static void duckdb_server_version(struct lb_db_conn *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", D(c)->version);
}

static void duckdb_settings(struct lb_db_conn *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", D(c)->settings);
}

/* The values DuckDB would refuse when the first connection opens, refused before the run: a
 * memory_limit DuckDB cannot read is tried on a configuration of its own (DuckDB parses a
 * setting when it is set). */
static int duckdb_check_options(const struct lb_db_options *o, char *err, size_t errlen)
{
	duckdb_config cfg = NULL;

	/* before anything runs: the library is what the other checks need first */
	if (lb_duckdb_load(err, errlen) < 0)
		return LB_DB_EINVAL;
	if (o->duckdb_threads < 0) {
		snprintf(err, errlen, "invalid --duckdb-threads value %d (expected 0 for one per CPU luabench may use, or more)",
			 (int)o->duckdb_threads);
		return LB_DB_EINVAL;
	}
	if (o->duckdb_memory_limit && *o->duckdb_memory_limit) {
		bool ok = duckdb_create_config(&cfg) == DuckDBSuccess &&
			  duckdb_set_config(cfg, "memory_limit", o->duckdb_memory_limit) == DuckDBSuccess;
		duckdb_destroy_config(&cfg);
		if (!ok) {
			snprintf(err, errlen, "invalid --duckdb-memory-limit value '%.40s' (expected a size "
				 "DuckDB reads, e.g. 4GB or 512MiB)", o->duckdb_memory_limit);
			return LB_DB_EINVAL;
		}
	}
	return lb_db_check_file_kind(o->db && *o->db ? o->db : LB_DUCKDB_DEFAULT_PATH, "DuckDB",
				     "duckdb-db", err, errlen);
}

const struct lb_db_ops lb_db_duckdb_ops = {
	.version = LB_DB_OPS_VERSION,
	.name = "duckdb",
	.description = "DuckDB driver (DuckDB's C library, in-process; blocking calls)",
	.quoting = LB_DB_QUOTING_PGSQL, /* standard quoting for finding `?` */
	.conn_priv_size = sizeof(struct duckdb_conn),
	.stmt_priv_size = sizeof(struct duckdb_stmt),
	/* write-write conflicts (DuckDB's optimistic concurrency control) and duplicate keys */
	.default_ignore_errors = "40001,23505",
	.library_init = duckdb_library_init,
	.check_options = duckdb_check_options,
	.check_options_at_start = true,
	.conn_fini = duckdb_conn_fini,
	.connect_start = duckdb_connect_start,
	.close = duckdb_close_session,
	.query_start = duckdb_query_start,
	.step = duckdb_step,
	.fetch_row = lb_duckdb_fetch_row,
	.result_free = duckdb_result_free,
	.next_row = lb_duckdb_next_row,
	.row_value = lb_duckdb_row_value,
	.prepare_start = lb_duckdb_prepare_start,
	.execute_start = lb_duckdb_execute_start,
	.stmt_release = lb_duckdb_stmt_release,
	.copy_start = lb_duckdb_copy_start,
	.options = lb_duckdb_options,
	.read_options = lb_duckdb_read_options,
	.in_transaction = duckdb_in_transaction,
	.server_version = duckdb_server_version,
	.settings = duckdb_settings,
	/* queries run on the calling thread too, deep in DuckDB's C++ (sysbench's 64K is far too
	 * little: a sort overflows it) */
	.thread_stack_bytes = 8 * 1024 * 1024,
};
