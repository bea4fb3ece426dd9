/* The sqlite driver against a real database file in a fresh temporary directory: text queries
 * (rows, NULLs, kinds, affected rows, several statements in one text), prepared statements of
 * every parameter type, errors with SQLite's codes and their SQLSTATEs, ignore lists, the
 * transaction state, the pragmas in force, bad options, and waiting for a lock another
 * connection holds: blocking in the busy handler, failing at once without a busy timeout, and
 * the non-blocking wait (emulated users) on a timerfd. */
#include <poll.h>
#include <pthread.h>
#include <sqlite3.h>

#include "dbtest.h"

static char dir[256], path[300];

static struct lb_db_options options(int32_t busy_ms)
{
	struct lb_db_options o = { 0 };

	o.db = path;
	o.sqlite_journal_mode = "wal";
	o.sqlite_synchronous = "normal";
	o.sqlite_cache_size = -4000;
	o.sqlite_busy_timeout_ms = busy_ms;
	o.connect_timeout_ms = 3000;
	return o;
}

static struct lb_db_config *config(int32_t busy_ms)
{
	struct lb_db_options o = options(busy_ms);
	struct lb_db_config *cfg = NULL;
	char err[256];

	if (lb_db_config_new(lb_db_find_driver("sqlite"), &o, &cfg, err, sizeof(err)) != 0)
		ok(0, "config: %s", err);
	return cfg;
}

static void test_text(struct lb_db_conn *c)
{
	const char *sql;
	struct lb_db_result r;
	char v[64];

	dbt_check_two_rows(c);
	is_int(dbt_exec(c, "CREATE TABLE t (id INTEGER PRIMARY KEY, k BIGINT, c TEXT, d DOUBLE, n VARCHAR(10))"),
	       LB_DB_KIND_OTHER, "create table is OTHER");
	is_int(dbt_exec(c, "INSERT INTO t (id, k) VALUES (100, 1), (101, 2), (102, 3)"),
	       LB_DB_KIND_WRITE, "insert is WRITE");
	sql = "UPDATE t SET k = k + 1 WHERE id >= 101";
	lb_db_query(c, sql, strlen(sql), &r);
	is_int(r.affected_rows, 2, "update affected 2 rows");
	/* changes() still says 2 after statements that change nothing */
	is_int(dbt_exec(c, "BEGIN"), LB_DB_KIND_OTHER, "BEGIN is OTHER, not the last UPDATE's count");
	is_int(lb_db_conn_in_transaction(c), 1, "in a transaction after BEGIN");
	is_int(dbt_exec(c, "UPDATE t SET k = 0 WHERE id = -1"), LB_DB_KIND_OTHER, "0-row update is OTHER");
	is_int(dbt_exec(c, "DELETE FROM t WHERE id >= 101"), LB_DB_KIND_WRITE, "delete is WRITE");
	is_int(dbt_exec(c, "COMMIT"), LB_DB_KIND_OTHER, "COMMIT is OTHER");
	is_int(lb_db_conn_in_transaction(c), 0, "not in a transaction after COMMIT");
	is_str(dbt_value(c, "SELECT COUNT(*) FROM t", v, sizeof(v)), "1", "one row left");

	sql = "SELECT 7; INSERT INTO t (id) VALUES (200); SELECT 8";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "three statements in one text");
	is_int(r.kind, LB_DB_KIND_READ, "the first one's result");
	dbt_check_row(c, (const char *[]){ "7" }, 1, "its row");
	is_str(dbt_value(c, "SELECT COUNT(*) FROM t WHERE id = 200", v, sizeof(v)), "1",
	       "the later statements ran");
	is_str(dbt_value(c, "INSERT INTO t (k) VALUES (5) RETURNING id", v, sizeof(v)), "201",
	       "RETURNING gives the rowid");

	/* typed access on a driver that has no types of its own: fetch_row's text */
	struct lb_db_value val;
	sql = "SELECT 7, NULL, 'xy'";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "a row to read typed");
	is_int(lb_db_row_value(c, 0, &val), LB_DB_EINVAL, "no current row before next_row");
	is_int(lb_db_next_row(c), 1, "next_row moves to it");
	ok(lb_db_row_value(c, 0, &val) == LB_DB_OK && val.type == LB_DB_VALUE_TEXT && val.len == 1 &&
	   val.str[0] == '7', "a number is its text");
	ok(lb_db_row_value(c, 1, &val) == LB_DB_OK && val.type == LB_DB_VALUE_NULL, "NULL is NULL");
	ok(lb_db_row_value(c, 2, &val) == LB_DB_OK && val.type == LB_DB_VALUE_TEXT && val.len == 2 &&
	   memcmp(val.str, "xy", 2) == 0, "a string is its text");
	is_int(lb_db_row_value(c, 3, &val), LB_DB_EINVAL, "no fourth column");
	is_int(lb_db_next_row(c), 0, "then the end");
	is_int(lb_db_row_value(c, 0, &val), LB_DB_EINVAL, "and no current row");
}

