#include "bind/standalone.h"

#include <stdlib.h>

#include "bind/tool.h"
#include "bind/vm.h"
#include "engine/engine.h"
#include "util/log.h"
#include "util/util.h"

struct lb_standalone {
	struct lb_engine eng;
};

struct lb_standalone *lb_standalone_open(const struct lb_session *s, char *err, size_t errlen)
{
	struct lb_standalone *st = lb_xzalloc(sizeof(*st));
	lb_engine_init(&st->eng, s, &lb_lua_host);
	if (lb_engine_open_control(&st->eng, err, errlen) < 0) {
		lb_standalone_close(st);
		return NULL;
	}
	return st;
}

struct lb_vm *lb_standalone_vm(const struct lb_standalone *st)
{
	return st->eng.control;
}

void lb_standalone_close(struct lb_standalone *st)
{
	if (!st)
		return;
	lb_engine_fini(&st->eng);
	free(st);
}

int lb_tool_main(const char *module, const char *command, const char *const *args, int nargs)
{
	/* Nothing runs and no script is loaded: the default configuration is enough. */
	struct lb_session s = { 0 };
	char err[1024];
	int rc = -1;
	struct lb_standalone *st = lb_standalone_open(&s, err, sizeof(err));
	if (st)
		rc = lb_vm_run_tool(lb_standalone_vm(st), module, command, args, nargs, err, sizeof(err));
	if (rc < 0) {
		lb_fatal("%s: %s", command, err);
		rc = 1;
	}
	lb_standalone_close(st);
	return rc;
}
