/* Server statistics in the report, the JSON result and the CSV lines (srv_report.h). The key
 * figures name the counters of every server family that has them: PostgreSQL's and
 * MariaDB/MySQL's names never collide, so the first one found is the one. */
#include "output/srv_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "output/sys_report.h"

const char *const lb_srv_key_names[LB_SRV_NKEYS] = {
	"commits_per_s", "rollbacks_per_s", "cache_hit_pct", "disk_reads_per_s", "rows_read_per_s",
	"rows_inserted_per_s", "rows_updated_per_s", "rows_deleted_per_s", "log_bytes_per_s",
	"log_bytes_per_transaction", "fsyncs_per_s", "row_lock_waits_per_s",
	"row_lock_wait_ms_per_transaction", "lock_waiting_sessions", "active_sessions", "deadlocks_per_s",
	"temp_bytes_per_s", "checkpoints",
};

/* The counters behind each per-second key, in family order (PostgreSQL, then MariaDB/MySQL). */
static const char *const rate_sources[LB_SRV_NKEYS][2] = {
	[LB_SRV_COMMITS_PER_S] = { "xact_commit", "Com_commit" },
	[LB_SRV_ROLLBACKS_PER_S] = { "xact_rollback", "Com_rollback" },
	[LB_SRV_DISK_READS_PER_S] = { "blks_read", "Innodb_buffer_pool_reads" },
	[LB_SRV_ROWS_READ_PER_S] = { "tup_returned", "Innodb_rows_read" },
	[LB_SRV_ROWS_INSERTED_PER_S] = { "tup_inserted", "Innodb_rows_inserted" },
	[LB_SRV_ROWS_UPDATED_PER_S] = { "tup_updated", "Innodb_rows_updated" },
	[LB_SRV_ROWS_DELETED_PER_S] = { "tup_deleted", "Innodb_rows_deleted" },
	[LB_SRV_LOG_BYTES_PER_S] = { "wal_bytes", "Innodb_os_log_written" },
	[LB_SRV_FSYNCS_PER_S] = { "wal_sync", "Innodb_data_fsyncs" },
	[LB_SRV_ROW_LOCK_WAITS_PER_S] = { "Innodb_row_lock_waits", NULL },
	[LB_SRV_DEADLOCKS_PER_S] = { "deadlocks", "Innodb_deadlocks" },
	[LB_SRV_TEMP_BYTES_PER_S] = { "temp_bytes", NULL },
};

static double first(const struct lb_srvmon *m, const struct lb_srv_sample *s, const char *const names[2])
{
	for (int i = 0; i < 2 && names[i]; i++) {
		bool found;
		double v = lb_srv_value(m, s, names[i], &found);
		if (found)
			return v;
	}
	return NAN;
}

static double value(const struct lb_srvmon *m, const struct lb_srv_sample *s, const char *name)
{
	const char *const names[2] = { name, NULL };
	return first(m, s, names);
}

/* Sum of the gauges whose names start with prefix. */
static double gauge_sum(const struct lb_srvmon *m, const struct lb_srv_sample *s, const char *prefix)
{
	double sum = 0;
	for (int i = 0; i < s->n && i < lb_srvmon_ncounters(m); i++)
		if (lb_srvmon_is_gauge(m, i) && !strncmp(lb_srvmon_name(m, i), prefix, strlen(prefix)))
			sum += s->values[i];
	return sum;
}

static double ratio(double a, double b)
{
	return isnan(a) || isnan(b) || b <= 0 ? NAN : a / b;
}

static double hit_pct(const struct lb_srvmon *m, const struct lb_srv_sample *s)
{
	double hit = value(m, s, "blks_hit"), miss = value(m, s, "blks_read");
	if (!isnan(hit) && !isnan(miss))
		return ratio(hit, hit + miss) * 100;
	double req = value(m, s, "Innodb_buffer_pool_read_requests");
	miss = value(m, s, "Innodb_buffer_pool_reads");
	return ratio(req - miss, req) * 100;
}

