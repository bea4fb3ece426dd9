/* The pgsql and mysql drivers against a real server: `test_sql pgsql` or `test_sql mysql`.
 * Queries, classification, prepared statements of every type, placeholders in literals,
 * client-side emulation, bulk insert, two connections per thread, error descriptors and
 * ignore lists, aborted-transaction recovery, transaction state, kill + reconnect, bad connection options,
 * timeouts, the non-blocking step API and TLS. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "dbtest.h"

static struct dbt_server srv;
static struct lb_db_config *cfg;
static char tbl[64];      /* per-process table names, so parallel runs do not collide */
static bool pg;

static char *sqlf(const char *fmt, const char *a)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf), fmt, a);
	return buf;
}

static void test_text_query(struct lb_db_conn *c)
{
	struct lb_db_result r;

	dbt_check_two_rows(c);
	is_int(dbt_exec(c, sqlf("DROP TABLE IF EXISTS %s", tbl)), LB_DB_KIND_OTHER, "drop is OTHER");
	is_int(dbt_exec(c, sqlf("CREATE TABLE %s (id INT PRIMARY KEY, k BIGINT, c TEXT, "
				"d DOUBLE PRECISION, n VARCHAR(10))", tbl)),
	       LB_DB_KIND_OTHER, "create table is OTHER");
	is_int(dbt_exec(c, sqlf("INSERT INTO %s (id, k) VALUES (100, 1), (101, 2), (102, 3)", tbl)),
	       LB_DB_KIND_WRITE, "insert is WRITE");
	const char *upd = sqlf("UPDATE %s SET k = k + 1 WHERE id >= 101", tbl);
	lb_db_query(c, upd, strlen(upd), &r);
	is_int(r.affected_rows, 2, "update affected 2 rows");
	is_int(dbt_exec(c, sqlf("UPDATE %s SET k = 0 WHERE id = -1", tbl)), LB_DB_KIND_OTHER,
	       "update of 0 rows is OTHER");
	is_int(dbt_exec(c, "BEGIN"), LB_DB_KIND_OTHER, "BEGIN is OTHER");
	is_int(dbt_exec(c, sqlf("DELETE FROM %s WHERE id >= 100", tbl)), LB_DB_KIND_WRITE,
	       "delete is WRITE");
	is_int(dbt_exec(c, "COMMIT"), LB_DB_KIND_OTHER, "COMMIT is OTHER");
	is_int(dbt_exec(c, sqlf("SELECT * FROM %s", tbl)), LB_DB_KIND_READ, "empty SELECT is READ");
}

static void make_params(struct lb_db_param *p, char *big, size_t big_len)
{
	memset(big, 'a', big_len);
	for (size_t i = 0; i < big_len; i += 97)
		big[i] = (char)('A' + i % 26);
	memset(p, 0, 5 * sizeof(*p));
	p[0] = (struct lb_db_param){ .type = LB_DB_TYPE_INT, .i64 = 1 };
	p[1] = (struct lb_db_param){ .type = LB_DB_TYPE_BIGINT, .i64 = 5000000000123LL };
	p[2] = (struct lb_db_param){ .type = LB_DB_TYPE_VARCHAR, .str = big, .len = big_len };
	p[3] = (struct lb_db_param){ .type = LB_DB_TYPE_DOUBLE, .f64 = 1234.5678 };
	p[4] = (struct lb_db_param){ .type = LB_DB_TYPE_VARCHAR, .is_null = 1 };
}

static void test_prepared(struct lb_db_conn *c)
{
	static char big[10240 + 1];
	struct lb_db_param p[5], key = { .type = LB_DB_TYPE_INT };
	struct lb_db_stmt *ins = NULL, *sel = NULL;
	struct lb_db_result r;
	struct lb_db_row row;
	const char *sql;

	make_params(p, big, 10240);
	sql = sqlf("INSERT INTO %s (id, k, c, d, n) VALUES (?, ?, ?, ?, ?)", tbl);
	is_int(lb_db_prepare(c, sql, strlen(sql), &ins), LB_DB_OK, "prepare insert");
	is_int(lb_db_stmt_nparams(ins), 5, "5 parameters");
	is_int(lb_db_stmt_bind(ins, p, 5), LB_DB_OK, "bind INT, BIGINT, VARCHAR 10 KB, DOUBLE, NULL");
	is_int(lb_db_execute(ins, &r), LB_DB_OK, "execute insert");
	is_int(r.kind, LB_DB_KIND_WRITE, "prepared insert is WRITE");
	is_int(r.affected_rows, 1, "1 row");
	/* Values are read at every execution: change them in place. */
	p[0].i64 = 2;
	p[1].is_null = 1;
	p[3].f64 = -0.25;
	p[4] = (struct lb_db_param){ .type = LB_DB_TYPE_VARCHAR, .str = "it's", .len = 4 };
	is_int(lb_db_execute(ins, &r), LB_DB_OK, "execute again with new values");
	is_int(lb_db_execute(ins, &r), LB_DB_ESQL, "third execution: duplicate key");

	sql = sqlf("SELECT id, k, c, d, n FROM %s WHERE id = ?", tbl);
	is_int(lb_db_prepare(c, sql, strlen(sql), &sel), LB_DB_OK, "prepare select");
	lb_db_stmt_bind(sel, &key, 1);
	key.i64 = 1;
	is_int(lb_db_execute(sel, &r), LB_DB_OK, "execute select");
	is_int(r.kind, LB_DB_KIND_READ, "prepared select is READ");
	is_int(r.nrows, 1, "one row");
	is_int(lb_db_fetch_row(c, &row), 1, "prepared rows are readable");
	is_str(row.values[0], "1", "INT read back");
	is_str(row.values[1], "5000000000123", "BIGINT read back");
	ok(row.values[2] && row.lengths[2] == 10240 && memcmp(row.values[2], big, 10240) == 0,
	   "VARCHAR of 10 KB read back exactly");
	is_str(row.values[3], "1234.5678", "DOUBLE with a fraction read back");
	ok(row.values[4] == NULL, "NULL parameter read back as NULL");
	is_int(lb_db_fetch_row(c, &row), 0, "single row");
	key.i64 = 2;
	lb_db_execute(sel, &r);
	lb_db_fetch_row(c, &row);
	ok(row.values[1] == NULL, "NULL BIGINT");
	is_str(row.values[3], "-0.25", "negative DOUBLE");
	is_str(row.values[4], "it's", "string with a quote");
	key.i64 = 3;
	lb_db_execute(sel, &r);
	is_int(r.nrows, 0, "no row for a missing key");

	lb_db_stmt_free(ins);
	lb_db_stmt_free(sel);
}

