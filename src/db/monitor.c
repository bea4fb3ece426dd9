/* Reading a server's settings and counters over an ordinary connection (see monitor.h). */
#include "monitor.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

void lb_db_kv_list_clear(struct lb_db_kv_list *l)
{
	for (int i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].text);
	}
	l->n = 0;
}

void lb_db_kv_list_free(struct lb_db_kv_list *l)
{
	lb_db_kv_list_clear(l);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static void kv_add(struct lb_db_kv_list *l, const char *name, const char *text)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->items = lb_xrealloc(l->items, (size_t)l->cap * sizeof(*l->items));
	}
	struct lb_db_kv *kv = &l->items[l->n++];
	kv->name = lb_xstrdup(name);
	kv->text = lb_xstrdup(text ? text : "");
	kv->value = text ? strtod(text, NULL) : 0;
}

const struct lb_db_monitor *lb_db_monitor_of(const struct lb_db_config *cfg)
{
	return cfg ? cfg->ops->monitor : NULL;
}

const struct lb_db_monitor *lb_db_monitor_for(struct lb_db_conn *c)
{
	if (c->ops->monitor)
		return c->ops->monitor;
	char v[128];
	lb_db_conn_server_version(c, v, sizeof(v));
	for (uint32_t i = 0; i < lb_db_driver_count(); i++) {
		const struct lb_db_monitor *m = lb_db_driver_at(i)->monitor;
		for (const char *const *s = m ? m->servers : NULL; s && *s; s++)
			if (!strncmp(v, *s, strlen(*s)))
				return m;
	}
	return NULL;
}

int lb_db_config_dry_run(const struct lb_db_config *cfg)
{
	return cfg && cfg->opts.dry_run;
}

/* Runs sql, giving up after timeout_ms: a stalled server must not hold the thread that reads
 * it (the engine's monitor thread, which also ends the run). Giving up loses the connection. */
static int bounded_query(struct lb_db_conn *c, const char *sql, int32_t timeout_ms)
{
	struct lb_db_result res;
	int64_t deadline = lb_now_ns() + (int64_t)timeout_ms * 1000000;
	int rc = lb_db_query_start(c, sql, strlen(sql), &res);
	while (rc == LB_DB_PENDING) {
		struct lb_db_wait w;
		lb_db_conn_wait_info(c, &w);
		int64_t now = lb_now_ns();
		if (now >= deadline || w.fd < 0) {
			rc = lb_db_step(c, LB_DB_WAIT_TIMEOUT, &res);
			if (rc == LB_DB_PENDING) {
				lb_db_disconnect(c);
				rc = LB_DB_ELOST;
			}
			break;
		}
		struct pollfd p = { .fd = w.fd, .events = (short)((w.events & LB_DB_WAIT_READ ? POLLIN : 0) |
								  (w.events & LB_DB_WAIT_WRITE ? POLLOUT : 0)) };
		int n = poll(&p, 1, (int)((deadline - now) / 1000000) + 1);
		if (n <= 0)
			continue;
		uint32_t ready = 0;
		if (p.revents & (POLLIN | POLLERR | POLLHUP))
			ready |= LB_DB_WAIT_READ;
		if (p.revents & (POLLOUT | POLLERR | POLLHUP))
			ready |= LB_DB_WAIT_WRITE;
		rc = lb_db_step(c, ready, &res);
	}
	return rc;
}

/* Runs sql and appends its rows' first two columns to out (when out is not NULL). */
static int query_rows(struct lb_db_conn *c, const char *sql, struct lb_db_kv_list *out, int32_t timeout_ms)
{
	int rc = bounded_query(c, sql, timeout_ms);
	if (rc != LB_DB_OK)
		return rc;
	struct lb_db_row row;
	while (lb_db_fetch_row(c, &row) == 1)
		if (out && row.nfields >= 2 && row.values[0])
			kv_add(out, row.values[0], row.values[1]);
	lb_db_free_result(c);
	return LB_DB_OK;
}

