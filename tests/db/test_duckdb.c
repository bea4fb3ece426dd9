/* The duckdb driver's result sets against DuckDB's own text, on a database file in a fresh
 * temporary directory. First DuckDB's C API alone fills tables with values of every type the
 * driver reads from data chunks (random bit patterns of doubles and floats, decimals of every
 * width, integers to their limits, dates BC and AD, strings, timestamps, intervals, blobs, NULLs)
 * and keeps the text duckdb_value_varchar gives for each query; then the driver runs the same
 * queries, as text and prepared, and every row it fetches must be byte for byte that text. Also:
 * typed values (lb_db_next_row, lb_db_row_value), row counts of streamed results, a conversion
 * error while rows stream, several statements in one text, and a prepared SELECT streamed
 * with its parameters. */
#include <duckdb.h>
#include <math.h>

#include "dbtest.h"

static char dir[256], path[300];

/* The tables, made with DuckDB's C API (the driver is not involved). */
static const char *const SETUP[] = {
	"CREATE TABLE n AS SELECT i, hash(i) AS h, hash(i + 1000003) AS g FROM range(3000) t(i)",
	"CREATE TABLE s (k INTEGER, v VARCHAR)",
	"INSERT INTO s VALUES (1, ''), (2, 'a'), (3, 'twelve chars'), (4, 'thirteen char'), "
	"(5, 'héllo wörld, ünïcode ✓ and a longer string than any inlined one'), (6, NULL), "
	"(7, 'tab\there'), (8, repeat('x', 5000))",
};

/* The queries both sides run: each a stretch of the driver's text conversion. */
static const char *const QUERIES[] = {
	/* doubles and floats: random bit patterns (appended below), then chosen values */
	"SELECT k, d, f FROM bits ORDER BY k",
	"SELECT x, x::FLOAT FROM (VALUES (0.0), (-0.0), (1.0), (100.0), (0.1), (1e15), (1e16), (1e17), "
	"(123456789012345678.0), (0.0001), (0.00001), (1e-7), (5e-324), (1.7976931348623157e308), "
	"(2.0^53), (1.0/3), ('inf'::DOUBLE), ('-inf'::DOUBLE), ('nan'::DOUBLE), (-('nan'::DOUBLE)), "
	"(9007199254740993.0), (0.3), (1e22), (1e21), (-2.5e-5), (3.4028234663852886e38)) t(x) "
	"WHERE isnan(x) OR abs(x) < 3.5e38 OR isinf(x)",
	"SELECT (h % 2000000001)::DOUBLE / ((g % 100000) + 1) * (CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END) "
	"FROM n ORDER BY i",
	/* decimals of each storage width, both signs, small and large */
	"SELECT ((h % 19999)::INTEGER - 9999)::DECIMAL(4,0), (((h % 19999)::INTEGER - 9999) / 10)::DECIMAL(4,1), "
	"(((h % 1999999)::BIGINT - 999999) / 1000)::DECIMAL(9,3), "
	"(((h % 1999999999999999)::BIGINT - 999999999999999) / 100)::DECIMAL(18,2), "
	"((h >> 14)::HUGEINT * (g >> 14)::HUGEINT * (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END))::DECIMAL(31,0) * 0.0000001, "
	"((i - 1500) / 1000)::DECIMAL(5,3), 0::DECIMAL(5,3), (i % 10)::DECIMAL(38,0) FROM n ORDER BY i",
	/* integers to their limits */
	"SELECT (h % 256)::UTINYINT, ((h % 256)::SMALLINT - 128)::TINYINT, (h % 65536)::USMALLINT, "
	"((h % 65536)::INTEGER - 32768)::SMALLINT, (h % 4294967296)::UINTEGER, "
	"((h % 4294967296)::BIGINT - 2147483648)::INTEGER, h, (h::HUGEINT - 9223372036854775808)::BIGINT, "
	"(h >> 1)::HUGEINT * g::HUGEINT - 170141183460469231731687303715884105727, h::UHUGEINT * g::UHUGEINT FROM n ORDER BY i",
	"SELECT (-128)::TINYINT, 127::TINYINT, (-32768)::SMALLINT, (-2147483647 - 1)::INTEGER, "
	"(-9223372036854775807 - 1)::BIGINT, 18446744073709551615::UBIGINT, "
	"(-170141183460469231731687303715884105727 - 1)::HUGEINT, 170141183460469231731687303715884105727::HUGEINT, "
	"340282366920938463463374607431768211455::UHUGEINT, 0::UHUGEINT, true, false, NULL::BOOLEAN",
	/* dates over thousands of years, BC and AD, and the infinities (DuckDB's own text) */
	"SELECT DATE '1970-01-01' + ((h % 4000000)::INTEGER - 2000000) FROM n ORDER BY i",
	"SELECT DATE '0001-01-01', DATE '0001-01-01' - 1, DATE '9999-12-31', DATE '9999-12-31' + 1, "
	"'infinity'::DATE, '-infinity'::DATE, DATE '1992-02-29', DATE '2000-02-29', DATE '1900-03-01'",
	/* strings: empty, inlined (up to 12 bytes) and not, UTF-8, NULL */
	"SELECT k, v, length(v) FROM s ORDER BY k",
	/* types DuckDB makes text of for the driver, one value at a time */
	"SELECT TIMESTAMP '1992-03-22 01:02:03.456789' + to_microseconds((h % 1000000000000)::BIGINT), "
	"TIME '01:02:03' + to_microseconds((h % 80000000000)::BIGINT), "
	"to_microseconds((h % 100000000000)::BIGINT) + to_months((g % 100)::INTEGER), "
	"('\\x' || lpad(to_hex(h % 4096), 4, '0'))::BLOB || 'ab'::BLOB, "
	"TIMESTAMP_S '2001-01-01 00:00:01', TIMESTAMP_MS '2001-01-01 00:00:01.5', "
	"TIMESTAMP_NS '2001-01-01 00:00:01.123456789' FROM n WHERE i < 200 ORDER BY i",
	/* NULLs in every column of a chunk's rows, sometimes */
	"SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE i END, CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || i END, "
	"CASE WHEN i % 7 = 0 THEN NULL ELSE i::DECIMAL(10,2) / 3 END FROM n ORDER BY i",
	/* result sets read from DuckDB's materialised result: their text as before */
	"SELECT [1, 2], {'a': i}, 'b'::ENUM('a', 'b'), gen_random_uuid() IS NOT NULL, "
	"'1992-03-22 01:02:03+00'::TIMESTAMPTZ IS NOT NULL, i FROM n WHERE i < 5",
	/* an empty result */
	"SELECT i FROM n WHERE i < 0",
};
#define NQUERIES (sizeof(QUERIES) / sizeof(QUERIES[0]))