static void test_placeholder_in_literal(struct lb_db_conn *c)
{
	const char *lit = pg ? "SELECT '?' AS q, ? AS v /* ? */ -- ?\n"
			     : "SELECT '?' AS q, ? AS v /* ? */ # ?\n";
	struct lb_db_result r;
	struct lb_db_stmt *ls = NULL;
	struct lb_db_param v = { .type = LB_DB_TYPE_VARCHAR, .str = "seven", .len = 5 };
	is_int(lb_db_prepare(c, lit, strlen(lit), &ls), LB_DB_OK, "prepare with ? in literal/comments");
	is_int(lb_db_stmt_nparams(ls), 1, "only the real placeholder counts");
	lb_db_stmt_bind(ls, &v, 1);
	is_int(lb_db_execute(ls, &r), LB_DB_OK, "execute");
	const char *want[] = { "?", "seven" };
	dbt_check_row(c, want, 2, "literal '?' left alone, parameter substituted");
	lb_db_stmt_free(ls);
}

static void test_ps_disable(void)
{
	struct lb_db_options o = srv.opts;
	o.ps_mode = LB_DB_PS_DISABLE;
	struct lb_db_config *dcfg = dbt_config(&srv, &o);
	struct lb_db_conn *c = dbt_connect(dcfg);
	const char *tricky = "O'Reilly \\' \"q\" ?";
	struct lb_db_param p[3] = {
		{ .type = LB_DB_TYPE_INT, .i64 = 50 },
		{ .type = LB_DB_TYPE_VARCHAR, .str = tricky, .len = strlen(tricky) },
		{ .type = LB_DB_TYPE_DOUBLE, .f64 = 0.1 },
	};
	struct lb_db_stmt *s = NULL;
	struct lb_db_result r;
	struct lb_db_row row;
	const char *sql = sqlf("INSERT INTO %s (id, c, d) VALUES (?, ?, ?)", tbl);

	is_int(lb_db_prepare(c, sql, strlen(sql), &s), LB_DB_OK, "ps-mode disable: prepare");
	lb_db_stmt_bind(s, p, 3);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "emulated insert of a string with quotes");
	is_int(r.kind, LB_DB_KIND_WRITE, "emulated insert is WRITE");
	lb_db_stmt_free(s);
	sql = sqlf("SELECT c, d FROM %s WHERE id = ?", tbl);
	lb_db_prepare(c, sql, strlen(sql), &s);
	lb_db_stmt_bind(s, p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "emulated select");
	is_int(lb_db_fetch_row(c, &row), 1, "row");
	is_str(row.values[0], tricky, "quotes, backslash and ? survive escaping");
	is_str(row.values[1], "0.1", "double exact");
	lb_db_stmt_free(s);
	lb_db_conn_free(c);
	lb_db_config_free(dcfg);
}

static void test_bulk(struct lb_db_conn *c)
{
	char name[80], row[128], buf[32];
	struct lb_db_result r;
	int writes = 0, rc = LB_DB_OK;

	snprintf(name, sizeof(name), "%s_bulk", tbl);
	dbt_exec(c, sqlf("DROP TABLE IF EXISTS %s", name));
	dbt_exec(c, sqlf("CREATE TABLE %s (id INT, c CHAR(60))", name));
	const char *prefix = sqlf("INSERT INTO %s (id, c) VALUES", name);
	lb_db_bulk_insert_init(c, prefix, strlen(prefix));
	for (int i = 1; i <= 20000 && rc == LB_DB_OK; i++) {
		int n = snprintf(row, sizeof(row), "(%d,'%060d')", i, i);
		rc = lb_db_bulk_insert_next(c, row, (uint64_t)n, &r);
		writes += r.kind == LB_DB_KIND_WRITE;
	}
	is_int(rc, LB_DB_OK, "20000 bulk rows");
	is_int(lb_db_bulk_insert_done(c, &r), LB_DB_OK, "bulk done");
	writes += r.kind == LB_DB_KIND_WRITE;
	ok(writes >= 3, "flushed as several multi-row INSERTs of <= 512 KiB (%d)", writes);
	is_str(dbt_value(c, sqlf("SELECT count(*) FROM %s", name), buf, sizeof(buf)), "20000",
	       "count(*) = 20000");
	dbt_exec(c, sqlf("DROP TABLE %s", name));
}

