/* Custom commands declared with sysbench.cmdline.PARALLEL_COMMAND: one thread and one fresh
 * Lua state per --threads, each with its own tid (thread_init is not called, as in sysbench). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/vm.h"
#include "engine.h"
#include "log.h"
#include "util.h"
#include "worker.h"

#define ERRLEN 4096

struct command_job {
	struct lb_engine *eng;
	struct lb_worker *w;
	const char *command;
	int rc;
};

static void *command_thread(void *arg)
{
	struct command_job *j = arg;
	char *err = lb_xzalloc(ERRLEN);
	lb_worker_set_self(j->w);
	struct lb_vm *vm = lb_vm_new(j->eng, j->w, err, ERRLEN);
	j->rc = 1;
	if (vm && lb_vm_export_options(vm, err, ERRLEN) == 0) {
		int rc = lb_vm_call_command(vm, j->command, err, ERRLEN);
		j->rc = rc == 0 ? 0 : 1;
	}
	if (j->rc && *err)
		lb_fatal("`%s' command failed in thread %d: %s", j->command, j->w->tid, err);
	lb_vm_free(vm);
	free(err);
	return NULL;
}

int lb_engine_run_parallel(struct lb_engine *e, const char *command)
{
	int n = e->cfg.threads;
	struct command_job *jobs = lb_xcalloc((size_t)n, sizeof(*jobs));
	pthread_t *threads = lb_xcalloc((size_t)n, sizeof(*threads));
	lb_notice("Initializing worker threads...\n");
	int started = 0, rc = 0;
	for (int i = 0; i < n; i++) {
		jobs[i] = (struct command_job){ .eng = e, .command = command,
						.w = lb_worker_new(e, i, LB_ROLE_COMMAND) };
		int err = pthread_create(&threads[i], NULL, command_thread, &jobs[i]);
		if (err) {
			lb_fatal("cannot create thread %d for command '%s': %s", i, command, strerror(err));
			lb_worker_free(jobs[i].w);
			rc = 1;
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		/* Unlike sysbench, a failing thread makes the whole command fail. */
		rc |= jobs[i].rc;
		lb_worker_free(jobs[i].w);
	}
	free(jobs);
	free(threads);
	return rc;
}
