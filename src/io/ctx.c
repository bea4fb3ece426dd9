/* The job helper: one context per thread wrapping one engine instance. The core stamps
 * start_ns before queue() and complete_ns once per reaping call, keeps the pending count that
 * bounds submissions to the depth, and integrates the number of ios inside the engine over
 * time (the achieved depth). Engines only see queue/commit/getevents/event. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

#define MAX_DEPTH LB_IO_MAX_DEPTH

/* core_state bits of struct lb_io */
#define IO_PENDING 1u /* submitted, not yet returned by lb_io_reap */
#define IO_TAKEN 2u   /* pool io handed out by lb_io_get */

struct lb_io_ctx {
	const struct lb_io_ops *ops;
	void *priv;
	uint32_t depth;
	uint32_t pending;   /* submitted and not yet reaped: bounded by depth */
	uint32_t queued;    /* accepted by an async engine, not yet committed */
	uint32_t async_out; /* held by an async engine (queued or submitted) */
	uint32_t in_engine; /* started and completion not yet stamped: the depth we report */

	/* I/Os completed inside queue() (sync engines, early failures), FIFO until reaped */
	struct lb_io **done;
	uint32_t done_head, done_count;

	/* achieved depth: integral of in_engine over time since depth_since_ns */
	uint64_t depth_since_ns; /* 0 = window starts at the next change */
	uint64_t depth_last_ns;
	double depth_area;       /* ios x ns */
	uint64_t depth_hist_ns[LB_IO_DEPTH_BUCKETS];

	/* pool of depth ios for callers that do not want to own them (FFI) */
	struct lb_io *pool;
	struct lb_io **pool_free;
	uint32_t pool_nfree;

	uint64_t n_submitted, n_reaped, n_commits, n_reaps;
	struct lb_io sync_io;
	struct lb_io_ctx *live_next; /* this thread's contexts (see lb_io_quiesce_thread) */
	struct lb_io_ctx **live_head; /* the creating thread's list, even if freed elsewhere */
	uint64_t last_lat_ns;
	char errmsg[256];
};

void *lb_io_ctx_priv(struct lb_io_ctx *ctx)
{
	return ctx->priv;
}

int lb_io_ctx_set_error(struct lb_io_ctx *ctx, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->errmsg, sizeof(ctx->errmsg), fmt, ap);
	va_end(ap);
	return code;
}

const char *lb_io_ctx_errmsg(const struct lb_io_ctx *ctx)
{
	return ctx->errmsg;
}

const char *lb_io_ctx_engine(const struct lb_io_ctx *ctx)
{
	return ctx->ops->name;
}

uint32_t lb_io_ctx_depth(const struct lb_io_ctx *ctx)
{
	return ctx->depth;
}

uint32_t lb_io_inflight(const struct lb_io_ctx *ctx)
{
	return ctx->pending;
}

/* ---- depth accounting ---------------------------------------------------------------- */

static unsigned depth_bucket(uint32_t n)
{
	unsigned b = 0;

	if (n == 0)
		return 0;
	while (n > 1 && b < LB_IO_DEPTH_BUCKETS - 2) {
		n >>= 1;
		b++;
	}
	return b + 1;
}

/* Call before every change of in_engine, with the timestamp of the change. */
static void depth_advance(struct lb_io_ctx *ctx, uint64_t now_ns)
{
	uint64_t dt;

	if (!ctx->depth_since_ns) {
		ctx->depth_since_ns = ctx->depth_last_ns = now_ns;
		return;
	}
	if (now_ns <= ctx->depth_last_ns)
		return;
	dt = now_ns - ctx->depth_last_ns;
	ctx->depth_area += (double)ctx->in_engine * (double)dt;
	ctx->depth_hist_ns[depth_bucket(ctx->in_engine)] += dt;
	ctx->depth_last_ns = now_ns;
}

