/* `luabench net-server`: the peer of the net workload (doc/workloads/net.md). */
#ifndef LB_CLI_NET_SERVER_H
#define LB_CLI_NET_SERVER_H

/* argv[0] is "net-server". Returns the exit code. */
int lb_net_server_main(int argc, char **argv);

#endif