static void test_two_connections(struct lb_db_conn *c1)
{
	struct lb_db_conn *c2 = dbt_connect(cfg);
	struct lb_db_row a, b;
	const char *q1 = "SELECT 'a1' UNION ALL SELECT 'a2' UNION ALL SELECT 'a3'";
	const char *q2 = "SELECT 'b1' UNION ALL SELECT 'b2'";

	lb_db_query(c1, q1, strlen(q1), NULL);
	lb_db_query(c2, q2, strlen(q2), NULL);
	lb_db_fetch_row(c1, &a);
	lb_db_fetch_row(c2, &b);
	ok(strcmp(a.values[0], "a1") == 0 && strcmp(b.values[0], "b1") == 0, "interleaved 1");
	lb_db_fetch_row(c2, &b);
	lb_db_fetch_row(c1, &a);
	ok(strcmp(a.values[0], "a2") == 0 && strcmp(b.values[0], "b2") == 0, "interleaved 2");
	is_int(lb_db_fetch_row(c2, &b), 0, "c2 done");
	lb_db_fetch_row(c1, &a);
	is_str(a.values[0], "a3", "c1 still has its last row");
	lb_db_conn_free(c2);
}

static void expect_error(struct lb_db_conn *c, const char *sql, int err_no, const char *state,
			 int cls, const char *what)
{
	struct lb_db_result r;
	int rc = lb_db_query(c, sql, strlen(sql), &r);
	const struct lb_db_error *e = lb_db_conn_error(c);

	ok(rc == LB_DB_ESQL && r.kind == LB_DB_KIND_ERROR, "%s: fails", what);
	ok(e->sql_errno == err_no && strcmp(e->sqlstate, state) == 0 && e->error_class == cls &&
	   !e->lost && e->message[0] && !strchr(e->message, '\n'),
	   "%s: errno %d, state %s, class %d, '%s'", what, e->sql_errno, e->sqlstate,
	   e->error_class, e->message);
}