void lb_srv_keys(const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions,
		 double seconds, double k[LB_SRV_NKEYS])
{
	double t = seconds > 0 ? seconds : s->interval_s, trx = (double)transactions;
	for (int i = 0; i < LB_SRV_NKEYS; i++)
		k[i] = rate_sources[i][0] ? ratio(first(m, s, rate_sources[i]), t) : NAN;
	if (!s->n)
		return; /* no reading (the readings stopped): nothing to derive */
	k[LB_SRV_CACHE_HIT_PCT] = hit_pct(m, s);
	const char *const log[2] = { "wal_bytes", "Innodb_os_log_written" };
	k[LB_SRV_LOG_BYTES_PER_TRX] = ratio(first(m, s, log), trx);
	k[LB_SRV_ROW_LOCK_WAIT_MS_PER_TRX] = ratio(value(m, s, "Innodb_row_lock_time"), trx);
	/* PostgreSQL's monitor samples what sessions wait on (wait.*); MariaDB/MySQL count the
	 * running threads, the monitor's own SHOW STATUS among them. */
	double running = value(m, s, "Threads_running");
	if (isnan(running)) {
		k[LB_SRV_LOCK_WAITING_SESSIONS] = gauge_sum(m, s, "wait.Lock.");
		k[LB_SRV_ACTIVE_SESSIONS] = gauge_sum(m, s, "wait.");
	} else {
		k[LB_SRV_LOCK_WAITING_SESSIONS] = value(m, s, "innodb_metrics.lock_row_lock_current_waits");
		k[LB_SRV_ACTIVE_SESSIONS] = running > 1 ? running - 1 : 0;
	}
	double timed = value(m, s, "checkpoints_timed"), req = value(m, s, "checkpoints_req");
	k[LB_SRV_CHECKPOINTS] = isnan(timed) || isnan(req) ? NAN : timed + req;
}

/* One line of up to four keys joined by '/', left out when the server has none of them. */
static void keys_row(FILE *out, const char *label, const double *k, const int *which, int n, int decimals)
{
	bool any = false;
	for (int i = 0; i < n; i++)
		any = any || !isnan(k[which[i]]);
	if (!any)
		return;
	char text[256] = "";
	for (int i = 0; i < n; i++) {
		char one[64] = "-";
		if (!isnan(k[which[i]]))
			snprintf(one, sizeof(one), "%.*f", decimals, k[which[i]]);
		size_t used = strlen(text);
		snprintf(text + used, sizeof(text) - used, "%s%s", i ? "/" : "", one);
	}
	lb_report_row(out, label, "%s", text);
}

