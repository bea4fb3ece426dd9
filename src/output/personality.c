#include "output/personality.h"

#include <stdlib.h>
#include <string.h>

#include "bind/vm.h"
#include "lb_config.h"

const struct lb_personality lb_personality_luabench = {
	.name = "luabench",
	.sysbench = false,
	.additions = true,
	.problems_to_stdout = false,
};

const struct lb_personality lb_personality_sysbench = {
	.name = "sysbench",
	.sysbench = true,
	.additions = false,
	.problems_to_stdout = true,
};

const struct lb_personality *lb_personality_select(const char *program, char *err, size_t errlen)
{
	const char *env = getenv("LUABENCH_PERSONALITY");
	if (env && *env) {
		if (!strcmp(env, "sysbench"))
			return &lb_personality_sysbench;
		if (!strcmp(env, "luabench"))
			return &lb_personality_luabench;
		snprintf(err, errlen, "LUABENCH_PERSONALITY=%s: expected sysbench or luabench", env);
		return NULL;
	}
	const char *base = program ? strrchr(program, '/') : NULL;
	base = base ? base + 1 : program;
	return base && !strcmp(base, "sysbench") ? &lb_personality_sysbench : &lb_personality_luabench;
}

void lb_personality_banner(const struct lb_personality *p, FILE *out)
{
	/* sysbench's grammar exactly: report parsers tokenise this line (a comma or a word of ours
	 * inside the parentheses breaks them); luabench's identity is in its own personality and
	 * in the JSON result. */
	if (p->sysbench)
		fprintf(out, "sysbench %s (using %s %s)\n\n", LB_SYSBENCH_API, LB_LUAJIT_ORIGIN, lb_luajit_version());
	else
		fprintf(out, "luabench %s (sysbench %s compatible, using %s)\n\n", LB_VERSION, LB_SYSBENCH_API,
			lb_luajit_version());
}

void lb_personality_version(const struct lb_personality *p, FILE *out)
{
	if (p->sysbench)
		fprintf(out, "sysbench %s\n", LB_SYSBENCH_API);
	else
		fprintf(out, "luabench %s (sysbench %s compatible)\n", LB_VERSION, LB_SYSBENCH_API);
}

const char *lb_personality_version_string(const struct lb_personality *p)
{
	return p->sysbench ? "sysbench " LB_SYSBENCH_API : "sysbench " LB_SYSBENCH_API " (luabench " LB_VERSION ")";
}
