/* The odbc driver against a sandbox server through its ODBC driver: `test_odbc odbc-pgsql` or
 * `test_odbc odbc-mysql` (settings from `tools/sandbox-db env odbc-...`). What the e2e spec
 * cannot see from Lua: the non-blocking contract run on the helper thread (PENDING, an eventfd,
 * steps, EBUSY), the read timeout cancelling a statement, a killed session found lost and
 * reconnected with its statement prepared again, values longer than a fetch buffer, escapes of
 * emulated statements, multi-statement texts, in_transaction, and connect errors. */
#include <poll.h>

#include "dbtest.h"

static struct dbt_server srv;
static struct lb_db_config *cfg;
static bool pg;

/* Reads `'--odbc-connection-string=...' --odbc-user=U --odbc-password=P`. */
static char conn_string[512];

static void load(const char *which)
{
	char cmd[512], buf[1024] = "";
	const char *sandbox = getenv("LB_SANDBOX_DB");

	memset(&srv, 0, sizeof(srv));
	srv.driver = "odbc";
	srv.ops = lb_db_find_driver("odbc");
	if (sandbox) {
		snprintf(cmd, sizeof(cmd), "'%s' env %s", sandbox, which);
		FILE *f = popen(cmd, "r");
		if (f) {
			buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
			pclose(f);
		}
	}
	const char *cs = strstr(buf, "--odbc-connection-string=");
	if (cs) {
		cs += strlen("--odbc-connection-string=");
		snprintf(conn_string, sizeof(conn_string), "%.*s", (int)strcspn(cs, "'"), cs);
	}
	for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
		dbt_take(srv.user, sizeof(srv.user), tok, "--odbc-user=");
		dbt_take(srv.password, sizeof(srv.password), tok, "--odbc-password=");
	}
	srv.opts.odbc_connection_string = conn_string[0] ? conn_string : NULL;
	srv.opts.user = srv.user[0] ? srv.user : NULL;
	srv.opts.password = srv.password[0] ? srv.password : NULL;
	srv.opts.connect_timeout_ms = 5000;
}

static void require_server(const char *which)
{
	char why[600] = "";

	load(which);
	if (!srv.ops) {
		snprintf(why, sizeof(why), "driver odbc not built");
	} else if (!conn_string[0]) {
		snprintf(why, sizeof(why), "no settings (LB_SANDBOX_DB unset)");
	} else {
		struct lb_db_config *c0 = dbt_config(&srv, NULL);
		struct lb_db_conn *c = c0 ? lb_db_conn_new(c0) : NULL;
		if (c && lb_db_connect(c) != LB_DB_OK)
			snprintf(why, sizeof(why), "%s", lb_db_conn_error(c)->message);
		lb_db_conn_free(c);
		lb_db_config_free(c0);
	}
	if (!why[0])
		return;
	if (dbt_ci()) {
		ok(0, "%s reachable (CI=true: no skipping): %s", which, why);
		exit(done_testing());
	}
	printf("1..0 # SKIP %s unavailable: %s\n", which, why);
	exit(0);
}

/* Completes a pending operation by waiting on its descriptor; returns the steps taken. */
static int drive(struct lb_db_conn *c, int *rc, struct lb_db_result *r)
{
	int steps = 0;

	while (*rc == LB_DB_PENDING) {
		struct lb_db_wait w;
		lb_db_conn_wait_info(c, &w);
		struct pollfd pfd = { .fd = w.fd, .events = POLLIN };
		int n = poll(&pfd, 1, 10000);
		*rc = lb_db_step(c, n > 0 ? LB_DB_WAIT_READ : LB_DB_WAIT_TIMEOUT, r);
		steps++;
	}
	return steps;
}

