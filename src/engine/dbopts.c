#include "engine/dbopts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/config.h"
#include "util/util.h"

/* The first driver of the registry: mysql when it is built in, as in sysbench. */
static const char *default_driver(void)
{
	return lb_db_driver_name(lb_db_driver_at(0));
}

static const struct lb_opt_def general[] = {
	{ "db-ps-mode", LB_OPT_STRING, "auto", "prepared statements usage mode {auto, disable}" },
	{ "db-debug", LB_OPT_BOOL, "off",
	  "print each SQL statement with its outcome and time to stdout (shown at the default --verbosity)" },
	{ "db-ignore-errors", LB_OPT_LIST, "",
	  "errors to ignore (retry the event) for any driver: SQLSTATEs, MySQL error numbers, or 'all'" },
	{ "db-dialect-file", LB_OPT_STRING, "",
	  "Lua file that registers SQL dialects (luabench.dialect.register) for the workloads and --odbc-dialect; see doc/dialects.md" },
	{ "db-connect-timeout", LB_OPT_DOUBLE, "10", "seconds to wait for a connection to be established" },
	{ "db-read-timeout", LB_OPT_DOUBLE, "0",
	  "seconds a single statement may take before its connection is dropped and reconnected (0 = no limit)" },
	{ "db-reconnect-timeout", LB_OPT_DOUBLE, "60",
	  "seconds a worker keeps retrying to reconnect after losing its connection" },
	{ "db-statement-timeout", LB_OPT_DOUBLE, "0",
	  "seconds the server lets a statement run before cancelling it, an SQL error like any other (PostgreSQL statement_timeout, MariaDB max_statement_time, through ODBC too; SQLite and DuckDB interrupt it; 0 = the server's setting)" },
	{ "db-tcp-timeout", LB_OPT_DOUBLE, "30",
	  "seconds after which a server that neither acknowledges data nor answers keepalive probes is taken as gone (a network partition): the connection is lost and reconnected (TCP keepalive and TCP_USER_TIMEOUT; 0 = the kernel's defaults, many minutes)" },
	{ "logon", LB_OPT_STRING, "once",
	  "when threads and emulated users log on to the database in a run: once (a session each, kept for the run) or per-transaction (a new session for each event, closed after it: the logon cost and the server's session churn are measured; as Swingbench's LogOutPostTransaction)" },
};

int lb_dbopts_register(struct lb_opts *opts, char *err, int errlen)
{
	const char *group = "General database options";
	if (!lb_opts_add(opts, "db-driver", LB_OPT_STRING, default_driver(),
			 "specifies database driver to use ('help' to get list of available drivers)", group, err,
			 errlen) ||
	    lb_opts_add_defs(opts, general, LB_ARRAY_LENGTH(general), group, err, errlen) < 0)
		return -1;
	/* Each driver declares its own. */
	for (uint32_t i = 0; i < lb_db_driver_count(); i++) {
		const struct lb_db_ops *d = lb_db_driver_at(i);
		size_t n = 0;
		while (d->options && d->options[n].name)
			n++;
		char title[64];
		snprintf(title, sizeof(title), "%s options", d->name);
		if (n && lb_opts_add_defs(opts, d->options, n, title, err, errlen) < 0)
			return -1;
	}
	return 0;
}

const char *lb_dbopts_default_driver(const struct lb_opts *opts)
{
	const char *d = lb_opts_str(opts, "db-driver");
	return *d ? d : default_driver(); /* "--db-driver=" */
}

static int32_t ms(const struct lb_opts *o, const char *name)
{
	return (int32_t)(lb_opts_double(o, name) * 1000.0);
}

void lb_dbopts_build(const struct lb_opts *o, const char *driver, struct lb_db_options *out)
{
	memset(out, 0, sizeof(*out));
	const struct lb_db_ops *d = lb_db_find_driver(driver);
	if (d && d->read_options)
		d->read_options(o, out);
	const struct lb_opt *ign = lb_opts_find(o, "db-ignore-errors");
	out->ignore_errors = ign && ign->value && *ign->value ? ign->value : NULL;
	out->connect_timeout_ms = ms(o, "db-connect-timeout");
	out->read_timeout_ms = ms(o, "db-read-timeout");
	out->statement_timeout_ms = ms(o, "db-statement-timeout");
	out->tcp_timeout_ms = ms(o, "db-tcp-timeout");
	out->ps_mode = strcmp(lb_opts_str(o, "db-ps-mode"), "disable") ? LB_DB_PS_AUTO : LB_DB_PS_DISABLE;
}