static char *want[NQUERIES];
static uint64_t want_rows[NQUERIES];

struct text {
	char *s;
	size_t len, cap;
};

static void text_add(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->s = realloc(t->s, t->cap);
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

/* One cell of the text of a result: its bytes, "\x01" for NULL, then a separator. */
static void text_cell(struct text *t, const char *v, size_t n, bool last)
{
	if (v)
		text_add(t, v, n);
	else
		text_add(t, "\x01", 1);
	text_add(t, last ? "\n" : "\x1f", 1);
}

static void make_bits(duckdb_connection con)
{
	duckdb_appender app;
	uint64_t x = 88172645463325252ULL;

	duckdb_query(con, "CREATE TABLE bits (k INTEGER, d DOUBLE, f FLOAT)", NULL);
	if (duckdb_appender_create(con, NULL, "bits", &app) == DuckDBError)
		return;
	for (int k = 0; k < 20000; k++) {
		double d;
		float f;
		uint32_t b;
		/* xorshift: every bit pattern, infinities and NaNs among them now and then */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&d, &x, sizeof(d));
		b = (uint32_t)(x >> 17);
		memcpy(&f, &b, sizeof(f));
		if (k % 97 == 0)
			d = (double)(int64_t)(x % 100000) / 100;
		duckdb_append_int32(app, k);
		duckdb_append_double(app, d);
		duckdb_append_float(app, f);
		duckdb_appender_end_row(app);
	}
	duckdb_appender_destroy(&app);
}

/* The reference: DuckDB's own text of every query, through duckdb_value_varchar. */
static void reference(void)
{
	duckdb_database db;
	duckdb_connection con;
	duckdb_result r;

	if (duckdb_open(path, &db) == DuckDBError || duckdb_connect(db, &con) == DuckDBError) {
		ok(0, "DuckDB opens %s", path);
		return;
	}
	for (size_t i = 0; i < sizeof(SETUP) / sizeof(SETUP[0]); i++)
		if (duckdb_query(con, SETUP[i], NULL) == DuckDBError)
			ok(0, "setup %zu", i);
	make_bits(con);
	for (size_t q = 0; q < NQUERIES; q++) {
		struct text t = { 0 };
		if (duckdb_query(con, QUERIES[q], &r) == DuckDBError) {
			ok(0, "reference query %zu: %s", q, duckdb_result_error(&r));
			duckdb_destroy_result(&r);
			continue;
		}
		idx_t rows = duckdb_row_count(&r), cols = duckdb_column_count(&r);
		text_add(&t, "", 0);
		for (idx_t row = 0; row < rows; row++)
			for (idx_t col = 0; col < cols; col++) {
				char *v = duckdb_value_is_null(&r, col, row) ? NULL : duckdb_value_varchar(&r, col, row);
				text_cell(&t, v, v ? strlen(v) : 0, col + 1 == cols);
				duckdb_free(v);
			}
		want[q] = t.s;
		want_rows[q] = rows;
		duckdb_destroy_result(&r);
	}
	duckdb_disconnect(&con);
	duckdb_close(&db);
}