static void test_errors(struct lb_db_conn *c)
{
	const char *dup = sqlf("INSERT INTO %s (id) VALUES (1)", tbl);
	char dup_sql[1024];

	snprintf(dup_sql, sizeof(dup_sql), "%s", dup);
	expect_error(c, "SELEC 1", pg ? 0 : 1064, pg ? "42601" : "42000", LB_DB_ERROR_FATAL,
		     "syntax error");
	ok(strstr(lb_db_conn_error(c)->message, "syntax") != NULL, "message names the problem");
	/* Default lists: PG ignores 23505; MySQL's 1213,1020,1205 do not include 1062. */
	expect_error(c, dup_sql, pg ? 0 : 1062, pg ? "23505" : "23000",
		     pg ? LB_DB_ERROR_IGNORABLE : LB_DB_ERROR_FATAL, "duplicate key, default list");
	is_int(dbt_exec(c, "SELECT 1"), LB_DB_KIND_READ, "connection usable after errors");

	struct { const char *drv_list, *generic; int dup_class, syntax_class; const char *what; } cases[] = {
		{ "", NULL, LB_DB_ERROR_FATAL, LB_DB_ERROR_FATAL, "empty driver list" },
		{ pg ? "23505" : "1062", NULL, LB_DB_ERROR_IGNORABLE, LB_DB_ERROR_FATAL, "custom driver list" },
		{ "", pg ? "42601" : "1064", LB_DB_ERROR_FATAL, LB_DB_ERROR_IGNORABLE, "generic list" },
		{ "", pg ? "42601" : "42000", LB_DB_ERROR_FATAL, LB_DB_ERROR_IGNORABLE, "generic SQLSTATE" },
		{ NULL, "all", LB_DB_ERROR_IGNORABLE, LB_DB_ERROR_IGNORABLE, "generic all" },
		{ "all", NULL, LB_DB_ERROR_IGNORABLE, LB_DB_ERROR_IGNORABLE, "driver all" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lb_db_options o = srv.opts;
		o.driver_ignore_errors = cases[i].drv_list;
		o.ignore_errors = cases[i].generic;
		struct lb_db_config *icfg = dbt_config(&srv, &o);
		struct lb_db_conn *ic = dbt_connect(icfg);
		lb_db_query(ic, dup_sql, strlen(dup_sql), NULL);
		int dup_class = lb_db_conn_error(ic)->error_class;
		lb_db_query(ic, "SELEC 1", 7, NULL);
		int syn_class = lb_db_conn_error(ic)->error_class;
		ok(dup_class == cases[i].dup_class && syn_class == cases[i].syntax_class,
		   "%s: duplicate class %d, syntax class %d", cases[i].what, dup_class, syn_class);
		lb_db_conn_free(ic);
		lb_db_config_free(icfg);
	}
}

static void test_aborted_transaction(struct lb_db_conn *c)
{
	char buf[32];
	const char *ins = sqlf("INSERT INTO %s (id) VALUES (777)", tbl);

	dbt_exec(c, "BEGIN");
	dbt_exec(c, ins);
	is_int(lb_db_query(c, "SELECT nosuchcolumn", 19, NULL), LB_DB_ESQL, "error inside BEGIN");
	is_int(dbt_exec(c, "SELECT 1"), LB_DB_KIND_READ, "next statement works (no 25P02)");
	if (pg)
		is_str(dbt_value(c, sqlf("SELECT count(*) FROM %s WHERE id = 777", tbl), buf,
				 sizeof(buf)), "0", "the failed transaction was rolled back");
	dbt_exec(c, sqlf("DELETE FROM %s WHERE id = 777", tbl));
	dbt_exec(c, "COMMIT");
}

/* What the SQL layer asks before a retry and after an event: is a transaction open? From the
 * server's own word after each statement, text or prepared; no I/O. */
static void test_in_transaction(struct lb_db_conn *c)
{
	const char *ins = sqlf("INSERT INTO %s (id) VALUES (778)", tbl);
	struct lb_db_stmt *s = NULL;

	is_int(lb_db_conn_in_transaction(c), 0, "in_transaction: autocommit, none open");
	dbt_exec(c, "BEGIN");
	is_int(lb_db_conn_in_transaction(c), 1, "in_transaction: after BEGIN");
	dbt_exec(c, ins);
	is_int(lb_db_conn_in_transaction(c), 1, "in_transaction: after a write");
	/* pgsql's driver rolled the failed transaction back; mysql's stays open (only the
	 * statement failed), which is what a retry has to roll back */
	is_int(lb_db_query(c, "SELECT nosuchcolumn", 19, NULL), LB_DB_ESQL, "in_transaction: a failing statement");
	is_int(lb_db_conn_in_transaction(c), pg ? 0 : 1, "in_transaction: after the failure");
	dbt_exec(c, "ROLLBACK");
	is_int(lb_db_conn_in_transaction(c), 0, "in_transaction: after ROLLBACK");
	is_int(lb_db_prepare(c, "START TRANSACTION", 17, &s), LB_DB_OK, "in_transaction: prepared BEGIN");
	is_int(lb_db_execute(s, NULL), LB_DB_OK, "in_transaction: executed");
	is_int(lb_db_conn_in_transaction(c), 1, "in_transaction: after a prepared BEGIN");
	lb_db_stmt_free(s);
	dbt_exec(c, "COMMIT");
	is_int(lb_db_conn_in_transaction(c), 0, "in_transaction: after COMMIT");
	is_int(lb_db_conn_in_transaction(NULL), 0, "in_transaction: a closed connection");
}

static void test_kill_reconnect(void)
{
	struct lb_db_conn *victim = dbt_connect(cfg), *killer = dbt_connect(cfg);
	struct lb_db_stmt *s = NULL;
	struct lb_db_param p = { .type = LB_DB_TYPE_INT, .i64 = 1 };
	struct lb_db_result r;
	char pid[32], pid2[32], sql[96];
	const char *id_sql = pg ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
	const char *ps = sqlf("SELECT id FROM %s WHERE id = ?", tbl);

	lb_db_prepare(victim, ps, strlen(ps), &s);
	lb_db_stmt_bind(s, &p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "statement works before the kill");
	dbt_value(victim, id_sql, pid, sizeof(pid));
	snprintf(sql, sizeof(sql), pg ? "SELECT pg_terminate_backend(%s)" : "KILL %s", pid);
	dbt_exec(killer, sql);
	usleep(100000);
	int rc = lb_db_query(victim, "SELECT 1", 8, &r);
	ok(rc == LB_DB_ELOST && lb_db_conn_error(victim)->lost, "killed session reports lost: "
	   "errno %d, state %s, %s", lb_db_conn_error(victim)->sql_errno,
	   lb_db_conn_error(victim)->sqlstate, lb_db_conn_error(victim)->message);
	is_int(lb_db_conn_state(victim), LB_DB_STATE_LOST, "state LOST");
	is_int(lb_db_execute(s, &r), LB_DB_ELOST, "execute on a lost connection");
	is_int(lb_db_reconnect(victim, dbt_now_ns() + 5000000000LL), LB_DB_OK, "reconnect");
	is_int(lb_db_conn_reconnects(victim), 1, "one reconnect counted");
	dbt_value(victim, id_sql, pid2, sizeof(pid2));
	ok(strcmp(pid, pid2) != 0, "new session (%s -> %s)", pid, pid2);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "re-prepared statement executes");
	is_int(r.nrows, 1, "and returns its row");
	lb_db_stmt_free(s);
	lb_db_conn_free(victim);
	lb_db_conn_free(killer);
}

static void bad_connect(const char *what, struct lb_db_options o, const char *expect,
			uint32_t timeout_ms)
{
	struct lb_db_config *bcfg = NULL;
	char err[256];
	o.connect_timeout_ms = (int32_t)timeout_ms;
	if (lb_db_config_new(srv.ops, &o, &bcfg, err, sizeof(err)) != 0) {
		ok(0, "%s: config: %s", what, err);
		return;
	}
	struct lb_db_conn *c = lb_db_conn_new(bcfg);
	int64_t t0 = dbt_now_ns();
	int rc = lb_db_connect(c);
	double secs = dbt_elapsed_s(t0);
	const char *msg = lb_db_conn_error(c)->message;
	char prefix[16];
	snprintf(prefix, sizeof(prefix), "%s: ", srv.driver);

	is_int(rc, LB_DB_ECONNECT, "%s: connect fails", what);
	ok(strncmp(msg, prefix, strlen(prefix)) == 0 && strstr(msg, expect) && !strchr(msg, '\n'),
	   "%s: one clear line: %s", what, msg);
	ok(secs < timeout_ms / 1000.0 + 1.0, "%s: within the connect timeout (%.2f s)", what, secs);
	ok(!strstr(msg, srv.password) && !strstr(msg, "Wr0ng-Pa55"), "%s: no password in message",
	   what);
	lb_db_conn_free(c);
	lb_db_config_free(bcfg);
}

