/* File I/O glue between the I/O engine layer (src/io) and the run's statistics, for
 * luabench.io and the fileio workload.
 *
 * Per worker, a struct lb_fio_stat records every reaped I/O: its latency from submit to reap
 * (complete_ns - start_ns, the robust "lat" of fio/DiskSpd) in the luabench.stats type chosen
 * at submit, optionally as an engine event (the fileio workload's events are I/Os), in the
 * read/write/other and byte counters, in per-second completion counts (IOPS deviation), and
 * for asynchronous engines in submit and completion histograms per direction. The type, the
 * event bit and the parts bit travel in the upper bits of the I/O's tag, so reaping needs no
 * lookup.
 *
 * Warm-up and checkpoints: the engine's statistics window id moves; types and events are
 * windowed by the engine itself, and this file restarts its own figures (parts, achieved
 * depth) when a worker sees the new id, and takes the process CPU and device counters at the
 * first I/O of a window and when the last worker flushes. Readers (the control state's report
 * hooks) use relaxed loads, like the engine's reporter.
 *
 * The report (lb_fio_report_*) takes the window's bounds, its per-type statistics and its
 * system metrics from the engine's result of the window (lb_engine_window_now), and adds what
 * only this file records: parts, per-second counts, achieved depth, its own CPU and device
 * readings. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "api/ffi_io.h"
#include "util/clock.h"
#include "engine/engine.h"
#include "engine/latency_hist.h"
#include "sys/diskstats.h"
#include "engine/stats.h"
#include "sys/sysmetrics.h"
#include "util/util.h"
#include "engine/worker.h"

#define TAG_USER_MASK ((UINT64_C(1) << 48) - 1)
#define TAG_TYPE_SHIFT 48
#define TAG_EVENT (UINT64_C(1) << 56)
#define TAG_PARTS (UINT64_C(1) << 57)

enum { DIR_READ, DIR_WRITE, DIR_SYNC, DIR_N };
enum { PART_SUBMIT, PART_COMPLETE, PART_N };

#define SEC_CHUNK 1024u   /* seconds per chunk of per-second counts */
#define SEC_CHUNKS 4096u  /* up to ~48 days */
#define MAX_CTX 16u       /* queues tracked per worker for the achieved depth */

struct part {
	struct lb_hist h;
	uint64_t n, sum_ns;
};

struct sec_chunk {
	uint32_t n[SEC_CHUNK][DIR_N];
};

struct lb_fio_stat {
	struct fio_run *run;
	struct lb_worker *w;
	bool worker;                 /* a run worker (only those feed the window figures) */
	uint32_t window;             /* engine window the parts and depth belong to */
	struct part part[DIR_N][PART_N];
	struct sec_chunk *sec[SEC_CHUNKS];
	uint32_t sec_cur;            /* second of the last completion (publishing cadence) */
	int64_t win_start_ns;        /* its window's start (since the epoch): seconds count from it */
	struct lb_io_ctx *ctx[MAX_CTX];
	uint32_t nctx;
	/* published by the owner, read by the report (under pub_lock) */
	pthread_mutex_t pub_lock;
	double pub_depth;            /* sum of its queues' average in-flight I/Os */
	double closed_depth;         /* queues closed during this window */
	uint64_t pub_depth_ns[LB_IO_DEPTH_BUCKETS], closed_depth_ns[LB_IO_DEPTH_BUCKETS];
	uint32_t pub_window;
	int finished;
	struct lb_fio_stat *next;
};

/* Process CPU and device counters at one moment. */
struct moment {
	int64_t t_ns;                /* CLOCK_MONOTONIC */
	double user_s, sys_s;
	bool have_dev;
	uint64_t dev[LB_DISKSTAT_NFIELDS];
};

/* A run's file I/O state: every worker's statistics and the CPU and device readings. */
struct fio_run {
	pthread_mutex_t lock;
	struct lb_fio_stat *stats;   /* kept to the end of the run: reports read them after the
				      * workers are gone */
	bool have_watch;
	struct lb_disk_dev watch;
	uint32_t start_window;       /* window of `start_m` */
	struct moment start_m, end_m;
	int nfinished;
};

