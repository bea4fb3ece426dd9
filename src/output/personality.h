/* What the program looks like from outside: its name, banner and version line, where its
 * messages go, and whether luabench's additions (suggestions, report blocks beyond sysbench
 * 1.0.20's, workload notes) are shown. Chosen once at start-up from the name the binary was run
 * as (`sysbench` -> the sysbench personality) or LUABENCH_PERSONALITY, then read by the CLI and
 * the output layer; the engine, drivers and workloads never look at it. */
#ifndef LB_OUTPUT_PERSONALITY_H
#define LB_OUTPUT_PERSONALITY_H

#include <stdbool.h>
#include <stdio.h>

struct lb_personality {
	const char *name;        /* "luabench" or "sysbench": the program in messages and usage */
	bool sysbench;           /* indistinguishable from sysbench 1.0.20 */
	bool additions;          /* luabench's report blocks, notes and "did you mean" lines */
	bool problems_to_stdout; /* FATAL/ALERT/WARNING lines on stdout, as sysbench's log */
};

extern const struct lb_personality lb_personality_luabench;
extern const struct lb_personality lb_personality_sysbench;

/* The personality for a process run as `program` (its path as run): LUABENCH_PERSONALITY
 * (sysbench or luabench) when set, else sysbench when the program's file name is "sysbench",
 * else luabench.
 * NULL with a message in err when LUABENCH_PERSONALITY names neither. */
const struct lb_personality *lb_personality_select(const char *program, char *err, size_t errlen);

/* The first line of most runs, and --version's line. */
void lb_personality_banner(const struct lb_personality *p, FILE *out);
void lb_personality_version(const struct lb_personality *p, FILE *out);
/* sysbench 1.0.20's --help text (sysbench_usage.c). */
void lb_personality_sysbench_usage(FILE *out);
/* sysbench 1.0.20's `TEST help` for its compiled-in tests; false for any other name. */
bool lb_personality_sysbench_test_help(const char *test, FILE *out);
/* That text, or NULL for a name that is not one of sysbench's compiled-in tests. */
const char *lb_personality_sysbench_test_help_text(const char *test);
/* sysbench.version_string as scripts see it. */
const char *lb_personality_version_string(const struct lb_personality *p);

#endif
