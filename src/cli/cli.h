#ifndef LB_CLI_CLI_H
#define LB_CLI_CLI_H

#include <stdbool.h>

/* Runs luabench with the given command line and returns the exit code. *must_exit_now is set
 * when worker threads may still be running (forced shutdown, init timeout): the caller must then
 * leave with _exit() instead of returning from main. */
int lb_cli_main(int argc, char **argv, bool *must_exit_now);

#endif
