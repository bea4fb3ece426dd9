/* The pgsql driver's command-line options (sysbench 1.0.20's, plus --pgsql-sslmode) and how
 * they fill its connection options. An option left at its default gives way to the libpq
 * environment variable (PGHOST, PGPORT, ...), as libpq itself would. */
#include "pgsql_int.h"

const struct lb_opt_def lb_pgsql_options[] = {
	{ "pgsql-host", LB_OPT_STRING, "localhost", "PostgreSQL server host" },
	{ "pgsql-port", LB_OPT_STRING, "5432", "PostgreSQL server port" },
	{ "pgsql-user", LB_OPT_STRING, "sbtest", "PostgreSQL user" },
	{ "pgsql-password", LB_OPT_STRING, "", "PostgreSQL password" },
	{ "pgsql-db", LB_OPT_STRING, "sbtest", "PostgreSQL database name" },
	{ "pgsql-sslmode", LB_OPT_STRING, "",
	  "libpq sslmode {disable, allow, prefer, require, verify-ca, verify-full} (default: PGSSLMODE or prefer)" },
	{ "pgsql-ignore-errors", LB_OPT_LIST, "40P01,23505,40001",
	  "SQLSTATEs to ignore (the driver rolls back and the event is retried), or \"all\"" },
	{ NULL, 0, NULL, NULL },
};

void lb_pgsql_read_options(const struct lb_opts *o, struct lb_db_options *out)
{
	out->hosts = lb_opts_value(o, "pgsql-host", "PGHOST");
	out->ports = lb_opts_value(o, "pgsql-port", "PGPORT");
	out->user = lb_opts_value(o, "pgsql-user", "PGUSER");
	out->password = lb_opts_value(o, "pgsql-password", "PGPASSWORD");
	out->db = lb_opts_value(o, "pgsql-db", "PGDATABASE");
	out->ssl_mode = lb_opts_value(o, "pgsql-sslmode", "PGSSLMODE");
	const struct lb_opt *ign = lb_opts_find(o, "pgsql-ignore-errors");
	out->driver_ignore_errors = ign && ign->value ? ign->value : NULL;
}
