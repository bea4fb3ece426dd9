/* What a MariaDB or MySQL server tells the server monitor (monitor.h): global variables that
 * differ from the compiled-in defaults (MariaDB's information_schema.SYSTEM_VARIABLES knows
 * them; MySQL gets the fixed list only) and SHOW GLOBAL STATUS counters. */
#include "db/monitor.h"
#include "mysql_int.h"

#define PERF_VARIABLES                                                                              \
	"'INNODB_BUFFER_POOL_SIZE','INNODB_LOG_FILE_SIZE','INNODB_LOG_BUFFER_SIZE',"                \
	"'INNODB_FLUSH_LOG_AT_TRX_COMMIT','INNODB_FLUSH_METHOD','INNODB_IO_CAPACITY',"               \
	"'INNODB_IO_CAPACITY_MAX','INNODB_DOUBLEWRITE','SYNC_BINLOG','LOG_BIN','BINLOG_FORMAT',"    \
	"'INNODB_FILE_PER_TABLE','MAX_CONNECTIONS','THREAD_HANDLING','TX_ISOLATION',"                \
	"'TRANSACTION_ISOLATION','INNODB_ADAPTIVE_HASH_INDEX','INNODB_CHANGE_BUFFERING',"           \
	"'QUERY_CACHE_TYPE','QUERY_CACHE_SIZE','TABLE_OPEN_CACHE','INNODB_READ_IO_THREADS',"        \
	"'INNODB_WRITE_IO_THREADS','INNODB_LOCK_WAIT_TIMEOUT','INNODB_THREAD_CONCURRENCY',"         \
	"'PERFORMANCE_SCHEMA','VERSION'"

static const char settings_sql[] =
	"SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE FROM information_schema.SYSTEM_VARIABLES"
	" WHERE GLOBAL_VALUE IS NOT NULL AND (GLOBAL_VALUE_ORIGIN <> 'COMPILE-TIME'"
	" OR VARIABLE_NAME IN (" PERF_VARIABLES ")) ORDER BY 1";

static const char settings_fallback_sql[] =
	"SELECT LOWER(VARIABLE_NAME), VARIABLE_VALUE FROM performance_schema.global_variables"
	" WHERE UPPER(VARIABLE_NAME) IN (" PERF_VARIABLES ") ORDER BY 1";

static const struct lb_db_monitor_source sources[] = {
	{ "SHOW GLOBAL STATUS",
	  "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select','Com_insert','Com_update',"
	  "'Com_delete','Com_replace','Com_commit','Com_rollback','Com_begin','Questions','Queries',"
	  "'Com_show_status','Innodb_buffer_pool_read_requests','Innodb_buffer_pool_reads',"
	  "'Innodb_buffer_pool_write_requests','Innodb_buffer_pool_pages_flushed',"
	  "'Innodb_buffer_pool_wait_free','Innodb_row_lock_waits','Innodb_row_lock_time',"
	  "'Innodb_deadlocks','Innodb_os_log_written','Innodb_os_log_fsyncs','Innodb_log_waits',"
	  "'Innodb_data_fsyncs','Innodb_data_reads','Innodb_data_writes','Innodb_data_read',"
	  "'Innodb_data_written','Innodb_rows_read','Innodb_rows_inserted','Innodb_rows_updated',"
	  "'Innodb_rows_deleted','Handler_read_first','Handler_read_key','Handler_read_next',"
	  "'Handler_read_rnd_next','Handler_write','Handler_update','Handler_delete','Handler_commit',"
	  "'Handler_rollback','Created_tmp_tables','Created_tmp_disk_tables','Select_scan',"
	  "'Sort_merge_passes','Slow_queries','Bytes_received','Bytes_sent','Connections',"
	  "'Aborted_connects','Threads_running','Threads_connected','Innodb_buffer_pool_pages_dirty',"
	  "'Innodb_buffer_pool_pages_free','Innodb_history_list_length','Innodb_checkpoint_age')",
	  NULL, NULL, NULL },
	/* InnoDB's own metrics need PROCESS. */
	{ "information_schema.INNODB_METRICS",
	  "SELECT CONCAT('innodb_metrics.', NAME), COUNT FROM information_schema.INNODB_METRICS"
	  " WHERE NAME IN ('lock_timeouts','lock_row_lock_current_waits','trx_rseg_history_len')",
	  "PROCESS", NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static const char *const gauges[] = { "Threads_", "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_free",
				      "Innodb_history_list_length", "Innodb_checkpoint_age",
				      "innodb_metrics.lock_row_lock_current_waits", "innodb_metrics.trx_rseg_history_len",
				      NULL };
/* Every statement the monitor sends is a question and a query; SHOW STATUS counts itself. */
static const char *const own[] = { "Questions", "Queries", NULL };
static const char *const servers[] = { "MariaDB", "MySQL", NULL };

const struct lb_db_monitor lb_mysql_monitor = {
	.settings_sql = settings_sql,
	.settings_fallback_sql = settings_fallback_sql,
	.sources = sources,
	.gauges = gauges,
	.own = own,
	.servers = servers,
};