/* The rows the driver fetches after a statement, as text. */
static char *fetched(struct lb_db_conn *c)
{
	struct text t = { 0 };
	struct lb_db_row row;

	text_add(&t, "", 0);
	while (lb_db_fetch_row(c, &row) == 1)
		for (uint32_t i = 0; i < row.nfields; i++)
			text_cell(&t, row.values[i], row.lengths[i], i + 1 == row.nfields);
	return t.s;
}

/* Where two texts first differ, for the diagnostics. */
static void show_difference(const char *got, const char *exp)
{
	size_t i = 0;
	while (got[i] && got[i] == exp[i])
		i++;
	size_t from = i > 40 ? i - 40 : 0;
	diag("first difference at byte %zu: got '%.80s' want '%.80s'", i, got + from, exp + from);
}

static void test_text(struct lb_db_conn *c)
{
	struct lb_db_result r;

	for (size_t q = 0; q < NQUERIES; q++) {
		if (!want[q])
			continue;
		int rc = lb_db_query(c, QUERIES[q], strlen(QUERIES[q]), &r);
		if (rc != LB_DB_OK) {
			ok(0, "query %zu: %s", q, lb_db_conn_error(c)->message);
			continue;
		}
		is_int(r.nrows, want_rows[q], "query %zu: the rows DuckDB gives", q);
		char *got = fetched(c);
		bool same = strcmp(got, want[q]) == 0;
		if (!same)
			show_difference(got, want[q]);
		ok(same, "query %zu: every value's text is duckdb_value_varchar's (%.50s...)", q, QUERIES[q]);
		free(got);

		/* the same statement prepared (a SELECT streams) */
		struct lb_db_stmt *s = NULL;
		if (lb_db_prepare(c, QUERIES[q], strlen(QUERIES[q]), &s) != LB_DB_OK ||
		    lb_db_execute(s, &r) != LB_DB_OK) {
			ok(0, "prepared query %zu: %s", q, lb_db_conn_error(c)->message);
		} else {
			got = fetched(c);
			ok(strcmp(got, want[q]) == 0 && r.nrows == want_rows[q], "query %zu prepared: the same rows", q);
			free(got);
		}
		lb_db_stmt_free(s);
	}
}

static void value_at(struct lb_db_conn *c, uint32_t col, struct lb_db_value *v)
{
	if (lb_db_row_value(c, col, v) != LB_DB_OK)
		ok(0, "row_value %u", col);
}

