/* Commands written in Lua (`luabench compare`, `luabench report`): a module of the engine's
 * library whose main(args) does the work in a Lua state of its own. */
#ifndef LB_BIND_TOOL_H
#define LB_BIND_TOOL_H

#include <stddef.h>

struct lb_vm;

/* Calls require(module).main(args), args = argv[1..argc-1] as a Lua array. Returns its integer
 * result (the process exit code; nil counts as 0), or -1 with a one-line message in err when
 * the module fails to load or raises an error. */
int lb_vm_run_tool(struct lb_vm *vm, const char *module, int argc, char **argv, char *err,
		   size_t errlen);

#endif