static void *fio_run_create(struct lb_engine *e)
{
	struct fio_run *r = lb_xzalloc(sizeof(*r));

	(void)e;
	pthread_mutex_init(&r->lock, NULL);
	r->start_window = UINT32_MAX;
	return r;
}

static void fio_run_destroy(void *state)
{
	struct fio_run *r = state;

	while (r->stats) {
		struct lb_fio_stat *s = r->stats;

		r->stats = s->next;
		for (int d = 0; d < DIR_N; d++)
			for (int p = 0; p < PART_N; p++)
				lb_hist_fini(&s->part[d][p].h);
		for (uint32_t c = 0; c < SEC_CHUNKS; c++)
			free(s->sec[c]);
		pthread_mutex_destroy(&s->pub_lock);
		free(s);
	}
	pthread_mutex_destroy(&r->lock);
	free(r);
}

static const struct lb_ext_kind fio_run_kind = { "file I/O statistics", fio_run_create,
						 fio_run_destroy };

static struct fio_run *fio_run_of(struct lb_engine *e)
{
	return lb_engine_ext(e, &fio_run_kind);
}

static void take_moment(const struct fio_run *run, struct moment *m)
{
	struct rusage ru;

	m->t_ns = lb_now_ns();
	getrusage(RUSAGE_SELF, &ru);
	m->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	m->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	m->have_dev = run->have_watch && lb_diskstats_read(&run->watch, NULL, m->dev) == 0;
}

LB_FFI int lb_fio_watch(struct lb_worker *w, const char *path, char *err, uint32_t errlen)
{
	struct fio_run *run = fio_run_of(w->eng);
	struct lb_disk_dev d;
	int r = lb_diskstats_dev_of_path(path, NULL, &d, err, errlen);

	pthread_mutex_lock(&run->lock);
	run->have_watch = r == 0;
	if (r == 0)
		run->watch = d;
	pthread_mutex_unlock(&run->lock);
	return r;
}

LB_FFI void lb_fio_setup(void)
{
	/* A write past the file size limit (ulimit -f) then fails with EFBIG, which the I/O layer
	 * reports in one line, instead of killing the process with SIGXFSZ. */
	signal(SIGXFSZ, SIG_IGN);
}

LB_FFI struct lb_fio_stat *lb_fio_stat_new(struct lb_worker *w)
{
	struct fio_run *run = fio_run_of(w->eng);
	struct lb_fio_stat *s = lb_xzalloc(sizeof(*s));

	s->run = run;
	s->w = w;
	s->worker = w->role == LB_ROLE_WORKER;
	s->window = UINT32_MAX;
	s->sec_cur = UINT32_MAX;
	for (int d = 0; d < DIR_N; d++)
		for (int p = 0; p < PART_N; p++)
			lb_hist_init(&s->part[d][p].h);
	pthread_mutex_init(&s->pub_lock, NULL);
	pthread_mutex_lock(&run->lock);
	s->next = run->stats;
	run->stats = s;
	pthread_mutex_unlock(&run->lock);
	return s;
}

/* ---- achieved depth ------------------------------------------------------------------- */

static void publish(struct lb_fio_stat *s)
{
	double d = 0;
	uint64_t ns[LB_IO_DEPTH_BUCKETS] = { 0 }, h[LB_IO_DEPTH_BUCKETS];

	for (uint32_t i = 0; i < s->nctx; i++) {
		d += lb_io_avg_depth(s->ctx[i]);
		lb_io_depth_hist(s->ctx[i], h, LB_IO_DEPTH_BUCKETS);
		for (int k = 0; k < LB_IO_DEPTH_BUCKETS; k++)
			ns[k] += h[k];
	}
	pthread_mutex_lock(&s->pub_lock);
	s->pub_depth = d + s->closed_depth;
	for (int k = 0; k < LB_IO_DEPTH_BUCKETS; k++)
		s->pub_depth_ns[k] = ns[k] + s->closed_depth_ns[k];
	s->pub_window = s->window;
	pthread_mutex_unlock(&s->pub_lock);
}

