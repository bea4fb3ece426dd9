/* Options between C and Lua: sysbench.opt, options declared in sysbench.cmdline.options, and
 * the script's help. */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/internal.h"
#include "bind/vm.h"
#include "engine/engine.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/util.h"

static void push_opt_value(lua_State *L, const struct lb_opt *o)
{
	switch (o->type) {
	case LB_OPT_BOOL:
		lua_pushboolean(L, o->b);
		break;
	case LB_OPT_INT:
	case LB_OPT_SIZE:
		lua_pushnumber(L, (lua_Number)o->i);
		break;
	case LB_OPT_DOUBLE:
		lua_pushnumber(L, o->d);
		break;
	case LB_OPT_LIST:
		lua_createtable(L, o->nlist, 0);
		for (int i = 0; i < o->nlist; i++) {
			lua_pushstring(L, o->list[i]);
			lua_rawseti(L, -2, i + 1);
		}
		break;
	case LB_OPT_FILE:
		lua_pushnil(L);
		break;
	default:
		if (!strcmp(o->name, "percentile")) {
			/* sysbench scripts read a number here; a list keeps its first entry. */
			lua_pushnumber(L, o->value ? atof(o->value) : 0);
		} else {
			lua_pushstring(L, o->value ? o->value : "");
		}
	}
}

static char *underscored(const char *name)
{
	char *s = lb_xstrdup(name);
	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	return s;
}

int lb_options_export(struct lb_vm *vm, char *err, size_t errlen)
{
	lua_State *L = vm->L;
	const struct lb_opts *opts = vm->eng->session.opts;
	if (!opts)
		return 0;
	lua_getglobal(L, "sysbench");
	lua_createtable(L, 0, opts->n);
	for (int i = 0; i < opts->n; i++) {
		char *key = underscored(opts->v[i]->name);
		push_opt_value(L, opts->v[i]);
		lua_setfield(L, -2, key);
		if (vm->eng->session.legacy_options) {
			/* Legacy scripts read options as globals; never overwrite a function. */
			lua_getglobal(L, key);
			bool fn = lua_isfunction(L, -1);
			lua_pop(L, 1);
			if (!fn) {
				push_opt_value(L, opts->v[i]);
				lua_setglobal(L, key);
			}
		}
		free(key);
	}
	lua_setfield(L, -2, "opt");
	lua_pop(L, 1);
	(void)err;
	(void)errlen;
	return 0;
}

int lb_vm_export_options(struct lb_vm *vm, char *err, size_t errlen)
{
	return lb_options_export(vm, err, errlen);
}

/* Type of a declared option from its default (sysbench's inference rules). */
static enum lb_opt_type infer_type(lua_State *L, int def_idx)
{
	switch (lua_type(L, def_idx)) {
	case LUA_TBOOLEAN:
		return LB_OPT_BOOL;
	case LUA_TNUMBER:
		return LB_OPT_DOUBLE;
	case LUA_TTABLE:
		return LB_OPT_LIST;
	default:
		return LB_OPT_STRING;
	}
}

/* Default value as option text; NULL for none. Caller frees. */
static char *default_text(lua_State *L, int idx, enum lb_opt_type type)
{
	switch (lua_type(L, idx)) {
	case LUA_TBOOLEAN:
		return lb_xstrdup(lua_toboolean(L, idx) ? "on" : "off");
	case LUA_TNUMBER:
	case LUA_TSTRING:
		return lb_xstrdup(lua_tostring(L, idx));
	case LUA_TTABLE: {
		struct lb_buf b = { 0 };
		int n = (int)lua_objlen(L, idx);
		lb_buf_append(&b, "", 0);
		for (int i = 1; i <= n; i++) {
			lua_rawgeti(L, idx, i);
			const char *s = lua_tostring(L, -1);
			lb_buf_printf(&b, "%s%s", i > 1 ? "," : "", s ? s : "");
			lua_pop(L, 1);
		}
		return b.data;
	}
	default:
		/* sysbench quirks: a BOOL without a default reads as on, an INT as 0. */
		if (type == LB_OPT_BOOL)
			return lb_xstrdup("on");
		if (type == LB_OPT_INT || type == LB_OPT_SIZE || type == LB_OPT_DOUBLE)
			return lb_xstrdup("0");
		return NULL;
	}
}

