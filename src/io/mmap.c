/* mmap: memcpy to and from a MAP_SHARED mapping of the whole file (sysbench's mmap mode);
 * msync(MS_SYNC) of the mapping is the sync op for both FSYNC and FDATASYNC (it writes the
 * dirty pages back; metadata is not touched by mapped writes besides mtime).
 *
 * Mappings are per context (so per thread, like fio), created on the first I/O to a file and
 * grown when an I/O reaches past the mapped length and the file has grown meanwhile. They are
 * keyed by the file's unique id, not its pointer, because a closed file's memory may be
 * reused by the next open. A mapping cannot extend a file: writes past its end fail with
 * LB_IO_E_ARG (prepare the file first); reads past the end are short, as with pread. */
#include <errno.h>
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
	addr = size ? mmap(NULL, size, prot, MAP_SHARED, f->fd, 0) : NULL;
	if (addr == MAP_FAILED)
		return -errno;
	if (m->addr)
		munmap(m->addr, m->len_bytes);
	m->addr = addr;
	m->len_bytes = size;
	return 0;
}

static void do_copy(struct lb_io *io, struct map_entry *m)
{
	uint64_t off = io->offset_bytes, n;

	if (io->op == LB_IO_WRITE) {
		if (!(m->prot & PROT_WRITE)) { /* a store would fault, not fail */
			io->error = -EBADF;
			return;
		}
		if (off + io->length_bytes > m->len_bytes) {
			io->error = LB_IO_E_ARG;
			return;
		}
		memcpy((char *)m->addr + off, io->buf, io->length_bytes);
		io->result_bytes = (int64_t)io->length_bytes;
		return;
	}
	if (off >= m->len_bytes)
		return; /* end of file: 0 bytes */
	n = m->len_bytes - off < io->length_bytes ? m->len_bytes - off : io->length_bytes;
	memcpy(io->buf, (char *)m->addr + off, n);
	io->result_bytes = (int64_t)n;
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
	.cleanup = mmap_cleanup,
	.queue = mmap_queue,
};
