/* The server monitor (srvmon.h): readings of the server's counters, turned into intervals and
 * windows the way sys/sysmetrics.c turns /proc readings into them. */
#include "engine/srvmon.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/driver.h"
#include "db/monitor.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/util.h"

static const struct lb_opt_def srv_opts[] = {
	{ "server-stats", LB_OPT_BOOL, "on",
	  "read the database server's settings at the start and its counters (commits, buffer reads, WAL/redo, lock waits) each report interval on a connection of its own: a 'Server statistics' block in the report and 'server' in the JSON result" },
	{ "metrics-listen", LB_OPT_STRING, "",
	  "serve the current interval's figures in the Prometheus text format over HTTP at [ADDR:]PORT (no authentication: binds to 127.0.0.1 unless ADDR is given)" },
};

int lb_srvmon_register_options(struct lb_opts *opts, char *err, int errlen)
{
	return lb_opts_add_defs(opts, srv_opts, LB_ARRAY_LENGTH(srv_opts), "Server statistics options", err, errlen);
}

int lb_srvmon_configure(const struct lb_opts *opts, struct lb_srv_conf *conf, char *err, int errlen)
{
	(void)err;
	(void)errlen;
	memset(conf, 0, sizeof(*conf));
	conf->enabled = lb_opts_bool(opts, "server-stats");
	const char *listen = lb_opts_str(opts, "metrics-listen");
	conf->metrics_listen = listen && *listen ? listen : NULL;
	return 0;
}

/* One reading of every counter: v[i] for counter i (NAN: not in this reading). */
struct reading {
	int64_t t_ns;
	int n;
	double *v;
	int statements;     /* the monitor's statements before it (its own included) */
};

/* The first readings (settings, which counters exist) may take their time: nothing runs yet. */
#define LB_SRVMON_START_TIMEOUT_MS 10000

struct lb_srvmon {
	struct lb_db_config *cfg;
	struct lb_db_conn *conn;
	const struct lb_db_monitor *desc;
	struct lb_db_monitor_plan plan;
	struct lb_db_kv_list settings, pending, rows;
	char missing[512];
	bool failed;               /* a reading failed: no more samples */
	char error[LB_DB_ERRMSG_BYTES + 64]; /* why, for the result */
	int statements;            /* the monitor's statements so far (and the sessions' for it) */
	uint64_t others;           /* of those, the sessions' (lb_srvmon_other_statements) */
	int64_t offset_events;     /* lb_srvmon_window_offset */
	/* counters, in the order first seen */
	char **names;
	bool *gauge;
	int nnames, capnames;
	struct reading prev, base, stop;
	bool stopped;
	double *gauge_sum;         /* gauges over the window's interval readings */
	int gauge_readings;
	struct lb_srv_sample *samples;
	int nsamples, capsamples;
};

static int counter_index(struct lb_srvmon *m, const char *name, int hint)
{
	if (hint < m->nnames && !strcmp(m->names[hint], name))
		return hint;
	for (int i = 0; i < m->nnames; i++)
		if (!strcmp(m->names[i], name))
			return i;
	if (m->nnames == m->capnames) {
		m->capnames = m->capnames ? m->capnames * 2 : 64;
		m->names = lb_xrealloc(m->names, (size_t)m->capnames * sizeof(*m->names));
		m->gauge = lb_xrealloc(m->gauge, (size_t)m->capnames * sizeof(*m->gauge));
		m->gauge_sum = lb_xrealloc(m->gauge_sum, (size_t)m->capnames * sizeof(*m->gauge_sum));
	}
	m->names[m->nnames] = lb_xstrdup(name);
	m->gauge[m->nnames] = lb_db_monitor_is_gauge(m->desc, name);
	m->gauge_sum[m->nnames] = 0;
	return m->nnames++;
}

