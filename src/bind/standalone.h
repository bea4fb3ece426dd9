/* A Lua state with the whole API made from a session alone, for work that is not a run: a
 * command written in Lua (`luabench compare`, `report`), a workload's merge hook. It lives in
 * an idle engine, as the control state, so the FFI calls that find their worker through the
 * thread (sysbench's C names) work in it; none of that shows here. */
#ifndef LB_BIND_STANDALONE_H
#define LB_BIND_STANDALONE_H

#include <stddef.h>

struct lb_session;
struct lb_standalone;
struct lb_vm;

/* The state, with s->script loaded (or the API only when s->script is NULL), bound to the
 * calling thread. NULL with a message in err on failure. */
struct lb_standalone *lb_standalone_open(const struct lb_session *s, char *err, size_t errlen);
struct lb_vm *lb_standalone_vm(const struct lb_standalone *st);
/* Frees the state and unbinds the thread. NULL is ignored. */
void lb_standalone_close(struct lb_standalone *st);

/* Runs require(module).main(command, args) (bind/tool.h) in a standalone state with the default
 * configuration: the process exit code (1 after a one-line message naming the command when it
 * fails). */
int lb_tool_main(const char *module, const char *command, const char *const *args, int nargs);

#endif