double lb_io_avg_depth(const struct lb_io_ctx *ctx)
{
	uint64_t span = ctx->depth_last_ns - ctx->depth_since_ns;

	return ctx->depth_since_ns && span ? ctx->depth_area / (double)span : 0.0;
}

uint32_t lb_io_depth_hist(const struct lb_io_ctx *ctx, uint64_t *out_ns, uint32_t n)
{
	for (uint32_t i = 0; out_ns && i < n && i < LB_IO_DEPTH_BUCKETS; i++)
		out_ns[i] = ctx->depth_hist_ns[i];
	return LB_IO_DEPTH_BUCKETS;
}

void lb_io_depth_reset(struct lb_io_ctx *ctx)
{
	ctx->depth_since_ns = ctx->depth_last_ns = 0;
	ctx->depth_area = 0;
	memset(ctx->depth_hist_ns, 0, sizeof(ctx->depth_hist_ns));
	if (ctx->in_engine)
		depth_advance(ctx, lb_io_now_ns());
}

void lb_io_ctx_counters(const struct lb_io_ctx *ctx, uint64_t *out4)
{
	out4[0] = ctx->n_submitted;
	out4[1] = ctx->n_reaped;
	out4[2] = ctx->n_commits;
	out4[3] = ctx->n_reaps;
}

/* ---- life cycle ---------------------------------------------------------------------- */

/* The contexts created by this thread and not freed yet. Touched at creation and free only. */
static _Thread_local struct lb_io_ctx *live_ctxs;

static void live_remove(struct lb_io_ctx *ctx)
{
	for (struct lb_io_ctx **p = ctx->live_head; *p; p = &(*p)->live_next)
		if (*p == ctx) {
			*p = ctx->live_next;
			return;
		}
}

void lb_io_quiesce_thread(void)
{
	struct lb_io *done[64];

	for (struct lb_io_ctx *ctx = live_ctxs; ctx; ctx = ctx->live_next)
		while (lb_io_inflight(ctx) > 0) {
			int n = lb_io_reap(ctx, 1, 64, done, 5 * (int64_t)1000000000);
			if (n <= 0)
				break; /* the engine is broken or stuck: nothing more we can do */
			for (int i = 0; i < n; i++)
				lb_io_put(ctx, done[i]);
		}
}

static void ctx_release(struct lb_io_ctx *ctx)
{
	free(ctx->priv);
	free(ctx->done);
	free(ctx->pool);
	free(ctx->pool_free);
	free(ctx);
}

static int ctx_alloc(const struct lb_io_ops *ops, uint32_t depth, struct lb_io_ctx **out)
{
	struct lb_io_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return -ENOMEM;
	ctx->ops = ops;
	ctx->depth = depth;
	ctx->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	ctx->done = calloc(depth, sizeof(*ctx->done));
	ctx->pool = calloc(depth, sizeof(*ctx->pool));
	ctx->pool_free = calloc(depth, sizeof(*ctx->pool_free));
	if (!ctx->priv || !ctx->done || !ctx->pool || !ctx->pool_free) {
		ctx_release(ctx);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < depth; i++)
		ctx->pool_free[i] = &ctx->pool[depth - 1 - i];
	ctx->pool_nfree = depth;
	*out = ctx;
	return 0;
}

