/* The database layer without a server: registry, option validation, placeholder scanning,
 * client-side emulation text, round-robin endpoints, the null driver, dry-run, bulk buffering
 * and API misuse. */
#include "db_int.h"
#include "dbtest.h"
#include "lb_config.h"

static void test_registry(void)
{
	const struct lb_db_ops *null = lb_db_find_driver("null");

	ok(null != NULL, "null driver registered");
	is_str(lb_db_driver_name(null), "null", "driver name");
	ok(lb_db_find_driver("nosuch") == NULL, "unknown driver is NULL");
	ok(lb_db_find_driver(NULL) == NULL, "NULL name is NULL");
	ok((lb_db_find_driver("pgsql") != NULL) == LB_HAVE_PGSQL, "pgsql registered iff built");
	ok((lb_db_find_driver("mysql") != NULL) == LB_HAVE_MYSQL, "mysql registered iff built");
	ok((lb_db_find_driver("odbc") != NULL) == LB_HAVE_ODBC, "odbc registered iff built");
	ok((lb_db_find_driver("sqlite") != NULL) == LB_HAVE_SQLITE, "sqlite registered iff built");
	ok((lb_db_find_driver("duckdb") != NULL) == LB_HAVE_DUCKDB, "duckdb registered iff built");
	is_int(lb_db_driver_count(), 1 + LB_HAVE_PGSQL + LB_HAVE_MYSQL + LB_HAVE_ODBC + LB_HAVE_SQLITE + LB_HAVE_DUCKDB,
	       "driver count");
	ok(lb_db_driver_at(lb_db_driver_count()) == NULL, "past the end is NULL");
	is_str(lb_db_strerror(LB_DB_ELOST), "connection lost", "strerror");
}

/* Each driver declares its options; its read_options() takes their values, and a pgsql option
 * left at its default gives way to the libpq environment variable. */
static void test_driver_options(void)
{
	for (uint32_t i = 0; i < lb_db_driver_count(); i++) {
		const struct lb_db_ops *d = lb_db_driver_at(i);
		ok(!d->options == !d->read_options, "%s: options and their reader come together", d->name);
	}
	ok(!lb_db_find_driver("null")->options, "null has no options");
#if LB_HAVE_PGSQL
	const struct lb_db_ops *pg = lb_db_find_driver("pgsql");
	struct lb_opts opts;
	struct lb_db_options o = { 0 };
	char err[256];
	size_t n = 0;
	while (pg->options[n].name)
		n++;
	lb_opts_init(&opts);
	lb_opts_push(&opts, "pgsql-user=alice", "command line");
	setenv("PGHOST", "/tmp", 1);
	setenv("PGUSER", "bob", 1);
	ok(lb_opts_add_defs(&opts, pg->options, n, "pgsql options", err, sizeof(err)) == 0, "pgsql options register");
	pg->read_options(&opts, &o);
	ok(o.user && !strcmp(o.user, "alice"), "pgsql: a given option wins over PGUSER (%s)", o.user ? o.user : "NULL");
	ok(!o.hosts, "pgsql: a default host gives way to PGHOST");
	ok(o.db && !strcmp(o.db, "sbtest"), "pgsql: defaults apply without an environment variable");
	ok(o.driver_ignore_errors && !strcmp(o.driver_ignore_errors, "40P01,23505,40001"), "pgsql: ignore list");
	unsetenv("PGHOST");
	unsetenv("PGUSER");
	lb_opts_fini(&opts);
#endif
}

static int config_error(const char *driver, struct lb_db_options *o, char *err, size_t n)
{
	struct lb_db_config *cfg = NULL;
	int rc = lb_db_config_new(lb_db_find_driver(driver), o, &cfg, err, (uint32_t)n);
	lb_db_config_free(cfg);
	return rc;
}

static void test_config_errors(void)
{
	struct lb_db_options o = { 0 };
	char err[256];

	o.ports = "5432,x";
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_EINVAL, "bad port rejected");
	ok(strstr(err, "Invalid value for the 'null-port' option: '5432,x' ('x' is not a port number)") != NULL,
	   "bad port message: %s", err);
	o.ports = "70000";
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_EINVAL, "port out of range");
	o.ports = NULL;
	o.ignore_errors = "1213,4x1";
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_EINVAL, "bad ignore entry");
	ok(strstr(err, "Invalid value for the 'db-ignore-errors' option: '1213,4x1' ('4x1' is not") != NULL,
	   "ignore list message: %s", err);
	o.ignore_errors = NULL;
	o.ports = "0";
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_OK, "port 0: the client's default");
	o.ports = "";
	o.hosts = " , ";
	o.dry_run = 1;
