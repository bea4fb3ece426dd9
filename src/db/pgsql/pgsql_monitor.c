/* What a PostgreSQL server tells the server monitor (monitor.h): settings from pg_settings,
 * counters from the cumulative statistics views. Each source is one SELECT of (name, number)
 * rows; they run as one statement per sample. Views that moved between versions are separate
 * sources: the one a server lacks is left out when probed. */
#include "db/monitor.h"
#include "pgsql_int.h"

#define PERF_SETTINGS                                                                          \
	"'shared_buffers','effective_cache_size','work_mem','maintenance_work_mem','wal_buffers'," \
	"'max_wal_size','min_wal_size','checkpoint_timeout','checkpoint_completion_target',"      \
	"'synchronous_commit','fsync','full_page_writes','wal_level','wal_sync_method',"          \
	"'wal_compression','wal_writer_delay','commit_delay','commit_siblings','random_page_cost'," \
	"'effective_io_concurrency','max_connections','huge_pages','bgwriter_delay',"             \
	"'bgwriter_lru_maxpages','autovacuum','max_parallel_workers_per_gather','jit',"           \
	"'default_transaction_isolation','server_version'"

/* Settings the server was told (configuration file, command line, ALTER SYSTEM, the role or
 * database), not those of this session (client, session) nor the transaction_* overrides that
 * every session shows. */
static const char settings_sql[] =
	"SELECT name, current_setting(name) FROM pg_settings"
	" WHERE (source NOT IN ('default', 'client', 'session') AND name NOT LIKE 'transaction\\_%')"
	" OR name IN (" PERF_SETTINGS ") ORDER BY name";

/* Settings changed but not in force: for each name, the last entry of the configuration files
 * (ALTER SYSTEM's postgresql.auto.conf included) whose value differs from the one in force
 * (numbers compared in their base unit, "80000kB" = "78125kB" ... within the unit, booleans by
 * meaning): it waits for a reload, or for a restart when the server could not apply it or says
 * so (pending_restart). pg_file_settings reads the files now, so its "applied" says whether the
 * entry could be applied, not whether it was. It is for superusers (or a grant of SELECT on it
 * and EXECUTE on pg_show_all_file_settings()): without it, only pending_restart. */
#define PG_UNIT_FACTOR(u)                                                                          \
	"coalesce(nullif(substring(" u " FROM '^[0-9]+'), '')::float8, 1) * CASE regexp_replace(" u \
	", '^[0-9]+', '') WHEN 'b' THEN 1 WHEN 'kb' THEN 1024 WHEN 'mb' THEN 1048576"               \
	" WHEN 'gb' THEN 1073741824 WHEN 'tb' THEN 1099511627776 WHEN 'us' THEN 0.001 WHEN 'ms' THEN 1" \
	" WHEN 's' THEN 1000 WHEN 'min' THEN 60000 WHEN 'h' THEN 3600000 WHEN 'd' THEN 86400000 END"
static const char pending_sql[] =
	"WITH f AS (SELECT DISTINCT ON (lower(name)) lower(name) AS name, setting, error"
	" FROM pg_file_settings ORDER BY lower(name), seqno DESC),"
	" c AS (SELECT s.name, f.setting AS fv, f.error, s.setting AS sv, s.vartype, s.pending_restart,"
	" current_setting(s.name) AS cur, substring(f.setting FROM '^\\s*(-?[0-9.]+)') AS num,"
	" (SELECT " PG_UNIT_FACTOR("u") " FROM (SELECT lower(coalesce(nullif(btrim(substring(f.setting"
	" FROM '^\\s*-?[0-9.]+(.*)$')), ''), s.unit, '')) AS u) x) AS ffac,"
	" (SELECT " PG_UNIT_FACTOR("u") " FROM (SELECT lower(coalesce(s.unit, '')) AS u) y) AS sfac"
	" FROM f JOIN pg_settings s ON lower(s.name) = f.name)"
	" SELECT name, fv || CASE WHEN error IS NOT NULL OR pending_restart THEN ' (not in force: needs a restart)'"
	" ELSE ' (not in force: needs a reload)' END FROM c WHERE error IS NOT NULL OR pending_restart OR NOT coalesce("
	" CASE WHEN vartype = 'bool' THEN (lower(btrim(fv)) IN ('on', 'true', 'yes', '1', 't', 'y')) = (sv = 'on')"
	" WHEN vartype IN ('integer', 'real') AND num IS NOT NULL AND ffac IS NOT NULL AND sfac IS NOT NULL"
	" THEN abs(num::float8 * ffac - sv::float8 * sfac) <= sfac"
	" WHEN vartype IN ('integer', 'real') AND btrim(fv) ~ '^-?[0-9.]+$'"
	" THEN abs(num::float8 - sv::float8) <= 1e-9 * greatest(1, abs(sv::float8))"
	" ELSE lower(btrim(fv)) = lower(btrim(cur)) END, false)"
	" UNION ALL SELECT name, '(not in force: needs a restart)' FROM pg_settings WHERE pending_restart"
	" AND lower(name) NOT IN (SELECT lower(name) FROM pg_file_settings) ORDER BY 1";
static const char pending_fallback_sql[] =
	"SELECT name, '(not in force: needs a restart)' FROM pg_settings WHERE pending_restart ORDER BY 1";

