/* Lua states: creation, module search, protected calls. Report hooks and the engine's host are
 * in hooks.c; with capi.c, script.c and options.c, the files that touch the Lua stack. */
#include "bind/vm.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/embedded.h"
#include "bind/internal.h"
#include "engine/engine.h"
#include "util/log.h"
#include "util/util.h"
#include "engine/worker.h"

static int on_panic(lua_State *L)
{
	/* Reached only by a bug in our own unprotected code; say what happened before aborting. */
	lb_fatal("Lua panic: %s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error object)");
	abort();
}

#define TRACEBACKS_KEY "luabench.tracebacks"
/* luabench's personality: an error's text shows control characters as escapes (one line each);
 * sysbench prints them as they are. */
#define ONE_LINE_KEY "luabench.one_line"

/* Message handler for every protected call: keeps error objects (tables) as they are so
 * RESTART_EVENT descriptors survive, and adds a traceback for --debug (not as sysbench, which
 * prints none). The handler runs where the error was raised, so the traceback shows the
 * script's frames; a message that already carries one (the event loop's own handler in
 * runner.lua took it where event() failed) is not given a second one from the re-raise. */
static int on_error(lua_State *L)
{
	if (lb_log_verbosity() < LB_LOG_DEBUG || lua_type(L, 1) != LUA_TSTRING)
		return 1;
	lua_getfield(L, LUA_REGISTRYINDEX, TRACEBACKS_KEY);
	bool wanted = lua_toboolean(L, -1);
	lua_pop(L, 1);
	if (wanted && !strstr(lua_tostring(L, 1), "\nstack traceback:"))
		luaL_traceback(L, L, lua_tostring(L, 1), 1);
	return 1;
}

/* The text of an error as the personality prints it: luabench's shows control characters as
 * escapes (lb_log_escape), sysbench's as they are. */
static void put_error_text(lua_State *L, const char *m, size_t len, char *err, size_t errlen)
{
	lua_getfield(L, LUA_REGISTRYINDEX, ONE_LINE_KEY);
	bool one_line = lua_toboolean(L, -1);
	lua_pop(L, 1);
	char *shown = one_line ? lb_log_escape(m, len) : NULL;
	snprintf(err, errlen, "%s", shown ? shown : m);
	free(shown);
}

/* Renders an error value as a message: strings as they are, SQL error descriptors by their
 * message (never "(not a string)"). */
void lb_lua_error_text(lua_State *L, int idx, char *err, size_t errlen)
{
	if (idx < 0)
		idx = lua_gettop(L) + idx + 1; /* absolute: we push below */
	size_t len;
	if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) {
		const char *m = lua_tolstring(L, idx, &len);
		put_error_text(L, m, len, err, errlen);
		return;
	}
	if (lua_type(L, idx) == LUA_TTABLE) {
		lua_getfield(L, idx, "sql_errmsg");
		lua_getfield(L, idx, "message");
		const char *m = lua_tolstring(L, -2, &len);
		if (!m)
			m = lua_tolstring(L, -1, &len);
		if (!m) {
			m = "error object without a message";
			len = strlen(m);
		}
		put_error_text(L, m, len, err, errlen);
		lua_pop(L, 2);
		return;
	}
	snprintf(err, errlen, "error object of type %s", luaL_typename(L, idx));
}

int lb_lua_pcall(lua_State *L, int nargs, int nresults, char *err, size_t errlen)
{
	int base = lua_gettop(L) - nargs;
	lua_pushcfunction(L, on_error);
	lua_insert(L, base);
	int rc = lua_pcall(L, nargs, nresults, base);
	lua_remove(L, base);
	if (rc != 0) {
		lb_lua_error_text(L, -1, err, errlen);
		lua_pop(L, 1);
		return -1;
	}
	return 0;
}

/* Pushes the value at a dotted path ("luabench.hooks.run_header") or nil. */
void lb_lua_push_path(lua_State *L, const char *path)
{
	lua_pushvalue(L, LUA_GLOBALSINDEX);
	const char *s = path;
	while (*s && !lua_isnil(L, -1)) {
		const char *dot = strchr(s, '.');
		size_t n = dot ? (size_t)(dot - s) : strlen(s);
		if (lua_type(L, -1) != LUA_TTABLE) {
			lua_pop(L, 1);
			lua_pushnil(L);
			break;
		}
		lua_pushlstring(L, s, n);
		lua_gettable(L, -2);
		lua_remove(L, -2);
		s += n + (dot ? 1 : 0);
		if (!dot)
			break;
	}
}

/* Embedded modules are served by two searchers: luabench.* before the file searcher (the
 * engine's own library can't be shadowed), everything else after it (so a script can still
 * ship its own copy of, say, oltp_common.lua, as with sysbench). */
static int search_embedded(lua_State *L, bool library)
{
	const char *name = luaL_checkstring(L, 1);
	bool is_lib = !strncmp(name, "luabench.", 9);
	const struct lb_embedded *m = lb_embedded_find(name);
	if (!m || is_lib != library) {
		lua_pushfstring(L, "\n\tno built-in module '%s'", name);
		return 1;
	}
	if (luaL_loadbuffer(L, (const char *)m->code, m->len, m->chunkname) != 0)
		return lua_error(L);
	return 1;
}

