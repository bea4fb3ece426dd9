/* Helpers for the database layer tests: where the servers are, connecting or skipping, and a
 * few assertions that print the connection's error descriptor when they fail.
 *
 * Connection settings come from LB_TEST_PGSQL / LB_TEST_MYSQL (luabench options such as
 * "--pgsql-host=127.0.0.1 --pgsql-port=15432 ..."), else from `$LB_SANDBOX_DB env <driver>`
 * (tools/sandbox-db). Without a reachable server a test is skipped, except under CI=true where
 * that is a failure. */
#ifndef LB_DBTEST_H
#define LB_DBTEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver.h"
#include "tap.h"

struct dbt_server {
	const char *driver;
	const struct lb_db_ops *ops;
	struct lb_db_options opts;
	bool sandbox;            /* settings came from tools/sandbox-db (so it may be restarted) */
	char host[128], port[32], user[64], password[128], db[64], sock[256];
};

static inline int64_t dbt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline double dbt_elapsed_s(int64_t start_ns)
{
	return (double)(dbt_now_ns() - start_ns) / 1e9;
}

static inline void dbt_take(char *dst, size_t size, const char *tok, const char *key)
{
	size_t n = strlen(key);
	if (strncmp(tok, key, n) == 0)
		snprintf(dst, size, "%s", tok + n);
}

