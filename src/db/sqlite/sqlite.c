/* SQLite driver on the system's libsqlite3: a database file, one connection (sqlite3 handle)
 * per luabench connection, the pragmas of --sqlite-* set on each. There is no server: a
 * statement runs on the calling thread, so "connect" opens the file and every call is done when
 * it returns, except a wait for a lock held by another connection (sqlite_exec.c). Statements
 * are in sqlite_exec.c, the options in sqlite_options.c. */
#include <stdio.h>
#include <unistd.h>

#include "sqlite_int.h"

#define DEFAULT_DB_FILE "sbtest.db"

/* ---- errors -------------------------------------------------------------------------------- */

/* A SQLSTATE for the codes workloads react to: busy and locked are what deadlocks and
 * serialization failures are to a server (retried), an interrupt is a statement timeout. */
static const char *sqlstate_of(int ext)
{
	switch (ext) {
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_PRIMARYKEY:
		return "23505";
	case SQLITE_CONSTRAINT_NOTNULL:
		return "23502";
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return "23503";
	case SQLITE_CONSTRAINT_CHECK:
		return "23514";
	}
	switch (ext & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return "40001";
	case SQLITE_INTERRUPT:
		return "57014";
	case SQLITE_CONSTRAINT:
		return "23000";
	}
	return "HY000";
}

/* The error number is SQLite's primary result code (5 = SQLITE_BUSY, 19 = SQLITE_CONSTRAINT,
 * ...), so that one entry of an ignore list covers its extended codes; the message is
 * SQLite's own. */
int lb_sqlite_error(struct lb_db_conn *c, int rc)
{
	struct sqlite_conn *p = SQ(c);
	int ext = p->db ? sqlite3_extended_errcode(p->db) : rc;

	if ((ext & 0xff) != (rc & 0xff))
		ext = rc;
	if ((rc & 0xff) == SQLITE_INTERRUPT && p->read_deadline_ns)
		lb_db_set_error(c, rc & 0xff, "57014", false, "statement interrupted: it ran longer "
				"than the read/statement timeout");
	else
		lb_db_set_error(c, rc & 0xff, sqlstate_of(ext), false, "%s",
				p->db ? sqlite3_errmsg(p->db) : sqlite3_errstr(rc));
	return LB_DB_ESQL;
}

/* ---- connect ------------------------------------------------------------------------------- */

static const char *db_path(const struct lb_db_options *o)
{
	return o->db && *o->db ? o->db : DEFAULT_DB_FILE;
}

static int connect_error(struct lb_db_conn *c, const char *what)
{
	struct sqlite_conn *p = SQ(c);

	lb_db_set_error(c, p->db ? sqlite3_errcode(p->db) & 0xff : 0, "08001", false,
			"sqlite: cannot open database '%s': %s: %s", db_path(&c->cfg->opts), what,
			p->db ? sqlite3_errmsg(p->db) : "out of memory");
	return LB_DB_ECONNECT;
}

/* Runs one statement of the connect sequence, keeping the text value of its first row (the
 * value of a PRAGMA) when `value` is given. */
static int exec_one(struct lb_db_conn *c, const char *sql, char *value, size_t len)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(SQ(c)->db, sql, -1, &st, NULL);

	if (value && len)
		value[0] = '\0';
	if (rc == SQLITE_OK)
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const unsigned char *v = sqlite3_column_text(st, 0);
			if (value && len && !value[0])
				snprintf(value, len, "%s", v ? (const char *)v : "");
		}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static const char *const SYNCHRONOUS[] = { "off", "normal", "full", "extra" };

/* The pragmas in force that decide how fast SQLite runs, for the results: the journal and its
 * durability, the page cache, the page size, memory-mapped I/O, where temporary tables go, the
 * locking mode, how often the WAL is checkpointed, and the client-side settings. */