static void test_typed(struct lb_db_conn *c)
{
	const char *sql = "SELECT 42::INTEGER, -7::TINYINT, 12.25::DECIMAL(10,2), 5::DECIMAL(18,0), 2.5::DOUBLE, "
			  "1.5::FLOAT, true, 'héllo', NULL, DATE '1995-03-04', 18446744073709551615::UBIGINT, "
			  "170141183460469231731687303715884105727::HUGEINT, 'x'::BLOB, INTERVAL 3 DAY";
	struct lb_db_result r;
	struct lb_db_value v;

	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "typed: the query runs");
	is_int(lb_db_row_value(c, 0, &v), LB_DB_EINVAL, "typed: no current row before next_row");
	is_int(lb_db_next_row(c), 1, "typed: next_row moves to the row");
	value_at(c, 0, &v);
	ok(v.type == LB_DB_VALUE_INT && v.i64 == 42, "INTEGER is INT 42");
	value_at(c, 1, &v);
	ok(v.type == LB_DB_VALUE_INT && v.i64 == -7, "TINYINT is INT -7");
	value_at(c, 2, &v);
	ok(v.type == LB_DB_VALUE_DOUBLE && v.f64 == 12.25, "DECIMAL(10,2) is DOUBLE 12.25");
	value_at(c, 3, &v);
	ok(v.type == LB_DB_VALUE_INT && v.i64 == 5, "DECIMAL(18,0) is INT 5");
	value_at(c, 4, &v);
	ok(v.type == LB_DB_VALUE_DOUBLE && v.f64 == 2.5, "DOUBLE is DOUBLE 2.5");
	value_at(c, 5, &v);
	ok(v.type == LB_DB_VALUE_DOUBLE && v.f64 == 1.5, "FLOAT is DOUBLE 1.5");
	value_at(c, 6, &v);
	ok(v.type == LB_DB_VALUE_BOOL && v.i64 == 1, "BOOLEAN is BOOL 1");
	value_at(c, 7, &v);
	ok(v.type == LB_DB_VALUE_TEXT && v.len == 6 && memcmp(v.str, "héllo", 6) == 0, "VARCHAR is its bytes");
	value_at(c, 8, &v);
	ok(v.type == LB_DB_VALUE_NULL, "NULL is NULL");
	value_at(c, 9, &v);
	ok(v.type == LB_DB_VALUE_TEXT && v.len == 10 && memcmp(v.str, "1995-03-04", 10) == 0, "DATE is its text");
	value_at(c, 10, &v);
	ok(v.type == LB_DB_VALUE_DOUBLE && v.f64 == 18446744073709551615.0, "UBIGINT past 2^63 is DOUBLE");
	value_at(c, 11, &v);
	ok(v.type == LB_DB_VALUE_DOUBLE && v.f64 > 1.7e38, "HUGEINT past 2^63 is DOUBLE");
	value_at(c, 12, &v);
	ok(v.type == LB_DB_VALUE_TEXT && v.len == 1 && v.str[0] == 'x', "BLOB is its bytes");
	value_at(c, 13, &v);
	ok(v.type == LB_DB_VALUE_TEXT && v.len == 6 && memcmp(v.str, "3 days", 6) == 0, "INTERVAL is its text");
	is_int(lb_db_row_value(c, 14, &v), LB_DB_EINVAL, "no column 14");
	is_int(lb_db_next_row(c), 0, "one row only");
	is_int(lb_db_row_value(c, 0, &v), LB_DB_EINVAL, "no current row after the last");

	/* next_row converts nothing: a million rows read, numbers summed from their values */
	sql = "SELECT i, i * 0.5 FROM range(1000000) t(i)";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "a million rows");
	is_int(r.nrows, 1000000, "all counted when the statement returned");
	double sum = 0;
	int64_t n = 0;
	while (lb_db_next_row(c) == 1) {
		value_at(c, 1, &v);
		sum += v.f64;
		n++;
	}
	ok(n == 1000000 && sum == 249999750000.0, "every row read, the halves sum to 249999750000 (%.1f)", sum);
}

