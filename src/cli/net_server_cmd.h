/* `luabench net-server`'s command line: read into its options (cli/net_server.h) and run. */
#ifndef LB_CLI_NET_SERVER_CMD_H
#define LB_CLI_NET_SERVER_CMD_H

/* args: the words after `net-server`. Returns the process exit code. */
int lb_cli_net_server(const char *const *args, int nargs);

#endif
