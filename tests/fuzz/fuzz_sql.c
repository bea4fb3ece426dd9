/* The SQL text scanner (db/sqlscan.c: the `?` placeholders outside literals, quoted identifiers
 * and comments) and the text of emulated prepared statements built from it (db/stmt_text.c).
 *
 * Input: byte 0 chooses the dialect and how parameters are bound; byte 1 the number of parameter
 * descriptors (up to 7, 9 bytes each: a type byte and 8 value bytes); the rest is the SQL text.
 * The scanner's offsets are checked (increasing, each on a '?', the same count with and without
 * an offsets array); the statement is then prepared, bound and executed through the null driver
 * with client-side emulation, in each dialect, and with every parameter NULL the emulated text
 * must be the SQL with each placeholder replaced by NULL. */
#include <math.h>
#include <string.h>

#include "db_int.h"

#include "fuzz.h"

#define MAX_DESC 7

static void check_scan(const char *sql, size_t len, uint32_t dialect)
{
	uint32_t n = lb_db_sql_placeholders(sql, len, dialect, NULL, 0);
	uint32_t *off = malloc((n ? n : 1) * sizeof(*off));
	if (lb_db_sql_placeholders(sql, len, dialect, off, n) != n)
		abort();
	for (uint32_t i = 0; i < n; i++)
		if (off[i] >= len || sql[off[i]] != '?' || (i && off[i] <= off[i - 1]))
			abort();
	/* Fewer slots than placeholders: the count is still the total. */
	if (n > 1 && lb_db_sql_placeholders(sql, len, dialect, off, n / 2) != n)
		abort();
	free(off);
}

static double special_double(uint64_t bits)
{
	static const double v[] = { 0.0, -0.0, 1.5, -1e300, 1e-310, INFINITY, -INFINITY, NAN, 1e308 };
	double d;
	if ((bits & 0xff) < sizeof(v) / sizeof(v[0]))
		return v[bits & 0xff];
	memcpy(&d, &bits, sizeof(d));
	return d;
}

static void fill_params(struct lb_db_param *p, uint32_t n, const uint8_t *desc, int ndesc, bool all_null,
			const char *text, size_t text_len)
{
	static const int32_t types[] = { LB_DB_TYPE_NONE, LB_DB_TYPE_TINYINT, LB_DB_TYPE_INT, LB_DB_TYPE_BIGINT,
					 LB_DB_TYPE_FLOAT, LB_DB_TYPE_DOUBLE, LB_DB_TYPE_CHAR, LB_DB_TYPE_VARCHAR };
	for (uint32_t i = 0; i < n; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		if (all_null || !ndesc) {
			p[i].type = LB_DB_TYPE_INT;
			p[i].is_null = 1;
			continue;
		}
		const uint8_t *d = desc + 9 * (i % (uint32_t)ndesc);
		uint64_t bits;
		memcpy(&bits, d + 1, sizeof(bits));
		p[i].type = types[d[0] & 7];
		p[i].is_null = p[i].type == LB_DB_TYPE_NONE;
		p[i].i64 = (int64_t)bits;
		p[i].f64 = special_double(bits);
		/* Strings: a slice of the SQL text (quotes, backslashes and NULs included). */
		size_t from = text_len ? (size_t)(bits % text_len) : 0;
		p[i].str = text + from;
		p[i].len = (bits >> 32) % (text_len - from + 1);
	}
}

static void run_stmt(uint32_t dialect, uint8_t mode, const char *sql, size_t len, const uint8_t *desc, int ndesc)
{
	struct lb_db_ops ops = *lb_db_find_driver("null");
	ops.quoting = dialect;
	struct lb_db_options o = { 0 };
	o.ps_mode = LB_DB_PS_DISABLE;
	o.dry_run = (mode & 0x10) != 0;
	struct lb_db_config *cfg;
	char err[256];
	if (lb_db_config_new(&ops, &o, &cfg, err, sizeof(err)) != LB_DB_OK)
		abort();
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	struct lb_db_result res;
	if (lb_db_connect(c) != LB_DB_OK)
		abort();
	struct lb_db_stmt *s;
	if (lb_db_prepare(c, sql, len, &s) == LB_DB_OK) {
		uint32_t n = lb_db_stmt_nparams(s);
		bool all_null = (mode & 0x20) != 0;
		struct lb_db_param *p = calloc(n ? n : 1, sizeof(*p));
		fill_params(p, n, desc, ndesc, all_null, sql, len);
		/* A wrong parameter count must be refused. */
		if ((mode & 0x40) && lb_db_stmt_bind(s, p, n + 1) == LB_DB_OK)
			abort();
		if (lb_db_stmt_bind(s, p, n) == LB_DB_OK && lb_db_execute(s, &res) == LB_DB_OK && all_null &&
		    !o.dry_run) {
			/* The emulated text: the SQL with NULL for each placeholder. */
			size_t want_len = len + 3 * (size_t)n;
			if (c->text.len != want_len)
				abort();
			size_t from = 0, at = 0;
			for (uint32_t i = 0; i < n; i++) {
				size_t ph = s->ph_offsets[i];
				if (memcmp(c->text.data + at, sql + from, ph - from) || memcmp(c->text.data + at + ph - from, "NULL", 4))
					abort();
				at += ph - from + 4;
				from = ph + 1;
			}
			if (memcmp(c->text.data + at, sql + from, len - from))
				abort();
		}
		lb_db_free_result(c);
		if (mode & 0x80) {
			/* Use after the connection is gone: refused, never a crash. */
			lb_db_conn_free(c);
			c = NULL;
			if (lb_db_stmt_bind(s, p, n) == LB_DB_OK || lb_db_execute(s, &res) == LB_DB_OK)
				abort();
		}
		lb_db_stmt_free(s);
		free(p);
	}
	if (c) {
		lb_db_query(c, sql, len, &res);
		lb_db_free_result(c);
		lb_db_conn_free(c);
	}
	lb_db_config_free(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	uint8_t mode = data[0];
	int ndesc = data[1] % (MAX_DESC + 1);
	size_t head = 2 + 9 * (size_t)ndesc;
	if (size < head)
		return 0;
	const char *sql = (const char *)data + head;
	size_t len = size - head;
	check_scan(sql, len, LB_DB_QUOTING_PGSQL);
	check_scan(sql, len, LB_DB_QUOTING_MYSQL);
	run_stmt((mode & 1) ? LB_DB_QUOTING_MYSQL : LB_DB_QUOTING_PGSQL, mode, sql, len, data + 2, ndesc);
	return 0;
}
