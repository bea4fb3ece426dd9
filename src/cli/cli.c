/* Command line: two-pass option parsing, workload resolution and command dispatch. */
#include "cli/cli.h"
#include "cli/merge_cmd.h"
#include "cli/net_server_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "bind/standalone.h"
#include "bind/vm.h"
#include "engine/dbopts.h"
#include "engine/engine.h"
#include "lb_config.h"
#include "output/personality.h"
#include "output/result_json.h"
#include "output/run_output.h"
#include "output/thresholds.h"
#include "sys/placement.h"
#include "sys/sysmetrics.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/opt.h"
#include "util/secret.h"
#include "util/util.h"

#define ERRLEN 4096

struct cli {
	const struct lb_personality *p;
	struct lb_opts opts;
	struct lb_session session; /* what runs, filled from the command line */
	struct lb_engine eng;
	bool have_engine;    /* eng is initialised (once the workload is loaded) */
	struct lb_script *script;
	const char *test;    /* positional 1 */
	const char *command; /* positional 2 */
	bool usage;          /* err is a command-line mistake (usage_error), not a failure */
	bool deprecated_used[4]; /* which of deprecated[] set something: warned after parsing */
	const char *deprecated_value[4]; /* their "=value" (or ""): applied after parsing */
	struct lb_thresholds thresholds; /* --threshold */
	char err[ERRLEN];
};

static const struct {
	const char *old, *new, *def;
} deprecated[] = {
	/* sysbench's order of its warnings, whatever the order on the command line */
	{ "num-threads", "threads", "1" },
	{ "max-requests", "events", "0" },
	{ "max-time", "time", "0" },
	{ "tx-rate", "rate", "0" },
};

/* Hides a password given on the command line from ps and /proc/PID/cmdline. */
static void mask_secret(char *arg)
{
	char *eq = strchr(arg, '=');
	if (eq && lb_secret_option(arg, (size_t)(eq - arg)))
		for (char *p = eq + 1; *p; p++)
			*p = 'x';
	else if (eq && lb_secret_conn_string_option(arg, (size_t)(eq - arg)))
		lb_secret_mask_conn_string(eq + 1);
}

static int push_option(struct cli *c, const char *arg)
{
	const char *name = arg + 2;
	size_t nlen = strcspn(name, "=");
	if (lb_name_eqn(name, "test", 4) && nlen == 4) {
		/* sysbench writes this one to stderr whatever else goes to stdout. */
		fprintf(stderr, "WARNING: the --test option is deprecated. You can pass a script name or path on "
				"the command line without any options.\n");
		c->test = name[4] == '=' ? name + 5 : NULL;
		return 0;
	}
	for (size_t i = 0; i < LB_ARRAY_LENGTH(deprecated); i++) {
		if (nlen == strlen(deprecated[i].old) && lb_name_eqn(name, deprecated[i].old, nlen)) {
			c->deprecated_value[i] = name + nlen;
			lb_opts_push(&c->opts, name, "command line");
			return 0;
		}
	}
	/* A bare --forced-shutdown means 5% of --time (sysbench). */
	if (nlen == strlen(name) && lb_name_eq(name, "forced-shutdown")) {
		lb_opts_push(&c->opts, "forced-shutdown=5%", "command line");
		return 0;
	}
	lb_opts_push(&c->opts, name, "command line");
	return 0;
}

/* "--accounts 20": the value went to the positional arguments. The first such pair is named
 * (luabench's hint line, after sysbench's message). */
static void bare_option_hint(struct cli *c, int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++) {
		const char *o = argv[i], *v = argv[i + 1];
		if (o[0] == '-' && o[1] == '-' && o[2] && !strchr(o, '=') && v[0] != '-') {
			size_t n = strlen(c->err);
			snprintf(c->err + n, ERRLEN - n, "\nDid you mean %s=%s? (an option takes its value after '=')", o, v);
			return;
		}
	}
}

static int collect_args(struct cli *c, int argc, char **argv)
{
	/* A config file is read first, so the command line overrides it wherever it appears. */
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--config-file=", 14) || !strncmp(argv[i], "--config_file=", 14))
			if (lb_opts_read_file(&c->opts, argv[i] + 14, c->err, ERRLEN) < 0)
				return -1;
	}
	int positional = 0;
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			push_option(c, a);
			mask_secret(a);
			continue;
		}
		if (positional == 0 && !c->test)
			c->test = a;
		else if (positional <= 1 && !c->command)
			c->command = a;
		else {
			snprintf(c->err, ERRLEN, "Unrecognized command line argument: %s", a);
			bare_option_hint(c, argc, argv);
			return -1;
		}
		positional++;
	}
	return 0;
}