/* A listening socket that never accepts: the TCP handshake succeeds (the kernel queues it)
 * but no server ever answers, so only the connect timeout ends the attempt. */
static void test_unresponsive_server(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char port[16];

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		ok(0, "listening socket for the unresponsive server");
		return;
	}
	snprintf(port, sizeof(port), "%u", ntohs(sa.sin_port));
	struct lb_db_options o = srv.opts;
	o.hosts = "127.0.0.1";
	o.ports = port;
	bad_connect("unresponsive server", o, "failed: timed out after 500 ms", 500);
	close(fd);
}

static void test_bad_options(void)
{
	struct lb_db_options o = srv.opts;
	char port[16];

	o.hosts = "192.0.2.1"; /* TEST-NET-1: unroutable, so the connect attempt hangs or fails */
	bad_connect("wrong host", o, "connection to 192.0.2.1", 1000);
	o = srv.opts;
	snprintf(port, sizeof(port), "%d", atoi(srv.port) + 1);
	o.ports = port;
	bad_connect("wrong port", o, "Connection refused", 3000);
	o = srv.opts;
	o.password = "Wr0ng-Pa55";
	bad_connect("wrong password", o, pg ? "password authentication failed for user \"sbtest\""
					   : "Access denied for user 'sbtest'", 3000);
	o = srv.opts;
	o.db = "nosuch";
	/* MariaDB says "Access denied ... to database 'nosuch'" to a user without global rights. */
	bad_connect("unknown database", o, pg ? "database \"nosuch\" does not exist" : "'nosuch'",
		    3000);
	test_unresponsive_server();
}

/* Drives one operation through lb_db_step() by hand; returns the steps that were pending. */
static int drive(struct lb_db_conn *c, int rc, struct lb_db_result *r, bool *fd_ok)
{
	int pending = 0;
	*fd_ok = true;
	while (rc == LB_DB_PENDING) {
		struct lb_db_wait w;
		lb_db_conn_wait_info(c, &w);
		*fd_ok = *fd_ok && w.fd >= 0 && (w.events & (LB_DB_WAIT_READ | LB_DB_WAIT_WRITE));
		struct pollfd pfd = { .fd = w.fd,
				      .events = (short)((w.events & LB_DB_WAIT_READ ? POLLIN : 0) |
							(w.events & LB_DB_WAIT_WRITE ? POLLOUT : 0)) };
		poll(&pfd, 1, 5000);
		uint32_t ready = (pfd.revents & (POLLIN | POLLERR | POLLHUP) ? LB_DB_WAIT_READ : 0) |
				 (pfd.revents & POLLOUT ? LB_DB_WAIT_WRITE : 0);
		pending++;
		rc = lb_db_step(c, ready, r);
	}
	return rc == LB_DB_OK ? pending : -1;
}

static void test_nonblocking(void)
{
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	struct lb_db_result r;
	bool fd_ok;
	const char *sleep_sql = pg ? "SELECT pg_sleep(0.3)" : "SELECT SLEEP(0.3)";

	int rc = lb_db_connect_start(c);
	is_int(rc, LB_DB_PENDING, "connect_start would block");
	ok(drive(c, rc, NULL, &fd_ok) > 0 && fd_ok, "connect completes by steps on a valid fd");
	is_int(lb_db_conn_state(c), LB_DB_STATE_IDLE, "connected");
	int64_t t0 = dbt_now_ns();
	rc = lb_db_query_start(c, sleep_sql, strlen(sleep_sql), &r);
	is_int(rc, LB_DB_PENDING, "sleep query would block");
	struct lb_db_wait w;
	lb_db_conn_wait_info(c, &w);
	ok(w.fd >= 0 && (w.events & LB_DB_WAIT_READ), "waits for read on fd %d", w.fd);
	is_int(lb_db_query(c, "SELECT 1", 8, NULL), LB_DB_EBUSY, "second query while busy");
	int steps = drive(c, rc, &r, &fd_ok);
	ok(steps > 0 && fd_ok, "completed after %d pending steps", steps);
	ok(dbt_elapsed_s(t0) >= 0.25, "took the server's time (%.2f s)", dbt_elapsed_s(t0));
	is_int(r.kind, LB_DB_KIND_READ, "result READ");
	lb_db_conn_free(c);

	/* The blocking helper enforces the read timeout; the session is dropped. */
	struct lb_db_options o = srv.opts;
	o.read_timeout_ms = 300;
	struct lb_db_config *tcfg = dbt_config(&srv, &o);
	c = dbt_connect(tcfg);
	const char *long_sql = pg ? "SELECT pg_sleep(3)" : "SELECT SLEEP(3)";
	t0 = dbt_now_ns();
	rc = lb_db_query(c, long_sql, strlen(long_sql), &r);
	double secs = dbt_elapsed_s(t0);
	ok(rc == LB_DB_ELOST && secs < 1.5, "read timeout after %.2f s: %s", secs,
	   lb_db_conn_error(c)->message);
	ok(strstr(lb_db_conn_error(c)->message, "300 ms") != NULL, "message names the timeout");
	is_int(lb_db_reconnect(c, dbt_now_ns() + 3000000000LL), LB_DB_OK, "reconnect after timeout");
	is_int(dbt_exec(c, "SELECT 1"), LB_DB_KIND_READ, "usable again");
	lb_db_conn_free(c);
	lb_db_config_free(tcfg);
}

