/* `luabench net-server`: its help and options; the server itself is cli/net_server.c. */
#include "cli/net_server_cmd.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/net_server.h"

static const char usage[] =
	"Usage: luabench net-server [--host=ADDR] [--port=N] [--threads=N] [--time=S] [--max-connections=N]\n"
	"Answers `luabench net` (tcp_rr, tcp_crr, tcp_stream, udp_rr) on TCP and UDP port N until\n"
	"SIGINT/SIGTERM or --time seconds (0 = no limit); prints its totals when it stops.\n"
	"  --host=ADDR            address to listen on [all]\n"
	"  --port=N               TCP and UDP port [12866]\n"
	"  --threads=N            threads, each with its own listener (SO_REUSEPORT) [2]\n"
	"  --time=S               stop after S seconds [0]\n"
	"  --max-connections=N    connections open at once; more are closed at once and counted [10000]\n";

/* 0, 1 after --help (printed), -1 after a mistake (said). */
static int parse_args(struct lb_net_server_opts *o, const char *const *args, int nargs)
{
	for (int i = 0; i < nargs; i++) {
		const char *a = args[i], *v = strchr(a, '=');
		if (!strcmp(a, "--help") || !strcmp(a, "help")) {
			fputs(usage, stdout);
			return 1;
		}
		char *end = NULL;
		long long n = v ? strtoll(v + 1, &end, 10) : 0;
		bool num = v && end != v + 1 && !*end && n >= 0;
		if (!strncmp(a, "--host=", 7))
			o->host = v + 1;
		else if (!strncmp(a, "--port=", 7) && num && n <= 65535)
			o->port = (int)n;
		else if (!strncmp(a, "--threads=", 10) && num && n >= 1 && n <= 1024)
			o->threads = (int)n;
		else if (!strncmp(a, "--time=", 7) && num && n <= INT32_MAX)
			o->time_s = n;
		else if (!strncmp(a, "--max-connections=", 18) && num && n >= 1 && n <= 10000000)
			o->max_conns = (int)n;
		else {
			fprintf(stderr, "FATAL: net-server: invalid option '%s'\n%s", a, usage);
			return -1;
		}
	}
	return 0;
}

int lb_cli_net_server(const char *const *args, int nargs)
{
	struct lb_net_server_opts o = LB_NET_SERVER_DEFAULTS;
	int rc = parse_args(&o, args, nargs);
	if (rc)
		return rc < 0 ? 1 : 0;
	return lb_net_server_run(&o);
}