static int register_one(lua_State *L, struct lb_opts *opts, const char *name, const char *group,
			char *err, size_t errlen)
{
	/* Entry at -1: { desc, default [, type [, validate]] } */
	if (!lua_istable(L, -1)) {
		snprintf(err, errlen, "wrong table structure in sysbench.cmdline.options (option '%s')", name);
		return -1;
	}
	lua_rawgeti(L, -1, 1);
	lua_rawgeti(L, -2, 2);
	lua_rawgeti(L, -3, 3);
	const char *desc = lua_tostring(L, -3);
	enum lb_opt_type type = lua_isnumber(L, -1) ? (enum lb_opt_type)lua_tointeger(L, -1)
						    : infer_type(L, -2);
	if (type <= LB_OPT_NULL || type >= LB_OPT_MAX)
		type = LB_OPT_STRING;
	char *def = default_text(L, -2, type);
	char msg[1024];
	struct lb_opt *o = lb_opts_add(opts, name, type, def, desc ? desc : "", group, msg, sizeof(msg));
	free(def);
	lua_pop(L, 3);
	if (!o) {
		snprintf(err, errlen, "%s", msg);
		/* luabench's line for a script's option is a FATAL one (scripting.md §6.3); sysbench's
		 * has no level */
		return opts->declared_names ? -1 : LB_VM_OPTION_VALUE;
	}
	/* { ..., luabench = true }: an option sysbench's own script does not have. */
	lua_getfield(L, -1, "luabench");
	o->extension = lua_toboolean(L, -1);
	lua_pop(L, 1);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int lb_vm_register_options(struct lb_vm *vm, struct lb_opts *opts, bool *declared, char *err,
			   size_t errlen)
{
	lua_State *L = vm->L;
	struct lb_session *s = &vm->eng->session;
	*declared = false;
	/* A script that declares no options takes unknown ones as globals (sysbench's 0.5 way). */
	s->legacy_options = s->script && !s->script->builtin;
	/* sysbench checks the declarations in this Lua function (a script may still call it) and
	 * stops with a FATAL naming it. */
	lb_lua_push_path(L, "sysbench.cmdline.read_cmdline_options");
	if (lua_isfunction(L, -1)) {
		char msg[1024];
		if (lb_lua_pcall(L, 0, 0, msg, sizeof(msg)) < 0) {
			snprintf(err, errlen, "`sysbench.cmdline.read_cmdline_options' function failed: %s", msg);
			return -1;
		}
	} else {
		lua_pop(L, 1);
	}
	lb_lua_push_path(L, "sysbench.cmdline.options");
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	/* Sorted by name, as sysbench does, so help output is stable. */
	int n = 0;
	char **names = NULL;
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING) {
			names = lb_xrealloc(names, (size_t)(n + 1) * sizeof(char *));
			names[n++] = lb_xstrdup(lua_tostring(L, -1));
		}
	}
	qsort(names, (size_t)n, sizeof(char *), cmp_str);
	int rc = 0;
	const char *group = s->script ? s->script->test_name : "script";
	/* sysbench's C tests read their values their own way (the test then checks them) */
	opts->sysbench_values = s->plain_init_errors;
	opts->declared_names = s->additions && !s->plain_init_errors;
	for (int i = 0; i < n && rc == 0; i++) {
		lua_getfield(L, -1, names[i]);
		rc = register_one(L, opts, names[i], group, err, errlen);
		lua_pop(L, 1);
	}
	opts->sysbench_values = false;
	opts->declared_names = false;
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	lua_pop(L, 1);
	*declared = n > 0;
	s->legacy_options = s->legacy_options && n == 0;
	return rc;
}

/* luabench's line after the options: the script's own commands (sorted), which sysbench's help
 * leaves for the reader to find in the source. Returns how many there are. */
static int print_commands(struct lb_vm *vm, const char *group)
{
	lua_State *L = vm->L;
	lb_lua_push_path(L, "sysbench.cmdline.commands");
	int n = 0;
	char **names = NULL;
	if (lua_istable(L, -1)) {
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			lua_pop(L, 1);
			if (lua_type(L, -1) == LUA_TSTRING) {
				names = lb_xrealloc(names, (size_t)(n + 1) * sizeof(char *));
				names[n++] = lb_xstrdup(lua_tostring(L, -1));
			}
		}
	}
	lua_pop(L, 1);
	if (n) {
		qsort(names, (size_t)n, sizeof(char *), cmp_str);
		printf("%s commands:", group);
		for (int i = 0; i < n; i++)
			printf("%s %s", i ? "," : "", names[i]);
		printf("\n\n");
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n;
}

int lb_vm_help(struct lb_vm *vm, struct lb_opts *opts, char *err, size_t errlen)
{
	if (lb_vm_has_function(vm, "help")) {
		lb_options_export(vm, NULL, 0);
		return lb_vm_call(vm, "help", false, err, errlen) < 0 ? -1 : 0;
	}
	const char *group = vm->eng->session.script->test_name;
	bool any = false;
	for (int i = 0; i < opts->n; i++)
		any |= !strcmp(opts->v[i]->group, group);
	if (any) {
		printf("%s options:\n", group);
		lb_opts_print_help(opts, group, vm->eng->session.additions, stdout);
		printf("\n");
	}
	if (vm->eng->session.additions && print_commands(vm, group))
		return 0;
	if (!any) {
		snprintf(err, errlen, "'%s' test does not implement the 'help' command.", group);
		return 1;
	}
	return 0;
}
