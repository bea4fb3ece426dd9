/* The option parser: a config file (the bytes before the first NUL) and command-line arguments
 * (the NUL-separated strings after it) go through the command line's path: pending values,
 * registration of the general, database and system options (each value parsed by its type:
 * integers, sizes, doubles, lists, booleans), the run configuration read from them, then options
 * of every type under names the input may use, what is left unused and the suggestion for it. */
#include <string.h>

#include "engine/dbopts.h"
#include "engine/config.h"
#include "sys/sysmetrics.h"
#include "util/log.h"
#include "util/opt.h"

#include "fuzz.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	lb_log_set_problem_stream(devnull);
	lb_log_set_info_stream(devnull);
	return 0;
}

static const struct lb_opt_def extra[] = {
	{ "b", LB_OPT_BOOL, "off", "" },   { "i", LB_OPT_INT, "1", "" },     { "s", LB_OPT_SIZE, "1K", "" },
	{ "d", LB_OPT_DOUBLE, "0.5", "" }, { "l", LB_OPT_LIST, "a,b", "" }, { "t", LB_OPT_STRING, NULL, "" },
	{ "f", LB_OPT_FILE, NULL, "" },    { "x-password", LB_OPT_STRING, "", "" },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];
	struct lb_opts o;
	lb_opts_init(&o);

	const uint8_t *nul = memchr(data, 0, size);
	size_t file_len = nul ? (size_t)(nul - data) : size;
	const char *path = lb_fuzz_file("opts.conf", data, file_len);
	if (path)
		lb_opts_read_file(&o, path, err, sizeof(err));
	if (nul) {
		/* A copy with a final NUL, so the last argument is a C string too. */
		size_t n = size - file_len - 1;
		char *args = malloc(n + 1);
		memcpy(args, nul + 1, n);
		args[n] = '\0';
		for (char *a = args; a < args + n; a += strlen(a) + 1)
			lb_opts_push(&o, a, "command line");
		free(args);
	}

	struct lb_config cfg;
	if (lb_config_register_options(&o, err, sizeof(err)) == 0 && lb_dbopts_register(&o, err, sizeof(err)) == 0 &&
	    lb_sysmon_register_options(&o, err, sizeof(err)) == 0 && lb_config_read(&cfg, &o, err, sizeof(err)) == 0) {
		lb_dbopts_configure(&o, &cfg, err, sizeof(err));
		lb_dbopts_check_driver(&o, err, sizeof(err));
		lb_sysmon_configure(&o, &cfg.sys, err, sizeof(err));
	}
	lb_opts_add_defs(&o, extra, sizeof(extra) / sizeof(extra[0]), "fuzz", err, sizeof(err));
	for (struct lb_pending *p; (p = lb_opts_first_unused(&o));) {
		lb_opts_suggest(&o, p->name);
		p->used = true;
	}
	lb_opts_print_help(&o, NULL, true, devnull);
	lb_opts_fini(&o);
	return 0;
}