#if LB_HAVE_MYSQL
	is_int(config_error("mysql", &o, err, sizeof(err)), LB_DB_EINVAL, "mysql: empty host list given");
	ok(strstr(err, "No MySQL hosts specified, aborting") != NULL, "sysbench's message: %s", err);
#endif
	o.hosts = NULL;
#if LB_HAVE_MYSQL
	is_int(config_error("mysql", &o, err, sizeof(err)), LB_DB_EINVAL, "mysql: empty port list given");
	ok(strstr(err, "No MySQL ports specified, aborting") != NULL, "sysbench's message: %s", err);
#endif
	o.dry_run = 0;
	o.ports = "-1";
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_EINVAL, "negative port");
	o.ports = NULL;
	o.ignore_errors = " all ";
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_OK, "'all' accepted");
	o.ignore_errors = NULL;
	o.read_timeout_ms = -1;
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_EINVAL, "negative timeout");
	o.read_timeout_ms = 0;
	o.ps_mode = 7;
	is_int(config_error("null", &o, err, sizeof(err)), LB_DB_EINVAL, "bad ps_mode");
	o.ps_mode = 0;
	struct lb_db_config *cfg = NULL;
	is_int(lb_db_config_new(NULL, &o, &cfg, err, sizeof(err)), LB_DB_EINVAL, "NULL driver");
#if LB_HAVE_PGSQL
	o.ssl_mode = "sometimes";
	is_int(config_error("pgsql", &o, err, sizeof(err)), LB_DB_EINVAL, "pgsql bad sslmode");
	ok(strncmp(err, "pgsql: invalid sslmode 'sometimes'", 34) == 0, "message: %s", err);
	o.ssl_mode = "verify-full";
	is_int(config_error("pgsql", &o, err, sizeof(err)), LB_DB_OK, "pgsql verify-full ok");
#endif
#if LB_HAVE_MYSQL
	o.ssl_mode = "sometimes";
	is_int(config_error("mysql", &o, err, sizeof(err)), LB_DB_EINVAL, "mysql bad ssl mode");
	o.ssl_mode = "REQUIRED";
	is_int(config_error("mysql", &o, err, sizeof(err)), LB_DB_OK, "mysql REQUIRED ok");
	o.ssl_mode = "on";
	is_int(config_error("mysql", &o, err, sizeof(err)), LB_DB_OK, "mysql sysbench 'on' ok");
#endif
}

static uint32_t count_ph(const char *sql, uint32_t dialect)
{
	return lb_db_sql_placeholders(sql, strlen(sql), dialect, NULL, 0);
}

static void test_placeholders(void)
{
	const uint32_t pg = LB_DB_QUOTING_PGSQL, my = LB_DB_QUOTING_MYSQL;
	uint32_t off[4];

	is_int(count_ph("SELECT ?, ?", pg), 2, "plain placeholders");
	is_int(count_ph("SELECT '?', ?", pg), 1, "? in a string literal");
	is_int(count_ph("SELECT 'it''s ?', ?", pg), 1, "doubled quote inside a literal");
	is_int(count_ph("SELECT \"a?b\" FROM t WHERE x = ?", pg), 1, "? in a quoted identifier");
	is_int(count_ph("SELECT ? -- what?\n, ?", pg), 2, "? in a line comment");
	is_int(count_ph("SELECT /* a /* nested? */ still? */ ?", pg), 1, "pg nested comment");
	is_int(count_ph("SELECT $$a?b$$, $tag$ ? $x$ ? $tag$, ?", pg), 1, "dollar quotes");
	is_int(count_ph("SELECT $1, ?", pg), 1, "$1 is not a dollar quote");
	is_int(count_ph("SELECT E'\\'?', ?", pg), 1, "E'' string with backslash escape");
	is_int(count_ph("SELECT '\\', ?", pg), 1, "standard string: backslash is literal");
	is_int(count_ph("SELECT 'abc\\'?', ?", my), 1, "mysql backslash escape");
	is_int(count_ph("SELECT \"?\", `a?`, ?", my), 1, "mysql double quotes and backticks");
	is_int(count_ph("SELECT ? # comment ?\n", my), 1, "mysql # comment");
	is_int(count_ph("SELECT ?--?\n", my), 2, "mysql -- needs a space to be a comment");
	is_int(count_ph("SELECT ? -- ?\n", my), 1, "mysql -- comment");
	is_int(count_ph("SELECT /*!40001 ? */ 1", my), 1, "mysql executable comment is SQL");
	is_int(count_ph("SELECT 'unterminated ?", pg), 0, "unterminated literal");
	is_int(lb_db_sql_placeholders("a ? b '?' ?", 11, pg, off, 4), 2, "offsets count");
	ok(off[0] == 2 && off[1] == 10, "offsets %u %u", off[0], off[1]);
}