static void test_prepared(struct lb_db_conn *c)
{
	static char big[10240];
	struct lb_db_param p[5], key = { .type = LB_DB_TYPE_INT };
	struct lb_db_stmt *ins = NULL, *sel = NULL;
	struct lb_db_result r;
	const char *sql = "INSERT INTO t (id, k, c, d, n) VALUES (?, ?, ?, ?, ?)";

	memset(big, 'q', sizeof(big));
	p[0] = (struct lb_db_param){ .type = LB_DB_TYPE_INT, .i64 = 1 };
	p[1] = (struct lb_db_param){ .type = LB_DB_TYPE_BIGINT, .i64 = 5000000000123LL };
	p[2] = (struct lb_db_param){ .type = LB_DB_TYPE_VARCHAR, .str = big, .len = sizeof(big) };
	p[3] = (struct lb_db_param){ .type = LB_DB_TYPE_DOUBLE, .f64 = 1234.5678 };
	p[4] = (struct lb_db_param){ .type = LB_DB_TYPE_VARCHAR, .is_null = 1 };
	is_int(lb_db_prepare(c, sql, strlen(sql), &ins), LB_DB_OK, "prepare insert");
	is_int(lb_db_stmt_bind(ins, p, 5), LB_DB_OK, "bind INT, BIGINT, 10 KB VARCHAR, DOUBLE, NULL");
	is_int(lb_db_execute(ins, &r), LB_DB_OK, "execute");
	is_int(r.kind, LB_DB_KIND_WRITE, "prepared insert is WRITE");
	is_int(r.affected_rows, 1, "1 row");
	p[0].i64 = 2;
	p[1].is_null = 1;
	p[2] = (struct lb_db_param){ .type = LB_DB_TYPE_CHAR, .str = "it's", .len = 4 };
	p[3].f64 = -0.25;
	is_int(lb_db_execute(ins, &r), LB_DB_OK, "execute again with values changed in place");
	is_int(lb_db_execute(ins, &r), LB_DB_ESQL, "third execution: duplicate key");
	const struct lb_db_error *e = lb_db_conn_error(c);
	is_int(e->sql_errno, 19, "SQLITE_CONSTRAINT (19)");
	is_str(e->sqlstate, "23505", "unique violation maps to SQLSTATE 23505");
	ok(strstr(e->message, "UNIQUE constraint failed") != NULL, "SQLite's message: %s", e->message);
	is_int(e->error_class, LB_DB_ERROR_FATAL, "not in the default ignore list");

	sql = "SELECT id, k, length(c), d, n FROM t WHERE id = ?";
	is_int(lb_db_prepare(c, sql, strlen(sql), &sel), LB_DB_OK, "prepare select");
	lb_db_stmt_bind(sel, &key, 1);
	key.i64 = 1;
	is_int(lb_db_execute(sel, &r), LB_DB_OK, "select row 1");
	dbt_check_row(c, (const char *[]){ "1", "5000000000123", "10240", "1234.5678", NULL }, 5,
		  "types and a NULL read back");
	key.i64 = 2;
	lb_db_execute(sel, &r);
	dbt_check_row(c, (const char *[]){ "2", NULL, "4", "-0.25", NULL }, 5, "second row");
	key.i64 = 3;
	lb_db_execute(sel, &r);
	is_int(r.kind, LB_DB_KIND_READ, "no row is still READ");
	is_int(r.nrows, 0, "0 rows");
	lb_db_stmt_free(ins);
	lb_db_stmt_free(sel);

	sql = "SELECT :name";
	is_int(lb_db_prepare(c, sql, strlen(sql), &sel), LB_DB_EINVAL, "a named parameter is refused");
	ok(strstr(lb_db_conn_error(c)->message, "only '?'") != NULL, "and says why: %s",
	   lb_db_conn_error(c)->message);
	sql = "SELECT * FROM nonesuch";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_ESQL, "unknown table");
	is_int(lb_db_conn_error(c)->sql_errno, 1, "SQLITE_ERROR (1)");
	ok(strstr(lb_db_conn_error(c)->message, "no such table: nonesuch") != NULL, "%s",
	   lb_db_conn_error(c)->message);
}

