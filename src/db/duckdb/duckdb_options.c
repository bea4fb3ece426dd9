/* The duckdb driver's command-line options and how they fill its connection options. */
#include "duckdb_int.h"

const struct lb_opt_def lb_duckdb_options[] = {
	{ "duckdb-db", LB_OPT_STRING, LB_DUCKDB_DEFAULT_PATH,
	  "DuckDB database file, created if missing, or :memory: (one in-memory database shared by the process's connections)" },
	{ "duckdb-threads", LB_OPT_INT, "0",
	  "threads DuckDB may use for one query (its 'threads' setting; 0 = one per CPU the process may use: taskset, a cpuset, --cpu-affinity-mode=process)" },
	{ "duckdb-memory-limit", LB_OPT_STRING, "",
	  "DuckDB's memory_limit setting, e.g. 4GB (default: DuckDB's, 80% of the RAM)" },
	{ NULL, 0, NULL, NULL },
};

void lb_duckdb_read_options(const struct lb_opts *o, struct lb_db_options *out)
{
	const char *db = lb_opts_value(o, "duckdb-db", NULL);
	const char *mem = lb_opts_value(o, "duckdb-memory-limit", NULL);

	out->db = db && *db ? db : NULL;
	out->duckdb_memory_limit = mem && *mem ? mem : NULL;
	out->duckdb_threads = (int32_t)lb_opts_int(o, "duckdb-threads");
}