static void say_error(struct lb_db_conn *c, int rc, char *err, size_t errlen)
{
	const struct lb_db_error *e = lb_db_conn_error(c);
	snprintf(err, errlen, "%s", e->message[0] ? e->message : lb_db_strerror(rc));
}

/* A refusal for want of a privilege, as opposed to a view or column this server lacks. */
static bool refused(struct lb_db_conn *c)
{
	const struct lb_db_error *e = lb_db_conn_error(c);
	int no = e->sql_errno;
	return !strcmp(e->sqlstate, "42501") || no == 1227 || no == 1142 || no == 1044 || no == 1045;
}

static bool truthy(const char *v)
{
	return v && (!strcmp(v, "t") || !strcmp(v, "1") || !strcmp(v, "true"));
}

static void note(char *warn, size_t warnlen, const char *fmt, const char *a, const char *b)
{
	size_t used = strlen(warn);
	if (used + 2 >= warnlen)
		return;
	if (used)
		snprintf(warn + used, warnlen - used, "; ");
	used = strlen(warn);
	snprintf(warn + used, warnlen - used, fmt, a, b);
}

/* The check query's verdict: true when the privilege is held (or cannot be asked). */
static bool privileged(struct lb_db_conn *c, const char *check_sql, int32_t timeout_ms)
{
	if (!check_sql || bounded_query(c, check_sql, timeout_ms) != LB_DB_OK)
		return true;
	struct lb_db_row row;
	bool ok = lb_db_fetch_row(c, &row) == 1 && row.nfields >= 1 && truthy(row.values[0]);
	lb_db_free_result(c);
	return ok;
}

static void build_union(struct lb_db_monitor_plan *p)
{
	size_t len = 1;
	for (int i = 0; i < p->nusable; i++)
		len += strlen(p->usable[i]->sql) + 16;
	p->union_sql = lb_xzalloc(len);
	for (int i = 0; i < p->nusable; i++) {
		if (i)
			strcat(p->union_sql, " UNION ALL ");
		strcat(p->union_sql, "(");
		strcat(p->union_sql, p->usable[i]->sql);
		strcat(p->union_sql, ")");
	}
}

int lb_db_monitor_probe(struct lb_db_monitor_plan *p, const struct lb_db_monitor *desc,
			struct lb_db_conn *c, int32_t timeout_ms, char *warn, size_t warnlen)
{
	memset(p, 0, sizeof(*p));
	p->desc = desc;
	p->timeout_ms = timeout_ms;
	if (warnlen)
		warn[0] = '\0';
	for (const struct lb_db_monitor_source *s = desc->sources; s->name; s++) {
		if (query_rows(c, s->sql, NULL, timeout_ms) != LB_DB_OK) {
			if (lb_db_conn_state(c) != LB_DB_STATE_IDLE)
				return -1;
			if (refused(c))
				note(warn, warnlen, "%s (needs %s)", s->name, s->needs ? s->needs : "a privilege");
			continue;
		}
		if (!privileged(c, s->check_sql, timeout_ms))
			note(warn, warnlen, "%s %s", s->name, s->limited ? s->limited : "sees less");
		if (p->nusable < (int)LB_ARRAY_LENGTH(p->usable))
			p->usable[p->nusable++] = s;
	}
	if (desc->union_sources && p->nusable) {
		build_union(p);
		p->statements = 1;
	} else {
		p->statements = p->nusable;
	}
	return p->nusable;
}

void lb_db_monitor_plan_free(struct lb_db_monitor_plan *p)
{
	free(p->union_sql);
	memset(p, 0, sizeof(*p));
}

/* Rows of sql into out (cleared first), or of fallback when sql fails on a live connection. */
static int rows_or_fallback(struct lb_db_conn *c, const char *sql, const char *fallback, int32_t timeout_ms,
			    struct lb_db_kv_list *out, char *err, size_t errlen)
{
	lb_db_kv_list_clear(out);
	if (!sql)
		return 0;
	int rc = query_rows(c, sql, out, timeout_ms);
	if (rc != LB_DB_OK && fallback && lb_db_conn_state(c) == LB_DB_STATE_IDLE) {
		lb_db_kv_list_clear(out);
		rc = query_rows(c, fallback, out, timeout_ms);
	}
	if (rc != LB_DB_OK) {
		say_error(c, rc, err, errlen);
		return -1;
	}
	return 0;
}

