/* The engine's view of Lua: scripts and per-thread Lua states ("VMs"). Only src/bind includes
 * lua.h; everything else goes through these verbs. Every call into Lua is protected (pcall with a
 * traceback handler) and leaves the Lua stack balanced; errors come back as text in `err`. */
#ifndef LB_BIND_VM_H
#define LB_BIND_VM_H

#include <stdbool.h>
#include <stddef.h>

struct lb_engine;
struct lb_host;
struct lb_worker;
struct lb_opts;
struct lb_report_stat;

struct lb_script {
	char *name;      /* as given: a built-in name or a path */
	const char *test_name; /* in sysbench's messages ("opts.lua options:"): name's last part */
	char *path;      /* file path, NULL for built-in workloads */
	char *chunkname; /* "@file.lua" as it appears in error messages */
	char *code;      /* source text or bytecode (owned) */
	size_t len;
	bool builtin;
	bool from_stdin;
};

/* Resolves a workload: built-in name, then file path, then a module on package.path.
 * "-" or NULL reads the script from stdin. Returns 0, or -1 with a one-line message. */
int lb_script_load(const char *name, struct lb_script **out, char *err, size_t errlen);
/* After lb_script_load failed on `name`: if a file or directory of that name exists but cannot
 * be run as a script (a directory, a file that cannot be read), err gets the real reason in
 * place of sysbench's "Cannot find benchmark" (luabench's message; not as sysbench). */
void lb_script_explain(const char *name, char *err, size_t errlen);
void lb_script_free(struct lb_script *s);
/* Names of the built-in workloads, NULL-terminated (for help and "did you mean"). */
const char *const *lb_script_builtins(void);

struct lb_vm;

/* Creates a Lua state for worker `w`: libraries, the sysbench/luabench API, then the script's
 * main chunk. Returns NULL with a message on failure. */
struct lb_vm *lb_vm_new(struct lb_engine *eng, struct lb_worker *w, char *err, size_t errlen);
void lb_vm_free(struct lb_vm *vm);

/* Fills sysbench.opt from the registered options (and legacy globals when the script declares
 * no options). */
int lb_vm_export_options(struct lb_vm *vm, char *err, size_t errlen);
/* Registers the options the script declares in sysbench.cmdline.options; *declared tells
 * whether it declared any (otherwise unknown options are accepted: legacy mode). Returns 0,
 * -1 (a malformed declaration: a failure) or LB_VM_OPTION_VALUE (a value given for an option
 * is not one: a command-line mistake, which sysbench prints without a level). */
#define LB_VM_OPTION_VALUE (-2)
int lb_vm_register_options(struct lb_vm *vm, struct lb_opts *opts, bool *declared, char *err,
			   size_t errlen);

bool lb_vm_has_function(struct lb_vm *vm, const char *name);
bool lb_vm_has_hook(struct lb_vm *vm, const char *name);
/* Whether the script can run: it defines event() or a thread_run of its own. */
bool lb_vm_runnable(struct lb_vm *vm);
/* True if sysbench.cmdline.commands[name] exists; *parallel tells if it is a parallel one. */
bool lb_vm_has_command(struct lb_vm *vm, const char *name, bool *parallel);

/* The script's custom command closest to `name`, for "did you mean" (NULL if none is close). */
const char *lb_vm_suggest_command(struct lb_vm *vm, const char *name);

/* Calls global function `name` (with the worker's tid as argument when pass_tid). Returns 0, 1
 * when it returned false, or -1 on error. A missing function returns 0. */
int lb_vm_call(struct lb_vm *vm, const char *name, bool pass_tid, char *err, size_t errlen);
/* Runs sysbench.cmdline.commands[name]: same return convention. */
int lb_vm_call_command(struct lb_vm *vm, const char *name, char *err, size_t errlen);
/* Runs the worker's event loop (global thread_run). 0 or -1. */
int lb_vm_run_thread(struct lb_vm *vm, char *err, size_t errlen);
/* Calls sysbench.hooks[hook](stat). 0 or -1. */
int lb_vm_report(struct lb_vm *vm, const char *hook, const struct lb_report_stat *st, char *err,
		 size_t errlen);
/* luabench.hooks[hook](stat) -> text: "report_text" is printed before "General statistics",
 * "report_footer" after the summary (NULL if none; caller frees). */
char *lb_vm_report_text(struct lb_vm *vm, const char *hook, const struct lb_report_stat *st);
/* luabench.hooks.report_json(stat) encoded as JSON text (NULL if none; caller frees). */
char *lb_vm_report_json(struct lb_vm *vm, const struct lb_report_stat *st);
/* luabench.hooks.report_merge(inputs, stat) for `luabench merge`: `inputs` is the array of the
 * merged results' workload_stats, `stat` the merged run's. Returns the JSON text of the merged
 * workload_stats and sets *text to the report text (each NULL if none; caller frees). */
struct cJSON;
char *lb_vm_report_merge(struct lb_vm *vm, const struct cJSON *inputs, const struct lb_report_stat *st,
			 char **text);
/* Prints the script's help: its help() hook, else its options. */
int lb_vm_help(struct lb_vm *vm, struct lb_opts *opts, char *err, size_t errlen);

/* The engine's host (engine.h) on these verbs: what the engine runs scripts with. */
extern const struct lb_host lb_lua_host;

/* "LuaJIT 2.1.0-beta3" */
const char *lb_luajit_version(void);

#endif
