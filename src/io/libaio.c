/* libaio: Linux native AIO. queue() only fills an iocb and appends it to the pending list;
 * commit() hands the whole list to io_submit() and stamps issue_ns once per call, after it
 * returned (fio does the same; the stamp therefore includes the syscall in "submit" time).
 *
 * Only truly asynchronous with O_DIRECT: on a buffered file io_submit() does the I/O before
 * returning (LB_IO_F_NEEDS_DIRECT; see lb_io_file_degraded()).
 *
 * Invariants: every I/O handed to the engine owns one iocb slot from queue() until event()
 * returns it. pending[0, npending) are queued in order and not yet accepted by the kernel;
 * failed[0, nfailed) were refused by io_submit and are returned by the next getevents(). */
#include <errno.h>
#include <libaio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

struct aio_priv {
	io_context_t aio;
	uint32_t depth;
	struct iocb *iocbs;       /* depth control blocks */
	uint32_t *free_slots;     /* stack of free iocb indexes */
	uint32_t nfree;
	struct iocb **pending;    /* queued, not yet submitted */
	uint32_t npending;
	struct lb_io **failed;    /* refused at submit; reapable at once */
	uint32_t nfailed;
	struct io_event *events;  /* io_getevents output */
	struct lb_io **out;       /* what event(i) returns */
};

static int aio_init(struct lb_io_ctx *ctx, uint32_t depth)
{
	struct aio_priv *p = lb_io_ctx_priv(ctx);
	int r;

	p->depth = depth;
	p->iocbs = calloc(depth, sizeof(*p->iocbs));
	p->free_slots = calloc(depth, sizeof(*p->free_slots));
	p->pending = calloc(depth, sizeof(*p->pending));
	p->failed = calloc(depth, sizeof(*p->failed));
	p->events = calloc(depth, sizeof(*p->events));
	p->out = calloc(depth, sizeof(*p->out));
	if (!p->iocbs || !p->free_slots || !p->pending || !p->failed || !p->events || !p->out)
		return lb_io_ctx_set_error(ctx, -ENOMEM, "libaio: out of memory");
	for (uint32_t i = 0; i < depth; i++)
		p->free_slots[i] = depth - 1 - i;
	p->nfree = depth;
	r = io_setup((int)depth, &p->aio);
	if (r == -ENOSYS)
		return lb_io_ctx_set_error(ctx, LB_IO_E_UNSUPPORTED,
					   "libaio: this kernel has no AIO support (io_setup: %s)",
					   lb_io_strerror(r));
	if (r < 0)
		return lb_io_ctx_set_error(ctx, r,
					   "libaio: io_setup(%u) failed: %s%s", depth,
					   lb_io_strerror(r),
					   r == -EAGAIN ? " (fs.aio-max-nr reached, see /proc/sys/fs/aio-nr)"
							: "");
	return 0;
}

static void aio_cleanup(struct lb_io_ctx *ctx)
{
	struct aio_priv *p = lb_io_ctx_priv(ctx);

	/* io_destroy waits for (or cancels) I/Os still in flight, so buffers stay safe */
	if (p->aio)
		io_destroy(p->aio);
	free(p->iocbs);
	free(p->free_slots);
	free(p->pending);
	free(p->failed);
	free(p->events);
	free(p->out);
}

static void release_slot(struct aio_priv *p, struct iocb *cb)
{
	p->free_slots[p->nfree++] = (uint32_t)(cb - p->iocbs);
}

static enum lb_io_q aio_queue(struct lb_io_ctx *ctx, struct lb_io *io)
{
	struct aio_priv *p = lb_io_ctx_priv(ctx);
	struct iocb *cb;
	int fd = io->file->fd;

	if (!p->nfree)
		return LB_IO_Q_BUSY;
	cb = &p->iocbs[p->free_slots[--p->nfree]];
	switch (io->op) {
	case LB_IO_READ:
		io_prep_pread(cb, fd, io->buf, io->length_bytes, (long long)io->offset_bytes);
		break;
	case LB_IO_WRITE:
		io_prep_pwrite(cb, fd, io->buf, io->length_bytes, (long long)io->offset_bytes);
		break;
	case LB_IO_FSYNC:
		io_prep_fsync(cb, fd);
		break;
	default:
		io_prep_fdsync(cb, fd);
		break;
	}
	cb->data = io;
	io->engine_data = cb;
	p->pending[p->npending++] = cb;
	return LB_IO_Q_QUEUED;
}