int lb_dbopts_configure(const struct lb_opts *o, struct lb_config *cfg, char *err, int errlen)
{
	/* Another value is refused when a script creates a driver, as sysbench does (lb_sql_config);
	 * an empty one crashes sysbench there, so it is refused here at once. */
	if (!*lb_opts_str(o, "db-ps-mode")) {
		snprintf(err, (size_t)errlen, "Invalid value for the 'db-ps-mode' option: '' (expected auto or disable)");
		return -1;
	}
	const char *logon = lb_opts_str(o, "logon");
	if (strcmp(logon, "once") && strcmp(logon, "per-transaction")) {
		snprintf(err, (size_t)errlen, "Invalid value for the 'logon' option: '%s' (expected once or per-transaction)",
			 logon);
		return -1;
	}
	static const char *const secs[] = { "db-connect-timeout", "db-read-timeout", "db-reconnect-timeout",
					    "db-statement-timeout", "db-tcp-timeout" };
	for (size_t i = 0; i < LB_ARRAY_LENGTH(secs); i++) {
		if (lb_opts_double(o, secs[i]) < 0) {
			snprintf(err, (size_t)errlen, "Invalid value for the '%s' option: '%s' (expected seconds >= 0)",
				 secs[i], lb_opts_str(o, secs[i]));
			return -1;
		}
	}
	cfg->db_debug = lb_opts_bool(o, "db-debug");
	const struct lb_db_ops *drv = lb_db_find_driver(lb_dbopts_default_driver(o));
	if (drv && drv->check_options && drv->check_options_at_start) {
		struct lb_db_options dbo;
		char msg[256];
		lb_dbopts_build(o, drv->name, &dbo);
		if (drv->check_options(&dbo, msg, sizeof(msg)) < 0) {
			snprintf(err, (size_t)errlen, "%s", msg);
			return -1;
		}
	}
	if (drv && drv->thread_stack_bytes > cfg->thread_stack_bytes)
		cfg->thread_stack_bytes = drv->thread_stack_bytes;
	cfg->db_reconnect_ns = (int64_t)(lb_opts_double(o, "db-reconnect-timeout") * 1e9);
	return 0;
}

int lb_dbopts_check_driver(const struct lb_opts *o, char *err, int errlen)
{
	const char *name = lb_opts_str(o, "db-driver");
	if (!lb_opts_find(o, "db-driver")->given || !strcmp(name, "help") || lb_db_find_driver(name))
		return 0;
	int n = snprintf(err, (size_t)errlen, "invalid database driver name: '%s' (available:", name);
	for (uint32_t i = 0; i < lb_db_driver_count() && n < errlen; i++)
		n += snprintf(err + n, (size_t)(errlen - n), "%s %s", i ? "," : "", lb_db_driver_name(lb_db_driver_at(i)));
	if (n < errlen)
		snprintf(err + n, (size_t)(errlen - n), ")");
	return -1;
}

static bool int_list(const char *s)
{
	while (*s) {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (end == s || errno || v < INT_MIN || v > INT_MAX || (*end && *end != ','))
			return false;
		s = *end ? end + 1 : end;
	}
	return true;
}

int lb_dbopts_check_script_values(const struct lb_opts *o, char *err, int errlen)
{
	const struct lb_opt *port = lb_opts_find(o, "pgsql-port");
	if (!port || !port->given || !port->value || int_list(port->value))
		return 0;
	snprintf(err, (size_t)errlen, "Invalid value for the 'pgsql_port' option: '%s'", port->value);
	return -1;
}

void lb_dbopts_print_drivers(FILE *out)
{
	fprintf(out, "Available database drivers:\n");
	for (uint32_t i = 0; i < lb_db_driver_count(); i++) {
		const struct lb_db_ops *d = lb_db_driver_at(i);
		fprintf(out, "  %-8s %s\n", lb_db_driver_name(d), lb_db_driver_description(d));
	}
}
