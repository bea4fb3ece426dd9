/* io_uring through liburing. queue() fills an SQE, commit() is one io_uring_submit() for all
 * of them with one issue stamp after it returns, getevents() peeks completions in batches and
 * waits (io_uring_wait_cqes) only when fewer than min are there.
 *
 * io_uring can be refused at run time (kernel.io_uring_disabled, seccomp in containers, old
 * kernels): init() is the probe, and a refusal comes back as LB_IO_E_UNSUPPORTED (the code
 * tells the caller to fall back) with a message that gives the cause only, because callers
 * wrap it in their own sentence ("I/O engine io_uring is not available here (…); using
 * libaio instead"). Tests force that path with the environment
 * variable LB_IO_TEST_URING_ERRNO=<ENOSYS|EPERM|number>.
 *
 * Invariant: queued[0, nqueued) hold the I/Os whose SQEs are filled but not yet accepted by
 * the kernel, in SQ order (the kernel consumes SQEs in order, so a partial submit takes a
 * prefix). inflight counts I/Os the kernel owns. */
#include <errno.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

#define TEST_ERRNO_ENV "LB_IO_TEST_URING_ERRNO"
#define DRAIN_TIMEOUT_NS 30000000000LL

struct uring_priv {
	struct io_uring ring;
	int ring_ready;
	uint32_t depth;
	struct lb_io **queued;
	uint32_t nqueued;
	uint32_t inflight;
	struct io_uring_cqe **cqes;
	struct lb_io **out;
};

/* A forced probe result for tests: 0 when the variable is unset or unknown. */
static int forced_probe_error(void)
{
	const char *v = getenv(TEST_ERRNO_ENV);

	if (!v || !v[0])
		return 0;
	if (strcmp(v, "ENOSYS") == 0)
		return -ENOSYS;
	if (strcmp(v, "EPERM") == 0)
		return -EPERM;
	return -abs(atoi(v));
}

static int probe_failed(struct lb_io_ctx *ctx, int r, uint32_t depth)
{
	if (r == -ENOSYS || r == -EPERM || r == -EACCES)
		return lb_io_ctx_set_error(ctx, LB_IO_E_UNSUPPORTED,
					   "io_uring_setup: %s; kernel.io_uring_disabled, a seccomp "
					   "filter or an old kernel refuses it", lb_io_strerror(r));
	return lb_io_ctx_set_error(ctx, r,
				   "io_uring_queue_init(%u) failed: %s%s: fall back to libaio or psync",
				   depth, lb_io_strerror(r),
				   r == -ENOMEM ? " (locked memory limit? see ulimit -l)" : "");
}

static int uring_init(struct lb_io_ctx *ctx, uint32_t depth)
{
	struct uring_priv *p = lb_io_ctx_priv(ctx);
	int r;

	p->depth = depth;
	p->queued = calloc(depth, sizeof(*p->queued));
	p->cqes = calloc(depth, sizeof(*p->cqes));
	p->out = calloc(depth, sizeof(*p->out));
	if (!p->queued || !p->cqes || !p->out)
		return lb_io_ctx_set_error(ctx, -ENOMEM, "io_uring: out of memory");
	r = forced_probe_error();
	if (!r)
		r = io_uring_queue_init(depth, &p->ring, 0);
	if (r < 0)
		return probe_failed(ctx, r, depth);
	p->ring_ready = 1;
	return 0;
}

/* Never let the ring go away while the kernel may still write into caller buffers. */
static void drain(struct uring_priv *p)
{
	struct __kernel_timespec ts = { DRAIN_TIMEOUT_NS / 1000000000, 0 };
	struct io_uring_cqe *cqe;

	if (p->nqueued)
		io_uring_submit(&p->ring);
	p->inflight += p->nqueued;
	p->nqueued = 0;
	while (p->inflight) {
		int r = io_uring_wait_cqe_timeout(&p->ring, &cqe, &ts);

		if (r == -EINTR)
			continue;
		if (r < 0)
			break;
		io_uring_cqe_seen(&p->ring, cqe);
		p->inflight--;
	}
}

static void uring_cleanup(struct lb_io_ctx *ctx)
{
	struct uring_priv *p = lb_io_ctx_priv(ctx);

	if (p->ring_ready) {
		drain(p);
		io_uring_queue_exit(&p->ring);
	}
	free(p->queued);
	free(p->cqes);
	free(p->out);
}

