/* Whether a run that ran to its end measured anything. A measured window in which no event
 * completed (no transaction, no I/O) while errors were counted, or a run whose threads all
 * stopped during the warm-up, reports zeros that look like a result: luabench fails such a run
 * (status "failed", exit 1), naming the first error it counted and how many. sysbench 1.0.20
 * prints the zeros and exits 0, which the sysbench personality keeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/worker.h"
#include "util/util.h"

static uint64_t window_count(const struct lb_engine *e, enum lb_cnt c)
{
	uint64_t n = 0;
	for (int i = 0; i < e->nworkers; i++)
		n += __atomic_load_n(&e->workers[i]->stats.cnt[c], __ATOMIC_RELAXED);
	return n - e->window_base.cnt[c];
}

/* The first error any worker counted (the earliest), NULL if none told its text. */
static const char *first_error(const struct lb_engine *e)
{
	const struct lb_worker *first = NULL;
	for (int i = 0; i < e->nworkers; i++) {
		const struct lb_worker *w = e->workers[i];
		if (w->first_error && (!first || w->first_error_ns < first->first_error_ns))
			first = w;
	}
	return first ? first->first_error : NULL;
}

/* ", while 3 errors were counted; the first: <text>" (allocated), for n > 0. */
static char *errors_part(const struct lb_engine *e, uint64_t n)
{
	const char *text = first_error(e);
	char *shown = text ? lb_escape(text, strlen(text)) : NULL;
	char *part = lb_xasprintf("while %llu error%s %s counted; the first: %s", (unsigned long long)n,
				  n == 1 ? "" : "s", n == 1 ? "was" : "were",
				  shown ? shown : "(no message: the script counted it without one)");
	free(shown);
	return part;
}

char *lb_engine_nothing_completed(const struct lb_engine *e, int64_t end_ns)
{
	if (!e->nworkers)
		return NULL;
	/* Workers that all stopped before the warm-up was over (--events reached, no --rate arrival
	 * due before the end) left a window of warm-up events only. */
	int64_t warmup_ns = e->session.cfg.warmup_ns;
	bool in_warmup = warmup_ns > 0 && e->window_start_ns == 0 && end_ns < warmup_ns;
	if (!in_warmup && window_count(e, LB_CNT_EVENT))
		return NULL;
	uint64_t errors = window_count(e, LB_CNT_ERROR) + window_count(e, LB_CNT_FAILED);
	/* No event and no error: a script's own thread_run may count neither by design. */
	if (!errors && !in_warmup)
		return NULL;
	char *part = errors ? errors_part(e, errors) : NULL;
	char *msg;
	if (in_warmup)
		msg = lb_xasprintf("the run ended %.2f s into its %.2f s warm-up: nothing was measured (%s)",
				   (double)end_ns / 1e9, (double)warmup_ns / 1e9,
				   part ? part : "is --time long enough, --rate high enough?");
	else
		msg = lb_xasprintf("no event completed in the measured window (%.2f s) %s",
				   (double)(end_ns - e->window_start_ns) / 1e9, part);
	free(part);
	return msg;
}