static struct lb_db_config *null_config(const struct lb_db_options *o)
{
	struct lb_db_config *cfg = NULL;
	static const struct lb_db_options none;
	lb_db_config_new(lb_db_find_driver("null"), o ? o : &none, &cfg, NULL, 0);
	return cfg;
}

static void test_emulation(void)
{
	struct lb_db_options o = { .ps_mode = LB_DB_PS_DISABLE };
	struct lb_db_config *cfg = null_config(&o);
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	struct lb_db_stmt *s = NULL;
	const char *sql = "INSERT INTO t VALUES (?, '?', ?, ?, ?, 10-?)";
	struct lb_db_param p[5] = {
		{ .type = LB_DB_TYPE_INT, .i64 = 42 },
		{ .type = LB_DB_TYPE_VARCHAR, .str = "O'Reilly", .len = 8 },
		{ .type = LB_DB_TYPE_DOUBLE, .f64 = 0.1 },
		{ .type = LB_DB_TYPE_VARCHAR, .is_null = 1 },
		{ .type = LB_DB_TYPE_BIGINT, .i64 = -5 },
	};
	struct lb_db_result r;

	is_int(lb_db_connect(c), LB_DB_OK, "null connect");
	is_int(lb_db_prepare(c, sql, strlen(sql), &s), LB_DB_OK, "prepare emulated");
	is_int(lb_db_stmt_nparams(s), 5, "5 parameters (the quoted ? is not one)");
	is_int(lb_db_stmt_bind(s, p, 5), LB_DB_OK, "bind");
	is_int(lb_db_emulate_text(c, s), LB_DB_OK, "emulate");
	is_str(c->text.data, "INSERT INTO t VALUES (42, '?', 'O''Reilly', 0.1, NULL, 10-(-5))",
	       "emulated text escapes quotes, keeps doubles exact, guards negatives");
	is_int(lb_db_execute(s, &r), LB_DB_OK, "execute");
	is_int(r.kind, LB_DB_KIND_WRITE, "null driver classes INSERT as write");
	is_int(lb_db_stmt_bind(s, p, 4), LB_DB_EINVAL, "wrong parameter count");
	ok(strstr(lb_db_conn_error(c)->message, "has 5 parameters, 4 bound") != NULL,
	   "count message: %s", lb_db_conn_error(c)->message);
	p[0].type = LB_DB_TYPE_DATE;
	is_int(lb_db_stmt_bind(s, p, 5), LB_DB_ENOTSUP, "DATE parameters not supported");
	lb_db_conn_free(c);
	is_int(lb_db_execute(s, &r), LB_DB_EINVAL, "statement of a freed connection");
	lb_db_stmt_free(s);
	lb_db_config_free(cfg);
}

static void test_null_driver(void)
{
	struct lb_db_config *cfg = null_config(NULL);
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	struct lb_db_result r;
	struct lb_db_row row;
	struct lb_db_stmt *s;

	is_int(lb_db_query(c, "SELECT 1", 8, &r), LB_DB_EINVAL, "query before connect");
	is_int(lb_db_connect(c), LB_DB_OK, "connect");
	is_int(lb_db_conn_state(c), LB_DB_STATE_IDLE, "idle");
	is_int(lb_db_query(c, "SELECT 1", 8, &r), LB_DB_OK, "select");
	is_int(r.kind, LB_DB_KIND_READ, "select is read");
	is_int(r.nrows, 0, "empty result set");
	is_int(lb_db_fetch_row(c, &row), 0, "no rows");
	lb_db_query(c, " update t set a=1", 17, &r);
	is_int(r.kind, LB_DB_KIND_WRITE, "update is write");
	lb_db_query(c, "BEGIN", 5, &r);
	is_int(r.kind, LB_DB_KIND_OTHER, "begin is other");
	is_int(lb_db_prepare(c, "SELECT ?", 8, &s), LB_DB_OK, "prepare");
	is_int(lb_db_execute(s, &r), LB_DB_EINVAL, "execute before bind");
	struct lb_db_param p = { .type = LB_DB_TYPE_INT, .i64 = 1 };
	lb_db_stmt_bind(s, &p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "execute");
	is_int(r.kind, LB_DB_KIND_READ, "prepared select is read");
	lb_db_stmt_free(s);
	is_int(lb_db_step(c, 0, &r), LB_DB_EINVAL, "step with nothing in flight");
	is_int(lb_db_wait(c, &r), LB_DB_OK, "wait with nothing in flight");
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
}