/* Once the options are registered: an old name's value (read as the old option, so a mistake
 * names it) goes to the new one, which it overrides wherever each is given (sysbench). */
static int apply_deprecated(struct cli *c)
{
	for (size_t i = 0; i < LB_ARRAY_LENGTH(deprecated); i++) {
		const char *v = c->deprecated_value[i];
		struct lb_opt *to = v ? lb_opts_find(&c->opts, deprecated[i].new) : NULL;
		if (!to)
			continue;
		/* sysbench takes (and warns about) an old name set to something other than 0 or its
		 * default; --max-time only when positive */
		int64_t n = lb_opts_int(&c->opts, deprecated[i].old);
		char def[32];
		snprintf(def, sizeof(def), "%lld", (long long)n);
		if (!n || !strcmp(def, deprecated[i].def) || (!strcmp(deprecated[i].old, "max-time") && n < 0))
			continue;
		c->deprecated_used[i] = true;
		if (lb_opt_set(to, def, c->err, ERRLEN) < 0)
			return -1;
		to->given = true;
	}
	return 0;
}

/* After the whole command line and its values are read, as sysbench (--test's warning came
 * while parsing; a value that is not one stops before these). */
static void warn_deprecated(struct cli *c)
{
	for (size_t i = 0; i < LB_ARRAY_LENGTH(deprecated); i++)
		if (c->deprecated_used[i])
			lb_warn("--%s is deprecated, use --%s instead", deprecated[i].old, deprecated[i].new);
}

static void print_version_header(struct cli *c)
{
	if (lb_log_verbosity() < LB_LOG_NOTICE)
		return;
	FILE *out = lb_log_info_stream();
	lb_personality_banner(c->p, out);
	fflush(out);
}

/* Where luabench's hint lines start in a message ("\nDid you mean ...", "\n(given in ...)",
 * "\n(see --help ...)"), NULL if it has none: what comes before is sysbench's, a value given
 * with a newline in it included. */
static const char *hint_start(const char *msg)
{
	for (const char *nl = strchr(msg, '\n'); nl; nl = strchr(nl + 1, '\n'))
		if (!strncmp(nl, "\nDid you mean", 13) || nl[1] == '(')
			return nl;
	return NULL;
}

/* A command-line mistake: sysbench prints these on stderr, without a level prefix. The first
 * part of msg is sysbench's; the hint lines after it are luabench's, shown with its additions. */
static void usage_error(struct cli *c, const char *msg)
{
	const char *hint = hint_start(msg);
	if (hint && !c->p->additions)
		fprintf(stderr, "%.*s\n", (int)(hint - msg), msg);
	else
		fprintf(stderr, "%s\n", msg);
}

/* A failure sysbench reports through its log ("FATAL: ..."): the first line of msg is its
 * text, further lines luabench's hints. */
static void fatal_error(struct cli *c, const char *msg)
{
	const char *nl = strchr(msg, '\n');
	/* a message that ends in an empty line (sysbench's "...\n" texts) keeps it */
	if (nl && !nl[strspn(nl, "\n")])
		nl = NULL;
	if (nl && !c->p->additions)
		lb_fatal("%.*s", (int)(nl - msg), msg);
	else
		lb_fatal("%s", msg);
}

