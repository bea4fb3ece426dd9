/* Commands written in Lua (`luabench compare`, `report`, `study`): a module of the engine's
 * library whose main(command, args) reads the command's arguments and does the work in a Lua
 * state of its own (luabench.internal.cli, the Lua side of src/cli/). */
#ifndef LB_BIND_TOOL_H
#define LB_BIND_TOOL_H

#include <stddef.h>

struct lb_vm;

/* Calls require(module).main(command, args), args the nargs strings as a Lua array. Returns its
 * integer result (the process exit code; nil counts as 0), or -1 with a one-line message in err
 * when the module fails to load or raises an error. */
int lb_vm_run_tool(struct lb_vm *vm, const char *module, const char *command, const char *const *args,
		   int nargs, char *err, size_t errlen);

#endif