LB_FFI void lb_fio_track(struct lb_fio_stat *s, struct lb_io_ctx *ctx)
{
	if (s->nctx < MAX_CTX)
		s->ctx[s->nctx++] = ctx;
}

LB_FFI void lb_fio_untrack(struct lb_fio_stat *s, struct lb_io_ctx *ctx)
{
	for (uint32_t i = 0; i < s->nctx; i++) {
		if (s->ctx[i] != ctx)
			continue;
		uint64_t h[LB_IO_DEPTH_BUCKETS];

		s->closed_depth += lb_io_avg_depth(ctx);
		lb_io_depth_hist(ctx, h, LB_IO_DEPTH_BUCKETS);
		for (int k = 0; k < LB_IO_DEPTH_BUCKETS; k++)
			s->closed_depth_ns[k] += h[k];
		s->ctx[i] = s->ctx[--s->nctx];
		publish(s);
		return;
	}
}

/* ---- windows ---------------------------------------------------------------------------- */

static void new_window(struct lb_fio_stat *s, uint32_t win)
{
	for (int d = 0; d < DIR_N; d++)
		for (int p = 0; p < PART_N; p++) {
			struct part *pt = &s->part[d][p];

			/* Readers only look at stats whose window is current; clear before moving. */
			lb_hist_clear(&pt->h);
			pt->n = pt->sum_ns = 0;
		}
	for (uint32_t i = 0; i < s->nctx; i++)
		lb_io_depth_reset(s->ctx[i]);
	/* Per-second counts start again at the window's own second 0, so that the series covers the
	 * measured window exactly whatever the warm-up (counted from the epoch, a window starting
	 * at 2.0003 s lost its first second). The engine sets the start before the window number. */
	s->win_start_ns = __atomic_load_n(&s->w->eng->window_start_ns, __ATOMIC_ACQUIRE);
	for (uint32_t c = 0; c < SEC_CHUNKS && s->sec[c]; c++)
		memset(s->sec[c], 0, sizeof(*s->sec[c]));
	s->sec_cur = UINT32_MAX;
	s->closed_depth = 0;
	memset(s->closed_depth_ns, 0, sizeof(s->closed_depth_ns));
	__atomic_store_n(&s->window, win, __ATOMIC_RELEASE);
	publish(s);
	/* The first worker into a window takes its starting CPU and device reading. */
	struct fio_run *run = s->run;

	pthread_mutex_lock(&run->lock);
	if (run->start_window == UINT32_MAX || run->start_window < win) {
		take_moment(run, &run->start_m);
		run->start_window = win;
	}
	pthread_mutex_unlock(&run->lock);
}

static inline void check_window(struct lb_fio_stat *s)
{
	uint32_t win = __atomic_load_n(&s->w->eng->window, __ATOMIC_RELAXED);

	if (LB_UNLIKELY(win != s->window))
		new_window(s, win);
}

/* ---- submit and reap -------------------------------------------------------------------- */

LB_FFI int32_t lb_fio_submit(struct lb_fio_stat *s, struct lb_io_ctx *ctx, uint32_t op,
			     struct lb_io_file *f, void *buf, uint64_t len, uint64_t off,
			     uint64_t tag, int32_t type_id, uint32_t flags)
{
	struct lb_io *io;
	uint64_t t = tag & TAG_USER_MASK;
	int r;

	if (s->worker)
		check_window(s);
	io = lb_io_get(ctx);
	if (!io)
		return LB_IO_E_FULL;
	if (type_id >= 0 && type_id < LB_MAX_TYPES)
		t |= (uint64_t)(type_id + 1) << TAG_TYPE_SHIFT;
	if (flags & LB_FIO_EVENT)
		t |= TAG_EVENT;
	if (flags & LB_FIO_PARTS)
		t |= TAG_PARTS;
	lb_io_prep(io, op, f, buf, len, off, t);
	r = lb_io_submit(ctx, io, (flags & LB_FIO_BATCH) ? 0 : LB_IO_SUBMIT_COMMIT);
	if (r < 0)
		lb_io_put(ctx, io);
	return r;
}

