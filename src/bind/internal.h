/* Shared between the files of src/bind: the VM struct and protected-call helpers. */
#ifndef LB_BIND_INTERNAL_H
#define LB_BIND_INTERNAL_H

#include <lua.h>
#include <stddef.h>

struct lb_engine;
struct lb_worker;

struct lb_vm {
	lua_State *L;
	struct lb_engine *eng;
	struct lb_worker *w;
};

/* lua_pcall with our message handler; on error the message is copied into err and popped. */
int lb_lua_pcall(lua_State *L, int nargs, int nresults, char *err, size_t errlen);
void lb_lua_push_path(lua_State *L, const char *path);
void lb_lua_error_text(lua_State *L, int idx, char *err, size_t errlen);

/* Installs the `luabench._c` table of C functions the Lua library is built on. */
void lb_capi_install(struct lb_vm *vm);
/* JSON text of the Lua value at idx (cJSON does the encoding); NULL if not encodable. */
char *lb_json_encode_value(lua_State *L, int idx);
/* Pushes a cJSON value as Lua (null as luabench's json_null). */
struct cJSON;
void lb_json_push(lua_State *L, const struct cJSON *j);
/* Calls the function on top of the stack; 0, 1 (it returned false) or -1 with err set. */
int lb_vm_call_top(struct lb_vm *vm, int nargs, char *err, size_t errlen);
/* Fills sysbench.opt (and legacy globals). */
int lb_options_export(struct lb_vm *vm, char *err, size_t errlen);

#endif