static void test_abandon(struct lb_db_conn *c, struct lb_db_stmt *s);

static void test_edge_cases(void)
{
	struct lb_db_conn *c = dbt_connect(cfg);
	struct lb_db_result r;
	struct lb_db_row row;
	struct lb_db_stmt *s = NULL;

	is_int(dbt_exec(c, "SELECT 1; SELECT 2"), LB_DB_KIND_READ, "multi-statement query");
	is_int(dbt_exec(c, "SELECT 3"), LB_DB_KIND_READ, "connection in sync afterwards");

	/* Rebinding with other types prepares again (pgsql needs the types up front). */
	struct lb_db_param p = { .type = LB_DB_TYPE_INT, .i64 = 12 };
	const char *cat = pg ? "SELECT CAST(? AS TEXT)" : "SELECT CAST(? AS CHAR)";
	lb_db_prepare(c, cat, strlen(cat), &s);
	lb_db_stmt_bind(s, &p, 1);
	lb_db_execute(s, &r);
	lb_db_fetch_row(c, &row);
	is_str(row.values[0], "12", "INT parameter");
	p = (struct lb_db_param){ .type = LB_DB_TYPE_VARCHAR, .str = "twelve", .len = 6 };
	is_int(lb_db_stmt_bind(s, &p, 1), LB_DB_OK, "rebind as VARCHAR");
	is_int(lb_db_execute(s, &r), LB_DB_OK, "execute after rebind");
	lb_db_fetch_row(c, &row);
	is_str(row.values[0], "twelve", "VARCHAR parameter");
	p = (struct lb_db_param){ .type = LB_DB_TYPE_CHAR, .str = "fixed", .len = 5 };
	lb_db_stmt_bind(s, &p, 1);
	lb_db_execute(s, &r);
	lb_db_fetch_row(c, &row);
	is_str(row.values[0], "fixed", "CHAR parameter");
	p = (struct lb_db_param){ .type = LB_DB_TYPE_SMALLINT, .i64 = -32768 };
	lb_db_stmt_bind(s, &p, 1);
	lb_db_execute(s, &r);
	lb_db_fetch_row(c, &row);
	is_str(row.values[0], "-32768", "SMALLINT parameter");
	p = (struct lb_db_param){ .type = LB_DB_TYPE_FLOAT, .f64 = 2.5 };
	lb_db_stmt_bind(s, &p, 1);
	lb_db_execute(s, &r);
	lb_db_fetch_row(c, &row);
	is_str(row.values[0], "2.5", "FLOAT parameter");
	if (pg) {
		p = (struct lb_db_param){ .type = LB_DB_TYPE_SMALLINT, .i64 = 70000 };
		lb_db_stmt_bind(s, &p, 1);
		is_int(lb_db_execute(s, &r), LB_DB_EINVAL, "SMALLINT out of range is refused");
		ok(strstr(lb_db_conn_error(c)->message, "out of range for SMALLINT") != NULL,
		   "range message: %s", lb_db_conn_error(c)->message);
		is_int(dbt_exec(c, "SELECT 1"), LB_DB_KIND_READ, "connection fine after that");
	}

	test_abandon(c, s);
}

/* Freeing a statement, reconnecting or freeing the connection with an operation in flight
 * gives the operation up at once. Frees c and s. */
static void test_abandon(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	const char *sleep_sql = pg ? "SELECT pg_sleep(2)" : "SELECT SLEEP(2)";
	struct lb_db_param p;
	struct lb_db_result r;
	struct lb_db_stmt *slow = NULL;
	lb_db_prepare(c, sleep_sql, strlen(sleep_sql), &slow);
	is_int(lb_db_execute_start(slow, &r), LB_DB_PENDING, "slow statement in flight");
	int64_t t0 = dbt_now_ns();
	lb_db_stmt_free(slow);
	ok(dbt_elapsed_s(t0) < 0.5, "statement freed without waiting for the server");
	ok(lb_db_conn_state(c) == LB_DB_STATE_LOST, "its session is given up");
	is_int(lb_db_reconnect(c, dbt_now_ns() + 3000000000LL), LB_DB_OK, "reconnect");
	p = (struct lb_db_param){ .type = LB_DB_TYPE_INT, .i64 = 5 };
	lb_db_stmt_bind(s, &p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "other statement still works");

	/* Reconnecting or freeing a connection with a query in flight. */
	is_int(lb_db_query_start(c, sleep_sql, strlen(sleep_sql), &r), LB_DB_PENDING, "in flight");
	t0 = dbt_now_ns();
	is_int(lb_db_reconnect(c, dbt_now_ns() + 3000000000LL), LB_DB_OK, "reconnect while busy");
	ok(dbt_elapsed_s(t0) < 1.0, "did not wait for the query (%.2f s)", dbt_elapsed_s(t0));
	is_int(lb_db_query_start(c, sleep_sql, strlen(sleep_sql), &r), LB_DB_PENDING, "in flight");
	lb_db_stmt_free(s);
	t0 = dbt_now_ns();
	lb_db_conn_free(c);
	ok(dbt_elapsed_s(t0) < 0.5, "connection freed while busy without waiting");
}