static struct sec_chunk *sec_chunk(struct lb_fio_stat *s, uint32_t c)
{
	struct sec_chunk *k = s->sec[c];

	if (LB_UNLIKELY(!k)) {
		k = lb_xzalloc(sizeof(*k));
		__atomic_store_n(&s->sec[c], k, __ATOMIC_RELEASE);
	}
	return k;
}

static void record(struct lb_fio_stat *s, struct lb_io *io)
{
	struct lb_worker *w = s->w;
	uint64_t lat = io->complete_ns > io->start_ns ? io->complete_ns - io->start_ns : 0;
	int dir = io->op == LB_IO_READ ? DIR_READ : io->op == LB_IO_WRITE ? DIR_WRITE : DIR_SYNC;
	bool failed = io->error != 0 || (dir != DIR_SYNC && (uint64_t)io->result_bytes != io->length_bytes);
	int type = (int)((io->tag >> TAG_TYPE_SHIFT) & 0xff) - 1;

	if (type >= 0)
		lb_stats_type(&w->stats, type, lat, failed ? LB_OUTCOME_ERROR : LB_OUTCOME_OK);
	if (failed) {
		lb_stats_add(&w->stats, LB_CNT_ERROR, 1);
		if (!w->first_error) {
			static const char *const names[] = { [DIR_READ] = "read", [DIR_WRITE] = "write", [DIR_SYNC] = "sync" };
			char *m = io->error ? lb_xasprintf("%s: %s", names[dir], lb_io_strerror(io->error))
				: lb_xasprintf("short %s: %lld of %llu bytes", names[dir], (long long)io->result_bytes,
					       (unsigned long long)io->length_bytes);
			lb_worker_note_error(w, m, strlen(m));
			free(m);
		}
		return;
	}
	if (dir == DIR_READ) {
		lb_stats_add(&w->stats, LB_CNT_READ, 1);
		lb_stats_add(&w->stats, LB_CNT_BYTES_READ, (uint64_t)io->result_bytes);
	} else if (dir == DIR_WRITE) {
		lb_stats_add(&w->stats, LB_CNT_WRITE, 1);
		lb_stats_add(&w->stats, LB_CNT_BYTES_WRITTEN, (uint64_t)io->result_bytes);
	} else {
		lb_stats_add(&w->stats, LB_CNT_OTHER, 1);
	}
	if (!s->worker)
		return;
	check_window(s);
	if (io->tag & TAG_EVENT)
		lb_stats_event(&w->stats, lat, s->window);
	if (io->tag & TAG_PARTS) {
		uint64_t sub = io->issue_ns > io->start_ns ? io->issue_ns - io->start_ns : 0;
		struct part *ps = &s->part[dir][PART_SUBMIT], *pc = &s->part[dir][PART_COMPLETE];

		lb_hist_record(&ps->h, sub);
		__atomic_store_n(&ps->n, ps->n + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&ps->sum_ns, ps->sum_ns + sub, __ATOMIC_RELAXED);
		lb_hist_record(&pc->h, lat - sub);
		__atomic_store_n(&pc->n, pc->n + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&pc->sum_ns, pc->sum_ns + (lat - sub), __ATOMIC_RELAXED);
	}
	int64_t rel = (int64_t)io->complete_ns - w->eng->epoch_ns - s->win_start_ns;
	uint32_t sec = rel > 0 ? (uint32_t)(rel / LB_NS_PER_S) : 0;
	if (sec < SEC_CHUNK * SEC_CHUNKS) {
		struct sec_chunk *k = sec_chunk(s, sec / SEC_CHUNK);
		uint32_t *c = &k->n[sec % SEC_CHUNK][dir];

		__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
	}
	if (LB_UNLIKELY(sec != s->sec_cur)) {
		s->sec_cur = sec;
		publish(s);
	}
}