static void reading_fini(struct reading *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static void reading_copy(struct reading *dst, const struct reading *src)
{
	free(dst->v);
	*dst = *src;
	dst->v = lb_xcalloc((size_t)(src->n ? src->n : 1), sizeof(double));
	memcpy(dst->v, src->v, (size_t)src->n * sizeof(double));
}

static void fail(struct lb_srvmon *m, const char *err)
{
	if (!m->failed) {
		char b[512];
		lb_warn("server statistics: a reading failed (%s); no more readings of the server's counters",
			lb_escape_to(b, sizeof(b), err));
		snprintf(m->error, sizeof(m->error), "a reading failed (%s)", err);
	}
	m->failed = true;
}

/* Reads every counter now into r. false after a failure. */
static bool take_reading(struct lb_srvmon *m, struct reading *r, int64_t now_ns)
{
	char err[LB_DB_ERRMSG_BYTES];
	if (m->failed)
		return false;
	m->statements += m->plan.statements;
	if (lb_db_monitor_read(&m->plan, m->conn, &m->rows, err, sizeof(err)) < 0) {
		fail(m, err);
		return false;
	}
	int *idx = lb_xcalloc((size_t)m->rows.n + 1, sizeof(int));
	for (int i = 0; i < m->rows.n; i++)
		idx[i] = counter_index(m, m->rows.items[i].name, i);
	free(r->v);
	r->n = m->nnames;
	r->v = lb_xcalloc((size_t)r->n + 1, sizeof(double));
	for (int i = 0; i < r->n; i++)
		r->v[i] = m->gauge[i] ? 0 : NAN; /* a wait event nobody waits on is not listed */
	for (int i = 0; i < m->rows.n; i++)
		r->v[idx[i]] = m->rows.items[i].value;
	free(idx);
	r->t_ns = now_ns;
	r->statements = m->statements;
	return true;
}

static double at(const struct reading *r, int i)
{
	return i < r->n ? r->v[i] : NAN;
}

/* The increase of the counters from a to b, the levels of the gauges at b. */
static void diff(const struct lb_srvmon *m, const struct reading *a, const struct reading *b,
		 struct lb_srv_sample *out)
{
	memset(out, 0, sizeof(*out));
	out->interval_s = (double)(b->t_ns - a->t_ns) / 1e9;
	out->n = b->n;
	out->values = lb_xcalloc((size_t)b->n + 1, sizeof(double));
	out->statements = b->statements - a->statements;
	for (int i = 0; i < b->n; i++) {
		double x = at(a, i), y = at(b, i);
		if (m->gauge[i]) {
			out->values[i] = isnan(y) ? 0 : y;
			continue;
		}
		double d = isnan(x) || isnan(y) ? 0 : y - x;
		if (lb_db_monitor_is_own(m->desc, m->names[i]))
			d -= out->statements;
		/* A counter reset (pg_stat_reset) during the run shows as a decrease: say nothing. */
		out->values[i] = d > 0 ? d : 0;
	}
}

static void sort_settings(struct lb_db_kv_list *l)
{
	for (int i = 1; i < l->n; i++)
		for (int j = i; j > 0 && strcmp(l->items[j - 1].name, l->items[j].name) > 0; j--) {
			struct lb_db_kv t = l->items[j];
			l->items[j] = l->items[j - 1];
			l->items[j - 1] = t;
		}
}

struct lb_srvmon *lb_srvmon_new(struct lb_db_config *cfg, int32_t reading_timeout_ms, int64_t now_ns)
{
	if (lb_db_config_dry_run(cfg))
		return NULL;
	struct lb_srvmon *m = lb_xzalloc(sizeof(*m));
	m->cfg = cfg;
	m->conn = lb_db_conn_new(cfg);
	char err[LB_DB_ERRMSG_BYTES], b[512];
	if (lb_db_connect(m->conn) != LB_DB_OK) {
		lb_warn("server statistics: cannot connect: %s", lb_escape_to(b, sizeof(b), lb_db_conn_error(m->conn)->message));
		lb_srvmon_free(m);
		return NULL;
	}
	/* An odbc connection reads its server the way that server's own driver would. */
	const struct lb_db_monitor *desc = m->desc = lb_db_monitor_for(m->conn);
	if (!desc) {
		lb_srvmon_free(m);
		return NULL;
	}
	if (lb_db_monitor_settings(desc, m->conn, LB_SRVMON_START_TIMEOUT_MS, &m->settings, err, sizeof(err)) < 0)
		lb_warn("server statistics: cannot read the server's settings: %s", lb_escape_to(b, sizeof(b), err));
	sort_settings(&m->settings);
	if (lb_db_monitor_pending(desc, m->conn, LB_SRVMON_START_TIMEOUT_MS, &m->pending, err, sizeof(err)) < 0)
		lb_warn("server statistics: cannot read the settings not yet in force: %s", err);
	sort_settings(&m->pending);
	for (int i = 0; i < m->pending.n; i++)
		lb_warn("server setting %s = %s", m->pending.items[i].name, m->pending.items[i].text);
	int n = lb_db_monitor_probe(&m->plan, desc, m->conn, LB_SRVMON_START_TIMEOUT_MS, m->missing, sizeof(m->missing));
	m->plan.timeout_ms = reading_timeout_ms;
	if (m->missing[0])
		lb_warn("server statistics: not readable without more privileges: %s", lb_escape_to(b, sizeof(b), m->missing));
	if (n <= 0) {
		lb_srvmon_free(m);
		return NULL;
	}
	if (!take_reading(m, &m->prev, now_ns)) {
		lb_srvmon_free(m);
		return NULL;
	}
	reading_copy(&m->base, &m->prev);
	return m;
}

void lb_srv_sample_fini(struct lb_srv_sample *s)
{
	free(s->values);
	memset(s, 0, sizeof(*s));
}

void lb_srvmon_free(struct lb_srvmon *m)
{
	if (!m)
		return;
	lb_db_conn_free(m->conn);
	lb_db_monitor_plan_free(&m->plan);
	lb_db_kv_list_free(&m->settings);
	lb_db_kv_list_free(&m->pending);
	lb_db_kv_list_free(&m->rows);
	for (int i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	free(m->gauge);
	free(m->gauge_sum);
	reading_fini(&m->prev);
	reading_fini(&m->base);
	reading_fini(&m->stop);
	for (int i = 0; i < m->nsamples; i++)
		lb_srv_sample_fini(&m->samples[i]);
	free(m->samples);
	free(m);
}

static struct lb_srv_sample *new_sample(struct lb_srvmon *m)
{
	if (m->nsamples == m->capsamples) {
		m->capsamples = m->capsamples ? m->capsamples * 2 : 64;
		m->samples = lb_xrealloc(m->samples, (size_t)m->capsamples * sizeof(*m->samples));
	}
	return &m->samples[m->nsamples];
}

int lb_srvmon_sample(struct lb_srvmon *m, int64_t now_ns, int64_t min_ns)
{
	struct reading r = { 0 };
	if (!m || m->stopped || m->failed)
		return -1;
	if (now_ns - m->prev.t_ns < min_ns) {
		/* Too short to tell: no value now, its counts in the next interval (prev is kept). */
		struct lb_srv_sample *s = new_sample(m);
		memset(s, 0, sizeof(*s));
		s->interval_s = (double)(now_ns - m->prev.t_ns) / 1e9;
		s->values = lb_xcalloc(1, sizeof(double));
		return m->nsamples++;
	}
	if (!take_reading(m, &r, now_ns))
		return -1;
	diff(m, &m->prev, &r, new_sample(m));
	for (int i = 0; i < r.n; i++)
		if (m->gauge[i])
			m->gauge_sum[i] += r.v[i];
	m->gauge_readings++;
	reading_copy(&m->prev, &r);
	reading_fini(&r);
	return m->nsamples++;
}

void lb_srvmon_window_offset(struct lb_srvmon *m, int64_t events)
{
	if (m)
		m->offset_events = events;
}

int64_t lb_srvmon_offset_events(const struct lb_srvmon *m)
{
	return m ? m->offset_events : 0;
}

void lb_srvmon_other_statements(struct lb_srvmon *m, uint64_t total)
{
	if (m && total > m->others) {
		m->statements += (int)(total - m->others);
		m->others = total;
	}
}

void lb_srvmon_other_statements_before(struct lb_srvmon *m, uint64_t total)
{
	if (m)
		m->others = total;
}

bool lb_srvmon_wants_publish(const struct lb_srvmon *m)
{
	return m && !m->failed && !m->stopped && m->desc->publish_sql;
}

const struct lb_srv_sample *lb_srvmon_at(const struct lb_srvmon *m, int index)
{
	return m && index >= 0 && index < m->nsamples ? &m->samples[index] : NULL;
}

void lb_srvmon_new_window(struct lb_srvmon *m, int64_t now_ns)
{
	if (!m || m->stopped)
		return;
	/* The base only: the interval under way keeps its start (prev). Taking the window's reading
	 * as the intervals' too cut the interval ending at the warm-up into one of a few ms, whose
	 * figures were 0. */
	struct reading r = { 0 };
	if (take_reading(m, &r, now_ns))
		reading_copy(&m->base, &r);
	reading_fini(&r);
	for (int i = 0; i < m->nnames; i++)
		m->gauge_sum[i] = 0;
	m->gauge_readings = 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Waits (at most a second) until the number of other sessions stops falling, then a little
 * more: a PostgreSQL backend adds its last counts to the shared statistics as it exits, just
 * after it leaves pg_stat_activity. */
static void settle(struct lb_srvmon *m)
{
	if (!m->desc->sessions_sql || m->failed)
		return;
	int before = lb_db_monitor_sessions(&m->plan, m->conn);
	m->statements++;
	for (int waited = 0; before > 0 && waited < 1000; waited += 10) {
		sleep_ms(10);
		int now = lb_db_monitor_sessions(&m->plan, m->conn);
		m->statements++;
		if (now < 0 || now >= before)
			break;
		before = now;
	}
	sleep_ms(20);
}

void lb_srvmon_stop(struct lb_srvmon *m, int64_t now_ns, bool settle_first)
{
	if (!m || m->stopped)
		return;
	if (settle_first)
		settle(m);
	if (!take_reading(m, &m->stop, now_ns))
		reading_copy(&m->stop, &m->prev);
	m->stopped = true;
}

bool lb_srvmon_window(struct lb_srvmon *m, int64_t now_ns, struct lb_srv_sample *out)
{
	if (!m)
		return false;
	if (m->failed) {
		/* Counters that stopped in the middle would pass for the whole window's. */
		memset(out, 0, sizeof(*out));
		out->values = lb_xcalloc(1, sizeof(double));
		return true;
	}
	struct reading now = { 0 };
	const struct reading *end = &m->stop;
	if (!m->stopped) {
		if (!take_reading(m, &now, now_ns))
			reading_copy(&now, &m->prev);
		end = &now;
	}
	diff(m, &m->base, end, out);
	if (m->gauge_readings)
		for (int i = 0; i < out->n; i++)
			if (m->gauge[i])
				out->values[i] = m->gauge_sum[i] / m->gauge_readings;
	reading_fini(&now);
	return true;
}

int lb_srvmon_ncounters(const struct lb_srvmon *m)
{
	return m ? m->nnames : 0;
}

const char *lb_srvmon_name(const struct lb_srvmon *m, int i)
{
	return m && i >= 0 && i < m->nnames ? m->names[i] : "";
}

bool lb_srvmon_is_gauge(const struct lb_srvmon *m, int i)
{
	return m && i >= 0 && i < m->nnames && m->gauge[i];
}

double lb_srv_value(const struct lb_srvmon *m, const struct lb_srv_sample *s, const char *name, bool *found)
{
	for (int i = 0; m && s && i < s->n && i < m->nnames; i++)
		if (!strcmp(m->names[i], name)) {
			if (found)
				*found = true;
			return s->values[i];
		}
	if (found)
		*found = false;
	return 0;
}

int lb_srvmon_nsettings(const struct lb_srvmon *m)
{
	return m ? m->settings.n : 0;
}

void lb_srvmon_setting(const struct lb_srvmon *m, int i, const char **name, const char **value)
{
	*name = m->settings.items[i].name;
	*value = m->settings.items[i].text;
}

int lb_srvmon_npending(const struct lb_srvmon *m)
{
	return m ? m->pending.n : 0;
}

void lb_srvmon_pending(const struct lb_srvmon *m, int i, const char **name, const char **value)
{
	*name = m->pending.items[i].name;
	*value = m->pending.items[i].text;
}

const char *lb_srvmon_driver(const struct lb_srvmon *m)
{
	return m ? lb_db_driver_name(lb_db_config_driver(m->cfg)) : "";
}

const char *lb_srvmon_missing(const struct lb_srvmon *m)
{
	return m ? m->missing : "";
}

const char *lb_srvmon_error(const struct lb_srvmon *m)
{
	return m ? m->error : "";
}