static void test_round_robin(void)
{
	struct lb_db_options o = { .hosts = "a, b", .ports = "1,2" };
	struct lb_db_config *cfg = null_config(&o);
	const char *want[] = { "a:1", "a:2", "b:1", "b:2", "a:1" };

	for (int i = 0; i < 5; i++) {
		struct lb_db_conn *c = lb_db_conn_new(cfg);
		lb_db_connect(c);
		is_str(lb_db_conn_endpoint(c), want[i], "connection %d endpoint", i);
		lb_db_reconnect(c, 0);
		is_str(lb_db_conn_endpoint(c), want[i], "reconnect keeps the endpoint");
		is_int(lb_db_conn_reconnects(c), 1, "reconnect counted");
		lb_db_conn_free(c);
	}
	lb_db_config_free(cfg);
	o = (struct lb_db_options){ .sockets = "/s1,/s2", .hosts = "ignored" };
	cfg = null_config(&o);
	struct lb_db_conn *c1 = lb_db_conn_new(cfg), *c2 = lb_db_conn_new(cfg);
	lb_db_connect(c1);
	lb_db_connect(c2);
	ok(strcmp(lb_db_conn_endpoint(c1), "/s1") == 0 && strcmp(lb_db_conn_endpoint(c2), "/s2") == 0,
	   "sockets replace hosts: %s %s", lb_db_conn_endpoint(c1), lb_db_conn_endpoint(c2));
	lb_db_conn_free(c1);
	lb_db_conn_free(c2);
	lb_db_config_free(cfg);
}

static void test_bulk_and_misuse(void)
{
	struct lb_db_options o = { .bulk_packet_bytes = 100 };
	struct lb_db_config *cfg = null_config(&o);
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	struct lb_db_result r;
	int flushes = 0;

	lb_db_connect(c);
	is_int(lb_db_bulk_insert_next(c, "(1)", 3, &r), LB_DB_EINVAL, "next before init");
	ok(strstr(lb_db_conn_error(c)->message, "before bulk_insert_init") != NULL, "message: %s",
	   lb_db_conn_error(c)->message);
	lb_db_bulk_insert_init(c, "INSERT INTO t VALUES", 20);
	for (int i = 0; i < 100; i++) {
		char row[32];
		int n = snprintf(row, sizeof(row), "(%d)", i);
		is_int(lb_db_bulk_insert_next(c, row, (uint64_t)n, &r), LB_DB_OK, "row %d", i);
		flushes += r.kind == LB_DB_KIND_WRITE;
		ok(c->bulk.len <= 100, "buffer within the packet size");
	}
	lb_db_bulk_insert_done(c, &r);
	flushes += r.kind == LB_DB_KIND_WRITE;
	ok(flushes >= 5, "several flushes (%d)", flushes);
	is_int(lb_db_bulk_insert_done(c, &r), LB_DB_EINVAL, "done twice");
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
}

static void test_dry_run(void)
{
#if LB_HAVE_MYSQL
	struct lb_db_options o = { .dry_run = 1, .hosts = "127.0.0.1", .ports = "1" };
	struct lb_db_config *cfg = NULL;
	struct lb_db_result r;
	struct lb_db_stmt *s;

	lb_db_config_new(lb_db_find_driver("mysql"), &o, &cfg, NULL, 0);
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	is_int(lb_db_connect(c), LB_DB_OK, "dry-run connect needs no server");
	is_int(lb_db_query(c, "SELECT 1", 8, &r), LB_DB_OK, "dry-run query");
	is_int(r.kind, LB_DB_KIND_OTHER, "dry-run counts as other");
	is_int(lb_db_prepare(c, "SELECT ?", 8, &s), LB_DB_OK, "dry-run prepare");
	struct lb_db_param p = { .type = LB_DB_TYPE_INT };
	lb_db_stmt_bind(s, &p, 1);
	is_int(lb_db_execute(s, &r), LB_DB_OK, "dry-run execute");
	is_int(r.kind, LB_DB_KIND_OTHER, "dry-run execute is other");
	lb_db_stmt_free(s);
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
#endif
}

int main(void)
{
	test_registry();
	test_driver_options();
	test_config_errors();
	test_placeholders();
	test_emulation();
	test_null_driver();
	test_round_robin();
	test_bulk_and_misuse();
	test_dry_run();
	return done_testing();
}