static void fail_iocb(struct aio_priv *p, struct iocb *cb, int err)
{
	struct lb_io *io = cb->data;

	io->error = err;
	io->issue_ns = lb_io_now_ns();
	release_slot(p, cb);
	p->failed[p->nfailed++] = io;
}

static int aio_commit(struct lb_io_ctx *ctx)
{
	struct aio_priv *p = lb_io_ctx_priv(ctx);
	uint32_t done = 0;

	while (done < p->npending) {
		int r = io_submit(p->aio, (long)(p->npending - done), p->pending + done);

		if (r > 0) {
			uint64_t now = lb_io_now_ns();

			for (int i = 0; i < r; i++)
				((struct lb_io *)p->pending[done + i]->data)->issue_ns = now;
			done += (uint32_t)r;
		} else if (r == -EINTR) {
			continue;
		} else if (r == -EAGAIN || r == 0) {
			break; /* out of kernel resources: the core reaps, then commits the rest */
		} else {
			/* io_submit reports an error only for the first iocb it could not take */
			fail_iocb(p, p->pending[done++], r);
		}
	}
	memmove(p->pending, p->pending + done, (p->npending - done) * sizeof(*p->pending));
	p->npending -= done;
	return (int)done;
}

static uint32_t take_failed(struct aio_priv *p, uint32_t max)
{
	uint32_t n = p->nfailed < max ? p->nfailed : max;

	memcpy(p->out, p->failed, n * sizeof(*p->out));
	memmove(p->failed, p->failed + n, (p->nfailed - n) * sizeof(*p->failed));
	p->nfailed -= n;
	return n;
}

static int aio_getevents(struct lb_io_ctx *ctx, uint32_t min, uint32_t max, int64_t timeout_ns)
{
	struct aio_priv *p = lb_io_ctx_priv(ctx);
	struct timespec ts = { 0, 0 }, *tsp = &ts;
	uint32_t n = take_failed(p, max), got = 0;
	uint32_t want = min > n ? min - n : 0;

	if (want && timeout_ns < 0)
		tsp = NULL;
	else if (want)
		ts = (struct timespec){ timeout_ns / 1000000000, timeout_ns % 1000000000 };
	while (n + got < max) {
		int r = io_getevents(p->aio, want > got ? want - got : 0, max - n - got,
				     p->events + got, tsp);

		if (r == -EINTR)
			continue;
		if (r < 0) {
			if (n + got)
				break;
			return lb_io_ctx_set_error(ctx, r, "libaio: io_getevents: %s",
						   lb_io_strerror(r));
		}
		got += (uint32_t)r;
		if (got >= want || tsp) /* enough, or the timeout expired */
			break;
	}
	for (uint32_t i = 0; i < got; i++) {
		struct iocb *cb = p->events[i].obj;
		struct lb_io *io = cb->data;
		long res = (long)p->events[i].res;

		if (res < 0)
			io->error = (int32_t)res;
		else if (io->op == LB_IO_READ || io->op == LB_IO_WRITE)
			io->result_bytes = res;
		release_slot(p, cb);
		p->out[n++] = io;
	}
	return (int)n;
}

static struct lb_io *aio_event(struct lb_io_ctx *ctx, uint32_t i)
{
	struct aio_priv *p = lb_io_ctx_priv(ctx);

	return p->out[i];
}

/* io_setup() fails with EAGAIN once the contexts of the whole system would hold more than
 * /proc/sys/fs/aio-max-nr events: what is left of it now is this engine's limit. */
static uint32_t aio_max_depth(char *why, uint32_t why_len)
{
	unsigned long long max = 0, used = 0;
	FILE *f = fopen("/proc/sys/fs/aio-max-nr", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &max) != 1)
		max = 0;
	fclose(f);
	f = fopen("/proc/sys/fs/aio-nr", "r");
	if (f) {
		if (fscanf(f, "%llu", &used) != 1)
			used = 0;
		fclose(f);
	}
	if (!max)
		return 0;
	snprintf(why, why_len, "/proc/sys/fs/aio-max-nr is %llu, %llu in use", max, used);
	return used < max ? (uint32_t)(max - used < UINT32_MAX ? max - used : UINT32_MAX) : 1;
}

const struct lb_io_ops lb_io_libaio_ops = {
	.name = "libaio",
	.version = LB_IO_OPS_VERSION,
	.flags = LB_IO_F_ASYNC | LB_IO_F_NEEDS_DIRECT,
	.priv_size = sizeof(struct aio_priv),
	.init = aio_init,
	.cleanup = aio_cleanup,
	.queue = aio_queue,
	.commit = aio_commit,
	.getevents = aio_getevents,
	.event = aio_event,
	.max_depth = aio_max_depth,
};
