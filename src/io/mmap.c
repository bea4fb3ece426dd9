/* mmap: memcpy to and from a MAP_SHARED mapping of the whole file (sysbench's mmap mode);
 * msync(MS_SYNC) of the mapping is the sync op for both FSYNC and FDATASYNC (it writes the
 * dirty pages back; metadata is not touched by mapped writes besides mtime).
 *
 * Mappings are per context (so per thread, like fio), created on the first I/O to a file and
 * grown when an I/O reaches past the mapped length and the file has grown meanwhile. They are
 * keyed by the file's unique id, not its pointer, because a closed file's memory may be
 * reused by the next open. A mapping cannot extend a file: writes past its end fail with
 * LB_IO_E_ARG (prepare the file first); reads past the end are short, as with pread.
 *
 * A store into a page the filesystem cannot allocate (disk full, a sparse file) or a load the
 * device cannot serve raises SIGBUS, not an error return. Two defences keep that from killing
 * the process silently: a writable mapping first reserves the file's blocks with fallocate, so
 * a full disk is ENOSPC at mapping time, like pwrite's; and every copy runs under a SIGBUS
 * guard that turns a fault the reservation could not prevent (no fallocate on this
 * filesystem, a file truncated by someone else, a media error) into -EIO for that I/O. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io_internal.h"

struct map_entry {
	uint64_t file_id;
	void *addr;       /* NULL while the file is empty */
	uint64_t len_bytes;
	int prot;
};

struct mmap_priv {
	struct map_entry *maps;
	uint32_t n, cap;
};

static void mmap_cleanup(struct lb_io_ctx *ctx)
{
	struct mmap_priv *p = lb_io_ctx_priv(ctx);

	for (uint32_t i = 0; i < p->n; i++)
		if (p->maps[i].addr)
			munmap(p->maps[i].addr, p->maps[i].len_bytes);
	free(p->maps);
}

static struct map_entry *find_entry(struct mmap_priv *p, uint64_t id)
{
	struct map_entry *m;

	for (uint32_t i = 0; i < p->n; i++)
		if (p->maps[i].file_id == id)
			return &p->maps[i];
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 8;

		m = realloc(p->maps, cap * sizeof(*m));
		if (!m)
			return NULL;
		p->maps = m;
		p->cap = cap;
	}
	m = &p->maps[p->n++];
	memset(m, 0, sizeof(*m));
	m->file_id = id;
	return m;
}

/* ---- SIGBUS guard ------------------------------------------------------------------------ */

/* Set while this thread copies to or from a mapping; the handler jumps back through it. */
static _Thread_local sigjmp_buf *volatile bus_jump;
static struct sigaction bus_previous;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *info, void *uctx)
{
	if (bus_jump)
		siglongjmp(*bus_jump, 1);
	/* not a fault of ours: hand it to whoever had the signal before */
	if (bus_previous.sa_flags & SA_SIGINFO) {
		bus_previous.sa_sigaction(sig, info, uctx);
		return;
	}
	if (bus_previous.sa_handler != SIG_DFL && bus_previous.sa_handler != SIG_IGN) {
		bus_previous.sa_handler(sig);
		return;
	}
	/* default action: returning re-runs the faulting instruction, which now kills us */
	signal(SIGBUS, SIG_DFL);
}

static void install_bus_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	/* NODEFER: siglongjmp(…, savemask 0) leaves the mask alone, so SIGBUS must not be in it */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &bus_previous);
}

/* memcpy that returns -EIO instead of dying when the mapping faults. */
static int guarded_copy(void *dst, const void *src, uint64_t n)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0)) {
		bus_jump = NULL;
		return -EIO;
	}
	bus_jump = &jb;
	/* the copy's loads and stores must stay between the two stores the handler sees */
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(dst, src, n);
	atomic_signal_fence(memory_order_seq_cst);
	bus_jump = NULL;
	return 0;
}

/* ---- mappings ----------------------------------------------------------------------------- */

/* Give every page of a writable mapping its blocks now: stores into unallocatable pages are
 * a SIGBUS. Filesystems without fallocate are left to the guard. 0 or -errno. */
