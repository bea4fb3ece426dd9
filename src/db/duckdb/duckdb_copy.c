/* DuckDB driver, bulk loading: COPY t (cols) FROM STDIN with rows in COPY's text format
 * (tab-separated, \N for NULL, backslash escapes), as workloads stream them to PostgreSQL, goes
 * into DuckDB's appender, its fastest way in: each value is appended as text and cast by DuckDB
 * to its column's type. One appender per flushed piece; its rows are one transaction. */
#include <ctype.h>
#include <stdio.h>
#include <strings.h>

#include "duckdb_int.h"

void lb_duckdb_appender_drop(struct lb_db_conn *c)
{
	struct duckdb_conn *p = D(c);

	if (p->appender)
		duckdb_appender_destroy(&p->appender);
	p->appender = NULL;
}

static const char *skip_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

/* The next identifier of `s` (plain or "quoted") into buf; returns what follows it. */
static const char *identifier(const char *s, char *buf, size_t cap)
{
	size_t n = 0;

	s = skip_space(s);
	if (*s == '"') {
		for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
			if (*s == '"')
				s++;
			if (n + 1 < cap)
				buf[n++] = *s;
		}
		if (*s == '"')
			s++;
	} else {
		while (*s && (isalnum((unsigned char)*s) || *s == '_' || *s == '$')) {
			if (n + 1 < cap)
				buf[n++] = *s;
			s++;
		}
	}
	buf[n] = '\0';
	return s;
}

static int copy_misuse(struct lb_db_conn *c, const char *sql)
{
	lb_db_set_error(c, 0, "42601", false,
			"duckdb: expected COPY table [(columns)] FROM STDIN, got: %.80s", sql);
	return LB_DB_ESQL;
}

static int appender_fail(struct lb_db_conn *c)
{
	duckdb_error_data e = duckdb_appender_error_data(D(c)->appender);
	int rc = lb_duckdb_error(c, duckdb_error_data_error_type(e), duckdb_error_data_message(e));

	duckdb_destroy_error_data(&e);
	lb_duckdb_appender_drop(c);
	return rc;
}

/* "COPY [schema.]table [(a, b, ...)] FROM STDIN": the appender for it, its columns chosen. */
static int open_appender(struct lb_db_conn *c, const char *sql)
{
	struct duckdb_conn *p = D(c);
	char schema[128] = "", table[128], col[128];
	const char *s = skip_space(sql);

	if (strncasecmp(s, "COPY", 4) || !isspace((unsigned char)s[4]))
		return copy_misuse(c, sql);
	s = identifier(s + 4, table, sizeof(table));
	if (*s == '.') {
		memcpy(schema, table, sizeof(schema));
		s = identifier(s + 1, table, sizeof(table));
	}
	if (!table[0])
		return copy_misuse(c, sql);
	if (duckdb_appender_create(p->con, schema[0] ? schema : NULL, table, &p->appender) == DuckDBError) {
		if (!p->appender)
			return copy_misuse(c, sql);
		return appender_fail(c);
	}
	s = skip_space(s);
	if (*s == '(') {
		do {
			s = identifier(s + 1, col, sizeof(col));
			if (!col[0])
				break;
			if (duckdb_appender_add_column(p->appender, col) == DuckDBError)
				return appender_fail(c);
			s = skip_space(s);
		} while (*s == ',');
		if (*s != ')') {
			lb_duckdb_appender_drop(c);
			return copy_misuse(c, sql);
		}
	}
	return LB_DB_OK;
}

/* One field of COPY's text format: \N is NULL, backslash escapes are undone (into `scratch`
 * only when the field has one). */
static duckdb_state append_field(duckdb_appender a, const char *f, size_t len, struct lb_db_buf *scratch)
{
	if (len == 2 && f[0] == '\\' && f[1] == 'N')
		return duckdb_append_null(a);
	if (!memchr(f, '\\', len))
		return duckdb_append_varchar_length(a, f, len);
	scratch->len = 0;
	lb_db_buf_reserve(scratch, len + 1);
	for (size_t i = 0; i < len; i++) {
		char ch = f[i];
		if (ch == '\\' && i + 1 < len) {
			ch = f[++i];
			ch = ch == 't' ? '\t' : ch == 'n' ? '\n' : ch == 'r' ? '\r' : ch;
		}
		scratch->data[scratch->len++] = ch;
	}
	return duckdb_append_varchar_length(a, scratch->data, scratch->len);
}

int lb_duckdb_copy_start(struct lb_db_conn *c, const char *sql, const char *data, size_t len)
{
	struct duckdb_conn *p = D(c);
	struct lb_db_buf scratch = { 0 };
	const char *end = data + len;
	uint64_t rows = 0;
	int rc = open_appender(c, sql);

	for (const char *line = data; rc == LB_DB_OK && line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		for (const char *f = line; rc == LB_DB_OK;) {
			const char *tab = memchr(f, '\t', (size_t)(eol - f));
			const char *fe = tab ? tab : eol;
			if (append_field(p->appender, f, (size_t)(fe - f), &scratch) == DuckDBError)
				rc = appender_fail(c);
			if (!tab)
				break;
			f = tab + 1;
		}
		if (rc == LB_DB_OK && duckdb_appender_end_row(p->appender) == DuckDBError)
			rc = appender_fail(c);
		rows++;
		line = eol + 1;
	}
	lb_db_buf_free(&scratch);
	if (rc != LB_DB_OK)
		return rc;
	if (duckdb_appender_close(p->appender) == DuckDBError)
		return appender_fail(c);
	lb_duckdb_appender_drop(c);
	c->res.kind = rows ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
	c->res.affected_rows = rows;
	return LB_DB_OK;
}
