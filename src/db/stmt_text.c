/* The text of an emulated execution: a statement's SQL with its parameters rendered as literals,
 * for servers that refuse to prepare it (and for drivers without server-side statements). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "db_int.h"

/* Shortest of %.15g..%.17g that reads back as the same double. */
static int format_double(char *buf, size_t size, double v)
{
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return n;
}

static int append_number(struct lb_db_conn *c, const struct lb_db_param *p)
{
	char num[48];
	int n;

	if (p->type == LB_DB_TYPE_FLOAT || p->type == LB_DB_TYPE_DOUBLE) {
		if (!isfinite(p->f64)) {
			if (c->ops->quoting != LB_DB_QUOTING_PGSQL)
				return lb_db_misuse(c, "non-finite DOUBLE parameter");
			n = snprintf(num, sizeof(num), "'%s'",
				     isnan(p->f64) ? "NaN" : p->f64 > 0 ? "Infinity" : "-Infinity");
		} else {
			n = format_double(num, sizeof(num), p->f64);
		}
	} else {
		n = snprintf(num, sizeof(num), "%" PRId64, p->i64);
	}
	/* "x-?" with -5 must not become the comment "x--5". */
	if (num[0] == '-') {
		lb_db_buf_append(&c->text, "(", 1);
		lb_db_buf_append(&c->text, num, (size_t)n);
		lb_db_buf_append(&c->text, ")", 1);
	} else {
		lb_db_buf_append(&c->text, num, (size_t)n);
	}
	return LB_DB_OK;
}

static int64_t default_escape(char *dst, const char *src, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (src[i] == '\'')
			dst[o++] = '\'';
		dst[o++] = src[i];
	}
	dst[o] = '\0';
	return (int64_t)o;
}

static int append_string(struct lb_db_conn *c, const struct lb_db_param *p)
{
	struct lb_db_buf *b = &c->text;
	int64_t n;

	if (p->len && !p->str)
		return lb_db_misuse(c, "string parameter with NULL data");
	lb_db_buf_reserve(b, 2 * p->len + 3);
	b->data[b->len++] = '\'';
	n = c->ops->escape ? c->ops->escape(c, b->data + b->len, p->str ? p->str : "", p->len)
			   : default_escape(b->data + b->len, p->str ? p->str : "", p->len);
	if (n < 0)
		return (int)n;
	b->len += (size_t)n;
	b->data[b->len++] = '\'';
	b->data[b->len] = '\0';
	return LB_DB_OK;
}

static int append_param(struct lb_db_conn *c, const struct lb_db_param *p)
{
	if (p->is_null || p->type == LB_DB_TYPE_NONE) {
		lb_db_buf_append(&c->text, "NULL", 4);
		return LB_DB_OK;
	}
	if (p->type == LB_DB_TYPE_CHAR || p->type == LB_DB_TYPE_VARCHAR)
		return append_string(c, p);
	return append_number(c, p);
}

int lb_db_emulate_text(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	size_t pos = 0;

	c->text.len = 0;
	lb_db_buf_reserve(&c->text, s->sql_len);
	for (uint32_t i = 0; i < s->nparams; i++) {
		lb_db_buf_append(&c->text, s->sql + pos, s->ph_offsets[i] - pos);
		int rc = append_param(c, &s->params[i]);
		if (rc < 0)
			return rc;
		pos = s->ph_offsets[i] + 1;
	}
	lb_db_buf_append(&c->text, s->sql + pos, s->sql_len - pos);
	return LB_DB_OK;
}