int lb_io_ctx_new(const char *name, uint32_t depth, struct lb_io_ctx **out, char *errbuf,
		  uint32_t errbuf_len)
{
	const struct lb_io_ops *ops;
	struct lb_io_ctx *ctx;
	int r;

	*out = NULL;
	lb_io_msg(errbuf, errbuf_len, 0, "%s", ""); /* success leaves an empty message */
	if (depth < 1 || depth > MAX_DEPTH)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_ARG,
				 "I/O depth %u out of range (1..%u)", depth, MAX_DEPTH);
	ops = lb_io_engine_find(name, &r, errbuf, errbuf_len);
	if (!ops)
		return r;
	/* The engine's own limit, said before the kernel refuses it with EINVAL or EAGAIN. */
	char why[160];
	uint32_t most = lb_io_engine_max_depth(name, why, sizeof(why));
	if (depth > most)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_ARG,
				 "%s holds at most %u I/Os in flight (%s), not %u", name, most, why, depth);
	r = ctx_alloc(ops, depth, &ctx);
	if (r < 0)
		return lb_io_msg(errbuf, errbuf_len, r, "I/O engine %s: out of memory", name);
	r = ops->init ? ops->init(ctx, depth) : 0;
	if (r < 0) {
		lb_io_msg(errbuf, errbuf_len, r, "%s", ctx->errmsg);
		if (ops->cleanup)
			ops->cleanup(ctx);
		ctx_release(ctx);
		return r;
	}
	ctx->live_head = &live_ctxs;
	ctx->live_next = live_ctxs;
	live_ctxs = ctx;
	*out = ctx;
	return 0;
}

void lb_io_ctx_free(struct lb_io_ctx *ctx)
{
	if (!ctx)
		return;
	live_remove(ctx);
	if (ctx->ops->cleanup)
		ctx->ops->cleanup(ctx);
	ctx_release(ctx);
}

/* ---- pool ---------------------------------------------------------------------------- */

struct lb_io *lb_io_get(struct lb_io_ctx *ctx)
{
	struct lb_io *io;

	if (!ctx->pool_nfree)
		return NULL;
	io = ctx->pool_free[--ctx->pool_nfree];
	memset(io, 0, sizeof(*io));
	io->core_state = IO_TAKEN;
	return io;
}

void lb_io_put(struct lb_io_ctx *ctx, struct lb_io *io)
{
	if (!io || io < ctx->pool || io >= ctx->pool + ctx->depth)
		return;
	if ((io->core_state & (IO_TAKEN | IO_PENDING)) != IO_TAKEN)
		return;
	io->core_state = 0;
	ctx->pool_free[ctx->pool_nfree++] = io;
}

void lb_io_prep(struct lb_io *io, uint32_t op, struct lb_io_file *file, void *buf,
		uint64_t length_bytes, uint64_t offset_bytes, uint64_t tag)
{
	io->op = op;
	io->file = file;
	io->buf = buf;
	io->length_bytes = length_bytes;
	io->offset_bytes = offset_bytes;
	io->tag = tag;
}

/* ---- submit / commit / reap ---------------------------------------------------------- */

static int check_io(struct lb_io_ctx *ctx, const struct lb_io *io)
{
	if (io->core_state & IO_PENDING)
		return lb_io_ctx_set_error(ctx, LB_IO_E_STATE, "I/O submitted twice (still pending)");
	if (!io->file)
		return lb_io_ctx_set_error(ctx, LB_IO_E_ARG, "I/O without a file");
	switch (io->op) {
	case LB_IO_FSYNC:
	case LB_IO_FDATASYNC:
		return 0;
	case LB_IO_READ:
	case LB_IO_WRITE:
		break;
	default:
		return lb_io_ctx_set_error(ctx, LB_IO_E_ARG, "unknown I/O op %u", io->op);
	}
	if (!io->buf || !io->length_bytes || io->length_bytes > LB_IO_MAX_BYTES)
		return lb_io_ctx_set_error(ctx, LB_IO_E_ARG,
					   "%s of %s: no buffer, or length %llu not in 1..%u",
					   io->op == LB_IO_READ ? "read" : "write", io->file->path,
					   (unsigned long long)io->length_bytes, LB_IO_MAX_BYTES);
	if (ctx->ops->flags & LB_IO_F_MEMMAP)
		return 0;
	return lb_io_file_check_align(io->file, io->buf, io->length_bytes, io->offset_bytes,
				      ctx->errmsg, sizeof(ctx->errmsg));
}

