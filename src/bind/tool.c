#include "bind/tool.h"

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>

#include "bind/internal.h"

int lb_vm_run_tool(struct lb_vm *vm, const char *module, const char *command, const char *const *args,
		   int nargs, char *err, size_t errlen)
{
	lua_State *L = vm->L;
	int top = lua_gettop(L);
	lua_getglobal(L, "require");
	lua_pushstring(L, module);
	if (lb_lua_pcall(L, 1, 1, err, errlen) < 0)
		return -1;
	lua_getfield(L, -1, "main");
	if (!lua_isfunction(L, -1)) {
		snprintf(err, errlen, "module '%s' has no main()", module);
		lua_settop(L, top);
		return -1;
	}
	lua_pushstring(L, command);
	lua_createtable(L, nargs, 0);
	for (int i = 0; i < nargs; i++) {
		lua_pushstring(L, args[i]);
		lua_rawseti(L, -2, i + 1);
	}
	if (lb_lua_pcall(L, 2, 1, err, errlen) < 0) {
		lua_settop(L, top);
		return -1;
	}
	int rc = lua_isnumber(L, -1) ? (int)lua_tointeger(L, -1) : 0;
	lua_settop(L, top);
	return rc;
}