static int search_library(lua_State *L)
{
	return search_embedded(L, true);
}

static int search_builtin(lua_State *L)
{
	return search_embedded(L, false);
}

static void install_searchers(lua_State *L)
{
	lua_getglobal(L, "package");
	lua_getfield(L, -1, "loaders");
	int n = (int)lua_objlen(L, -1);
	/* Shift loaders 2..n up by one and put the library searcher at 2. */
	for (int i = n; i >= 2; i--) {
		lua_rawgeti(L, -1, i);
		lua_rawseti(L, -2, i + 1);
	}
	lua_pushcfunction(L, search_library);
	lua_rawseti(L, -2, 2);
	lua_pushcfunction(L, search_builtin);
	lua_rawseti(L, -2, n + 2);
	lua_pop(L, 2);
}

static void set_paths(lua_State *L)
{
	const char *home = getenv("HOME");
	const char *lua_path = getenv("LUA_PATH");
	const char *lua_cpath = getenv("LUA_CPATH");
	char *path = lb_xasprintf(
		"./?.lua;./?/init.lua;%s/.luarocks/share/lua/5.1/?.lua;%s/.luarocks/share/lua/5.1/?/init.lua;"
		"/usr/local/share/lua/5.1/?.lua;/usr/local/share/lua/5.1/?/init.lua;"
		"/usr/share/lua/5.1/?.lua;/usr/share/lua/5.1/?/init.lua",
		home ? home : "", home ? home : "");
	char *cpath = lb_xasprintf(
		"./?.so;%s/.luarocks/lib/lua/5.1/?.so;/usr/local/lib/lua/5.1/?.so;"
		"/usr/lib/x86_64-linux-gnu/lua/5.1/?.so;/usr/lib/lua/5.1/?.so",
		home ? home : "");
	lua_getglobal(L, "package");
	/* LuaJIT's own default path goes last: it holds jit.* (for --luajit-cmd=v, dump, p). */
	lua_getfield(L, -1, "path");
	char *joined = lb_xasprintf("%s;%s", path, lua_tostring(L, -1));
	lua_pop(L, 1);
	free(path);
	path = joined;
	/* LUA_PATH is honoured with ";;" standing for the default path. */
	const char *vals[2] = { lua_path, lua_cpath };
	char *defs[2] = { path, cpath };
	const char *keys[2] = { "path", "cpath" };
	for (int i = 0; i < 2; i++) {
		if (vals[i]) {
			char *rep = lb_xasprintf(";%s;", defs[i]);
			luaL_gsub(L, vals[i], ";;", rep);
			free(rep);
			lua_setfield(L, -2, keys[i]);
		} else {
			lua_pushstring(L, defs[i]);
			lua_setfield(L, -2, keys[i]);
		}
	}
	lua_pop(L, 1);
	free(path);
	free(cpath);
}

