/* What a run is of: the configuration, the command line, the script and the personality's
 * choices. A Lua state needs only this; the run machinery (workers, windows, the start
 * barrier) is the engine's (engine.h), which embeds the session it runs.
 *
 * The CLI fills one; `luabench merge` fills one to host a workload's merge hook; bind makes
 * standalone Lua states from one (bind/standalone.h). */
#ifndef LB_ENGINE_SESSION_H
#define LB_ENGINE_SESSION_H

#include <stdbool.h>

#include "engine/config.h"

struct lb_opts;
struct lb_script;

struct lb_session {
	struct lb_config cfg;
	const struct lb_opts *opts;  /* the parsed options (sysbench.opt), NULL for a tool's state */
	int argc;                    /* the command line, for sysbench.cmdline.argv */
	char **argv;
	const char *command;         /* NULL when none was given */
	const char *workload;        /* the script's name as given, for results */
	const char *version_string;  /* sysbench.version_string (the personality says) */
	const char *sysbench_help;   /* run as sysbench, the built-in test's `help` text, else NULL */
	bool additions;              /* print luabench's notes beyond sysbench's output (personality) */
	struct lb_script *script;    /* the host's script, opaque here; NULL: the API only */
	bool legacy_options;         /* the script declares no options: export them as globals
				      * (set by bind when it registers the script's options) */
	bool plain_init_errors;      /* init() errors are option checks, printed as they are */
};

#endif
