/* The odbc driver's command-line options and how they fill its connection options. */
#include "odbc_int.h"

const struct lb_opt_def lb_odbc_options[] = {
	{ "odbc-dsn", LB_OPT_STRING, "", "ODBC data source name (odbc.ini; see ODBCINI, ODBCSYSINI)" },
	{ "odbc-connection-string", LB_OPT_STRING, "",
	  "ODBC connection string, used instead of --odbc-dsn (e.g. 'DRIVER=PostgreSQL Unicode;SERVER=db1;DATABASE=sbtest'; a PWD= in it is never shown)" },
	{ "odbc-user", LB_OPT_STRING, "", "user, added as UID= (default: the data source's)" },
	{ "odbc-password", LB_OPT_STRING, "", "password, added as PWD= (default: the data source's)" },
	{ "odbc-dialect", LB_OPT_STRING, "",
	  "SQL dialect of the server {pgsql, mysql, or any luabench.dialect knows} (default: from the server's SQL_DBMS_NAME)" },
	{ "odbc-ignore-errors", LB_OPT_LIST, "40001,40P01,23505,1213,1020,1205",
	  "SQLSTATEs or native error codes to ignore (the event is retried), or \"all\"" },
	{ NULL, 0, NULL, NULL },
};

static const char *nonempty(const struct lb_opts *o, const char *name)
{
	const char *v = lb_opts_value(o, name, NULL);
	return v && *v ? v : NULL;
}

void lb_odbc_read_options(const struct lb_opts *o, struct lb_db_options *out)
{
	out->odbc_dsn = nonempty(o, "odbc-dsn");
	out->odbc_connection_string = nonempty(o, "odbc-connection-string");
	out->user = nonempty(o, "odbc-user");
	out->password = nonempty(o, "odbc-password");
	out->dialect = nonempty(o, "odbc-dialect");
	const struct lb_opt *ign = lb_opts_find(o, "odbc-ignore-errors");
	out->driver_ignore_errors = ign && ign->value ? ign->value : NULL;
}