LB_FFI int32_t lb_fio_reap(struct lb_fio_stat *s, struct lb_io_ctx *ctx, uint32_t min,
			   uint32_t max, struct lb_io **out, int64_t timeout_ns)
{
	int n = lb_io_reap(ctx, min, max, out, timeout_ns);

	for (int i = 0; i < n; i++) {
		record(s, out[i]);
		lb_io_put(ctx, out[i]);
	}
	return n;
}

LB_FFI void lb_fio_event(struct lb_fio_stat *s, double lat_ns)
{
	if (!s->worker)
		return;
	check_window(s);
	lb_stats_event(&s->w->stats, lat_ns > 0 ? (uint64_t)lat_ns : 0, s->window);
}

LB_FFI int64_t lb_fio_sync(struct lb_fio_stat *s, struct lb_io_ctx *ctx, uint32_t op,
			   struct lb_io_file *f, void *buf, uint64_t len, uint64_t off,
			   int32_t type_id, uint32_t flags)
{
	struct lb_io *io;
	int r;

	if (lb_io_inflight(ctx))
		return LB_IO_E_STATE;
	r = lb_fio_submit(s, ctx, op, f, buf, len, off, 0, type_id, flags);
	if (r < 0)
		return r;
	do
		r = lb_fio_reap(s, ctx, 1, 1, &io, -1);
	while (r == 0);
	if (r < 0)
		return r;
	return io->error ? io->error : io->result_bytes;
}

LB_FFI void lb_fio_flush(struct lb_fio_stat *s, int32_t final)
{
	publish(s);
	if (!final || !s->worker || s->finished)
		return;
	s->finished = 1;
	pthread_mutex_lock(&s->run->lock);
	s->run->nfinished++;
	take_moment(s->run, &s->run->end_m);
	pthread_mutex_unlock(&s->run->lock);
}

/* ---- report ------------------------------------------------------------------------------ */

/* The figures of one window, from the engine's result of it (lb_engine_window_now) and the
 * workers' own recorders. */
struct lb_fio_report {
	struct fio_run *run;
	struct lb_window_buffers buf;
	struct lb_result res;        /* valid when have_res: a run's workers exist */
	bool have_res;
	struct lb_fio_window win;
	uint32_t nsec;
	double *series[DIR_N + 1];
	struct lb_hist part[DIR_N][PART_N];
	uint64_t part_sum[DIR_N][PART_N];
	double depth_ns[LB_IO_DEPTH_BUCKETS], depth_total;
};

static void hist_figures(const struct lb_hist *h, uint64_t sum_ns, uint64_t n, const double *pcts,
			 int32_t npct, struct lb_fio_lat *out)
{
	int lo = h->lo, hi = h->hi;
	double var = 0;

	while (lo <= hi && !h->counts[lo])
		lo++;
	while (hi >= lo && !h->counts[hi])
		hi--;
	out->count = n;
	out->overflow = h->overflow;
	out->sum_ns = (double)sum_ns;
	if (!n || hi < lo)
		return;
	out->min_ns = (double)lb_hist_value_at(lo);
	out->max_ns = (double)(lb_hist_value_at(hi) + lb_hist_width_at(hi) - 1);
	out->mean_ns = (double)sum_ns / (double)n;
	for (int i = lo; i <= hi; i++) {
		uint64_t c = h->counts[i];

		if (!c)
			continue;
		double mid = (double)lb_hist_value_at(i) + (double)(lb_hist_width_at(i) - 1) / 2;
		var += (double)c * (mid - out->mean_ns) * (mid - out->mean_ns);
		uint64_t ms = lb_hist_value_at(i) / (uint64_t)LB_NS_PER_MS;
		out->ms[ms < 24 ? ms : 24] += c;
	}
	out->ms[24] += h->overflow;
	out->stddev_ns = sqrt(var / (double)n);
	if (npct > 32)
		npct = 32;
	for (int i = 0; i < npct; i++)
		out->pct_ns[i] = (double)lb_hist_percentile(h, pcts[i], (uint64_t)out->min_ns,
							    (uint64_t)out->max_ns);
}

