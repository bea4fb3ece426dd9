/* Custom commands declared with sysbench.cmdline.PARALLEL_COMMAND: one thread and one fresh
 * Lua state per --threads, each with its own tid (thread_init is not called, as in sysbench). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "util/log.h"
#include "util/util.h"
#include "engine/worker.h"

#define ERRLEN 4096

struct command_job {
	struct lb_engine *eng;
	struct lb_worker *w;
	const char *command;
	atomic_int *failures;  /* shared: how many threads have failed so far */
	int rc;
	int order;             /* 1 = first thread to fail, ... (0 = no message) */
	char *err;
};

static void *command_thread(void *arg)
{
	struct command_job *j = arg;
	char *err = lb_xzalloc(ERRLEN);
	lb_worker_set_self(j->w);
	const struct lb_host *host = j->eng->host;
	j->rc = 1;
	/* A parallel prepare fills memory and tables from where the run will read them. */
	struct lb_vm *vm = lb_place_apply(&j->eng->session.cfg.place, j->w->tid, err, ERRLEN) < 0 ? NULL
		: host->state_new(j->eng, j->w, err, ERRLEN);
	if (vm) {
		int rc = host->call_command(vm, j->command, err, ERRLEN);
		j->rc = rc == 0 ? 0 : 1;
	}
	/* Reported once all threads are done (see report_failures). */
	if (j->rc && *err)
		j->order = atomic_fetch_add(j->failures, 1) + 1;
	if (vm)
		host->state_free(vm);
	j->err = err;
	return NULL;
}

static int by_order(const void *a, const void *b)
{
	return (*(struct command_job *const *)a)->order - (*(struct command_job *const *)b)->order;
}

/* "0-3", "0, 2, 5-7": the threads (in tid order) of jobs[0..n). */
static void thread_list(struct command_job *const *jobs, int n, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n && len < size; i++) {
		int first = jobs[i]->w->tid, last = first;
		while (i + 1 < n && jobs[i + 1]->w->tid == last + 1)
			last = jobs[++i]->w->tid;
		int k = last > first ? snprintf(buf + len, size - len, "%s%d-%d", len ? ", " : "", first, last)
				     : snprintf(buf + len, size - len, "%s%d", len ? ", " : "", first);
		len += k > 0 ? (size_t)k : 0;
	}
}

/* The same error in every failed thread (a wrong password, a missing table) is printed once
 * with the list of threads. Different errors are printed per thread in the order they
 * happened: the first is usually the cause, the others its consequences. */
static void report_failures(struct command_job *jobs, int n, const char *command)
{
	struct command_job **failed = lb_xcalloc((size_t)n, sizeof(*failed));
	int nf = 0;
	bool same = true;

	for (int i = 0; i < n; i++)
		if (jobs[i].order) {
			failed[nf++] = &jobs[i];
			same = same && strcmp(jobs[i].err, failed[0]->err) == 0;
		}
	if (nf > 1 && same) {
		char threads[256];
		thread_list(failed, nf, threads, sizeof(threads));
		lb_fatal("`%s' command failed in threads %s: %s", command, threads, failed[0]->err);
	} else {
		qsort(failed, (size_t)nf, sizeof(*failed), by_order);
		for (int i = 0; i < nf; i++)
			lb_fatal("`%s' command failed in thread %d: %s", command, failed[i]->w->tid,
				 failed[i]->err);
	}
	free(failed);
}

int lb_engine_run_parallel(struct lb_engine *e, const char *command)
{
	int n = e->session.cfg.threads;
	struct command_job *jobs = lb_xcalloc((size_t)n, sizeof(*jobs));
	pthread_t *threads = lb_xcalloc((size_t)n, sizeof(*threads));
	atomic_int failures = 0;
	lb_notice("Initializing worker threads...\n\n");
	int started = 0, rc = 0;
	for (int i = 0; i < n; i++) {
		jobs[i] = (struct command_job){ .eng = e, .command = command, .failures = &failures,
						.w = lb_worker_new(e, i, LB_ROLE_COMMAND) };
		int err = pthread_create(&threads[i], NULL, command_thread, &jobs[i]);
		if (err) {
			lb_fatal("cannot create thread %d for command '%s': %s", i, command, strerror(err));
			lb_worker_free(jobs[i].w);
			jobs[i].w = NULL;
			rc = 1;
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		/* Unlike sysbench, a failing thread makes the whole command fail. */
		rc |= jobs[i].rc;
	}
	report_failures(jobs, started, command);
	for (int i = 0; i < started; i++) {
		lb_worker_free(jobs[i].w);
		free(jobs[i].err);
	}
	free(jobs);
	free(threads);
	return rc;
}
