/* The mysql driver's command-line options (sysbench 1.0.20's, plus the TLS files and modes) and
 * how they fill its connection options. */
#include "mysql_int.h"

/* sysbench's --mysql-ssl is a boolean; luabench's TLS modes are the words it takes besides. */
static const char *const ssl_modes[] = { "disabled", "preferred", "required", "verify_ca",
					 "verify_identity", NULL };

const struct lb_opt_def lb_mysql_options[] = {
	{ "mysql-host", LB_OPT_LIST, "localhost", "MySQL server host" },
	{ "mysql-port", LB_OPT_LIST, "3306", "MySQL server port" },
	{ "mysql-socket", LB_OPT_LIST, "", "MySQL socket" },
	{ "mysql-user", LB_OPT_STRING, "sbtest", "MySQL user" },
	{ "mysql-password", LB_OPT_STRING, "", "MySQL password" },
	{ "mysql-db", LB_OPT_STRING, "sbtest", "MySQL database name" },
	{ "mysql-ssl", LB_OPT_STRING, "off",
	  "TLS mode {off (client default), on, disabled, preferred, required, verify_ca, verify_identity}",
	  ssl_modes },
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
	{ NULL, 0, NULL, NULL },
};

/* An empty list given stays "" (sysbench refuses it); lb_opts_value reads it as unset. */
static const char *list_value(const struct lb_opts *o, const char *name)
{
	const struct lb_opt *opt = lb_opts_find(o, name);
	return opt && opt->value ? opt->value : NULL;
}

void lb_mysql_read_options(const struct lb_opts *o, struct lb_db_options *out)
{
	out->hosts = list_value(o, "mysql-host");
	out->ports = list_value(o, "mysql-port");
	out->sockets = lb_opts_value(o, "mysql-socket", NULL);
	out->user = lb_opts_value(o, "mysql-user", NULL);
	out->password = lb_opts_value(o, "mysql-password", NULL);
	out->db = lb_opts_value(o, "mysql-db", NULL);
	const char *ssl = lb_opts_value(o, "mysql-ssl", NULL);
	bool on;
	/* A boolean off keeps the client library's default, as sysbench 1.0.20 does; on requires
	 * TLS. */
	if (ssl && lb_opt_parse_bool(ssl, &on) == 0)
		ssl = on ? "on" : NULL;
	out->ssl_mode = ssl;
	out->ssl_ca = lb_opts_value(o, "mysql-ssl-ca", NULL);
	out->ssl_cert = lb_opts_value(o, "mysql-ssl-cert", NULL);
	out->ssl_key = lb_opts_value(o, "mysql-ssl-key", NULL);
	out->ssl_cipher = lb_opts_value(o, "mysql-ssl-cipher", NULL);
	out->compression = lb_opts_bool(o, "mysql-compression");
	out->dry_run = lb_opts_bool(o, "mysql-dry-run");
	const struct lb_opt *ign = lb_opts_find(o, "mysql-ignore-errors");
	out->driver_ignore_errors = ign && ign->value ? ign->value : NULL;
}