static bool tls_session(struct lb_db_conn *c)
{
	struct lb_db_row row;
	const char *q = pg ? "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
			   : "SHOW SESSION STATUS LIKE 'Ssl_cipher'";
	if (lb_db_query(c, q, strlen(q), NULL) != LB_DB_OK || lb_db_fetch_row(c, &row) != 1)
		return false;
	return pg ? strcmp(row.values[0], "t") == 0 : row.values[1] && row.values[1][0];
}

/* Connects with a TLS mode; 1 = TLS session, 0 = plain session, -1 = connect failed. */
static int tls_connect(const char *mode, const char *ca, char *msg, size_t msglen)
{
	struct lb_db_options o = srv.opts;
	o.ssl_mode = mode;
	o.ssl_ca = ca;
	struct lb_db_config *tcfg = dbt_config(&srv, &o);
	struct lb_db_conn *c = lb_db_conn_new(tcfg);
	int rc = lb_db_connect(c) == LB_DB_OK ? tls_session(c) : -1;
	snprintf(msg, msglen, "%s", lb_db_conn_error(c)->message);
	lb_db_conn_free(c);
	lb_db_config_free(tcfg);
	return rc;
}

/* One line of `tools/sandbox-db <what> <driver>` output, or "" when not using the sandbox. */
static void sandbox_line(const char *what, char *buf, size_t size)
{
	char cmd[600];
	FILE *f;

	buf[0] = '\0';
	if (!srv.sandbox)
		return;
	snprintf(cmd, sizeof(cmd), "'%s' %s %s 2>/dev/null", getenv("LB_SANDBOX_DB"), what,
		 srv.driver);
	if ((f = popen(cmd, "r"))) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		pclose(f);
	}
}

static void test_socket(void)
{
	char path[512];
	struct lb_db_options o = srv.opts;

	sandbox_line("socket", path, sizeof(path));
	if (!path[0]) {
		diag("not using the sandbox: socket test skipped");
		return;
	}
	o.hosts = "ignored.invalid";
	o.sockets = path;
	struct lb_db_config *scfg = dbt_config(&srv, &o);
	struct lb_db_conn *c = lb_db_conn_new(scfg);
	is_int(lb_db_connect(c), LB_DB_OK, "connect through the Unix socket: %s",
	       lb_db_conn_error(c)->message);
	is_str(lb_db_conn_endpoint(c), path, "endpoint is the socket");
	is_int(dbt_exec(c, "SELECT 1"), LB_DB_KIND_READ, "query over the socket");
	lb_db_conn_free(c);
	lb_db_config_free(scfg);
}

static void put_packet(int fd, uint8_t seq, const void *body, size_t len)
{
	uint8_t hdr[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), seq };
	if (write(fd, hdr, 4) != 4 || write(fd, body, len) != (ssize_t)len)
		_exit(1);
}

/* A MariaDB look-alike without TLS (a forked child): it greets each client with a handshake
 * that lacks CLIENT_SSL, accepts whatever login comes back in plain text and answers OK. */
static void no_tls_server(int lfd)
{
	static const uint8_t hello[] =
		"\x0a" "5.5.5-10.11.0-NoTLS\0"       /* protocol 10, server version */
		"\x07\0\0\0" "abcdefgh" "\0"           /* thread id, scramble part 1, filler */
		"\x0f\xa2" "\x21" "\x02\0" "\x0b\0"      /* capabilities (no CLIENT_SSL 0x800),
							  charset, status, capabilities hi */
		"\x15" "\0\0\0\0\0\0\0\0\0\0"           /* scramble length, reserved */
		"ijklmnopqrst\0" "mysql_native_password";
	static const uint8_t ok_pkt[] = { 0, 0, 0, 2, 0, 0, 0 };
	uint8_t buf[4096];

	for (;;) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			_exit(0);
		put_packet(fd, 0, hello, sizeof(hello)); /* the final NUL ends the plugin name */
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n >= 36 && buf[3] == 1)              /* a full login, not an SSL request */
			put_packet(fd, 2, ok_pkt, sizeof(ok_pkt));
		while (read(fd, buf, sizeof(buf)) > 0) /* COM_QUIT, or the client closing */
			;
		close(fd);
	}
}

/* Connects to no_tls_server with a TLS mode: what lb_db_connect returned, and its message. */
static int no_tls_connect(const char *port, const char *mode, char *msg, size_t msglen)
{
	struct lb_db_options o = srv.opts;
	o.hosts = "127.0.0.1";
	o.ports = port;
	o.sockets = NULL;
	o.ssl_mode = mode;
	struct lb_db_config *tcfg = dbt_config(&srv, &o);
	struct lb_db_conn *c = lb_db_conn_new(tcfg);
	int rc = lb_db_connect(c);
	snprintf(msg, msglen, "%s", lb_db_conn_error(c)->message);
	lb_db_conn_free(c);
	lb_db_config_free(tcfg);
	return rc;
}

/* "preferred" goes on in plain text with a server that has no TLS; "required" does not (with
 * MariaDB Connector/C the driver checks this itself after the login). */
static void test_mysql_no_tls_server(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	char port[16], msg[LB_DB_ERRMSG_BYTES];

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 4) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &len) < 0) {
		ok(0, "listening socket for the server without TLS");
		return;
	}
	snprintf(port, sizeof(port), "%u", ntohs(sa.sin_port));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		no_tls_server(lfd);
	close(lfd);
	is_int(no_tls_connect(port, "preferred", msg, sizeof(msg)), LB_DB_OK,
	       "ssl mode preferred, server without TLS: plain session: %s", msg);
	is_int(no_tls_connect(port, "required", msg, sizeof(msg)), LB_DB_ECONNECT,
	       "ssl mode required, server without TLS: connect fails");
	ok(strstr(msg, "TLS is required (--mysql-ssl=required) but the server does not support it")
	   != NULL, "and says why: %s", msg);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