static void push_done(struct lb_io_ctx *ctx, struct lb_io *io)
{
	uint64_t now = lb_io_now_ns();

	io->issue_ns = io->start_ns; /* nothing was in flight between start and completion */
	io->complete_ns = now;
	depth_advance(ctx, now);
	ctx->in_engine--;
	ctx->done[(ctx->done_head + ctx->done_count) % ctx->depth] = io;
	ctx->done_count++;
}

static int commit_queued(struct lb_io_ctx *ctx)
{
	int r;

	if (!ctx->queued)
		return 0;
	r = ctx->ops->commit(ctx);
	if (r < 0)
		return r;
	ctx->queued -= (uint32_t)r;
	if (r > 0)
		ctx->n_commits++;
	return r;
}

int lb_io_commit(struct lb_io_ctx *ctx)
{
	return commit_queued(ctx);
}

/* Undo the accounting of an io the engine refused to take. */
static void unstart(struct lb_io_ctx *ctx, struct lb_io *io)
{
	depth_advance(ctx, lb_io_now_ns());
	ctx->in_engine--;
	ctx->pending--;
	ctx->n_submitted--;
	io->core_state &= ~IO_PENDING;
}

int lb_io_submit(struct lb_io_ctx *ctx, struct lb_io *io, uint32_t flags)
{
	enum lb_io_q q;
	int r;

	if (ctx->pending >= ctx->depth)
		return lb_io_ctx_set_error(ctx, LB_IO_E_FULL,
					   "%u I/Os pending at depth %u: reap before submitting",
					   ctx->pending, ctx->depth);
	r = check_io(ctx, io);
	if (r < 0)
		return r;
	io->error = 0;
	io->result_bytes = 0;
	io->issue_ns = io->complete_ns = 0;
	io->start_ns = lb_io_now_ns();
	depth_advance(ctx, io->start_ns);
	ctx->in_engine++;
	ctx->pending++;
	ctx->n_submitted++;
	io->core_state |= IO_PENDING;

	q = ctx->ops->queue(ctx, io);
	if (q == LB_IO_Q_BUSY) {
		commit_queued(ctx);
		q = ctx->ops->queue(ctx, io);
		if (q == LB_IO_Q_BUSY) {
			unstart(ctx, io);
			return lb_io_ctx_set_error(ctx, LB_IO_E_FULL,
						   "I/O engine %s is full: reap before submitting",
						   ctx->ops->name);
		}
	}
	if (q == LB_IO_Q_COMPLETED) {
		push_done(ctx, io);
		return 0;
	}
	ctx->queued++;
	ctx->async_out++;
	/* A commit failure here is reported by the next lb_io_commit/lb_io_reap: the io is
	 * pending either way, and the contract says 0 means "pending". */
	if (flags & LB_IO_SUBMIT_COMMIT)
		commit_queued(ctx);
	return 0;
}

static uint32_t take_done(struct lb_io_ctx *ctx, struct lb_io **out, uint32_t max)
{
	uint32_t n = 0;

	while (n < max && ctx->done_count) {
		out[n++] = ctx->done[ctx->done_head];
		ctx->done_head = (ctx->done_head + 1) % ctx->depth;
		ctx->done_count--;
	}
	return n;
}

/* Ask the async engine for up to max ios, at least min (clamped to what was submitted). */
static int take_events(struct lb_io_ctx *ctx, uint32_t min, uint32_t max, struct lb_io **out,
		       int64_t timeout_ns)
{
	uint32_t submitted;
	uint64_t now;
	int got, r;

	r = commit_queued(ctx);
	if (r < 0 && !ctx->async_out)
		return r;
	submitted = ctx->async_out - ctx->queued;
	if (max > ctx->depth) /* engines size their event arrays by depth */
		max = ctx->depth;
	if (min > submitted)
		min = submitted;
	got = ctx->ops->getevents(ctx, min, max, timeout_ns);
	if (got <= 0)
		return got;
	now = lb_io_now_ns();
	depth_advance(ctx, now);
	ctx->in_engine -= (uint32_t)got;
	ctx->async_out -= (uint32_t)got;
	for (int i = 0; i < got; i++) {
		struct lb_io *io = ctx->ops->event(ctx, (uint32_t)i);

		if (!io->issue_ns) /* failed before it was issued */
			io->issue_ns = io->start_ns;
		io->complete_ns = now;
		out[i] = io;
	}
	return got;
}

