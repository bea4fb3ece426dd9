#include "api/dbopts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config.h"
#include "lb_config.h"
#include "util/util.h"

/* sysbench's default is mysql when it is compiled in. */
#if LB_HAVE_MYSQL
#define DEFAULT_DRIVER "mysql"
#elif LB_HAVE_PGSQL
#define DEFAULT_DRIVER "pgsql"
#else
#define DEFAULT_DRIVER "null"
#endif

static const struct lb_opt_def general[] = {
	{ "db-driver", LB_OPT_STRING, DEFAULT_DRIVER,
	  "specifies database driver to use ('help' to get list of available drivers)" },
	{ "db-ps-mode", LB_OPT_STRING, "auto", "prepared statements usage mode {auto, disable}" },
	{ "db-debug", LB_OPT_BOOL, "off",
	  "print each SQL statement with its outcome and time to stdout (shown at the default --verbosity)" },
	{ "db-ignore-errors", LB_OPT_LIST, "",
	  "errors to ignore (retry the event) for any driver: SQLSTATEs, MySQL error numbers, or 'all'" },
	{ "db-connect-timeout", LB_OPT_DOUBLE, "10", "seconds to wait for a connection to be established" },
	{ "db-read-timeout", LB_OPT_DOUBLE, "0",
	  "seconds a single statement may take before its connection is dropped and reconnected (0 = no limit)" },
	{ "db-reconnect-timeout", LB_OPT_DOUBLE, "60",
	  "seconds a worker keeps retrying to reconnect after losing its connection" },
};

static const struct lb_opt_def mysql[] = {
	{ "mysql-host", LB_OPT_LIST, "localhost", "MySQL server host" },
	{ "mysql-port", LB_OPT_LIST, "3306", "MySQL server port" },
	{ "mysql-socket", LB_OPT_LIST, "", "MySQL socket" },
	{ "mysql-user", LB_OPT_STRING, "sbtest", "MySQL user" },
	{ "mysql-password", LB_OPT_STRING, "", "MySQL password" },
	{ "mysql-db", LB_OPT_STRING, "sbtest", "MySQL database name" },
	{ "mysql-ssl", LB_OPT_STRING, "off",
	  "TLS mode {off (client default), on, disabled, preferred, required, verify_ca, verify_identity}" },
	{ "mysql-ssl-ca", LB_OPT_STRING, "", "CA certificate file for --mysql-ssl" },
	{ "mysql-ssl-cert", LB_OPT_STRING, "", "client certificate file for --mysql-ssl" },
	{ "mysql-ssl-key", LB_OPT_STRING, "", "client key file for --mysql-ssl" },
	{ "mysql-ssl-cipher", LB_OPT_STRING, "", "use specific cipher for SSL connections" },
	{ "mysql-compression", LB_OPT_BOOL, "off", "use compression, if available in the client library" },
	{ "mysql-debug", LB_OPT_BOOL, "off", "trace all client library calls" },
	{ "mysql-ignore-errors", LB_OPT_LIST, "1213,1020,1205",
	  "list of errors to ignore, or \"all\"" },
	{ "mysql-dry-run", LB_OPT_BOOL, "off",
	  "Dry run, pretend that all MySQL client API calls are successful without executing them" },
};

static const struct lb_opt_def pgsql[] = {
	{ "pgsql-host", LB_OPT_STRING, "localhost", "PostgreSQL server host" },
	{ "pgsql-port", LB_OPT_STRING, "5432", "PostgreSQL server port" },
	{ "pgsql-user", LB_OPT_STRING, "sbtest", "PostgreSQL user" },
	{ "pgsql-password", LB_OPT_STRING, "", "PostgreSQL password" },
	{ "pgsql-db", LB_OPT_STRING, "sbtest", "PostgreSQL database name" },
	{ "pgsql-sslmode", LB_OPT_STRING, "",
	  "libpq sslmode {disable, allow, prefer, require, verify-ca, verify-full} (default: PGSSLMODE or prefer)" },
	{ "pgsql-ignore-errors", LB_OPT_LIST, "40P01,23505,40001",
	  "SQLSTATEs to ignore (the driver rolls back and the event is retried), or \"all\"" },
};

int lb_dbopts_register(struct lb_opts *opts, char *err, int errlen)
{
	if (lb_opts_add_defs(opts, general, LB_ARRAY_LENGTH(general), "General database options", err, errlen) < 0)
		return -1;
	if (LB_HAVE_MYSQL &&
	    lb_opts_add_defs(opts, mysql, LB_ARRAY_LENGTH(mysql), "mysql options", err, errlen) < 0)
		return -1;
	if (LB_HAVE_PGSQL &&
	    lb_opts_add_defs(opts, pgsql, LB_ARRAY_LENGTH(pgsql), "pgsql options", err, errlen) < 0)
		return -1;
	return 0;
}

const char *lb_dbopts_default_driver(const struct lb_opts *opts)
{
	const char *d = lb_opts_str(opts, "db-driver");
	return *d ? d : DEFAULT_DRIVER; /* "--db-driver=" */
}