static void test_offload(void)
{
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	struct lb_db_result r;
	struct lb_db_wait w;
	const char *sleep_sql = pg ? "SELECT pg_sleep(0.3)" : "SELECT SLEEP(0.3)";

	lb_db_conn_set_offload(c, 1);
	int rc = lb_db_connect_start(c);
	is_int(rc, LB_DB_PENDING, "offloaded connect is pending");
	lb_db_conn_wait_info(c, &w);
	ok(w.fd >= 0 && (w.events & LB_DB_WAIT_READ), "waits for read on fd %d", w.fd);
	drive(c, &rc, NULL);
	is_int(rc, LB_DB_OK, "connect completes by steps: %s", lb_db_conn_error(c)->message);

	int64_t t0 = dbt_now_ns();
	rc = lb_db_query_start(c, sleep_sql, strlen(sleep_sql), &r);
	is_int(rc, LB_DB_PENDING, "sleep query is pending");
	ok(dbt_elapsed_s(t0) < 0.1, "query_start returns at once (%.3f s)", dbt_elapsed_s(t0));
	is_int(lb_db_query(c, "SELECT 1", 8, NULL), LB_DB_EBUSY, "second query while busy");
	int steps = drive(c, &rc, &r);
	ok(rc == LB_DB_OK && steps >= 1, "completed after %d steps", steps);
	ok(dbt_elapsed_s(t0) >= 0.25, "took the server's time (%.2f s)", dbt_elapsed_s(t0));
	is_int(r.kind, LB_DB_KIND_READ, "result READ");
	is_int(r.nrows, 1, "one row");

	struct lb_db_stmt *s = NULL;
	struct lb_db_param p = { .type = LB_DB_TYPE_INT, .i64 = 41 };
	const char *ps = "SELECT ? + 1";
	is_int(lb_db_prepare(c, ps, strlen(ps), &s), LB_DB_OK, "prepare on an offloading connection");
	lb_db_stmt_bind(s, &p, 1);
	rc = lb_db_execute_start(s, &r);
	drive(c, &rc, &r);
	struct lb_db_row row;
	ok(rc == LB_DB_OK && lb_db_fetch_row(c, &row) == 1 && !strcmp(row.values[0], "42"),
	   "offloaded execute returns 42");
	lb_db_stmt_free(s);
	lb_db_conn_free(c); /* stops the helper thread */
}

static void test_read_timeout(void)
{
	struct lb_db_options o = srv.opts;
	o.read_timeout_ms = 300;
	struct lb_db_config *tcfg = dbt_config(&srv, &o);
	struct lb_db_conn *c = dbt_connect(tcfg);
	struct lb_db_result r;
	const char *long_sql = pg ? "SELECT pg_sleep(3)" : "SELECT SLEEP(3)";

	int64_t t0 = dbt_now_ns();
	int rc = lb_db_query(c, long_sql, strlen(long_sql), &r);
	double secs = dbt_elapsed_s(t0);
	ok(rc == LB_DB_ELOST && secs < 1.5, "read timeout after %.2f s: %s", secs,
	   lb_db_conn_error(c)->message);
	ok(strstr(lb_db_conn_error(c)->message, "300 ms") != NULL, "message names the timeout");
	is_int(lb_db_reconnect(c, dbt_now_ns() + 3000000000LL), LB_DB_OK, "reconnect after timeout");
	is_int(dbt_exec(c, "SELECT 1"), LB_DB_KIND_READ, "usable again");
	lb_db_conn_free(c);
	lb_db_config_free(tcfg);
}

static void test_kill_reconnect(void)
{
	struct lb_db_conn *victim = dbt_connect(cfg), *killer = dbt_connect(cfg);
	struct lb_db_stmt *s = NULL;
	struct lb_db_param p = { .type = LB_DB_TYPE_INT, .i64 = 1 };
	struct lb_db_result r;
	char pid[32], pid2[32], sql[96];
	const char *id_sql = pg ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
	const char *ps = "SELECT ? + 1";

	lb_db_prepare(victim, ps, strlen(ps), &s);
	lb_db_stmt_bind(s, &p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "statement works before the kill");
	dbt_exec(victim, "BEGIN");
	is_int(lb_db_conn_in_transaction(victim), 1, "in_transaction after BEGIN");
	dbt_value(victim, id_sql, pid, sizeof(pid));
	snprintf(sql, sizeof(sql), pg ? "SELECT pg_terminate_backend(%s)" : "KILL %s", pid);
	dbt_exec(killer, sql);
	usleep(200000);
	int rc = lb_db_query(victim, "SELECT 1", 8, &r);
	ok(rc == LB_DB_ELOST && lb_db_conn_error(victim)->lost, "killed session reports lost: "
	   "errno %d, state %s, %s", lb_db_conn_error(victim)->sql_errno,
	   lb_db_conn_error(victim)->sqlstate, lb_db_conn_error(victim)->message);
	is_int(lb_db_conn_state(victim), LB_DB_STATE_LOST, "state LOST");
	is_int(lb_db_reconnect(victim, dbt_now_ns() + 5000000000LL), LB_DB_OK, "reconnect");
	is_int(lb_db_conn_in_transaction(victim), 0, "no transaction on the new session");
	dbt_value(victim, id_sql, pid2, sizeof(pid2));
	ok(strcmp(pid, pid2) != 0, "new session (%s -> %s)", pid, pid2);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "re-prepared statement executes");
	is_int(r.nrows, 1, "and returns its row");
	lb_db_stmt_free(s);
	lb_db_conn_free(victim);
	lb_db_conn_free(killer);
}

