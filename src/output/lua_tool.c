#include "output/lua_tool.h"

#include <stdlib.h>

#include "bind/tool.h"
#include "bind/vm.h"
#include "engine/engine.h"
#include "engine/worker.h"
#include "util/log.h"
#include "util/util.h"

int lb_lua_tool_main(const char *module, int argc, char **argv)
{
	/* The Lua API lives in an engine's control state; an idle engine with the default
	 * configuration is enough (nothing runs, no script is loaded). */
	struct lb_config cfg = { 0 };
	struct lb_engine *e = lb_xzalloc(sizeof(*e));
	lb_engine_init(e, &cfg);
	struct lb_worker *w = lb_worker_new(e, 0, LB_ROLE_CONTROL);
	lb_worker_set_self(w);
	char err[1024];
	int rc = 1;
	struct lb_vm *vm = lb_vm_new(e, w, err, sizeof(err));
	if (vm)
		rc = lb_vm_run_tool(vm, module, argc, argv, err, sizeof(err));
	if (!vm || rc < 0) {
		lb_fatal("%s: %s", argv[0], err);
		rc = 1;
	}
	lb_vm_free(vm);
	lb_worker_set_self(NULL);
	lb_worker_free(w);
	lb_engine_fini(e);
	free(e);
	return rc;
}