/* Value of an option, or NULL when it is empty (or not given and env_fallback is set). */
static const char *val(const struct lb_opts *o, const char *name, const char *env_fallback)
{
	const struct lb_opt *opt = lb_opts_find(o, name);
	if (!opt || !opt->value || !*opt->value)
		return NULL;
	if (env_fallback && !opt->given && getenv(env_fallback))
		return NULL;
	return opt->value;
}

static int32_t ms(const struct lb_opts *o, const char *name)
{
	return (int32_t)(lb_opts_double(o, name) * 1000.0);
}

static void build_pgsql(const struct lb_opts *o, struct lb_db_options *out)
{
	out->hosts = val(o, "pgsql-host", "PGHOST");
	out->ports = val(o, "pgsql-port", "PGPORT");
	out->user = val(o, "pgsql-user", "PGUSER");
	out->password = val(o, "pgsql-password", "PGPASSWORD");
	out->db = val(o, "pgsql-db", "PGDATABASE");
	out->ssl_mode = val(o, "pgsql-sslmode", "PGSSLMODE");
	const struct lb_opt *ign = lb_opts_find(o, "pgsql-ignore-errors");
	out->driver_ignore_errors = ign && ign->value ? ign->value : NULL;
}

static void build_mysql(const struct lb_opts *o, struct lb_db_options *out)
{
	out->hosts = val(o, "mysql-host", NULL);
	out->ports = val(o, "mysql-port", NULL);
	out->sockets = val(o, "mysql-socket", NULL);
	out->user = val(o, "mysql-user", NULL);
	out->password = val(o, "mysql-password", NULL);
	out->db = val(o, "mysql-db", NULL);
	const char *ssl = val(o, "mysql-ssl", NULL);
	/* "off" keeps the client library's default, as sysbench 1.0.20 does. */
	out->ssl_mode = ssl && strcmp(ssl, "off") ? ssl : NULL;
	out->ssl_ca = val(o, "mysql-ssl-ca", NULL);
	out->ssl_cert = val(o, "mysql-ssl-cert", NULL);
	out->ssl_key = val(o, "mysql-ssl-key", NULL);
	out->ssl_cipher = val(o, "mysql-ssl-cipher", NULL);
	out->compression = lb_opts_bool(o, "mysql-compression");
	out->dry_run = lb_opts_bool(o, "mysql-dry-run");
	const struct lb_opt *ign = lb_opts_find(o, "mysql-ignore-errors");
	out->driver_ignore_errors = ign && ign->value ? ign->value : NULL;
}

void lb_dbopts_build(const struct lb_opts *o, const char *driver, struct lb_db_options *out)
{
	memset(out, 0, sizeof(*out));
	if (LB_HAVE_PGSQL && !strcmp(driver, "pgsql"))
		build_pgsql(o, out);
	else if (LB_HAVE_MYSQL && !strcmp(driver, "mysql"))
		build_mysql(o, out);
	const struct lb_opt *ign = lb_opts_find(o, "db-ignore-errors");
	out->ignore_errors = ign && ign->value && *ign->value ? ign->value : NULL;
	out->connect_timeout_ms = ms(o, "db-connect-timeout");
	out->read_timeout_ms = ms(o, "db-read-timeout");
	out->ps_mode = strcmp(lb_opts_str(o, "db-ps-mode"), "disable") ? LB_DB_PS_AUTO : LB_DB_PS_DISABLE;
}

int lb_dbopts_configure(const struct lb_opts *o, struct lb_config *cfg, char *err, int errlen)
{
	const char *ps = lb_opts_str(o, "db-ps-mode");
	if (strcmp(ps, "auto") && strcmp(ps, "disable")) {
		snprintf(err, (size_t)errlen, "Invalid value for the 'db-ps-mode' option: '%s' (expected auto or disable)", ps);
		return -1;
	}
	static const char *const secs[] = { "db-connect-timeout", "db-read-timeout", "db-reconnect-timeout" };
	for (size_t i = 0; i < LB_ARRAY_LENGTH(secs); i++) {
		if (lb_opts_double(o, secs[i]) < 0) {
			snprintf(err, (size_t)errlen, "Invalid value for the '%s' option: '%s' (expected seconds >= 0)",
				 secs[i], lb_opts_str(o, secs[i]));
			return -1;
		}
	}
	cfg->db_debug = lb_opts_bool(o, "db-debug");
	cfg->db_reconnect_ns = (int64_t)(lb_opts_double(o, "db-reconnect-timeout") * 1e9);
	return 0;
}

void lb_dbopts_print_drivers(FILE *out)
{
	fprintf(out, "Available database drivers:\n");
	for (uint32_t i = 0; i < lb_db_driver_count(); i++) {
		const struct lb_db_ops *d = lb_db_driver_at(i);
		fprintf(out, "  %-8s %s\n", lb_db_driver_name(d), lb_db_driver_description(d));
	}
}