static void print_usage(struct cli *c)
{
	if (c->p->sysbench) {
		lb_personality_sysbench_usage(stdout);
		return;
	}
	printf("Usage:\n  %s [options]... [workload|script.lua] [command]\n\n", c->p->name);
	printf("Commands implemented by most workloads: prepare run cleanup help\n\n");
	printf("Other commands:\n"
	       "  luabench merge a.json b.json ...   combine results of processes that ran together (luabench merge --help)\n"
	       "  luabench plot sweep.csv|run.json   charts of a sweep (tools/sweep) or of one run's time series (SVG, PNG)\n"
	       "  luabench study PLAN                run a plan's configurations x workloads x repeats, interleaved (luabench study --help)\n"
	       "  luabench study machine             the built-in machine study: cpu, memory, disk, network; once per machine\n"
	       "  luabench compare A B ...           results, sweeps or studies side by side: medians, ratios, verdicts (luabench compare --help)\n"
	       "  luabench report INPUT... -o F.html one self-contained HTML report of runs, sweeps, studies or a comparison\n"
	       "  luabench net-server [--port=N]     the peer of the net workload (doc/workloads/net.md)\n\n");
	const char *groups[64];
	int ng = 0;
	for (int i = 0; i < c->opts.n; i++) {
		const char *g = c->opts.v[i]->group;
		bool seen = !strcmp(g, "legacy");
		for (int j = 0; j < ng && !seen; j++)
			seen = !strcmp(groups[j], g);
		if (!seen && ng < 64)
			groups[ng++] = g;
	}
	for (int i = 0; i < ng; i++) {
		printf("%s:\n", groups[i]);
		lb_opts_print_help(&c->opts, groups[i], true, stdout);
		printf("\n");
	}
	printf("Built-in workloads:\n ");
	for (const char *const *b = lb_script_builtins(); *b; b++)
		printf(" %s", *b);
	printf("\n\nSee 'luabench <workload> help' for a list of options for each workload.\n");
}

/* Pass 2: everything the general options and the script did not claim. */
static int check_unknown(struct cli *c)
{
	struct lb_pending *p;
	while ((p = lb_opts_first_unused(&c->opts))) {
		if (c->eng.session.legacy_options) {
			/* Legacy scripts (no declared options) get unknown options as strings, or as
			 * booleans when given without a value. */
			enum lb_opt_type t = p->value ? LB_OPT_STRING : LB_OPT_BOOL;
			if (!lb_opts_add(&c->opts, p->name, t, NULL, "", "legacy", c->err, ERRLEN))
				return -1;
			continue;
		}
		const char *hint = lb_opts_suggest(&c->opts, p->name);
		bool secret = lb_secret_option(p->name, strlen(p->name)) ||
			      lb_secret_conn_string_option(p->name, strlen(p->name));
		/* (luabench's line shows control characters as escapes, sysbench's as they came) */
		char *name = c->p->additions ? lb_escape(p->name, strlen(p->name)) : NULL;
		char *shown = c->p->additions && p->value && !secret ? lb_escape(p->value, strlen(p->value)) : NULL;
		int n = snprintf(c->err, ERRLEN, "invalid option: --%s%s%s", name ? name : p->name, p->value ? "=" : "",
				 p->value ? (secret ? "***" : shown ? shown : p->value) : "");
		free(name);
		free(shown);
		if (hint) {
			/* Spell the suggestion the way the user writes names ('-' or '_'). */
			char *h = lb_xstrdup(hint);
			bool dashes = strchr(p->name, '-') || !strchr(p->name, '_');
			for (char *q = h; *q; q++)
				if (*q == '-' || *q == '_')
					*q = dashes ? '-' : '_';
			snprintf(c->err + n, ERRLEN - (size_t)n, "\nDid you mean --%s?", h);
			free(h);
		}
		if (strcmp(p->origin, "command line"))
			snprintf(c->err + strlen(c->err), ERRLEN - strlen(c->err), "\n(given in %s)", p->origin);
		c->usage = true;
		return -1;
	}
	return 0;
}

/* The workloads that are C tests in sysbench: their init() errors are option checks that
 * print sysbench's own message ("Invalid value of cpu-max-prime: -5."), not a Lua failure. */
static bool c_test(const struct lb_script *s)
{
	static const char *const names[] = { "cpu", "memory", "threads", "mutex", "fileio" };
	for (size_t i = 0; s->builtin && i < LB_ARRAY_LENGTH(names); i++)
		if (!strcmp(s->name, names[i]))
			return true;
	return false;
}

static int load_workload(struct cli *c)
{
	struct lb_engine *e = &c->eng;
	if (lb_script_load(c->test, &c->script, c->err, ERRLEN) < 0) {
		if (c->p->additions)
			lb_script_explain(c->test, c->err, ERRLEN);
		return -1;
	}
	c->session.script = c->script;
	c->session.workload = c->script->name;
	c->session.plain_init_errors = c_test(c->script);
	if (c->p->sysbench && c->script->builtin)
		c->session.sysbench_help = lb_personality_sysbench_test_help_text(c->script->name);
	lb_engine_init(e, &c->session, &lb_lua_host);
	c->have_engine = true;
	if (lb_engine_open_control(e, c->err, ERRLEN) < 0)
		return -1;
	bool declared;
	int rc = lb_vm_register_options(e->control, &c->opts, &declared, c->err, ERRLEN);
	if (rc < 0) {
		c->usage = rc == LB_VM_OPTION_VALUE;
		return -1;
	}
	if (check_unknown(c) < 0)
		return -1;
	return lb_vm_export_options(e->control, c->err, ERRLEN);
}

