/* `luabench merge`'s command line: read into a merge request (output/merge.h) and run. */
#ifndef LB_CLI_MERGE_CMD_H
#define LB_CLI_MERGE_CMD_H

/* args: the words after `merge`. Returns the process exit code. */
int lb_cli_merge(const char *const *args, int nargs);

#endif
