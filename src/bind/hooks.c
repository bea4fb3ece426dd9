/* Report hooks (sysbench.hooks.report_*, luabench's text/JSON/merge hooks) and lb_lua_host, the
 * engine's way into Lua: it creates states with the options exported and calls into them. */
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/internal.h"
#include "bind/vm.h"
#include "engine/engine.h"
#include "engine/result.h"
#include "util/log.h"
#include "util/util.h"

static void set_num(lua_State *L, const char *k, double v)
{
	lua_pushnumber(L, v);
	lua_setfield(L, -2, k);
}

/* stat.types[name] = { count, errors, rollbacks, retries, avg, p50, p90, p95, p99, max }
 * (latencies in seconds, as everywhere in `stat`). */
static void push_types(lua_State *L, const struct lb_report_stat *st)
{
	lua_createtable(L, 0, 8);
	for (int i = 0; i < LB_MAX_TYPES; i++) {
		const struct lb_type_stats *t = st->snap->types[i];
		if (!t)
			continue;
		uint64_t n = t->cnt[LB_TCNT_DONE];
		uint64_t max = lb_hist_max(&t->lat);
		lua_createtable(L, 0, 10);
		set_num(L, "count", (double)n);
		set_num(L, "errors", (double)t->cnt[LB_TCNT_ERROR]);
		set_num(L, "rollbacks", (double)t->cnt[LB_TCNT_ROLLBACK]);
		set_num(L, "retries", (double)t->cnt[LB_TCNT_RETRY]);
		set_num(L, "avg", n ? (double)t->sum_ns / (double)n / 1e9 : 0);
		static const char *const keys[LB_TYPE_NPCT] = { "p50", "p90", "p95", "p99" };
		for (int k = 0; k < LB_TYPE_NPCT; k++)
			set_num(L, keys[k], (double)lb_hist_percentile(&t->lat, lb_type_pcts[k], 0, max) / 1e9);
		set_num(L, "max", (double)max / 1e9);
		lua_setfield(L, -2, lb_types_name(st->types, i));
	}
	lua_setfield(L, -2, "types");
}

/* Builds sysbench's `stat` table (latencies in seconds, counts for the interval). */
static void push_stat(lua_State *L, const struct lb_report_stat *st)
{
	lua_createtable(L, 0, 20);
	set_num(L, "threads_running", st->threads_running);
	set_num(L, "time_interval", st->time_interval_s);
	set_num(L, "time_total", st->time_total_s);
	set_num(L, "latency_pct", st->npct ? st->pct[0] : 0);
	set_num(L, "events", (double)st->cnt[LB_CNT_EVENT]);
	set_num(L, "reads", (double)st->cnt[LB_CNT_READ]);
	set_num(L, "writes", (double)st->cnt[LB_CNT_WRITE]);
	set_num(L, "other", (double)st->cnt[LB_CNT_OTHER]);
	set_num(L, "errors", (double)st->cnt[LB_CNT_ERROR]);
	set_num(L, "reconnects", (double)st->cnt[LB_CNT_RECONNECT]);
	set_num(L, "bytes_read", (double)st->cnt[LB_CNT_BYTES_READ]);
	set_num(L, "bytes_written", (double)st->cnt[LB_CNT_BYTES_WRITTEN]);
	lua_createtable(L, 0, st->npct);
	for (int i = 0; i < st->npct; i++) {
		lua_pushnumber(L, st->pct_rank[i]);
		lua_pushnumber(L, st->pct[i]);
		lua_settable(L, -3);
	}
	lua_setfield(L, -2, "latency_percentiles");
	if (st->snap)
		push_types(L, st);
	lua_pushboolean(L, st->final);
	lua_setfield(L, -2, "final");
	if (st->cumulative) {
		set_num(L, "latency_min", st->lat_min_s);
		set_num(L, "latency_max", st->lat_max_s);
		set_num(L, "latency_avg", st->lat_avg_s);
		set_num(L, "latency_sum", st->lat_sum_s);
	} else {
		set_num(L, "queue_length", (double)st->queue_length);
		set_num(L, "concurrency", st->concurrency);
	}
}

int lb_vm_report(struct lb_vm *vm, const char *hook, const struct lb_report_stat *st, char *err,
		 size_t errlen)
{
	lua_State *L = vm->L;
	char *path = lb_xasprintf("sysbench.hooks.%s", hook);
	lb_lua_push_path(L, path);
	free(path);
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	/* Options are re-exported before each report, as sysbench does. */
	lb_options_export(vm, NULL, 0);
	push_stat(L, st);
	return lb_vm_call_top(vm, 1, err, errlen) < 0 ? -1 : 0;
}

/* Calls luabench.hooks[name](stat) and returns its result converted by `conv`. */
static char *call_report_hook(struct lb_vm *vm, const char *name, const struct lb_report_stat *st,
			      char *(*conv)(lua_State *L, int idx))
{
	lua_State *L = vm->L;
	char *path = lb_xasprintf("luabench.hooks.%s", name);
	lb_lua_push_path(L, path);
	free(path);
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		return NULL;
	}
	if (st)
		push_stat(L, st);
	else
		lua_pushnil(L);
	char err[1024];
	if (lb_lua_pcall(L, 1, 1, err, sizeof(err)) < 0) {
		lb_alert("luabench.hooks.%s failed: %s", name, err);
		return NULL;
	}
	char *s = lua_isnil(L, -1) ? NULL : conv(L, -1);
	lua_pop(L, 1);
	return s;
}

static char *to_text(lua_State *L, int idx)
{
	const char *s = lua_tostring(L, idx);
	return s ? lb_xstrdup(s) : NULL;
}

char *lb_vm_report_text(struct lb_vm *vm, const char *hook, const struct lb_report_stat *st)
{
	return call_report_hook(vm, hook, st, to_text);
}

char *lb_vm_report_json(struct lb_vm *vm, const struct lb_report_stat *st)
{
	return call_report_hook(vm, "report_json", st, lb_json_encode_value);
}

char *lb_vm_report_merge(struct lb_vm *vm, const struct cJSON *inputs, const struct lb_report_stat *st,
			 char **text)
{
	lua_State *L = vm->L;
	*text = NULL;
	lb_lua_push_path(L, "luabench.hooks.report_merge");
	if (!lua_isfunction(L, -1)) {
		lua_pop(L, 1);
		return NULL;
	}
	lb_json_push(L, inputs);
	push_stat(L, st);
	char err[1024];
	if (lb_lua_pcall(L, 2, 2, err, sizeof(err)) < 0) {
		lb_alert("luabench.hooks.report_merge failed: %s", err);
		return NULL;
	}
	*text = to_text(L, -1);
	char *json = lua_isnil(L, -2) ? NULL : lb_json_encode_value(L, -2);
	lua_pop(L, 2);
	return json;
}

static struct lb_vm *host_state_new(struct lb_engine *e, struct lb_worker *w, char *err, size_t errlen)
{
	struct lb_vm *vm = lb_vm_new(e, w, err, errlen);
	if (vm)
		lb_vm_export_options(vm, err, errlen);
	return vm;
}

const struct lb_host lb_lua_host = {
	.state_new = host_state_new,
	.state_free = lb_vm_free,
	.call = lb_vm_call,
	.call_command = lb_vm_call_command,
	.run_thread = lb_vm_run_thread,
	.has_hook = lb_vm_has_hook,
};
