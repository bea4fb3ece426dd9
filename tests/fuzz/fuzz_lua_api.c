/* The Lua-facing API: every sysbench.* / luabench.* function, the 0.5-style globals and the
 * methods of the objects they return, called with arguments of every type and value, including
 * after close. The program of calls is the input, read by tests/fuzz/lua_api.lua, which runs in
 * a fresh Lua state per input: the control state (byte 0 even) or a worker's (odd), with the
 * null database driver, its files in a private directory. Lua errors are expected; a crash, a
 * sanitizer report or a hang is a finding. */
#include <stdlib.h>
#include <string.h>

#include "engine/dbopts.h"
#include "bind/vm.h"
#include "engine/config.h"
#include "engine/engine.h"
#include "engine/worker.h"
#include "sys/sysmetrics.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/util.h"

#include "fuzz.h"

static FILE *devnull;
static struct lb_opts opts;
static struct lb_config cfg;
static struct lb_script *script;
static const uint8_t *input;
static size_t input_len;

/* The harness script reads its input through the FFI. */
__attribute__((visibility("default"))) const uint8_t *lb_fuzz_input(size_t *len);
const uint8_t *lb_fuzz_input(size_t *len)
{
	*len = input_len;
	return input;
}

static void fail(const char *what, const char *err)
{
	fprintf(stderr, "fuzz_lua_api: %s: %s\n", what, err);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[4096];
	devnull = fopen("/dev/null", "w");
	lb_log_set_problem_stream(devnull);
	lb_log_set_info_stream(devnull);
	if (lb_script_load(LB_FUZZ_SOURCE_DIR "/lua_api.lua", &script, err, sizeof(err)) < 0)
		fail("harness", err);
	/* Files the calls create stay in a directory of their own (the harness puts its file
	 * names there; the working directory is libFuzzer's, with its corpus paths). */
	static char dir[] = "/tmp/lb-fuzz-lua-XXXXXX";
	if (!mkdtemp(dir) || setenv("LB_FUZZ_FILES", dir, 1) < 0)
		fail("file directory", dir);
	lb_opts_init(&opts);
	const char *args[] = { "db-driver=null", "threads=1", "time=0", "events=0", "rand-seed=1", "system-stats=off" };
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		lb_opts_push(&opts, args[i], "command line");
	if (lb_config_register_options(&opts, err, sizeof(err)) < 0 || lb_dbopts_register(&opts, err, sizeof(err)) < 0 ||
	    lb_sysmon_register_options(&opts, err, sizeof(err)) < 0 || lb_config_read(&cfg, &opts, err, sizeof(err)) < 0 ||
	    lb_dbopts_configure(&opts, &cfg, err, sizeof(err)) < 0 || lb_sysmon_configure(&opts, &cfg.sys, err, sizeof(err)) < 0)
		fail("options", err);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[4096];
	input = data;
	input_len = size;
	struct lb_engine *e = lb_xzalloc(sizeof(*e));
	struct lb_session s = { .cfg = cfg, .opts = &opts, .script = script, .workload = script->name };
	lb_engine_init(e, &s, &lb_lua_host);
	struct lb_worker *w = lb_worker_new(e, 0, size && (data[0] & 1) ? LB_ROLE_WORKER : LB_ROLE_CONTROL);
	lb_worker_set_self(w);
	struct lb_vm *vm = lb_vm_new(e, w, err, sizeof(err));
	if (!vm)
		fail("Lua state", err);
	bool declared;
	if (lb_vm_register_options(vm, &opts, &declared, err, sizeof(err)) < 0 ||
	    lb_vm_export_options(vm, err, sizeof(err)) < 0)
		fail("options", err);
	/* Reports print on stdout, which the replay driver's TAP lines use. */
	fflush(stdout);
	int saved = dup(1);
	dup2(fileno(devnull), 1);
	if (lb_vm_call(vm, "fuzz_one", false, err, sizeof(err)) < 0)
		fail("harness", err); /* the harness catches every error of the calls it makes */
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	lb_vm_free(vm);
	lb_worker_set_self(NULL);
	lb_worker_free(w);
	lb_engine_fini(e);
	free(e);
	return 0;
}