/* The window's bounds, and room for its whole seconds counted from its start (a run stopped by
 * --time ends a few microseconds either side of a whole second: the last one counts when it is
 * 95% there). Until every worker is done the window ends now. */
static void window_bounds(struct lb_fio_report *r)
{
	const struct lb_result *res = &r->res;
	struct lb_fio_window *wf = &r->win;

	wf->finished = res->workers_done;
	wf->start_s = res->start_s;
	wf->end_s = res->workers_done ? res->workers_end_s : res->end_s;
	wf->elapsed_s = wf->end_s - wf->start_s;
	double whole = wf->elapsed_s > 0 ? floor(wf->elapsed_s + 0.05) : 0;
	r->nsec = whole < (double)SEC_CHUNK * SEC_CHUNKS ? (uint32_t)whole : 0;
	for (int d = 0; d <= DIR_N; d++)
		r->series[d] = lb_xcalloc(r->nsec ? r->nsec : 1, sizeof(double));
}

/* Adds a worker's per-second completions to the window's series. */
static void add_series(struct lb_fio_report *r, const struct lb_fio_stat *s)
{
	for (uint32_t sec = 0; sec < r->nsec; sec++) {
		struct sec_chunk *c = __atomic_load_n(&s->sec[sec / SEC_CHUNK], __ATOMIC_ACQUIRE);

		if (!c)
			continue;
		for (int d = 0; d < DIR_N; d++) {
			double v = __atomic_load_n(&c->n[sec % SEC_CHUNK][d], __ATOMIC_RELAXED);

			r->series[d][sec] += v;
			r->series[DIR_N][sec] += v;
		}
	}
}

static void add_parts(struct lb_fio_report *r, const struct lb_fio_stat *s)
{
	for (int d = 0; d < DIR_N; d++)
		for (int p = 0; p < PART_N; p++) {
			lb_hist_add(&r->part[d][p], &s->part[d][p].h);
			r->part_sum[d][p] += __atomic_load_n(&s->part[d][p].sum_ns, __ATOMIC_RELAXED);
		}
}

/* Adds the achieved depth a worker last published for this window. */
static void add_depth(struct lb_fio_report *r, struct lb_fio_stat *s)
{
	pthread_mutex_lock(&s->pub_lock);
	if (s->pub_window == r->res.window && (s->pub_depth > 0 || s->nctx)) {
		r->win.depth_threads++;
		r->depth_total += s->pub_depth;
		for (int k = 0; k < LB_IO_DEPTH_BUCKETS; k++)
			r->depth_ns[k] += (double)s->pub_depth_ns[k];
	}
	pthread_mutex_unlock(&s->pub_lock);
}

/* Every run worker's recorder of this window (under the run's lock). */
static void add_workers(struct lb_fio_report *r)
{
	for (struct lb_fio_stat *s = r->run->stats; s; s = s->next) {
		if (!s->worker || __atomic_load_n(&s->window, __ATOMIC_ACQUIRE) != r->res.window)
			continue;
		add_series(r, s);
		/* The worker may have moved to the next window meanwhile: its parts are then not
		 * this window's. */
		if (__atomic_load_n(&s->window, __ATOMIC_ACQUIRE) != r->res.window)
			continue;
		add_parts(r, s);
		add_depth(r, s);
	}
}

/* CPU and device counters from the run's system metrics over the window (they start exactly at
 * it); the watched device's rates are turned back into /proc/diskstats deltas. */