static void test_version(struct lb_db_conn *c)
{
	char v[128], want[64];

	lb_db_conn_server_version(c, v, sizeof(v));
	snprintf(want, sizeof(want), "SQLite %s (journal_mode=wal, synchronous=normal, ", sqlite3_libversion());
	ok(strncmp(v, want, strlen(want)) == 0, "version and pragmas: %s", v);
	ok(strstr(v, "cache_size=-4000, busy_timeout=") != NULL, "cache size in force: %s", v);
}

/* ---- locks ------------------------------------------------------------------------------- */

struct holder {
	struct lb_db_config *cfg;
	int hold_ms;
};

/* Holds the write lock for hold_ms, then commits. */
static void *hold_lock(void *arg)
{
	struct holder *h = arg;
	struct lb_db_conn *c = dbt_connect(h->cfg);

	dbt_exec(c, "BEGIN IMMEDIATE");
	dbt_exec(c, "UPDATE t SET k = 42 WHERE id = 1");
	usleep((useconds_t)h->hold_ms * 1000);
	dbt_exec(c, "COMMIT");
	lb_db_conn_free(c);
	return NULL;
}

static void test_busy(void)
{
	struct lb_db_config *wait_cfg = config(5000), *nowait_cfg = config(0);
	struct lb_db_conn *holder = dbt_connect(nowait_cfg), *c = dbt_connect(nowait_cfg);
	struct holder h = { wait_cfg, 300 };
	struct lb_db_result r;
	pthread_t th;
	int64_t t0;

	dbt_exec(holder, "BEGIN IMMEDIATE");
	is_int(lb_db_query(c, "UPDATE t SET k = 1 WHERE id = 1", 31, &r), LB_DB_ESQL,
	       "busy timeout 0: a write fails at once while another connection writes");
	is_int(lb_db_conn_error(c)->sql_errno, 5, "SQLITE_BUSY (5)");
	is_str(lb_db_conn_error(c)->sqlstate, "40001", "as a serialization failure");
	is_int(lb_db_conn_error(c)->error_class, LB_DB_ERROR_IGNORABLE, "ignorable by default");
	is_int(dbt_exec(c, "SELECT k FROM t WHERE id = 1"), LB_DB_KIND_READ, "WAL: reads go on");
	dbt_exec(holder, "COMMIT");
	lb_db_conn_free(holder);
	lb_db_conn_free(c);

	/* blocking: waits in the busy handler until the holder commits */
	c = dbt_connect(wait_cfg);
	pthread_create(&th, NULL, hold_lock, &h);
	usleep(100 * 1000);
	t0 = dbt_now_ns();
	is_int(lb_db_query(c, "UPDATE t SET k = k + 1 WHERE id = 1", 35, &r), LB_DB_OK,
	       "busy timeout 5 s: the write waits for the lock");
	ok(dbt_elapsed_s(t0) > 0.1, "and waited (%.3f s)", dbt_elapsed_s(t0));
	pthread_join(th, NULL);
	char v[32];
	is_str(dbt_value(c, "SELECT k FROM t WHERE id = 1", v, sizeof(v)), "43",
	       "after the holder's update");

	/* non-blocking (emulated users): PENDING on a descriptor, done after the holder commits */
	lb_db_conn_set_offload(c, 1);
	pthread_create(&th, NULL, hold_lock, &h);
	usleep(100 * 1000);
	int rc = lb_db_query_start(c, "UPDATE t SET k = k + 1 WHERE id = 1", 35, &r);
	is_int(rc, LB_DB_PENDING, "offloaded: the locked write returns PENDING");
	struct lb_db_wait w;
	lb_db_conn_wait_info(c, &w);
	ok(w.fd >= 0 && (w.events & LB_DB_WAIT_READ), "with a descriptor to wait on");
	int steps = 0;
	while (rc == LB_DB_PENDING) {
		struct pollfd pfd = { .fd = w.fd, .events = POLLIN };
		poll(&pfd, 1, 1000);
		rc = lb_db_step(c, LB_DB_WAIT_READ, &r);
		lb_db_conn_wait_info(c, &w);
		steps++;
	}
	is_int(rc, LB_DB_OK, "done after %d steps", steps);
	is_int(r.affected_rows, 1, "1 row updated");
	pthread_join(th, NULL);
	is_str(dbt_value(c, "SELECT k FROM t WHERE id = 1", v, sizeof(v)), "43", "42 + 1");
	lb_db_conn_free(c);
	lb_db_config_free(nowait_cfg);
	lb_db_config_free(wait_cfg);
}