static enum lb_io_q uring_queue(struct lb_io_ctx *ctx, struct lb_io *io)
{
	struct uring_priv *p = lb_io_ctx_priv(ctx);
	struct io_uring_sqe *sqe;
	int fd = io->file->fd;

	if (p->nqueued + p->inflight >= p->depth || !(sqe = io_uring_get_sqe(&p->ring)))
		return LB_IO_Q_BUSY;
	switch (io->op) {
	case LB_IO_READ:
		io_uring_prep_read(sqe, fd, io->buf, (unsigned)io->length_bytes, io->offset_bytes);
		break;
	case LB_IO_WRITE:
		io_uring_prep_write(sqe, fd, io->buf, (unsigned)io->length_bytes,
				    io->offset_bytes);
		break;
	case LB_IO_FSYNC:
		io_uring_prep_fsync(sqe, fd, 0);
		break;
	default:
		io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
		break;
	}
	io_uring_sqe_set_data(sqe, io);
	p->queued[p->nqueued++] = io;
	return LB_IO_Q_QUEUED;
}

static int uring_commit(struct lb_io_ctx *ctx)
{
	struct uring_priv *p = lb_io_ctx_priv(ctx);
	uint64_t now;
	int r;

	do
		r = io_uring_submit(&p->ring);
	while (r == -EINTR);
	if (r == -EAGAIN || r == -EBUSY)
		return 0; /* kernel short of resources or CQ overflowing: reap first */
	if (r < 0)
		return lb_io_ctx_set_error(ctx, r, "io_uring_submit: %s", lb_io_strerror(r));
	if ((uint32_t)r > p->nqueued)
		r = (int)p->nqueued;
	now = lb_io_now_ns();
	for (int i = 0; i < r; i++)
		p->queued[i]->issue_ns = now;
	memmove(p->queued, p->queued + r, (p->nqueued - (uint32_t)r) * sizeof(*p->queued));
	p->nqueued -= (uint32_t)r;
	p->inflight += (uint32_t)r;
	return r;
}

/* Move up to max ready completions to out[n..); returns the new n. */
static uint32_t take_ready(struct uring_priv *p, uint32_t n, uint32_t max)
{
	unsigned k = io_uring_peek_batch_cqe(&p->ring, p->cqes, max - n);

	for (unsigned i = 0; i < k; i++) {
		struct lb_io *io = io_uring_cqe_get_data(p->cqes[i]);
		int res = p->cqes[i]->res;

		if (res < 0)
			io->error = res;
		else if (io->op == LB_IO_READ || io->op == LB_IO_WRITE)
			io->result_bytes = res;
		p->out[n++] = io;
	}
	io_uring_cq_advance(&p->ring, k);
	p->inflight -= k;
	return n;
}

static int uring_getevents(struct lb_io_ctx *ctx, uint32_t min, uint32_t max, int64_t timeout_ns)
{
	struct uring_priv *p = lb_io_ctx_priv(ctx);
	struct __kernel_timespec ts = { timeout_ns / 1000000000, timeout_ns % 1000000000 };
	struct io_uring_cqe *cqe;
	uint32_t n = take_ready(p, 0, max);

	while (n < min && n < max && timeout_ns != 0) {
		int r = io_uring_wait_cqes(&p->ring, &cqe, min - n, timeout_ns < 0 ? NULL : &ts,
					   NULL);

		if (r == -EINTR)
			continue;
		if (r < 0 && r != -ETIME) {
			if (n)
				break;
			return lb_io_ctx_set_error(ctx, r, "io_uring_wait_cqes: %s",
						   lb_io_strerror(r));
		}
		n = take_ready(p, n, max);
		if (r == -ETIME)
			break;
	}
	return (int)n;
}

static struct lb_io *uring_event(struct lb_io_ctx *ctx, uint32_t i)
{
	struct uring_priv *p = lb_io_ctx_priv(ctx);

	return p->out[i];
}

/* The kernel refuses rings of more entries (IORING_MAX_ENTRIES) with EINVAL. */
static uint32_t uring_max_depth(char *why, uint32_t why_len)
{
	snprintf(why, why_len, "the kernel's IORING_MAX_ENTRIES");
	return 32768;
}

const struct lb_io_ops lb_io_uring_ops = {
	.name = "io_uring",
	.version = LB_IO_OPS_VERSION,
	.flags = LB_IO_F_ASYNC,
	.priv_size = sizeof(struct uring_priv),
	.init = uring_init,
	.cleanup = uring_cleanup,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
	.event = uring_event,
	.max_depth = uring_max_depth,
};