static void test_tls(void)
{
	char ca[512], msg[LB_DB_ERRMSG_BYTES];

	sandbox_line("cert", ca, sizeof(ca));
	if (!ca[0]) {
		diag("no sandbox TLS certificate: TLS tests skipped");
		return;
	}
	is_int(tls_connect(pg ? "require" : "required", NULL, msg, sizeof(msg)), 1,
	       "ssl mode required: TLS session");
	is_int(tls_connect(pg ? "disable" : "disabled", NULL, msg, sizeof(msg)), 0,
	       "ssl mode disabled: plain session");
	/* Without verification, so with no CA (Connector/C left TLS off here once). */
	is_int(tls_connect(pg ? "prefer" : "preferred", NULL, msg, sizeof(msg)), 1,
	       "ssl mode preferred, server with TLS: TLS session");
	is_int(tls_connect(pg ? "verify-full" : "verify_identity", ca, msg, sizeof(msg)), 1,
	       "verified against the sandbox CA: TLS session");
	int rc = tls_connect(pg ? "verify-full" : "verify_ca", "/etc/ssl/certs/ca-certificates.crt",
			     msg, sizeof(msg));
	ok(rc == -1 && msg[0], "verification against the wrong CA fails: %s", msg);
	if (!pg)
		test_mysql_no_tls_server();
}

/* Server notices (DROP ... IF EXISTS of nothing) must not reach stderr. */
static void test_pg_notices_silenced(struct lb_db_conn *c)
{
	char path[] = "/tmp/lb-notice-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);

	fflush(stderr);
	dup2(fd, 2);
	dbt_exec(c, "DROP TABLE IF EXISTS lb_no_such_table_for_notice");
	dbt_exec(c, "DO $$ BEGIN RAISE NOTICE 'hello from the server'; END $$");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	is_int(lseek(fd, 0, SEEK_END), 0, "notices are silenced (nothing on stderr)");
	close(fd);
	unlink(path);
}

/* Settings not given fall back to libpq's PG* environment variables. */
static void test_pg_environment(void)
{
	struct lb_db_options o = srv.opts;
	char buf[64];

	setenv("PGPASSWORD", srv.password, 1);
	setenv("PGAPPNAME", "lb-env-test", 1);
	o.password = NULL;
	struct lb_db_config *ecfg = dbt_config(&srv, &o);
	struct lb_db_conn *c = lb_db_conn_new(ecfg);
	is_int(lb_db_connect(c), LB_DB_OK, "password taken from PGPASSWORD");
	is_str(dbt_value(c, "SHOW application_name", buf, sizeof(buf)), "lb-env-test",
	       "PGAPPNAME applies");
	lb_db_conn_free(c);
	lb_db_config_free(ecfg);
	unsetenv("PGPASSWORD");
	unsetenv("PGAPPNAME");
}

static void test_mysql_specifics(void)
{
	struct lb_db_options o = srv.opts;
	struct lb_db_stmt *s = NULL;
	struct lb_db_param p = { .type = LB_DB_TYPE_VARCHAR, .str = "SELECT 40 + 2", .len = 13 };
	struct lb_db_result r;
	char buf[64];

	o.compression = 1;
	struct lb_db_config *zcfg = dbt_config(&srv, &o);
	struct lb_db_conn *c = dbt_connect(zcfg);
	lb_db_query(c, "SHOW SESSION STATUS LIKE 'Compression'", 38, NULL);
	struct lb_db_row row;
	ok(lb_db_fetch_row(c, &row) == 1 && strcmp(row.values[1], "ON") == 0,
	   "compressed protocol in use");
	/* The server cannot prepare PREPARE (ER_UNSUPPORTED_PS): emulated on the client. */
	is_int(lb_db_prepare(c, "PREPARE lb_inner FROM ?", 23, &s), LB_DB_OK, "prepare PREPARE");
	lb_db_stmt_bind(s, &p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "executed through client-side emulation");
	is_str(dbt_value(c, "EXECUTE lb_inner", buf, sizeof(buf)), "42", "inner statement works");
	lb_db_stmt_free(s);
	lb_db_conn_free(c);
	lb_db_config_free(zcfg);
}

int main(int argc, char **argv)
{
	const char *driver = argc > 1 ? argv[1] : "pgsql";

	dbt_require_server(&srv, driver);
	pg = dbt_is_pg(&srv);
	snprintf(tbl, sizeof(tbl), "lbt_%s_%d", driver, (int)getpid());
	cfg = dbt_config(&srv, NULL);
	struct lb_db_conn *c = dbt_connect(cfg);

	test_text_query(c);
	test_prepared(c);
	test_placeholder_in_literal(c);
	test_ps_disable();
	test_bulk(c);
	test_two_connections(c);
	test_errors(c);
	test_aborted_transaction(c);
	test_in_transaction(c);
	test_kill_reconnect();
	test_bad_options();
	test_nonblocking();
	test_edge_cases();
	test_socket();
	test_tls();
	if (pg) {
		test_pg_environment();
		test_pg_notices_silenced(c);
	} else {
		test_mysql_specifics();
	}

	dbt_exec(c, sqlf("DROP TABLE IF EXISTS %s", tbl));
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
	return done_testing();
}