static void note_settings(struct lb_db_conn *c, const char *journal, const char *sync, const char *cache)
{
	struct sqlite_conn *p = SQ(c);
	const struct lb_db_options *o = &c->cfg->opts;
	static const char *const more[] = { "page_size", "mmap_size", "temp_store", "locking_mode",
					    "wal_autocheckpoint" };
	int n = snprintf(p->settings, sizeof(p->settings), "journal_mode=%s\nsynchronous=%s\ncache_size=%s\n",
			 journal, sync, cache);
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]) && n > 0 && (size_t)n < sizeof(p->settings); i++) {
		char sql[64], v[32] = "";
		snprintf(sql, sizeof(sql), "PRAGMA %s", more[i]);
		if (exec_one(c, sql, v, sizeof(v)) == SQLITE_OK)
			n += snprintf(p->settings + n, sizeof(p->settings) - (size_t)n, "%s=%s\n", more[i], v);
	}
	if (n > 0 && (size_t)n < sizeof(p->settings))
		snprintf(p->settings + n, sizeof(p->settings) - (size_t)n, "busy_timeout_ms=%d\nbegin=%s\n",
			 (int)o->sqlite_busy_timeout_ms, o->sqlite_begin && *o->sqlite_begin ? o->sqlite_begin : "deferred");
}

/* The pragmas of the options, then what is in force (a journal mode the database cannot have,
 * such as wal for :memory:, leaves another), for the results. */
static int set_pragmas(struct lb_db_conn *c)
{
	struct sqlite_conn *p = SQ(c);
	const struct lb_db_options *o = &c->cfg->opts;
	char sql[96], journal[32], sync[16], cache[32];
	long syncn;

	if (o->sqlite_journal_mode && *o->sqlite_journal_mode) {
		snprintf(sql, sizeof(sql), "PRAGMA journal_mode = %s", o->sqlite_journal_mode);
		/* Changing the mode of a database another connection is opening returns BUSY without
		 * asking the busy handler: retry it until the lock deadline. */
		int rc;
		while (((rc = exec_one(c, sql, NULL, 0)) & 0xff) == SQLITE_BUSY && p->op.lock_deadline_ns &&
		       lb_now_ns() < p->op.lock_deadline_ns)
			lb_sleep_until_ns(lb_now_ns() + 5 * 1000000);
		if (rc != SQLITE_OK)
			return connect_error(c, sql);
	}
	if (o->sqlite_synchronous && *o->sqlite_synchronous) {
		snprintf(sql, sizeof(sql), "PRAGMA synchronous = %s", o->sqlite_synchronous);
		if (exec_one(c, sql, NULL, 0) != SQLITE_OK)
			return connect_error(c, sql);
	}
	if (o->sqlite_cache_size) {
		snprintf(sql, sizeof(sql), "PRAGMA cache_size = %lld", (long long)o->sqlite_cache_size);
		if (exec_one(c, sql, NULL, 0) != SQLITE_OK)
			return connect_error(c, sql);
	}
	if (exec_one(c, "PRAGMA journal_mode", journal, sizeof(journal)) != SQLITE_OK ||
	    exec_one(c, "PRAGMA synchronous", sync, sizeof(sync)) != SQLITE_OK ||
	    exec_one(c, "PRAGMA cache_size", cache, sizeof(cache)) != SQLITE_OK)
		return connect_error(c, "reading the pragmas");
	syncn = strtol(sync, NULL, 10);
	note_settings(c, journal, syncn >= 0 && syncn <= 3 ? SYNCHRONOUS[syncn] : sync, cache);
	snprintf(p->version, sizeof(p->version),
		 "SQLite %s (journal_mode=%s, synchronous=%s, cache_size=%s, busy_timeout=%d ms, "
		 "begin=%s)", sqlite3_libversion(), journal,
		 syncn >= 0 && syncn <= 3 ? SYNCHRONOUS[syncn] : sync, cache,
		 (int)o->sqlite_busy_timeout_ms,
		 o->sqlite_begin && *o->sqlite_begin ? o->sqlite_begin : "deferred");
	return LB_DB_OK;
}

