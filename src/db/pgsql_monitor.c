/* What a PostgreSQL server tells the server monitor (monitor.h): settings from pg_settings,
 * counters from the cumulative statistics views. Each source is one SELECT of (name, number)
 * rows; they run as one statement per sample. Views that moved between versions are separate
 * sources: the one a server lacks is left out when probed. */
#include "db_int.h"
#include "monitor.h"

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

const struct lb_db_monitor lb_pgsql_monitor = {
	.settings_sql = settings_sql,
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
};
