/* `luabench net-server`: the peer of the net workload (doc/workloads/net.md). */
#ifndef LB_CLI_NET_SERVER_H
#define LB_CLI_NET_SERVER_H

#include <stdint.h>

struct lb_net_server_opts {
	const char *host; /* address to listen on; "": all */
	int port;         /* TCP and UDP */
	int threads;      /* each with its own listener (SO_REUSEPORT) */
	int max_conns;    /* open at once; more are closed at once and counted */
	int64_t time_s;   /* stop after; 0: at SIGINT/SIGTERM only */
};

#define LB_NET_SERVER_DEFAULTS { .host = "", .port = 12866, .threads = 2, .max_conns = 10000, .time_s = 0 }

/* Serves until SIGINT/SIGTERM or time_s, then prints its totals. Returns the exit code. */
int lb_net_server_run(const struct lb_net_server_opts *o);

#endif