static void sys_figures(struct lb_fio_window *wf, const struct fio_run *run, const struct lb_sys_sample *ss)
{
	wf->have_cpu = ss->interval_s > 0;
	wf->cpu_wall_s = ss->interval_s;
	wf->cpu_user_s = ss->proc_user_pct / 100 * ss->interval_s;
	wf->cpu_sys_s = ss->proc_system_pct / 100 * ss->interval_s;
	for (int i = 0; run->have_watch && i < ss->ndisks; i++) {
		const struct lb_sys_disk *d = &ss->disks[i];
		double ms = ss->interval_s * 1e3;

		if (strcmp(d->name, run->watch.name) != 0)
			continue;
		wf->have_dev = 1;
		wf->dev_source = 1;
		wf->dev[LB_DISKSTAT_READS] = d->reads;
		wf->dev[LB_DISKSTAT_WRITES] = d->writes;
		wf->dev[LB_DISKSTAT_FLUSHES] = d->flushes;
		wf->dev[LB_DISKSTAT_READ_SECTORS] = (uint64_t)llround(d->read_mib_per_s * ss->interval_s * 2048);
		wf->dev[LB_DISKSTAT_WRITE_SECTORS] = (uint64_t)llround(d->write_mib_per_s * ss->interval_s * 2048);
		wf->dev[LB_DISKSTAT_READ_MS] = (uint64_t)llround(d->read_await_ms * (double)d->reads);
		wf->dev[LB_DISKSTAT_WRITE_MS] = (uint64_t)llround(d->write_await_ms * (double)d->writes);
		wf->dev[LB_DISKSTAT_BUSY_MS] = (uint64_t)llround(d->util_pct / 100 * ms);
		wf->dev[LB_DISKSTAT_QUEUE_MS] = (uint64_t)llround(d->avg_queue * ms);
	}
}

/* Without system metrics: fileio's own readings, from the window's first I/O to the last
 * worker's end (or now). */
static void moment_figures(struct lb_fio_window *wf, const struct fio_run *run)
{
	const struct moment *a = &run->start_m, *b = &run->end_m;
	struct moment now;

	if (!wf->finished || run->nfinished == 0) {
		take_moment(run, &now);
		b = &now;
	}
	wf->have_cpu = 1;
	wf->cpu_user_s = b->user_s - a->user_s;
	wf->cpu_sys_s = b->sys_s - a->sys_s;
	wf->cpu_wall_s = (double)(b->t_ns - a->t_ns) / 1e9;
	if (a->have_dev && b->have_dev) {
		wf->have_dev = 1;
		wf->dev_source = 2;
		for (int i = 0; i < LB_DISKSTAT_NFIELDS && i < 17; i++)
			wf->dev[i] = i == LB_DISKSTAT_IN_FLIGHT ? b->dev[i]
				: b->dev[i] >= a->dev[i] ? b->dev[i] - a->dev[i] : 0;
	}
}

/* CPU and device counters (under the run's lock). */
static void cpu_device_figures(struct lb_fio_report *r)
{
	const struct fio_run *run = r->run;
	struct lb_fio_window *wf = &r->win;

	if (r->res.sys)
		sys_figures(wf, run, r->res.sys);
	else if (run->start_window == r->res.window)
		moment_figures(wf, run);
	if (wf->have_dev) {
		snprintf(wf->dev_name, sizeof(wf->dev_name), "%s", run->watch.name);
		wf->dev_major = run->watch.major;
		wf->dev_minor = run->watch.minor;
	}
}

/* IOPS mean, deviation and extremes per direction over the window's whole seconds. */
static void series_figures(struct lb_fio_report *r)
{
	struct lb_fio_window *wf = &r->win;

	wf->seconds = r->nsec;
	if (!r->nsec)
		return;
	for (int d = 0; d <= DIR_N; d++) {
		double sum = 0, sq = 0, mn = INFINITY, mx = 0;

		for (uint32_t k = 0; k < r->nsec; k++) {
			double v = r->series[d][k];

			sum += v;
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
		}
		double mean = sum / r->nsec;
		for (uint32_t k = 0; k < r->nsec; k++)
			sq += (r->series[d][k] - mean) * (r->series[d][k] - mean);
		wf->iops_mean[d] = mean;
		wf->iops_stddev[d] = sqrt(sq / r->nsec);
		wf->iops_min[d] = mn;
		wf->iops_max[d] = mx;
	}
}

