/* Secrets on the command line: which option names hide their value, and the password keys of an
 * ODBC connection string masked in place (argv) and in a copy (the result file). */
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "util/secret.h"

static void masked(const char *in, const char *want)
{
	char *m = lb_secret_conn_string_masked(in);
	is_str(m, want, "masked copy of '%s'", in);
	free(m);
}

static void in_place(const char *in, const char *want)
{
	char *s = strdup(in);
	lb_secret_mask_conn_string(s);
	is_str(s, want, "masked in place: '%s'", in);
	free(s);
}

int main(void)
{
	ok(lb_secret_option("pgsql-password", 14), "pgsql-password is secret");
	ok(lb_secret_option("odbc-password=x", 13), "odbc-password is secret");
	ok(!lb_secret_option("odbc-dsn", 8), "odbc-dsn is not");
	ok(lb_secret_conn_string_option("--odbc-connection-string", 24), "a connection string");
	ok(lb_secret_conn_string_option("odbc_connection_string", 22), "with underscores too");

	masked("DRIVER=x;SERVER=h;PWD=secret;UID=u", "DRIVER=x;SERVER=h;PWD=***;UID=u");
	masked("pwd=secret", "pwd=***");
	masked("DSN=a;Password = s3;x=1", "DSN=a;Password =***;x=1");
	masked("PWD={se;cr}}et};UID=u", "PWD=***;UID=u");
	masked("DSN=a;PWD=1;PWD=2", "DSN=a;PWD=***;PWD=***");
	masked("DSN=a;UID=pwd", "DSN=a;UID=pwd");
	masked("DSN=a;XPWD=b", "DSN=a;XPWD=b");
	masked("", "");
	in_place("DRIVER=x;PWD=secret;UID=u", "DRIVER=x;PWD=xxxxxx;UID=u");
	in_place("PWD={a;b}", "PWD=xxxxx");
	return done_testing();
}
