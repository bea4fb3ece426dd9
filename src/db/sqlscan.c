/* Finding `?` placeholders in SQL text. A `?` inside a string literal, a quoted identifier or
 * a comment is data, not a parameter, so the scanner walks the text with the lexical rules of
 * the server's dialect. It only needs to know where quoted and commented regions end. */
#include <ctype.h>

#include "db_int.h"

static bool ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '$' || (unsigned char)ch >= 0x80;
}

/* End (index after the closing quote) of a region opened by `q` at sql[i]. A doubled quote is
 * an escaped quote in every dialect; `backslash` also lets '\' escape the next byte. */
static size_t skip_quoted(const char *sql, size_t len, size_t i, char q, bool backslash)
{
	for (i++; i < len; i++) {
		if (backslash && sql[i] == '\\') {
			i++;
			continue;
		}
		if (sql[i] == q) {
			if (i + 1 < len && sql[i + 1] == q) {
				i++;
				continue;
			}
			return i + 1;
		}
	}
	return len;
}

static size_t skip_line_comment(const char *sql, size_t len, size_t i)
{
	while (i < len && sql[i] != '\n')
		i++;
	return i;
}

/* PostgreSQL block comments nest; MySQL's do not. */
static size_t skip_block_comment(const char *sql, size_t len, size_t i, bool nested)
{
	int depth = 1;

	for (i += 2; i < len; i++) {
		if (sql[i] == '*' && i + 1 < len && sql[i + 1] == '/') {
			i++;
			if (--depth == 0)
				return i + 1;
		} else if (nested && sql[i] == '/' && i + 1 < len && sql[i + 1] == '*') {
			i++;
			depth++;
		}
	}
	return len;
}

/* PostgreSQL dollar quoting: $$...$$ or $tag$...$tag$. Returns i unchanged when sql[i] does
 * not open one (e.g. the positional parameter $1, or a '$' inside an identifier). */
static size_t skip_dollar_quote(const char *sql, size_t len, size_t i)
{
	size_t t = i + 1;

	if (i > 0 && ident_char(sql[i - 1]))
		return i;
	if (t < len && isdigit((unsigned char)sql[t]))
		return i;
	while (t < len && sql[t] != '$' && (isalnum((unsigned char)sql[t]) || sql[t] == '_' ||
					   (unsigned char)sql[t] >= 0x80))
		t++;
	if (t >= len || sql[t] != '$')
		return i;
	size_t tag_len = t + 1 - i;
	for (size_t j = t + 1; j + tag_len <= len; j++)
		if (sql[j] == '$' && memcmp(sql + j, sql + i, tag_len) == 0)
			return j + tag_len;
	return len;
}

/* PostgreSQL E'...' strings honour backslash escapes; standard '...' strings do not. */
static bool pg_escape_string(const char *sql, size_t i)
{
	return i > 0 && (sql[i - 1] == 'E' || sql[i - 1] == 'e') &&
	       (i < 2 || !ident_char(sql[i - 2]));
}

static size_t skip_pgsql(const char *sql, size_t len, size_t i)
{
	switch (sql[i]) {
	case '\'':
		return skip_quoted(sql, len, i, '\'', pg_escape_string(sql, i));
	case '"':
		return skip_quoted(sql, len, i, '"', false);
	case '$':
		return skip_dollar_quote(sql, len, i);
	case '-':
		return i + 1 < len && sql[i + 1] == '-' ? skip_line_comment(sql, len, i) : i;
	case '/':
		return i + 1 < len && sql[i + 1] == '*' ? skip_block_comment(sql, len, i, true) : i;
	}
	return i;
}

static size_t skip_mysql(const char *sql, size_t len, size_t i)
{
	switch (sql[i]) {
	case '\'':
	case '"':
		return skip_quoted(sql, len, i, sql[i], true);
	case '`':
		return skip_quoted(sql, len, i, '`', false);
	case '#':
		return skip_line_comment(sql, len, i);
	case '-':
		/* MySQL needs whitespace (or the end) after "--" for it to start a comment. */
		if (i + 1 < len && sql[i + 1] == '-' &&
		    (i + 2 >= len || isspace((unsigned char)sql[i + 2])))
			return skip_line_comment(sql, len, i);
		return i;
	case '/':
		/* Executable comments (slash-star-bang, slash-star-M-bang) hold SQL: scan inside. */
		if (i + 1 >= len || sql[i + 1] != '*')
			return i;
		if ((i + 2 < len && sql[i + 2] == '!') ||
		    (i + 3 < len && sql[i + 2] == 'M' && sql[i + 3] == '!'))
			return i;
		return skip_block_comment(sql, len, i, false);
	}
	return i;
}

uint32_t lb_db_sql_placeholders(const char *sql, size_t len, uint32_t dialect,
				uint32_t *offsets, uint32_t max)
{
	uint32_t n = 0;
	size_t i = 0;

	while (i < len) {
		size_t next = dialect == LB_DB_QUOTING_MYSQL ? skip_mysql(sql, len, i)
							     : skip_pgsql(sql, len, i);
		if (next != i) {
			i = next;
			continue;
		}
		if (sql[i] == '?') {
			if (offsets && n < max)
				offsets[n] = (uint32_t)i;
			n++;
		}
		i++;
	}
	return n;
}
