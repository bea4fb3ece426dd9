/* The Lua C API door (cold paths only): the luabench._c table the Lua library is built on,
 * and JSON conversion through cJSON. */
#include <cjson/cJSON.h>
#include <lauxlib.h>
#include <lua.h>
#include <luajit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind/internal.h"
#include "bind/vm.h"
#include "engine/engine.h"
#include "lb_config.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/util.h"
#include "engine/worker.h"

static struct lb_vm *vm_of(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

static int c_set_sql_used(lua_State *L)
{
	vm_of(L)->eng->sql_used = true;
	return 0;
}

/* A line at one of sysbench's log levels (0 FATAL .. 5 DEBUG): filtered by --verbosity, with
 * the level's prefix, on the stream the level goes to, as sysbench's C tests log. */
static int c_log(lua_State *L)
{
	lua_Integer level = luaL_checkinteger(L, 1);
	const char *msg = luaL_checkstring(L, 2);
	if (level < LB_LOG_FATAL || level > LB_LOG_DEBUG)
		return luaL_argerror(L, 1, "a log level from 0 (FATAL) to 5 (DEBUG)");
	lb_log((enum lb_log_level)level, "%s", msg);
	return 0;
}

/* option_text(name): the value as given (nil when empty or unset, as sysbench's NULL),
 * whether it was coerced (not one of the option's type: it reads as sysbench reads it), and
 * whether it was given at all (command line or config file) rather than left at its default. */
static int c_option_text(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	const struct lb_opts *opts = vm_of(L)->eng->session.opts;
	const struct lb_opt *o = opts ? lb_opts_find(opts, name) : NULL;
	if (o && o->value && *o->value)
		lua_pushstring(L, o->value);
	else
		lua_pushnil(L);
	lua_pushboolean(L, o && o->coerced);
	lua_pushboolean(L, o && o->given);
	return 3;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

#define JSON_MAX_DEPTH 64

/* The tables being converted, outermost first: a table met again inside itself is a cycle,
 * which has no JSON form (it used to be expanded to the depth limit, 2^64 nodes for a table
 * holding itself twice). */
struct json_path {
	const void *t[JSON_MAX_DEPTH + 1];
	int n;
};

static cJSON *to_json(lua_State *L, int idx, int depth, struct json_path *path);

/* A sequence 1..n without holes (the keys are checked against the length first, so that a key
 * such as 1e300 is never converted to an integer). */
static bool is_array(lua_State *L, int idx, size_t *n)
{
	size_t count = 0, max = 0, len = lua_objlen(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		double k = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
		if (!(k >= 1 && k <= (double)len && k == floor(k))) {
			lua_pop(L, 1);
			return false;
		}
		count++;
		if ((size_t)k > max)
			max = (size_t)k;
	}
	*n = max;
	return count == max;
}

static cJSON *table_to_json(lua_State *L, int idx, int depth, struct json_path *path)
{
	const void *self = lua_topointer(L, idx);
	for (int i = 0; i < path->n; i++)
		if (path->t[i] == self)
			return NULL;
	path->t[path->n++] = self;
	size_t n;
	cJSON *out = NULL;
	if (is_array(L, idx, &n) && n > 0) {
		out = cJSON_CreateArray();
		for (size_t i = 1; i <= n && out; i++) {
			lua_rawgeti(L, idx, (int)i);
			cJSON *v = to_json(L, lua_gettop(L), depth + 1, path);
			lua_pop(L, 1);
			if (v) {
				cJSON_AddItemToArray(out, v);
			} else {
				cJSON_Delete(out);
				out = NULL;
			}
		}
		path->n--;
		return out;
	}
	out = cJSON_CreateObject();
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		/* Copy the key before converting: lua_tostring on a number key would confuse next(). */
		lua_pushvalue(L, -2);
		const char *k = lua_tostring(L, -1);
		cJSON *v = k ? to_json(L, lua_gettop(L) - 1, depth + 1, path) : NULL;
		if (k && !v) {
			lua_pop(L, 3);
			cJSON_Delete(out);
			out = NULL;
			break;
		}
		if (v)
			cJSON_AddItemToObject(out, k, v);
		lua_pop(L, 2);
	}
	path->n--;
	return out;
}

/* NULL when the value holds a cycle. */
static cJSON *to_json(lua_State *L, int idx, int depth, struct json_path *path)
{
	if (depth > JSON_MAX_DEPTH)
		return cJSON_CreateNull();
	switch (lua_type(L, idx)) {
	case LUA_TBOOLEAN:
		return cJSON_CreateBool(lua_toboolean(L, idx));
	case LUA_TNUMBER: {
		double d = lua_tonumber(L, idx);
		return isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull();
	}
	case LUA_TSTRING:
		return cJSON_CreateString(lua_tostring(L, idx));
	case LUA_TTABLE:
		return table_to_json(L, idx, depth, path);
	case 10: /* LUA_TCDATA: 64-bit integers and the like, via tonumber() */
		lua_getglobal(L, "tonumber");
		lua_pushvalue(L, idx);
		lua_call(L, 1, 1);
		cJSON *v = lua_isnumber(L, -1) ? cJSON_CreateNumber(lua_tonumber(L, -1)) : cJSON_CreateNull();
		lua_pop(L, 1);
		return v;
	default:
		return cJSON_CreateNull();
	}
}

char *lb_json_encode_value(lua_State *L, int idx)
{
	if (idx < 0)
		idx = lua_gettop(L) + idx + 1;
	struct json_path path = { .n = 0 };
	cJSON *j = to_json(L, idx, 0, &path);
	if (!j)
		return NULL;
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static int c_json_encode(lua_State *L)
{
	luaL_checkany(L, 1);
	char *s = lb_json_encode_value(L, 1);
	if (!s)
		return luaL_error(L, "cannot encode value as JSON (a table that contains itself?)");
	lua_pushstring(L, s);
	free(s);
	return 1;
}

void lb_json_push(lua_State *L, const cJSON *j)
{
	if (cJSON_IsBool(j)) {
		lua_pushboolean(L, cJSON_IsTrue(j));
	} else if (cJSON_IsNumber(j)) {
		lua_pushnumber(L, j->valuedouble);
	} else if (cJSON_IsString(j)) {
		lua_pushstring(L, j->valuestring);
	} else if (cJSON_IsArray(j)) {
		lua_createtable(L, cJSON_GetArraySize(j), 0);
		int i = 1;
		for (const cJSON *c = j->child; c; c = c->next) {
			lb_json_push(L, c);
			lua_rawseti(L, -2, i++);
		}
	} else if (cJSON_IsObject(j)) {
		lua_createtable(L, 0, 8);
		for (const cJSON *c = j->child; c; c = c->next) {
			lb_json_push(L, c);
			lua_setfield(L, -2, c->string);
		}
	} else {
		/* null: a distinct value so arrays keep their length (luabench.json.null). */
		lua_pushlightuserdata(L, NULL);
	}
}

static int c_json_decode(lua_State *L)
{
	size_t len;
	const char *s = luaL_checklstring(L, 1, &len);
	cJSON *j = cJSON_ParseWithLength(s, len);
	if (!j) {
		lua_pushnil(L);
		lua_pushfstring(L, "invalid JSON near '%s'", cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
		return 2;
	}
	lb_json_push(L, j);
	cJSON_Delete(j);
	return 1;
}

/* ---- installation -------------------------------------------------------------------------- */

static void push_argv(lua_State *L, const struct lb_engine *e)
{
	lua_createtable(L, e->session.argc, 1);
	for (int i = 0; i < e->session.argc; i++) {
		lua_pushstring(L, e->session.argv[i]);
		lua_rawseti(L, -2, i);
	}
}

static const char *role_name(const struct lb_worker *w)
{
	static const char *const names[] = { "worker", "control", "reporter", "command" };
	return names[w->role];
}

void lb_capi_install(struct lb_vm *vm)
{
	lua_State *L = vm->L;
	struct lb_engine *e = vm->eng;
	static const luaL_Reg fns[] = {
		{ "set_sql_used", c_set_sql_used },
		{ "log", c_log },
		{ "option_text", c_option_text },
		{ "json_encode", c_json_encode },
		{ "json_decode", c_json_decode },
		{ NULL, NULL },
	};
	lua_createtable(L, 0, 16);
	for (const luaL_Reg *f = fns; f->name; f++) {
		lua_pushlightuserdata(L, vm);
		lua_pushcclosure(L, f->func, 1);
		lua_setfield(L, -2, f->name);
	}
	lua_pushlightuserdata(L, vm->w);
	lua_setfield(L, -2, "worker");
	lua_pushlightuserdata(L, NULL);
	lua_setfield(L, -2, "json_null");
	lua_pushinteger(L, vm->w->tid);
	lua_setfield(L, -2, "tid");
	lua_pushstring(L, role_name(vm->w));
	lua_setfield(L, -2, "role");
	lua_pushinteger(L, e->session.cfg.threads);
	lua_setfield(L, -2, "threads");
	lua_pushstring(L, LB_VERSION);
	lua_setfield(L, -2, "version");
	lua_pushstring(L, LB_SYSBENCH_API);
	lua_setfield(L, -2, "api_version");
	lua_pushboolean(L, e->session.additions);
	lua_setfield(L, -2, "additions");
	/* --debug: the event loop takes tracebacks where event() fails (runner.lua) */
	lua_pushboolean(L, e->session.additions && lb_log_verbosity() >= LB_LOG_DEBUG);
	lua_setfield(L, -2, "tracebacks");
	if (e->session.sysbench_help) {
		lua_pushstring(L, e->session.sysbench_help);
		lua_setfield(L, -2, "sysbench_help");
	}
	if (e->session.version_string) {
		lua_pushstring(L, e->session.version_string);
		lua_setfield(L, -2, "version_string");
	}
	lua_pushstring(L, LUAJIT_VERSION);
	lua_setfield(L, -2, "luajit_version");
	push_argv(L, e);
	lua_setfield(L, -2, "argv");
	if (e->session.command) {
		lua_pushstring(L, e->session.command);
		lua_setfield(L, -2, "command");
	}
	if (e->session.script) {
		lua_pushstring(L, e->session.script->name);
		lua_setfield(L, -2, "script_path");
	}
	if (e->session.opts && lb_opts_find(e->session.opts, "db-dialect-file")) {
		lua_pushstring(L, lb_opts_str(e->session.opts, "db-dialect-file"));
		lua_setfield(L, -2, "dialect_file");
	}
	if (e->session.opts && lb_opts_find(e->session.opts, "luajit-cmd")) {
		lua_pushstring(L, lb_opts_str(e->session.opts, "luajit-cmd"));
		lua_setfield(L, -2, "luajit_cmd");
	}
	lua_setglobal(L, "__luabench_c");
}

const char *lb_luajit_version(void)
{
	return LUAJIT_VERSION;
}