static const struct lb_db_monitor_source sources[] = {
	{ "pg_stat_database",
	  "SELECT unnest(ARRAY['xact_commit','xact_rollback','blks_read','blks_hit','tup_returned',"
	  "'tup_fetched','tup_inserted','tup_updated','tup_deleted','conflicts','temp_files','temp_bytes',"
	  "'deadlocks','blk_read_time_ms','blk_write_time_ms','numbackends']),"
	  " unnest(ARRAY[xact_commit, xact_rollback, blks_read, blks_hit, tup_returned, tup_fetched,"
	  " tup_inserted, tup_updated, tup_deleted, conflicts, temp_files, temp_bytes, deadlocks,"
	  " blk_read_time, blk_write_time, numbackends]::float8[])"
	  " FROM pg_stat_database WHERE datname = current_database()",
	  NULL, NULL, NULL },
	{ "pg_stat_wal",
	  "SELECT unnest(ARRAY['wal_records','wal_fpi','wal_bytes','wal_buffers_full']),"
	  " unnest(ARRAY[wal_records, wal_fpi, wal_bytes, wal_buffers_full]::float8[]) FROM pg_stat_wal",
	  NULL, NULL, NULL },
	/* PostgreSQL 14-17; 18 counts WAL I/O in pg_stat_io. */
	{ "pg_stat_wal I/O",
	  "SELECT unnest(ARRAY['wal_write','wal_sync','wal_write_time_ms','wal_sync_time_ms']),"
	  " unnest(ARRAY[wal_write, wal_sync, wal_write_time, wal_sync_time]::float8[]) FROM pg_stat_wal",
	  NULL, NULL, NULL },
	{ "pg_stat_bgwriter",
	  "SELECT unnest(ARRAY['buffers_clean','maxwritten_clean','buffers_alloc']),"
	  " unnest(ARRAY[buffers_clean, maxwritten_clean, buffers_alloc]::float8[]) FROM pg_stat_bgwriter",
	  NULL, NULL, NULL },
	/* Up to PostgreSQL 16; 17 moved checkpoints to pg_stat_checkpointer. */
	{ "pg_stat_bgwriter checkpoints",
	  "SELECT unnest(ARRAY['checkpoints_timed','checkpoints_req','checkpoint_write_time_ms',"
	  "'checkpoint_sync_time_ms','buffers_checkpoint','buffers_backend','buffers_backend_fsync']),"
	  " unnest(ARRAY[checkpoints_timed, checkpoints_req, checkpoint_write_time, checkpoint_sync_time,"
	  " buffers_checkpoint, buffers_backend, buffers_backend_fsync]::float8[]) FROM pg_stat_bgwriter",
	  NULL, NULL, NULL },
	{ "pg_stat_checkpointer",
	  "SELECT unnest(ARRAY['checkpoints_timed','checkpoints_req','checkpoint_write_time_ms',"
	  "'checkpoint_sync_time_ms','buffers_checkpoint']),"
	  " unnest(ARRAY[num_timed, num_requested, write_time, sync_time, buffers_written]::float8[])"
	  " FROM pg_stat_checkpointer",
	  NULL, NULL, NULL },
	/* A sample of what the other sessions of this database are doing right now: waiting (on
	 * what) or running. */
	{ "pg_stat_activity",
	  "SELECT 'wait.' || COALESCE(wait_event_type || '.' || wait_event, 'CPU.running'), count(*)::float8"
	  " FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()"
	  " AND datname = current_database() GROUP BY 1",
	  "pg_read_all_stats, e.g. GRANT pg_monitor",
	  "SELECT pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER')",
	  "sees only this user's sessions (grant pg_monitor to see all)" },
	/* PostgreSQL 15 on: a backend adds its counts to the shared statistics at most once a
	 * second; this has the monitor's session add its own at once, so that the monitor's
	 * statements are in the counters when it subtracts them. No rows. (A statement that
	 * reads no table has nothing else to add, and then its commit waits: the session query
	 * reads pg_database for that reason.) */
	{ "pg_stat_force_next_flush", "SELECT NULL::text, NULL::float8 FROM pg_stat_force_next_flush()",
	  NULL, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const char *const gauges[] = { "numbackends", "wait.", NULL };
/* Each of the monitor's statements is a transaction of its own. */
static const char *const own[] = { "xact_commit", NULL };
static const char *const servers[] = { "PostgreSQL", NULL };

const struct lb_db_monitor lb_pgsql_monitor = {
	.settings_sql = settings_sql,
	.pending_sql = pending_sql,
	.pending_fallback_sql = pending_fallback_sql,
	.sources = sources,
	.union_sources = true,
	.gauges = gauges,
	.own = own,
	/* A backend adds its counts to the shared statistics at most once a second, and when it
	 * exits: the last sample waits for the workers' sessions to be gone. */
	.sessions_sql = "SELECT (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
			" AND pid <> pg_backend_pid() AND datname = current_database())"
			" FROM pg_stat_force_next_flush(), pg_database WHERE datname = current_database()",
	.sessions_fallback_sql = "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
				 " AND pid <> pg_backend_pid() AND datname = current_database()",
	/* PostgreSQL 15 on (older servers refuse it: then the sessions publish as they always did).
	 * Reads pg_database: a statement that reads no table may leave its counts for later. */
	.publish_sql = "SELECT count(*) FROM pg_stat_force_next_flush(), pg_database WHERE datname = current_database()",
	.servers = servers,
};
