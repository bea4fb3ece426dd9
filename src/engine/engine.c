/* The engine as an object: init/fini, the per-run states of the layers above, and the
 * thread-safe verbs every thread may call (fail, collect, now). */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/util.h"
#include "engine/worker.h"

void lb_engine_init(struct lb_engine *e, const struct lb_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	e->rate_mode = cfg->rate > 0;
	e->deadline_ns = INT64_MAX;
	/* Before the run starts, time counts from here (luabench.time() in init, prepare...). */
	e->epoch_ns = lb_now_ns();
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	sem_init(&e->wake, 0, 0);
	lb_types_init(&e->types);
	lb_stmt_names_init(&e->stmt_names);
	/* unique() follows --rand-seed for every command, so prepare data does too. */
	lb_unique_seed(&e->unique, cfg->rand.seed);
	lb_snap_init(&e->window_base);
}

void lb_engine_fini(struct lb_engine *e)
{
	for (int i = 0; i < e->nworkers; i++)
		lb_worker_free(e->workers[i]);
	free(e->workers);
	lb_intervals_free_types(e->intervals, e->nintervals);
	free(e->intervals);
	lb_sysmon_free(e->sysmon);
	lb_srvmon_free(e->srvmon);
	free(e->window_base_events);
	free(e->window_base_sum_ns);
	free(e->fatal);
	lb_snap_fini(&e->window_base);
	if (e->rate_mode && e->started)
		lb_sched_fini(&e->sched);
	for (int i = LB_MAX_EXT - 1; i >= 0; i--)
		if (e->ext[i].kind)
			e->ext[i].kind->destroy(e->ext[i].state);
	lb_types_fini(&e->types);
	lb_stmt_names_fini(&e->stmt_names);
	sem_destroy(&e->wake);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	memset(e, 0, sizeof(*e));
}

void *lb_engine_ext(struct lb_engine *e, const struct lb_ext_kind *kind)
{
	void *state = NULL;
	pthread_mutex_lock(&e->lock);
	int i;
	for (i = 0; i < LB_MAX_EXT && e->ext[i].kind; i++)
		if (e->ext[i].kind == kind)
			state = e->ext[i].state;
	if (!state) {
		if (i == LB_MAX_EXT)
			abort(); /* a fixed set of kinds in the code: more is a programming error */
		state = kind->create(e);
		e->ext[i].state = state;
		e->ext[i].kind = kind;
	}
	pthread_mutex_unlock(&e->lock);
	return state;
}

void lb_engine_fail(struct lb_engine *e, const char *msg)
{
	pthread_mutex_lock(&e->lock);
	if (!e->fatal) {
		e->fatal = lb_xstrdup(msg);
		lb_fatal("%s", msg);
	}
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	sem_post(&e->wake);
}

int64_t lb_engine_now(const struct lb_engine *e)
{
	return lb_now_ns() - e->epoch_ns;
}

void lb_engine_collect(struct lb_engine *e, struct lb_snap *out)
{
	lb_snap_clear(out);
	uint32_t window = __atomic_load_n(&e->window, __ATOMIC_RELAXED);
	for (int i = 0; i < e->nworkers; i++)
		lb_snap_add_stats(out, &e->workers[i]->stats, window);
}

int lb_engine_threads_running(struct lb_engine *e)
{
	int n = 0;
	for (int i = 0; i < e->nworkers; i++)
		n += !__atomic_load_n(&e->workers[i]->finished, __ATOMIC_RELAXED);
	return n;
}