int lb_db_monitor_settings(const struct lb_db_monitor *desc, struct lb_db_conn *c, int32_t timeout_ms,
			   struct lb_db_kv_list *out, char *err, size_t errlen)
{
	return rows_or_fallback(c, desc->settings_sql, desc->settings_fallback_sql, timeout_ms, out, err, errlen);
}

int lb_db_monitor_pending(const struct lb_db_monitor *desc, struct lb_db_conn *c, int32_t timeout_ms,
			  struct lb_db_kv_list *out, char *err, size_t errlen)
{
	return rows_or_fallback(c, desc->pending_sql, desc->pending_fallback_sql, timeout_ms, out, err, errlen);
}

int lb_db_monitor_read(const struct lb_db_monitor_plan *p, struct lb_db_conn *c,
		       struct lb_db_kv_list *out, char *err, size_t errlen)
{
	lb_db_kv_list_clear(out);
	if (p->union_sql) {
		int rc = query_rows(c, p->union_sql, out, p->timeout_ms);
		if (rc != LB_DB_OK) {
			say_error(c, rc, err, errlen);
			return -1;
		}
		return 0;
	}
	for (int i = 0; i < p->nusable; i++) {
		int rc = query_rows(c, p->usable[i]->sql, out, p->timeout_ms);
		if (rc != LB_DB_OK) {
			say_error(c, rc, err, errlen);
			return -1;
		}
	}
	return 0;
}

static int count_sessions(const char *sql, struct lb_db_conn *c, int32_t timeout_ms)
{
	if (!sql || bounded_query(c, sql, timeout_ms) != LB_DB_OK)
		return -1;
	struct lb_db_row row;
	int n = lb_db_fetch_row(c, &row) == 1 && row.nfields >= 1 && row.values[0] ? atoi(row.values[0]) : -1;
	lb_db_free_result(c);
	return n;
}

int lb_db_monitor_sessions(const struct lb_db_monitor_plan *p, struct lb_db_conn *c)
{
	int n = count_sessions(p->desc->sessions_sql, c, p->timeout_ms);
	if (n < 0 && lb_db_conn_state(c) == LB_DB_STATE_IDLE)
		n = count_sessions(p->desc->sessions_fallback_sql, c, p->timeout_ms);
	return n;
}

static bool listed(const char *const *list, const char *name, bool prefix)
{
	for (; list && *list; list++)
		if (prefix ? !strncmp(name, *list, strlen(*list)) : !strcmp(name, *list))
			return true;
	return false;
}

bool lb_db_monitor_is_gauge(const struct lb_db_monitor *desc, const char *name)
{
	return listed(desc->gauges, name, true);
}

bool lb_db_monitor_is_own(const struct lb_db_monitor *desc, const char *name)
{
	return listed(desc->own, name, false);
}

#define LB_DB_PUBLISH_TIMEOUT_MS 1000

int lb_db_conn_publish_stats(struct lb_db_conn *c)
{
	/* A result set left from the last event goes (as with the next statement): a script reads
	 * its results within the event that ran the query. */
	if (!c || c->publish_off || c->state != LB_DB_STATE_IDLE || c->op != LB_DB_OP_NONE ||
	    c->bulk_active || c->copy_open || c->pipe.open || lb_db_conn_in_transaction(c))
		return 0;
	const struct lb_db_monitor *d = lb_db_monitor_for(c);
	if (!d || !d->publish_sql) {
		c->publish_off = true;
		return 0;
	}
	/* Bounded: a stalled server must not hold a worker (at the end of the run, the run's end);
	 * giving up loses the session, which the worker then reconnects as after any loss. */
	if (bounded_query(c, d->publish_sql, LB_DB_PUBLISH_TIMEOUT_MS) != LB_DB_OK) {
		c->publish_off = true;
		return 0;
	}
	lb_db_free_result(c);
	return 1;
}
