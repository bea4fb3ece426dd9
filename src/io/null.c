/* null: pretends. Follows the async protocol (queue, commit, getevents, event) so that the
 * core and workloads can be tested without a disk; every committed I/O completes at once,
 * with result_bytes = length and no data moved. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

struct null_priv {
	struct lb_io **ios;    /* [0, nissued) committed, [nissued, nissued + nqueued) queued */
	struct lb_io **events; /* filled by getevents for event() */
	uint32_t depth, nissued, nqueued;
};

static int null_init(struct lb_io_ctx *ctx, uint32_t depth)
{
	struct null_priv *p = lb_io_ctx_priv(ctx);

	p->depth = depth;
	p->ios = calloc(depth, sizeof(*p->ios));
	p->events = calloc(depth, sizeof(*p->events));
	if (!p->ios || !p->events)
		return lb_io_ctx_set_error(ctx, -ENOMEM, "null engine: out of memory");
	return 0;
}

static void null_cleanup(struct lb_io_ctx *ctx)
{
	struct null_priv *p = lb_io_ctx_priv(ctx);

	free(p->ios);
	free(p->events);
}

static enum lb_io_q null_queue(struct lb_io_ctx *ctx, struct lb_io *io)
{
	struct null_priv *p = lb_io_ctx_priv(ctx);

	if (p->nissued + p->nqueued == p->depth)
		return LB_IO_Q_BUSY;
	p->ios[p->nissued + p->nqueued++] = io;
	return LB_IO_Q_QUEUED;
}

static int null_commit(struct lb_io_ctx *ctx)
{
	struct null_priv *p = lb_io_ctx_priv(ctx);
	uint64_t now = lb_io_now_ns();
	uint32_t n = p->nqueued;

	for (uint32_t i = p->nissued; i < p->nissued + n; i++)
		p->ios[i]->issue_ns = now;
	p->nissued += n;
	p->nqueued = 0;
	return (int)n;
}

static int null_getevents(struct lb_io_ctx *ctx, uint32_t min, uint32_t max, int64_t timeout_ns)
{
	struct null_priv *p = lb_io_ctx_priv(ctx);
	uint32_t n = p->nissued < max ? p->nissued : max;

	for (uint32_t i = 0; i < n; i++) {
		struct lb_io *io = p->ios[i];

		io->result_bytes = io->op <= LB_IO_WRITE ? (int64_t)io->length_bytes : 0;
		p->events[i] = io;
	}
	memmove(p->ios, p->ios + n, (p->nissued + p->nqueued - n) * sizeof(*p->ios));
	p->nissued -= n;
	return (int)n;
}

static struct lb_io *null_event(struct lb_io_ctx *ctx, uint32_t i)
{
	struct null_priv *p = lb_io_ctx_priv(ctx);

	return p->events[i];
}

const struct lb_io_ops lb_io_null_ops = {
	.name = "null",
	.version = LB_IO_OPS_VERSION,
	.flags = LB_IO_F_ASYNC | LB_IO_F_FAKE,
	.priv_size = sizeof(struct null_priv),
	.init = null_init,
	.cleanup = null_cleanup,
	.queue = null_queue,
	.commit = null_commit,
	.getevents = null_getevents,
	.event = null_event,
};