static const char *suggest_command(struct cli *c, const char *cmd)
{
	static const char *const std[] = { "prepare", "run", "cleanup", "help" };
	for (size_t i = 0; i < LB_ARRAY_LENGTH(std); i++)
		if (lb_str_distance(cmd, std[i]) <= 2)
			return std[i];
	return lb_vm_suggest_command(c->eng.control, cmd);
}

/* sysbench hands a script's command the options as Lua values, reading each integer option then:
 * one that is not stops it before the command runs (sysbench's own C tests never read them). */
static bool script_values_ok(struct cli *c)
{
	if (c->session.plain_init_errors || lb_dbopts_check_script_values(&c->opts, c->err, ERRLEN) == 0)
		return true;
	usage_error(c, c->err);
	return false;
}

static int run_command(struct cli *c)
{
	struct lb_engine *e = &c->eng;
	const char *cmd = c->command;
	bool parallel = false;
	if (lb_vm_has_command(e->control, cmd, &parallel)) {
		if (!script_values_ok(c))
			return 1;
		if (parallel && e->session.cfg.threads > 1)
			return lb_engine_run_parallel(e, cmd);
		int rc = lb_vm_call_command(e->control, cmd, c->err, ERRLEN);
		if (rc < 0)
			lb_fatal("`%s' command failed: %s", cmd, c->err);
		return rc ? 1 : 0;
	}
	if (!strcmp(cmd, "help")) {
		if (c->p->sysbench && c->script->builtin && lb_personality_sysbench_test_help(c->script->name, stdout))
			return 0;
		int rc = lb_vm_help(e->control, &c->opts, c->err, ERRLEN);
		if (rc)
			usage_error(c, c->err);
		return rc ? 1 : 0;
	}
	if (!strcmp(cmd, "prepare") || !strcmp(cmd, "cleanup")) {
		if (!lb_vm_has_function(e->control, cmd)) {
			snprintf(c->err, ERRLEN, "'%s' test does not implement the '%s' command.", c->script->test_name, cmd);
			usage_error(c, c->err);
			return 1;
		}
		if (!script_values_ok(c))
			return 1;
		int rc = lb_vm_call(e->control, cmd, false, c->err, ERRLEN);
		/* sysbench's C tests log their own message; a script's failure is named by its hook. */
		if (rc < 0 && e->session.plain_init_errors)
			lb_fatal("%s", c->err);
		else if (rc < 0)
			lb_fatal("`%s' function failed: %s", cmd, c->err);
		return rc ? 1 : 0;
	}
	if (!strcmp(cmd, "run")) {
		if (!script_values_ok(c))
			return 1;
		if (!lb_vm_runnable(e->control)) {
			lb_fatal("cannot find the event() function in %s", c->script->test_name);
			return 1;
		}
		struct lb_run_output out;
		lb_run_output_init(&out, c->p);
		e->sink = &lb_run_output_sink;
		e->sink_ctx = &out;
		out.thresholds = &c->thresholds;
		int rc = lb_engine_run(e);
		lb_run_output_fini(&out);
		/* Failed thresholds make a run that succeeded otherwise exit with 4. */
		if (rc == 0 && out.thresholds_failed)
			rc = LB_EXIT_THRESHOLDS;
		return rc;
	}
	const char *hint = suggest_command(c, cmd);
	if (hint)
		snprintf(c->err, ERRLEN, "Unknown command: %s\nDid you mean '%s'?", cmd, hint);
	else
		snprintf(c->err, ERRLEN, "Unknown command: %s", cmd);
	usage_error(c, c->err);
	return 1;
}

/* memory --memory-method stops after --memory-runs copies per thread (10 unless 0 is given): a
 * run that ends without --time or --events, so the endless-run warning is not for it. sysbench's
 * own memory test (bounded by --memory-total-size) keeps the warning, as sysbench gives it. Read
 * from the values given, before the workload registers its options. */
