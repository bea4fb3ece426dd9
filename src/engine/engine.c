/* The engine as an object: init/fini, the per-run states of the layers above, and the
 * thread-safe verbs every thread may call (fail, collect, now). */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/util.h"
#include "engine/worker.h"

void lb_engine_init(struct lb_engine *e, const struct lb_session *s, const struct lb_host *host)
{
	memset(e, 0, sizeof(*e));
	e->session = *s;
	e->host = host;
	const struct lb_config *cfg = &e->session.cfg;
	e->rate_mode = cfg->rate > 0;
	e->deadline_ns = INT64_MAX;
	/* Before the run starts, time counts from here (luabench.time() in init, prepare...). */
	e->epoch_ns = lb_now_ns();
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	sem_init(&e->wake, 0, 0);
	lb_types_init(&e->types);
	lb_stmt_names_init(&e->stmt_names);
	lb_metric_defs_init(&e->metrics);
	/* unique() follows --rand-seed for every command, so prepare data does too. */
	lb_unique_seed(&e->unique, cfg->rand.seed);
	lb_snap_init(&e->window_base);
}

static void free_state(struct lb_engine *e, struct lb_vm **vm, struct lb_worker **w)
{
	if (*vm)
		e->host->state_free(*vm);
	*vm = NULL;
	lb_worker_free(*w);
	*w = NULL;
}

int lb_engine_open_control(struct lb_engine *e, char *err, size_t errlen)
{
	e->control_w = lb_worker_new(e, 0, LB_ROLE_CONTROL);
	lb_worker_set_self(e->control_w);
	e->control = e->host->state_new(e, e->control_w, err, errlen);
	return e->control ? 0 : -1;
}

int lb_engine_open_reporter(struct lb_engine *e)
{
	const struct lb_config *c = &e->session.cfg;
	/* Its hooks print text: only in text mode (JSON and CSV keep stdout machine-readable). */
	if (!c->report_interval_ns || c->format != LB_FORMAT_TEXT ||
	    !e->host->has_hook(e->control, "report_intermediate"))
		return 0;
	char err[1024];
	e->reporter_w = lb_worker_new(e, c->threads, LB_ROLE_REPORTER);
	e->reporter = e->host->state_new(e, e->reporter_w, err, sizeof(err));
	if (!e->reporter) {
		lb_fatal("cannot create the reporter's Lua state: %s", err);
		return -1;
	}
	return 0;
}

void lb_engine_close_reporter(struct lb_engine *e)
{
	free_state(e, &e->reporter, &e->reporter_w);
}

void lb_engine_fini(struct lb_engine *e)
{
	/* The Lua states first: their connections use per-run states freed below. */
	free_state(e, &e->reporter, &e->reporter_w);
	if (e->control_w && lb_worker_self() == e->control_w)
		lb_worker_set_self(NULL);
	free_state(e, &e->control, &e->control_w);
	for (int i = 0; i < e->nworkers; i++)
		lb_worker_free(e->workers[i]);
	free(e->workers);
	lb_intervals_free_types(e->intervals, e->nintervals);
	free(e->intervals);
	lb_sysmon_free(e->sysmon);
	free(e->machine);
	lb_srvmon_free(e->srvmon);
	free(e->window_base_events);
	free(e->window_base_sum_ns);
	free(e->fatal);
	free(e->nothing_done);
	lb_snap_fini(&e->window_base);
	if (e->rate_mode && e->started)
		lb_arrivals_fini(&e->sched);
	for (int i = LB_MAX_EXT - 1; i >= 0; i--)
		if (e->ext[i].kind)
			e->ext[i].kind->destroy(e->ext[i].state);
	lb_types_fini(&e->types);
	lb_stmt_names_fini(&e->stmt_names);
	lb_metric_defs_fini(&e->metrics);
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

void lb_engine_collect(struct lb_engine *e, struct lb_snap *out, uint64_t *events_raw,
		       uint64_t *lat_sum_raw_ns)
{
	lb_snap_clear(out);
	uint32_t window = __atomic_load_n(&e->window, __ATOMIC_RELAXED);
	for (int i = 0; i < e->nworkers; i++) {
		uint64_t events = out->cnt[LB_CNT_EVENT], sum_ns = out->lat_sum_ns;
		lb_snap_add_stats(out, &e->workers[i]->stats, window);
		if (events_raw)
			events_raw[i] = out->cnt[LB_CNT_EVENT] - events;
		if (lat_sum_raw_ns)
			lat_sum_raw_ns[i] = out->lat_sum_ns - sum_ns;
	}
}

int lb_engine_threads_running(struct lb_engine *e)
{
	int n = 0;
	for (int i = 0; i < e->nworkers; i++)
		n += !__atomic_load_n(&e->workers[i]->finished, __ATOMIC_RELAXED);
	return n;
}
