/* psync: pread/pwrite/fsync/fdatasync done inline in queue(). The reference engine: no
 * batching, no private state, the whole latency is the system call. */
#include <errno.h>
#include <unistd.h>

#include "io_internal.h"

static enum lb_io_q psync_queue(struct lb_io_ctx *ctx, struct lb_io *io)
{
	int fd = io->file->fd;
	ssize_t r;

	do {
		switch (io->op) {
		case LB_IO_READ:
			r = pread(fd, io->buf, io->length_bytes, (off_t)io->offset_bytes);
			break;
		case LB_IO_WRITE:
			r = pwrite(fd, io->buf, io->length_bytes, (off_t)io->offset_bytes);
			break;
		case LB_IO_FSYNC:
			r = fsync(fd);
			break;
		default:
			r = fdatasync(fd);
			break;
		}
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		io->error = -errno;
	else if (io->op == LB_IO_READ || io->op == LB_IO_WRITE)
		io->result_bytes = r;
	return LB_IO_Q_COMPLETED;
}

const struct lb_io_ops lb_io_psync_ops = {
	.name = "psync",
	.version = LB_IO_OPS_VERSION,
	.flags = LB_IO_F_SYNC,
	.queue = psync_queue,
};