static bool bounded_by_workload(const struct cli *c)
{
	if (!c->p->additions || !c->test || strcmp(c->test, "memory"))
		return false;
	const struct lb_pending *method = lb_opts_pending(&c->opts, "memory-method");
	if (!method || !method->value || !method->value[0])
		return false;
	const struct lb_pending *runs = lb_opts_pending(&c->opts, "memory-runs");
	if (!runs || !runs->value)
		return true;
	char *end;
	long long n = strtoll(runs->value, &end, 10);
	return n != 0 || end == runs->value;
}

static int setup(struct cli *c, int argc, char **argv)
{
	/* Registering an option parses the value given for it: mistakes there are usage errors. */
	c->usage = true;
	if (collect_args(c, argc, argv) < 0 ||
	    lb_config_register_options(&c->opts, c->err, ERRLEN) < 0 ||
	    lb_dbopts_register(&c->opts, c->err, ERRLEN) < 0 ||
	    lb_sysmon_register_options(&c->opts, c->err, ERRLEN) < 0 ||
	    lb_srvmon_register_options(&c->opts, c->err, ERRLEN) < 0 || apply_deprecated(c) < 0)
		return -1;
	c->usage = false;
	int64_t verbosity = lb_opts_int(&c->opts, "verbosity");
	if (verbosity < LB_LOG_FATAL || verbosity > LB_LOG_DEBUG) {
		/* sysbench keeps it in a byte and says so on stdout, without a level */
		printf("Invalid value for verbosity: %d\n", (int)(unsigned char)verbosity);
		c->err[0] = '\0';
		return -1;
	}
	warn_deprecated(c);
	lb_log_set_verbosity(lb_opts_bool(&c->opts, "debug") ? LB_LOG_DEBUG
							    : (int)lb_opts_int(&c->opts, "verbosity"));
	struct lb_config cfg;
	int rc = lb_config_read(&cfg, &c->opts, c->err, ERRLEN);
	c->usage = rc == LB_CONFIG_USAGE;
	if (rc < 0 || lb_dbopts_configure(&c->opts, &cfg, c->err, ERRLEN) < 0 ||
	    lb_sysmon_configure(&c->opts, &cfg.sys, c->err, ERRLEN) < 0 ||
	    lb_srvmon_configure(&c->opts, &cfg.srv, c->err, ERRLEN) < 0)
		return -1;
	if (cfg.output_path && lb_result_json_check_path(cfg.output_path, c->err, ERRLEN) < 0)
		return -1;
	/* Before any command runs, so that every thread made later (an embedded engine's) inherits it. */
	if (lb_place_apply_process(&cfg.place, c->err, ERRLEN) < 0)
		return -1;
	if (lb_thresholds_read(&c->thresholds, &c->opts, c->err, ERRLEN) < 0)
		return -1;
	if (c->p->additions && lb_dbopts_check_driver(&c->opts, c->err, ERRLEN) < 0)
		return -1;
	/* Before the banner and for any command, as sysbench checks it with the options. */
	/* sysbench warns before its log takes --verbosity: whatever the level */
	if (!cfg.time_ns && !cfg.events && !bounded_by_workload(c)) {
		int v = lb_log_verbosity();
		lb_log_set_verbosity(v < LB_LOG_WARNING ? LB_LOG_WARNING : v);
		lb_warn("Both event and time limits are disabled, running an endless test");
		lb_log_set_verbosity(v);
	}
	c->session.cfg = cfg;
	c->session.opts = &c->opts;
	c->session.argc = argc;
	c->session.argv = argv;
	return 0;
}

static void cleanup(struct cli *c)
{
	struct lb_engine *e = &c->eng;
	if (e->threads_stuck)
		return; /* workers may still be running: the process exits without tearing down */
	if (c->have_engine)
		lb_engine_fini(e);
	lb_script_free(c->script);
	lb_thresholds_free(&c->thresholds);
	lb_opts_fini(&c->opts);
}