/* Two connections each read in a deferred transaction; in WAL mode the second writer's snapshot
 * is stale once the first commits: SQLITE_BUSY_SNAPSHOT at once, whatever the busy timeout. */
static void test_stale_snapshot(void)
{
	struct lb_db_config *cfg = config(5000);
	struct lb_db_conn *a = dbt_connect(cfg), *b = dbt_connect(cfg);
	struct lb_db_result r;
	int64_t t0;

	dbt_exec(b, "BEGIN");
	dbt_exec(b, "SELECT k FROM t WHERE id = 1");
	dbt_exec(a, "UPDATE t SET k = 7 WHERE id = 1");
	t0 = dbt_now_ns();
	is_int(lb_db_query(b, "UPDATE t SET k = 8 WHERE id = 1", 31, &r), LB_DB_ESQL,
	       "a write on a stale snapshot fails");
	ok(dbt_elapsed_s(t0) < 1.0, "at once (%.3f s), not after the busy timeout", dbt_elapsed_s(t0));
	is_int(lb_db_conn_error(b)->error_class, LB_DB_ERROR_IGNORABLE, "retried like a deadlock");
	is_int(lb_db_conn_in_transaction(b), 1, "the transaction is still open (the SQL layer rolls back)");
	dbt_exec(b, "ROLLBACK");
	lb_db_conn_free(a);
	lb_db_conn_free(b);
	lb_db_config_free(cfg);
}

static void test_options(void)
{
	struct lb_db_options o = options(0);
	struct lb_db_config *cfg = NULL;
	char err[256], bad[400];

	o.sqlite_journal_mode = "wal; DROP TABLE t";
	is_int(lb_db_config_new(lb_db_find_driver("sqlite"), &o, &cfg, err, sizeof(err)),
	       LB_DB_EINVAL, "a journal mode SQLite does not know is refused");
	ok(strstr(err, "invalid --sqlite-journal-mode") != NULL, "%s", err);
	o = options(0);
	o.sqlite_begin = "later";
	is_int(lb_db_config_new(lb_db_find_driver("sqlite"), &o, &cfg, err, sizeof(err)),
	       LB_DB_EINVAL, "--sqlite-begin is checked");
	o = options(0);
	snprintf(bad, sizeof(bad), "%s/no/such/dir/x.db", dir);
	o.db = bad;
	lb_db_config_new(lb_db_find_driver("sqlite"), &o, &cfg, err, sizeof(err));
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	is_int(lb_db_connect(c), LB_DB_ECONNECT, "a file in a missing directory cannot be opened");
	ok(strstr(lb_db_conn_error(c)->message, "sqlite: cannot open database '") != NULL,
	   "and the message names it: %s", lb_db_conn_error(c)->message);
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
}

int main(void)
{
	if (!lb_db_find_driver("sqlite")) {
		if (dbt_ci()) {
			ok(0, "the sqlite driver is built (CI=true: no skipping)");
			return done_testing();
		}
		printf("1..0 # SKIP the sqlite driver is not built\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/lbsqliteXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/test.db", dir);

	struct lb_db_config *cfg = config(1000);
	struct lb_db_conn *c = dbt_connect(cfg);
	test_text(c);
	test_prepared(c);
	test_version(c);
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
	test_busy();
	test_stale_snapshot();
	test_options();

	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