static void test_statements(struct lb_db_conn *c)
{
	struct lb_db_result r;
	const char *sql;
	char v[64];

	/* a conversion error while the rows stream: the statement fails, the connection goes on.
	 * Run on one DuckDB thread: with two, DuckDB 1.5 once answered with its interrupt of the
	 * other thread ("INTERRUPT Error: Interrupted!") instead of the error (a full CI run, under
	 * load; doc/duckdb.md). */
	is_int(dbt_exec(c, "SET threads = 1"), LB_DB_KIND_OTHER, "one DuckDB thread");
	sql = "SELECT CAST(CASE WHEN i < 500000 THEN '1' ELSE 'x' END AS INTEGER) FROM range(1000000) t(i)";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_ESQL, "an error after rows streamed fails the statement");
	is_str(lb_db_conn_error(c)->sqlstate, "22P02", "as a conversion error");
	ok(strstr(lb_db_conn_error(c)->message, "Conversion Error") != NULL, "with DuckDB's message: %s",
	   lb_db_conn_error(c)->message);
	is_str(dbt_value(c, "SELECT 42", v, sizeof(v)), "42", "the next statement runs");
	is_int(dbt_exec(c, "SET threads = 2"), LB_DB_KIND_OTHER, "two DuckDB threads again");
	sql = "SELECT * FROM no_such_table";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_ESQL, "a missing table fails");
	is_str(lb_db_conn_error(c)->sqlstate, "42P01", "with its SQLSTATE");

	/* kinds and counts */
	is_int(dbt_exec(c, "CREATE TABLE w (a INTEGER, b VARCHAR)"), LB_DB_KIND_OTHER, "CREATE is OTHER");
	sql = "INSERT INTO w SELECT i, 'b' || i FROM range(10) t(i)";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "insert");
	ok(r.kind == LB_DB_KIND_WRITE && r.affected_rows == 10, "INSERT is WRITE, 10 rows");
	sql = "UPDATE w SET a = a + 1 WHERE a < 3";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "update");
	ok(r.kind == LB_DB_KIND_WRITE && r.affected_rows == 3, "UPDATE is WRITE, 3 rows");
	is_int(dbt_exec(c, "BEGIN"), LB_DB_KIND_OTHER, "BEGIN is OTHER");
	is_int(lb_db_conn_in_transaction(c), 1, "in a transaction");
	is_int(dbt_exec(c, "COMMIT"), LB_DB_KIND_OTHER, "COMMIT is OTHER");
	sql = "EXPLAIN SELECT * FROM w";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "EXPLAIN");
	ok(r.kind == LB_DB_KIND_READ && r.nrows >= 1, "EXPLAIN is READ");
	sql = "SELECT 1; INSERT INTO w VALUES (100, 'x'); SELECT a FROM w WHERE a = 100";
	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "three statements in one text");
	is_str(dbt_value(c, "SELECT COUNT(*) FROM w WHERE a = 100", v, sizeof(v)), "1", "all of them ran");

	/* a prepared SELECT with parameters, streamed, executed again with other values */
	struct lb_db_stmt *s = NULL;
	struct lb_db_param p[2] = { { .type = LB_DB_TYPE_INT, .i64 = 2 }, { .type = LB_DB_TYPE_VARCHAR, .str = "b5", .len = 2 } };
	sql = "SELECT a, b FROM w WHERE a >= ? AND b <> ? ORDER BY a";
	is_int(lb_db_prepare(c, sql, strlen(sql), &s), LB_DB_OK, "prepare");
	is_int(lb_db_stmt_bind(s, p, 2), LB_DB_OK, "bind");
	is_int(lb_db_execute(s, &r), LB_DB_OK, "execute");
	is_int(r.nrows, 9, "a >= 2 but b5: 9 rows (2, 3, 3, 4, 6, 7, 8, 9, 100)");
	dbt_check_row(c, (const char *[]){ "2", "b1" }, 2, "first row");
	p[0].i64 = 9;
	is_int(lb_db_execute(s, &r), LB_DB_OK, "execute with other values");
	is_int(r.nrows, 2, "a >= 9: 2 rows");
	dbt_check_row(c, (const char *[]){ "9", "b9" }, 2, "its first row");
	dbt_check_row(c, (const char *[]){ "100", "x" }, 2, "its second row");
	struct lb_db_row row;
	is_int(lb_db_fetch_row(c, &row), 0, "and the end");
	lb_db_stmt_free(s);
}

/* UUIDs, which duckdb_value_varchar gives as nil: each one's text is DuckDB's cast's. */
static void test_uuid(struct lb_db_conn *c)
{
	const char *sql = "SELECT u::VARCHAR, u FROM (SELECT gen_random_uuid() u FROM range(3000) UNION ALL "
			  "SELECT '00000000-0000-0000-0000-000000000000' UNION ALL "
			  "SELECT 'ffffffff-ffff-ffff-ffff-ffffffffffff' UNION ALL "
			  "SELECT '7fffffff-ffff-ffff-8000-000000000000')";
	struct lb_db_result r;
	struct lb_db_row row;
	int n = 0, same = 0;

	is_int(lb_db_query(c, sql, strlen(sql), &r), LB_DB_OK, "uuids");
	while (lb_db_fetch_row(c, &row) == 1) {
		n++;
		if (row.values[0] && row.values[1] && strcmp(row.values[0], row.values[1]) == 0)
			same++;
		else if (n - same < 3)
			diag("got %s, DuckDB's cast %s", row.values[1] ? row.values[1] : "NULL", row.values[0]);
	}
	ok(n == 3003 && same == n, "every UUID's text is DuckDB's cast's (%d of %d)", same, n);
}

int main(void)
{
	struct lb_db_options o = { 0 };
	struct lb_db_config *cfg = NULL;
	char err[256];

	if (!lb_db_find_driver("duckdb")) {
		if (dbt_ci()) {
			ok(0, "the duckdb driver is built (CI=true: no skipping)");
			return done_testing();
		}
		printf("1..0 # SKIP the duckdb driver is not built\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/lbduckdbXXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/test.duckdb", dir);
	reference();

	o.db = path;
	o.duckdb_threads = 2;
	if (lb_db_config_new(lb_db_find_driver("duckdb"), &o, &cfg, err, sizeof(err)) != 0) {
		ok(0, "config: %s", err);
		return done_testing();
	}
	struct lb_db_conn *c = dbt_connect(cfg);
	test_text(c);
	test_typed(c);
	test_statements(c);
	test_uuid(c);
	lb_db_conn_free(c);
	lb_db_config_free(cfg);
	for (size_t q = 0; q < NQUERIES; q++)
		free(want[q]);

	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
	return done_testing();
}