static int load_script_chunk(struct lb_vm *vm, char *err, size_t errlen)
{
	const struct lb_script *s = vm->eng->session.script;
	lua_State *L = vm->L;
	if (!s)
		return 0;
	if (luaL_loadbuffer(L, s->code, s->len, s->chunkname) != 0) {
		snprintf(err, errlen, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	return lb_lua_pcall(L, 0, 0, err, errlen);
}

/* A state is set up (luabench.init, then the script's main chunk) with a collector that starts
 * its next cycle as soon as one ends: with Lua's default pause (200: wait until the heap has
 * doubled) each worker's heap peaked well above its live data, and pages once touched stay in
 * the RSS (6 KiB a thread, for 12 % more instructions at set-up: BENCHMARKS, "Memory at 1,000
 * threads"). The default comes back before the script's own functions run (commands,
 * thread_init, events), where collecting this eagerly would cost CPU. */
enum { SETUP_GC_PAUSE = 100, LUA_GC_PAUSE = 200 };

/* Lua's default again, unless the script's main chunk chose its own. */
static void end_setup_gc(lua_State *L)
{
	int pause = lua_gc(L, LUA_GCSETPAUSE, LUA_GC_PAUSE);
	if (pause != SETUP_GC_PAUSE)
		lua_gc(L, LUA_GCSETPAUSE, pause);
}

struct lb_vm *lb_vm_new(struct lb_engine *eng, struct lb_worker *w, char *err, size_t errlen)
{
	lua_State *L = luaL_newstate();
	if (!L) {
		snprintf(err, errlen, "cannot create a Lua state (out of memory)");
		return NULL;
	}
	lua_gc(L, LUA_GCSETPAUSE, SETUP_GC_PAUSE);
	struct lb_vm *vm = lb_xzalloc(sizeof(*vm));
	vm->L = L;
	vm->eng = eng;
	vm->w = w;
	lua_atpanic(L, on_panic);
	lua_pushboolean(L, eng->session.additions && lb_log_verbosity() >= LB_LOG_DEBUG);
	lua_setfield(L, LUA_REGISTRYINDEX, TRACEBACKS_KEY);
	lua_pushboolean(L, eng->session.additions);
	lua_setfield(L, LUA_REGISTRYINDEX, ONE_LINE_KEY);
	luaL_openlibs(L);
	set_paths(L);
	install_searchers(L);
	lb_capi_install(vm);
	lua_getglobal(L, "require");
	lua_pushstring(L, "luabench.init");
	if (lb_lua_pcall(L, 1, 0, err, errlen) < 0 || load_script_chunk(vm, err, errlen) < 0) {
		lb_vm_free(vm);
		return NULL;
	}
	end_setup_gc(L);
	return vm;
}

void lb_vm_free(struct lb_vm *vm)
{
	if (!vm)
		return;
	lua_close(vm->L);
	free(vm);
}

bool lb_vm_has_function(struct lb_vm *vm, const char *name)
{
	lb_lua_push_path(vm->L, name);
	bool yes = lua_isfunction(vm->L, -1);
	lua_pop(vm->L, 1);
	return yes;
}

bool lb_vm_runnable(struct lb_vm *vm)
{
	if (lb_vm_has_function(vm, "event"))
		return true;
	lua_State *L = vm->L;
	lua_getglobal(L, "thread_run");
	lb_lua_push_path(L, "sysbench._default_thread_run");
	bool own = lua_isfunction(L, -2) && !lua_rawequal(L, -1, -2);
	lua_pop(L, 2);
	return own;
}

bool lb_vm_has_hook(struct lb_vm *vm, const char *name)
{
	char *path = lb_xasprintf("sysbench.hooks.%s", name);
	bool yes = lb_vm_has_function(vm, path);
	free(path);
	return yes;
}

bool lb_vm_has_command(struct lb_vm *vm, const char *name, bool *parallel)
{
	lua_State *L = vm->L;
	lb_lua_push_path(L, "sysbench.cmdline.commands");
	bool yes = false;
	if (lua_istable(L, -1)) {
		lua_getfield(L, -1, name);
		if (lua_istable(L, -1)) {
			lua_rawgeti(L, -1, 1);
			yes = lua_isfunction(L, -1);
			lua_rawgeti(L, -2, 2);
			if (parallel)
				*parallel = lua_toboolean(L, -1);
			lua_pop(L, 2);
		} else if (lua_isfunction(L, -1)) {
			yes = true;
			if (parallel)
				*parallel = false;
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return yes;
}

const char *lb_vm_suggest_command(struct lb_vm *vm, const char *name)
{
	static __thread char best[64];
	if (!vm)
		return NULL;
	lua_State *L = vm->L;
	int best_d = 3;
	best[0] = '\0';
	lb_lua_push_path(L, "sysbench.cmdline.commands");
	if (lua_istable(L, -1)) {
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			lua_pop(L, 1);
			if (lua_type(L, -1) == LUA_TSTRING) {
				int d = lb_str_distance(name, lua_tostring(L, -1));
				if (d < best_d) {
					best_d = d;
					snprintf(best, sizeof(best), "%s", lua_tostring(L, -1));
				}
			}
		}
	}
	lua_pop(L, 1);
	return best[0] ? best : NULL;
}

/* Calls the function on top of the stack; 0, 1 (returned false) or -1. */
int lb_vm_call_top(struct lb_vm *vm, int nargs, char *err, size_t errlen)
{
	lua_State *L = vm->L;
	if (lb_lua_pcall(L, nargs, 1, err, errlen) < 0)
		return -1;
	int rc = (lua_isboolean(L, -1) && !lua_toboolean(L, -1)) ? 1 : 0;
	lua_pop(L, 1);
	return rc;
}

int lb_vm_call(struct lb_vm *vm, const char *name, bool pass_tid, char *err, size_t errlen)
{
	lua_State *L = vm->L;
	lb_lua_push_path(L, name);
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	if (pass_tid)
		lua_pushinteger(L, vm->w->tid);
	return lb_vm_call_top(vm, pass_tid ? 1 : 0, err, errlen);
}

int lb_vm_call_command(struct lb_vm *vm, const char *name, char *err, size_t errlen)
{
	lua_State *L = vm->L;
	lb_lua_push_path(L, "sysbench.cmdline.commands");
	lua_getfield(L, -1, name);
	lua_remove(L, -2);
	if (lua_istable(L, -1)) {
		lua_rawgeti(L, -1, 1);
		lua_remove(L, -2);
	}
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		snprintf(err, errlen, "command '%s' is not defined", name);
		return -1;
	}
	return lb_vm_call_top(vm, 0, err, errlen);
}

int lb_vm_run_thread(struct lb_vm *vm, char *err, size_t errlen)
{
	lua_State *L = vm->L;
	lua_getglobal(L, "thread_run");
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		snprintf(err, errlen, "the script defines no thread_run() or event() function");
		return -1;
	}
	lua_pushinteger(L, vm->w->tid);
	return lb_lua_pcall(L, 1, 0, err, errlen);
}