static void test_values(struct lb_db_conn *c)
{
	char buf[64];
	struct lb_db_row row;
	struct lb_db_result r;

	/* 100,000 bytes: many times the first fetch buffer */
	const char *big = pg ? "SELECT repeat('ab', 50000)" : "SELECT REPEAT('ab', 50000)";
	dbt_exec(c, big);
	ok(lb_db_fetch_row(c, &row) == 1 && row.lengths[0] == 100000 &&
	   strlen(row.values[0]) == 100000 && row.values[0][99999] == 'b', "a 100000-byte value");
	is_int(dbt_exec(c, "SELECT 1; SELECT 2"), LB_DB_KIND_READ, "multi-statement text");
	is_str(dbt_value(c, "SELECT 3", buf, sizeof(buf)), "3", "in sync afterwards");
	is_str(dbt_value(c, "SELECT NULL", buf, sizeof(buf)), "<null>", "NULL");
	lb_db_query(c, "SELECT 1 WHERE 1 = 0", 20, &r);
	ok(r.kind == LB_DB_KIND_READ && r.nrows == 0 && lb_db_fetch_row(c, &row) == 0, "empty result");

	/* client-side statements: quotes, and backslashes where MySQL reads them */
	struct lb_db_options o = srv.opts;
	o.ps_mode = LB_DB_PS_DISABLE;
	struct lb_db_config *ecfg = dbt_config(&srv, &o);
	struct lb_db_conn *e = dbt_connect(ecfg);
	struct lb_db_stmt *s = NULL;
	const char *v = "it's a \\ back'slash";
	struct lb_db_param p = { .type = LB_DB_TYPE_VARCHAR, .str = v, .len = strlen(v) };
	lb_db_prepare(e, "SELECT ?", 8, &s);
	lb_db_stmt_bind(s, &p, 1);
	ok(lb_db_execute(s, &r) == LB_DB_OK && lb_db_fetch_row(e, &row) == 1 &&
	   !strcmp(row.values[0], v), "emulated string parameter round-trips: %s",
	   row.values ? row.values[0] : lb_db_conn_error(e)->message);
	lb_db_stmt_free(s);
	lb_db_conn_free(e);
	lb_db_config_free(ecfg);
}

static void test_errors(struct lb_db_conn *c)
{
	struct lb_db_result r;
	const char *bad = "SELECT * FROM lbt_odbc_nosuch";

	is_int(lb_db_query(c, bad, strlen(bad), &r), LB_DB_ESQL, "missing table");
	const struct lb_db_error *e = lb_db_conn_error(c);
	is_str(e->sqlstate, pg ? "42P01" : "42S02", "SQLSTATE");
	ok(!pg || strstr(e->message, "does not exist") == e->message + strlen(e->message) -
	   strlen("does not exist"), "the server's text, no driver prefix or suffix: %s", e->message);
	ok(pg || e->sql_errno == 1146, "native code 1146 (%d)", e->sql_errno);
	ok(!strchr(e->message, '['), "no [vendor] prefix: %s", e->message);
	is_int(e->error_class, LB_DB_ERROR_FATAL, "not in the ignore list");
	is_int(dbt_exec(c, "SELECT 1"), LB_DB_KIND_READ, "usable after an error");

	struct lb_db_options o = srv.opts;
	o.odbc_connection_string = NULL;
	o.odbc_dsn = "lbt_no_such_dsn";
	struct lb_db_config *bcfg = dbt_config(&srv, &o);
	struct lb_db_conn *b = lb_db_conn_new(bcfg);
	is_int(lb_db_connect(b), LB_DB_ECONNECT, "unknown DSN");
	ok(strstr(lb_db_conn_error(b)->message, "odbc: connection to DSN 'lbt_no_such_dsn' failed")
	   != NULL, "names the DSN: %s", lb_db_conn_error(b)->message);
	lb_db_conn_free(b);
	lb_db_config_free(bcfg);

	o = srv.opts;
	o.odbc_connection_string = NULL;
	char err[256];
	struct lb_db_config *none = NULL;
	ok(lb_db_config_new(srv.ops, &o, &none, err, sizeof(err)) == LB_DB_EINVAL &&
	   strstr(err, "--odbc-dsn") != NULL, "no data source is a config error: %s", err);
}

int main(int argc, char **argv)
{
	const char *which = argc > 1 ? argv[1] : "odbc-pgsql";

	require_server(which);
	pg = strcmp(which, "odbc-pgsql") == 0;
	cfg = dbt_config(&srv, NULL);
	struct lb_db_conn *c = dbt_connect(cfg);

	test_values(c);
	test_errors(c);
	test_offload();
	test_read_timeout();
	test_kill_reconnect();

	lb_db_conn_free(c);
	lb_db_config_free(cfg);
	return done_testing();
}