/* Reads "--<driver>-host=... --<driver>-port=..." style settings. */
static inline void dbt_parse(struct dbt_server *s, char *text)
{
	char key[64];
	for (char *tok = strtok(text, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
#define TAKE(field, name)                                                                   \
	snprintf(key, sizeof(key), "--%s-" name "=", s->driver);                          \
	dbt_take(s->field, sizeof(s->field), tok, key);
		TAKE(host, "host")
		TAKE(port, "port")
		TAKE(user, "user")
		TAKE(password, "password")
		TAKE(db, "db")
		TAKE(sock, "socket")
#undef TAKE
	}
}

static inline bool dbt_load(struct dbt_server *s, const char *driver)
{
	char env_name[32], buf[1024] = "";
	const char *text;

	memset(s, 0, sizeof(*s));
	s->driver = driver;
	s->ops = lb_db_find_driver(driver);
	snprintf(env_name, sizeof(env_name), "LB_TEST_%s", strcmp(driver, "pgsql") ? "MYSQL" : "PGSQL");
	text = getenv(env_name);
	if (text) {
		snprintf(buf, sizeof(buf), "%s", text);
	} else if (getenv("LB_SANDBOX_DB")) {
		char cmd[512];
		snprintf(cmd, sizeof(cmd), "'%s' env %s", getenv("LB_SANDBOX_DB"), driver);
		FILE *f = popen(cmd, "r");
		if (f) {
			size_t n = fread(buf, 1, sizeof(buf) - 1, f);
			buf[n] = '\0';
			pclose(f);
		}
		s->sandbox = true;
	}
	dbt_parse(s, buf);
	s->opts.hosts = s->host[0] ? s->host : NULL;
	s->opts.ports = s->port[0] ? s->port : NULL;
	s->opts.sockets = s->sock[0] ? s->sock : NULL;
	s->opts.user = s->user[0] ? s->user : NULL;
	s->opts.password = s->password[0] ? s->password : NULL;
	s->opts.db = s->db[0] ? s->db : NULL;
	s->opts.connect_timeout_ms = 3000;
	return buf[0] != '\0';
}

static inline bool dbt_ci(void)
{
	const char *ci = getenv("CI");
	return ci && (strcmp(ci, "true") == 0 || strcmp(ci, "1") == 0);
}

/* A config from `o`, or a failed test and NULL. */
static inline struct lb_db_config *dbt_config(const struct dbt_server *s,
					      const struct lb_db_options *o)
{
	struct lb_db_config *cfg = NULL;
	char err[256];
	if (lb_db_config_new(s->ops, o ? o : &s->opts, &cfg, err, sizeof(err)) != 0)
		ok(0, "config for %s: %s", s->driver, err);
	return cfg;
}

/* Skips the whole program (or fails under CI) when the server is not there. */
static inline void dbt_require_server(struct dbt_server *s, const char *driver)
{
	char why[600] = "";
	bool have = dbt_load(s, driver);

	if (!s->ops) {
		snprintf(why, sizeof(why), "driver %s not built", driver);
	} else if (!have) {
		snprintf(why, sizeof(why), "no settings (LB_TEST_%s / LB_SANDBOX_DB unset)",
			 strcmp(driver, "pgsql") ? "MYSQL" : "PGSQL");
	} else {
		struct lb_db_config *cfg = dbt_config(s, NULL);
		struct lb_db_conn *c = cfg ? lb_db_conn_new(cfg) : NULL;
		if (c && lb_db_connect(c) != LB_DB_OK)
			snprintf(why, sizeof(why), "%s", lb_db_conn_error(c)->message);
		lb_db_conn_free(c);
		lb_db_config_free(cfg);
	}
	if (!why[0])
		return;
	if (dbt_ci()) {
		ok(0, "%s server reachable (CI=true: no skipping): %s", driver, why);
		exit(done_testing());
	}
	printf("1..0 # SKIP %s server unavailable: %s\n", driver, why);
	exit(0);
}

static inline struct lb_db_conn *dbt_connect(struct lb_db_config *cfg)
{
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	int rc = lb_db_connect(c);
	if (rc != LB_DB_OK)
		diag("connect: %s", lb_db_conn_error(c)->message);
	return c;
}

/* Runs SQL that must succeed; returns the result kind (or -1 after a reported failure). */
static inline int dbt_exec(struct lb_db_conn *c, const char *sql)
{
	struct lb_db_result r;
	int rc = lb_db_query(c, sql, strlen(sql), &r);
	if (rc != LB_DB_OK) {
		ok(0, "exec %.60s: %s", sql, lb_db_conn_error(c)->message);
		return -1;
	}
	return r.kind;
}

/* First value of the first row, copied into buf ("<null>" for SQL NULL, "" without rows). */
static inline const char *dbt_value(struct lb_db_conn *c, const char *sql, char *buf, size_t n)
{
	struct lb_db_row row;
	buf[0] = '\0';
	if (dbt_exec(c, sql) < 0)
		return buf;
	if (lb_db_fetch_row(c, &row) == 1 && row.nfields > 0)
		snprintf(buf, n, "%s", row.values[0] ? row.values[0] : "<null>");
	return buf;
}

/* The next row holds exactly the n values of `want` (NULL: SQL NULL), lengths included. */
static inline void dbt_check_row(struct lb_db_conn *c, const char *const *want, uint32_t n,
				 const char *what)
{
	struct lb_db_row row;
	bool same = lb_db_fetch_row(c, &row) == 1 && row.nfields == n;

	for (uint32_t i = 0; same && i < n; i++) {
		if (!want[i])
			same = row.values[i] == NULL && row.lengths[i] == 0;
		else
			same = row.values[i] && strcmp(row.values[i], want[i]) == 0 &&
			       row.lengths[i] == strlen(want[i]);
		if (!same)
			diag("column %u: got '%s'", i, row.values[i] ? row.values[i] : "(NULL)");
	}
	ok(same, "%s", what);
}

/* A text query that every SQL driver answers alike: two rows of three columns, the first with a
 * NULL, then the end of the rows. */
static inline void dbt_check_two_rows(struct lb_db_conn *c)
{
	const char *sql = "SELECT 1 AS a, 'x' AS b, NULL AS c UNION ALL SELECT 2, 'hello world', 'z'";
	const char *r1[] = { "1", "x", NULL }, *r2[] = { "2", "hello world", "z" };
	struct lb_db_result r;
	struct lb_db_row row;

	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "select with rows");
	is_int(r.kind, LB_DB_KIND_READ, "select is READ");
	is_int(r.nrows, 2, "2 rows");
	is_int(r.nfields, 3, "3 columns");
	dbt_check_row(c, r1, 3, "row 1 values and NULL");
	dbt_check_row(c, r2, 3, "row 2 values");
	is_int(lb_db_fetch_row(c, &row), 0, "end of rows");
	is_int(lb_db_fetch_row(c, &row), 0, "still the end");
}

static inline bool dbt_is_pg(const struct dbt_server *s)
{
	return strcmp(s->driver, "pgsql") == 0;
}

#endif