void lb_srv_report_block(FILE *out, const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions,
			 double seconds)
{
	double k[LB_SRV_NKEYS];
	lb_srv_keys(m, s, transactions, seconds, k);
	fprintf(out, "Server statistics (%s server, from its counters; the %d statements run for the readings left out):\n",
		lb_srvmon_driver(m), s->statements);
	static const struct {
		const char *label;
		int n;
		int keys[4];
		int decimals;
	} rows[] = {
		{ "commits/rollbacks per sec.:", 2, { LB_SRV_COMMITS_PER_S, LB_SRV_ROLLBACKS_PER_S }, 2 },
		{ "cache hit ratio (%):", 1, { LB_SRV_CACHE_HIT_PCT }, 2 },
		{ "disk reads per sec.:", 1, { LB_SRV_DISK_READS_PER_S }, 2 },
		{ "rows read/ins/upd/del per sec.:", 4,
		  { LB_SRV_ROWS_READ_PER_S, LB_SRV_ROWS_INSERTED_PER_S, LB_SRV_ROWS_UPDATED_PER_S, LB_SRV_ROWS_DELETED_PER_S },
		  2 },
		{ "log (WAL/redo) bytes per sec./trx:", 2, { LB_SRV_LOG_BYTES_PER_S, LB_SRV_LOG_BYTES_PER_TRX }, 0 },
		{ "fsyncs per sec.:", 1, { LB_SRV_FSYNCS_PER_S }, 2 },
		{ "row lock waits per sec., ms per trx:", 2, { LB_SRV_ROW_LOCK_WAITS_PER_S, LB_SRV_ROW_LOCK_WAIT_MS_PER_TRX },
		  3 },
		{ "sessions active/waiting on locks:", 2, { LB_SRV_ACTIVE_SESSIONS, LB_SRV_LOCK_WAITING_SESSIONS }, 2 },
		{ "deadlocks per sec.:", 1, { LB_SRV_DEADLOCKS_PER_S }, 3 },
		{ "temp bytes per sec.:", 1, { LB_SRV_TEMP_BYTES_PER_S }, 0 },
		{ "checkpoints:", 1, { LB_SRV_CHECKPOINTS }, 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		keys_row(out, rows[i].label, k, rows[i].keys, rows[i].n, rows[i].decimals);
	if (*lb_srvmon_error(m))
		lb_report_row(out, "not available:", "%s", lb_srvmon_error(m));
	if (*lb_srvmon_missing(m))
		lb_report_row(out, "not readable:", "%s", lb_srvmon_missing(m));
	for (int i = 0; i < lb_srvmon_npending(m); i++) {
		const char *name, *val;
		lb_srvmon_pending(m, i, &name, &val);
		lb_report_row(out, "setting not in force:", "%s = %s", name, val);
	}
	fprintf(out, "\n");
}

static void add_number(cJSON *o, const char *name, double v)
{
	if (!isnan(v) && !isinf(v))
		cJSON_AddNumberToObject(o, name, v);
}

cJSON *lb_srv_json(const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions, double seconds,
		   bool total)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "driver", lb_srvmon_driver(m));
	cJSON_AddNumberToObject(o, "interval_s", s->interval_s);
	cJSON_AddNumberToObject(o, "monitor_statements", s->statements);
	cJSON *c = cJSON_AddObjectToObject(o, "counters");
	cJSON *g = cJSON_AddObjectToObject(o, "gauges");
	for (int i = 0; i < s->n && i < lb_srvmon_ncounters(m); i++)
		add_number(lb_srvmon_is_gauge(m, i) ? g : c, lb_srvmon_name(m, i), s->values[i]);
	double k[LB_SRV_NKEYS];
	lb_srv_keys(m, s, transactions, seconds, k);
	/* A key figure this server cannot give (it has no such counter, or it could not be read, or
	 * the interval was too short to tell) is null: not available, which is not 0. */
	cJSON *d = cJSON_AddObjectToObject(o, "key");
	for (int i = 0; i < LB_SRV_NKEYS; i++) {
		if (isnan(k[i]) || isinf(k[i]))
			cJSON_AddNullToObject(d, lb_srv_key_names[i]);
		else
			cJSON_AddNumberToObject(d, lb_srv_key_names[i], k[i]);
	}
	if (!total)
		return o;
	cJSON_AddNumberToObject(o, "window_offset_events", (double)lb_srvmon_offset_events(m));
	if (*lb_srvmon_missing(m))
		cJSON_AddStringToObject(o, "missing", lb_srvmon_missing(m));
	if (*lb_srvmon_error(m))
		cJSON_AddStringToObject(o, "error", lb_srvmon_error(m));
	cJSON *set = cJSON_AddObjectToObject(o, "settings");
	for (int i = 0; i < lb_srvmon_nsettings(m); i++) {
		const char *name, *val;
		lb_srvmon_setting(m, i, &name, &val);
		cJSON_AddStringToObject(set, name, val);
	}
	cJSON *pend = cJSON_AddObjectToObject(o, "settings_pending");
	for (int i = 0; i < lb_srvmon_npending(m); i++) {
		const char *name, *val;
		lb_srvmon_pending(m, i, &name, &val);
		cJSON_AddStringToObject(pend, name, val);
	}
	return o;
}

void lb_srv_csv_header(FILE *out)
{
	for (int i = 0; i < LB_SRV_NKEYS; i++)
		fprintf(out, ",srv_%s", lb_srv_key_names[i]);
}

void lb_srv_csv(FILE *out, const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions,
		double seconds)
{
	double k[LB_SRV_NKEYS];
	if (s)
		lb_srv_keys(m, s, transactions, seconds, k);
	for (int i = 0; i < LB_SRV_NKEYS; i++) {
		if (!s || isnan(k[i]))
			fputc(',', out);
		else
			fprintf(out, ",%.6g", k[i]);
	}
}