/* `luabench plot …` runs the plotting script (gnuplot) that ships beside the binary. */
static int run_plot(int argc, char **argv)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	const char *env = getenv("LUABENCH_PLOT");
	char *candidates[] = {
		env ? lb_xstrdup(env) : NULL,
		lb_xasprintf("%s/../tools/plot", exe),             /* build directory in the source tree */
		lb_xasprintf("%s/../share/luabench/plot", exe),    /* installed */
	};
	const char *script = NULL;
	for (size_t i = 0; i < LB_ARRAY_LENGTH(candidates) && !script; i++)
		if (candidates[i] && access(candidates[i], X_OK) == 0)
			script = candidates[i];
	if (!script) {
		lb_fatal("plot: cannot find the plot script (tools/plot); set LUABENCH_PLOT to its path");
		return 1;
	}
	argv[0] = (char *)script;
	execv(script, argv);
	char b[1024];
	lb_fatal("plot: cannot run '%s': %s", lb_escape_to(b, sizeof(b), script), strerror(errno));
	return 1;
}

/* Commands that are not runs of a workload: dispatched before option parsing. */
static bool other_command(int argc, char **argv, int *rc)
{
	if (argc < 2)
		return false;
	const char *const *args = (const char *const *)argv + 2;
	if (!strcmp(argv[1], "merge")) {
		*rc = lb_cli_merge(args, argc - 2);
		return true;
	}
	/* The commands written in Lua: their command lines are read by luabench.internal.cli. */
	static const char *const lua_commands[] = { "compare", "report", "study" };
	for (size_t i = 0; i < LB_ARRAY_LENGTH(lua_commands); i++) {
		if (!strcmp(argv[1], lua_commands[i])) {
			*rc = lb_tool_main("luabench.internal.cli", argv[1], args, argc - 2);
			return true;
		}
	}
	if (!strcmp(argv[1], "plot")) {
		*rc = run_plot(argc - 1, argv + 1);
		return true;
	}
	if (!strcmp(argv[1], "net-server")) {
		*rc = lb_cli_net_server(args, argc - 2);
		return true;
	}
	return false;
}

int lb_cli_main(int argc, char **argv, bool *must_exit_now)
{
	int other_rc;
	if (other_command(argc, argv, &other_rc))
		return other_rc;
	struct cli *c = lb_xzalloc(sizeof(*c));
	lb_opts_init(&c->opts);
	int rc = 1;
	c->p = lb_personality_select(argv[0], c->err, ERRLEN);
	if (!c->p) {
		fprintf(stderr, "%s\n", c->err);
		free(c);
		return 1;
	}
	if (c->p->problems_to_stdout)
		lb_log_set_problem_stream(stdout);
	if (setup(c, argc, argv) < 0) {
		/* sysbench refuses a general boolean's value after its banner */
		if (c->usage && !strncmp(c->err, "invalid option: ", 16))
			print_version_header(c);
		if (!c->err[0])
			; /* said already */
		else if (c->usage)
			usage_error(c, c->err);
		else
			fatal_error(c, c->err);
		goto out;
	}
	if (!strcmp(lb_opts_str(&c->opts, "db-driver"), "help")) {
		lb_dbopts_print_drivers(stdout);
		rc = 0;
		goto out;
	}
	/* With no arguments at all a script is read from stdin, unless stdin is a terminal. */
	if (lb_opts_bool(&c->opts, "help") || (argc <= 1 && isatty(0))) {
		print_usage(c);
		rc = 0;
		goto out;
	}
	if (lb_opts_bool(&c->opts, "version")) {
		lb_personality_version(c->p, stdout);
		rc = 0;
		goto out;
	}
	if (c->session.cfg.format != LB_FORMAT_TEXT)
		lb_log_set_info_stream(stderr);
	c->session.command = c->command;
	c->session.version_string = lb_personality_version_string(c->p);
	c->session.additions = c->p->additions;
	print_version_header(c);
	if (load_workload(c) < 0) {
		if (c->usage)
			usage_error(c, c->err);
		else
			fatal_error(c, c->err);
		goto out;
	}
	/* A script read from stdin only runs its chunk, whatever command follows (as sysbench). */
	if (!c->command || c->script->from_stdin) {
		rc = 0;
		if (c->script->builtin) {
			snprintf(c->err, ERRLEN, "The '%s' test requires a command argument. See '%s %s help'",
				 c->script->name, c->p->name, c->script->name);
			usage_error(c, c->err);
			rc = 1;
		}
		goto out;
	}
	rc = run_command(c);
out:
	*must_exit_now = c->eng.threads_stuck;
	fflush(NULL);
	cleanup(c);
	if (!*must_exit_now)
		free(c);
	return rc;
}
