/* Reconnect across a server restart: `test_restart pgsql|mysql`. Restarts the sandbox server
 * (tools/sandbox-db), so meson runs it alone (is_parallel: false). Checks that the lost session
 * is reported, that lb_db_reconnect() gives up at its deadline while the server is down, that
 * it retries with backoff until the server is back, and that prepared statements work after. */
#include "dbtest.h"

static struct dbt_server srv;

static int sandbox(const char *cmd, const char *driver, bool background)
{
	char line[768];
	snprintf(line, sizeof(line), background ? "(sleep 0.5; '%s' %s %s) >/dev/null 2>&1 &"
						: "'%s' %s %s >/dev/null 2>&1",
		 getenv("LB_SANDBOX_DB"), cmd, driver);
	return system(line);
}

int main(int argc, char **argv)
{
	const char *driver = argc > 1 ? argv[1] : "pgsql";
	struct lb_db_param p = { .type = LB_DB_TYPE_INT, .i64 = 41 };
	struct lb_db_stmt *s = NULL;
	struct lb_db_result r;
	struct lb_db_row row;

	dbt_require_server(&srv, driver);
	if (!srv.sandbox) {
		printf("1..0 # SKIP settings do not come from tools/sandbox-db; not restarting a "
		       "server we do not own\n");
		return 0;
	}
	struct lb_db_config *cfg = dbt_config(&srv, NULL);
	struct lb_db_conn *c = dbt_connect(cfg);

	is_int(lb_db_prepare(c, "SELECT ? + 1", 12, &s), LB_DB_OK, "prepare");
	lb_db_stmt_bind(s, &p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "execute before the restart");

	is_int(sandbox("restart", driver, false), 0, "sandbox-db restart %s", driver);
	int rc = lb_db_query(c, "SELECT 1", 8, &r);
	ok(rc == LB_DB_ELOST && lb_db_conn_error(c)->lost, "restart reported as lost: %s",
	   lb_db_conn_error(c)->message);
	is_int(lb_db_reconnect(c, dbt_now_ns() + 10000000000LL), LB_DB_OK, "reconnect");
	is_int(lb_db_execute(s, &r), LB_DB_OK, "prepared statement after the restart");
	ok(lb_db_fetch_row(c, &row) == 1 && strcmp(row.values[0], "42") == 0, "its row: 42");

	/* Server down: the deadline bounds the retries. */
	is_int(sandbox("stop", driver, false), 0, "sandbox-db stop %s", driver);
	int64_t t0 = dbt_now_ns();
	rc = lb_db_reconnect(c, dbt_now_ns() + 300000000LL);
	double secs = dbt_elapsed_s(t0);
	ok(rc == LB_DB_ECONNECT && secs >= 0.25 && secs < 1.5,
	   "reconnect gives up at its deadline (%.2f s): %s", secs, lb_db_conn_error(c)->message);
	ok(!strstr(lb_db_conn_error(c)->message, srv.password), "no password in the message");

	/* Server back after a while: the backoff loop finds it. */
	sandbox("start", driver, true);
	t0 = dbt_now_ns();
	rc = lb_db_reconnect(c, dbt_now_ns() + 30000000000LL);
	ok(rc == LB_DB_OK, "reconnect waits for the server (%.2f s)", dbt_elapsed_s(t0));
	is_int(lb_db_conn_reconnects(c), 2, "two successful reconnects counted");
	p.i64 = 99;
	is_int(lb_db_execute(s, &r), LB_DB_OK, "prepared statement after stop/start");
	ok(lb_db_fetch_row(c, &row) == 1 && strcmp(row.values[0], "100") == 0, "its row: 100");

	lb_db_stmt_free(s);
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
	/* Leave the server running whatever happened above. */
	sandbox("start", driver, false);
	return done_testing();
}