/* Opening is local and quick, but setting the journal mode takes a lock that other connections
 * opening at the same moment hold too: connect waits for it up to the connect deadline. */
static int sqlite_connect_start(struct lb_db_conn *c, int64_t deadline_ns)
{
	struct sqlite_conn *p = SQ(c);
	const struct lb_db_options *o = &c->cfg->opts;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
		    SQLITE_OPEN_URI;
	int rc;

	rc = sqlite3_open_v2(db_path(o), &p->db, flags, NULL);
	if (rc != SQLITE_OK)
		return connect_error(c, "open");
	sqlite3_extended_result_codes(p->db, 1);
	sqlite3_busy_handler(p->db, lb_sqlite_busy_handler, c);
	if (c->cfg->read_timeout_ms || o->statement_timeout_ms > 0)
		sqlite3_progress_handler(p->db, 1000, lb_sqlite_progress_handler, c);
	p->nonblocking = false;
	/* Setting the journal mode takes the database's lock: two connections opening a fresh
	 * file at once (a parallel prepare) wait for it as a statement would, within the connect
	 * deadline when there is one. */
	int64_t busy_ns = lb_db_deadline_ms((uint32_t)(o->sqlite_busy_timeout_ms > 0 ? o->sqlite_busy_timeout_ms : 0));
	p->op.lock_deadline_ns = deadline_ns > 0 && (!busy_ns || deadline_ns < busy_ns) ? deadline_ns : busy_ns;
	rc = set_pragmas(c);
	p->op.lock_deadline_ns = 0;
	return rc;
}

static void sqlite_close(struct lb_db_conn *c)
{
	struct sqlite_conn *p = SQ(c);

	lb_sqlite_op_end(c);
	lb_sqlite_result_free(c);
	if (p->db)
		sqlite3_close_v2(p->db); /* statements left are released by the core first */
	p->db = NULL;
	p->version[0] = '\0';
	p->settings[0] = '\0';
}

static void sqlite_conn_fini(struct lb_db_conn *c)
{
	struct sqlite_conn *p = SQ(c);

	if (p->timer_fd > 0)
		close(p->timer_fd);
	lb_db_rows_free(&p->rows);
}

/* ---- what the session knows ---------------------------------------------------------------- */

static int sqlite_in_transaction(struct lb_db_conn *c)
{
	return SQ(c)->db && !sqlite3_get_autocommit(SQ(c)->db);
}

static void sqlite_server_version(struct lb_db_conn *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", SQ(c)->version);
}

static void sqlite_settings(struct lb_db_conn *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", SQ(c)->settings);
}

const struct lb_db_ops lb_db_sqlite_ops = {
	.version = LB_DB_OPS_VERSION,
	.name = "sqlite",
	.description = "SQLite driver (libsqlite3; a database file, no server)",
	.quoting = LB_DB_QUOTING_PGSQL, /* '' strings and "identifiers", as SQLite */
	.conn_priv_size = sizeof(struct sqlite_conn),
	.stmt_priv_size = sizeof(struct sqlite_stmt),
	/* SQLITE_BUSY and SQLITE_LOCKED: another connection holds the lock past the busy timeout,
	 * or two transactions would deadlock; the event is retried, as after a deadlock */
	.default_ignore_errors = "5,6",
	.check_options = lb_sqlite_check_options,
	.check_options_at_start = true,
	.conn_fini = sqlite_conn_fini,
	.connect_start = sqlite_connect_start,
	.close = sqlite_close,
	.query_start = lb_sqlite_query_start,
	.step = lb_sqlite_step,
	.fetch_row = lb_sqlite_fetch_row,
	.result_free = lb_sqlite_result_free,
	.prepare_start = lb_sqlite_prepare_start,
	.execute_start = lb_sqlite_execute_start,
	.stmt_release = lb_sqlite_stmt_release,
	.options = lb_sqlite_options,
	.read_options = lb_sqlite_read_options,
	.in_transaction = sqlite_in_transaction,
	.server_version = sqlite_server_version,
	.settings = sqlite_settings,
};