int lb_io_reap(struct lb_io_ctx *ctx, uint32_t min, uint32_t max, struct lb_io **out,
	       int64_t timeout_ns)
{
	uint32_t n;
	int got = 0;

	if (!out || !max)
		return lb_io_ctx_set_error(ctx, LB_IO_E_ARG, "reap needs an out array and max > 0");
	if (min > ctx->pending)
		min = ctx->pending;
	if (min > max)
		min = max;
	n = take_done(ctx, out, max);
	if (ctx->async_out && n < max) {
		got = take_events(ctx, min > n ? min - n : 0, max - n, out + n, timeout_ns);
		if (got < 0 && n == 0)
			return got;
		if (got > 0)
			n += (uint32_t)got;
	}
	for (uint32_t i = 0; i < n; i++)
		out[i]->core_state &= ~IO_PENDING;
	ctx->pending -= n;
	ctx->n_reaped += n;
	if (n)
		ctx->n_reaps++;
	return (int)n;
}

/* ---- blocking path ------------------------------------------------------------------- */

static const char *op_name(uint32_t op)
{
	static const char *const names[] = { "read", "write", "fsync", "fdatasync" };

	return op < 4 ? names[op] : "?";
}

static int64_t sync_op(struct lb_io_ctx *ctx, uint32_t op, struct lb_io_file *f, void *buf,
		       uint64_t length_bytes, uint64_t offset_bytes)
{
	struct lb_io *io = &ctx->sync_io, *got;
	int r;

	if (ctx->pending)
		return lb_io_ctx_set_error(ctx, LB_IO_E_STATE,
					   "blocking I/O needs an idle context (%u I/Os pending)",
					   ctx->pending);
	memset(io, 0, sizeof(*io));
	lb_io_prep(io, op, f, buf, length_bytes, offset_bytes, 0);
	r = lb_io_submit(ctx, io, LB_IO_SUBMIT_COMMIT);
	if (r < 0)
		return r;
	do
		r = lb_io_reap(ctx, 1, 1, &got, -1);
	while (r == 0);
	if (r < 0)
		return r;
	ctx->last_lat_ns = io->complete_ns - io->start_ns;
	if (io->error)
		return lb_io_ctx_set_error(ctx, io->error, "%s %s at offset %llu: %s", op_name(op),
					   f->path, (unsigned long long)offset_bytes,
					   lb_io_strerror(io->error));
	return io->result_bytes;
}

int64_t lb_io_pread(struct lb_io_ctx *ctx, struct lb_io_file *f, void *buf,
		    uint64_t length_bytes, uint64_t offset_bytes)
{
	return sync_op(ctx, LB_IO_READ, f, buf, length_bytes, offset_bytes);
}

int64_t lb_io_pwrite(struct lb_io_ctx *ctx, struct lb_io_file *f, const void *buf,
		     uint64_t length_bytes, uint64_t offset_bytes)
{
	/* the engine never writes into a WRITE buffer; the cast only satisfies struct lb_io */
	return sync_op(ctx, LB_IO_WRITE, f, (void *)buf, length_bytes, offset_bytes);
}

int64_t lb_io_fsync(struct lb_io_ctx *ctx, struct lb_io_file *f)
{
	return sync_op(ctx, LB_IO_FSYNC, f, NULL, 0, 0);
}

int64_t lb_io_fdatasync(struct lb_io_ctx *ctx, struct lb_io_file *f)
{
	return sync_op(ctx, LB_IO_FDATASYNC, f, NULL, 0, 0);
}

uint64_t lb_io_last_lat_ns(const struct lb_io_ctx *ctx)
{
	return ctx->last_lat_ns;
}