static void depth_figures(struct lb_fio_report *r)
{
	struct lb_fio_window *wf = &r->win;
	double tot = 0;

	wf->depth_sum = r->depth_total;
	for (int k = 0; k < LB_IO_DEPTH_BUCKETS; k++)
		tot += r->depth_ns[k];
	for (int k = 0; k < LB_IO_DEPTH_BUCKETS; k++)
		wf->depth_pct[k] = tot > 0 ? 100 * r->depth_ns[k] / tot : 0;
}

static void window_figures(struct lb_fio_report *r)
{
	window_bounds(r);
	pthread_mutex_lock(&r->run->lock);
	add_workers(r);
	cpu_device_figures(r);
	pthread_mutex_unlock(&r->run->lock);
	series_figures(r);
	depth_figures(r);
}

LB_FFI struct lb_fio_report *lb_fio_report_new(struct lb_worker *w)
{
	struct lb_fio_report *r = lb_xzalloc(sizeof(*r));

	r->run = fio_run_of(w->eng);
	for (int d = 0; d < DIR_N; d++)
		for (int p = 0; p < PART_N; p++)
			lb_hist_init(&r->part[d][p]);
	r->have_res = lb_engine_window_now(w->eng, &r->buf, &r->res);
	if (r->have_res)
		window_figures(r);
	return r;
}

LB_FFI void lb_fio_report_free(struct lb_fio_report *r)
{
	if (!r)
		return;
	if (r->have_res)
		lb_window_buffers_fini(&r->buf);
	for (int d = 0; d < DIR_N; d++)
		for (int p = 0; p < PART_N; p++)
			lb_hist_fini(&r->part[d][p]);
	for (int d = 0; d <= DIR_N; d++)
		free(r->series[d]);
	free(r);
}

LB_FFI int32_t lb_fio_report_type(struct lb_fio_report *r, int32_t type_id, const double *pcts,
				  int32_t npct, struct lb_fio_lat *out)
{
	memset(out, 0, sizeof(*out));
	if (!r->have_res || type_id < 0 || type_id >= LB_MAX_TYPES || !r->res.snap->types[type_id])
		return 0;
	const struct lb_type_stats *t = r->res.snap->types[type_id];
	hist_figures(&t->lat, t->sum_ns, t->cnt[LB_TCNT_DONE], pcts, npct, out);
	out->errors = t->cnt[LB_TCNT_ERROR];
	return 1;
}

LB_FFI int32_t lb_fio_report_part(struct lb_fio_report *r, uint32_t dir, uint32_t part,
				  const double *pcts, int32_t npct, struct lb_fio_lat *out)
{
	memset(out, 0, sizeof(*out));
	if (dir >= DIR_N || part >= PART_N)
		return 0;
	uint64_t n = lb_hist_total(&r->part[dir][part]);
	if (!n)
		return 0;
	hist_figures(&r->part[dir][part], r->part_sum[dir][part], n, pcts, npct, out);
	return 1;
}

LB_FFI void lb_fio_report_window(struct lb_fio_report *r, struct lb_fio_window *out)
{
	*out = r->win;
}

LB_FFI uint32_t lb_fio_report_series(struct lb_fio_report *r, uint32_t dir, double *out,
				     uint32_t max)
{
	if (dir > DIR_N)
		return 0;
	uint32_t n = r->nsec < max ? r->nsec : max;
	if (out)
		memcpy(out, r->series[dir], n * sizeof(double));
	return r->nsec;
}

LB_FFI int32_t lb_fio_create(const char *path, uint64_t size_bytes, char *err, uint32_t errlen)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	int e;

	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	if (size_bytes && ftruncate(fd, (off_t)size_bytes) < 0) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "cannot size %s to %llu bytes: %s", path,
			 (unsigned long long)size_bytes, strerror(e));
		return -e;
	}
	close(fd);
	return 0;
}