static int reserve_blocks(const struct lb_io_file *f, uint64_t size)
{
	int r;

	if (f->is_blockdev || !size)
		return 0;
	do
		r = fallocate(f->fd, 0, 0, (off_t)size);
	while (r < 0 && errno == EINTR);
	if (r == 0 || errno == EOPNOTSUPP || errno == ENOSYS)
		return 0;
	return -errno;
}

/* Map f if needed so that [0, end) is covered when the file is that large. 0 or -errno. */
static int map_file(struct mmap_priv *p, const struct lb_io_file *f, uint64_t end,
		    struct map_entry **out)
{
	struct map_entry *m = find_entry(p, f->id);
	int prot = (f->flags & LB_IO_O_RDONLY) ? PROT_READ : PROT_READ | PROT_WRITE;
	uint64_t size;
	void *addr;
	int r;

	if (!m)
		return -ENOMEM;
	*out = m;
	m->prot = prot;
	if (m->addr && end <= m->len_bytes)
		return 0;
	r = lb_io_file_current_size(f, &size);
	if (r < 0)
		return r;
	if (size == m->len_bytes)
		return 0;
	if ((prot & PROT_WRITE) && (r = reserve_blocks(f, size)) < 0)
		return r;
	addr = size ? mmap(NULL, size, prot, MAP_SHARED, f->fd, 0) : NULL;
	if (addr == MAP_FAILED)
		return -errno;
	/* The file's access hint, for page faults (fadvise does not reach a mapping's faults). */
	if (addr && (f->flags & LB_IO_O_RANDOM))
		(void)madvise(addr, size, MADV_RANDOM);
	else if (addr && (f->flags & LB_IO_O_SEQUENTIAL))
		(void)madvise(addr, size, MADV_SEQUENTIAL);
	if (m->addr)
		munmap(m->addr, m->len_bytes);
	m->addr = addr;
	m->len_bytes = size;
	return 0;
}

static void do_copy(struct lb_io *io, struct map_entry *m)
{
	uint64_t off = io->offset_bytes, n;
	int r;

	if (io->op == LB_IO_WRITE) {
		if (!(m->prot & PROT_WRITE)) { /* a store would fault, not fail */
			io->error = -EBADF;
			return;
		}
		if (off + io->length_bytes > m->len_bytes) {
			io->error = LB_IO_E_ARG;
			return;
		}
		r = guarded_copy((char *)m->addr + off, io->buf, io->length_bytes);
		io->error = r;
		io->result_bytes = r < 0 ? 0 : (int64_t)io->length_bytes;
		return;
	}
	if (off >= m->len_bytes)
		return; /* end of file: 0 bytes */
	n = m->len_bytes - off < io->length_bytes ? m->len_bytes - off : io->length_bytes;
	r = guarded_copy(io->buf, (char *)m->addr + off, n);
	io->error = r;
	io->result_bytes = r < 0 ? 0 : (int64_t)n;
}

static int mmap_init(struct lb_io_ctx *ctx, uint32_t depth)
{
	(void)ctx;
	(void)depth;
	pthread_once(&bus_once, install_bus_handler);
	return 0;
}

static enum lb_io_q mmap_queue(struct lb_io_ctx *ctx, struct lb_io *io)
{
	struct mmap_priv *p = lb_io_ctx_priv(ctx);
	struct map_entry *m;
	int r;

	if (io->op == LB_IO_FSYNC || io->op == LB_IO_FDATASYNC) {
		r = map_file(p, io->file, 0, &m);
		if (r == 0 && m->addr && msync(m->addr, m->len_bytes, MS_SYNC) < 0)
			r = -errno;
		else if (r == 0 && !m->addr && fdatasync(io->file->fd) < 0)
			r = -errno;
		io->error = r;
		return LB_IO_Q_COMPLETED;
	}
	r = map_file(p, io->file, io->offset_bytes + io->length_bytes, &m);
	if (r < 0)
		io->error = r;
	else
		do_copy(io, m);
	return LB_IO_Q_COMPLETED;
}

const struct lb_io_ops lb_io_mmap_ops = {
	.name = "mmap",
	.version = LB_IO_OPS_VERSION,
	.flags = LB_IO_F_SYNC | LB_IO_F_MEMMAP,
	.priv_size = sizeof(struct mmap_priv),
	.init = mmap_init,
	.cleanup = mmap_cleanup,
	.queue = mmap_queue,
};
