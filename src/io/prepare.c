/* File preparation for fileio-style workloads: every byte of the target really written (reads
 * of never-written or only fallocated extents do not touch the disk, so they would measure
 * nothing), in large sequential writes, with progress pulled by the caller.
 *
 * Space is reserved first with fallocate(FALLOC_FL_KEEP_SIZE): it makes the layout contiguous
 * where the filesystem can, and turns "disk too small" into an immediate ENOSPC instead of
 * one after minutes of writing. KEEP_SIZE matters: an interrupted prepare leaves a file that
 * is too short (and is extended next time), never one of the right size with holes.
 *
 * An existing file is trusted only as far as its first hole (SEEK_HOLE; fallocated but never
 * written extents count as holes): `truncate -s`, a sparse copy or mmap's sizing give the
 * right size with nothing on disk, and O_DIRECT reads of holes never reach the device. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"
#include "iocheck.h"

#define DEFAULT_WRITE_BLOCK (1u << 20)
#define REWRITE_UNIT 4096u /* extension restarts at a multiple of this (O_DIRECT-safe) */

struct lb_io_prepare {
	char *path;
	int fd;              /* -1 when nothing has to be written */
	int direct;          /* fd currently has O_DIRECT */
	int created;         /* this prepare created the file: remove it on error */
	int keep_longer;     /* LB_IO_PREP_KEEP_LONGER: a longer file is not cut to size */
	int finished;
	int error;           /* sticky: 0 or the first failure */
	uint32_t state;      /* enum lb_io_prepare_state */
	uint32_t write_block_bytes, check_block_bytes;
	uint64_t total_bytes;
	uint64_t start_bytes; /* where writing (re)started */
	uint64_t pos_bytes;   /* next byte to write */
	void *buf;
	char errmsg[512];
};

static int check_args(uint64_t size, uint32_t wb, uint32_t cb, char *errbuf, uint32_t len)
{
	if (!wb || wb % 4096)
		return lb_io_msg(errbuf, len, LB_IO_E_ARG,
				 "prepare: write block of %u bytes is not a multiple of 4096", wb);
	if (cb && (cb % 512 || wb % cb || size % cb))
		return lb_io_msg(errbuf, len, LB_IO_E_ARG,
				 "prepare: check block of %u bytes must be a multiple of 512 that "
				 "divides the write block (%u) and the file size (%" PRIu64 ")",
				 cb, wb, size);
	return 0;
}

/* Open for writing, creating if needed; *created tells whether we did. -errno on failure. */
static int open_target(const char *path, uint32_t open_flags, int *created)
{
	int o = O_RDWR | O_CLOEXEC | ((open_flags & LB_IO_O_DIRECT) ? O_DIRECT : 0);
	int fd = open(path, o | O_CREAT | O_EXCL, 0644);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, o);
	return fd < 0 ? -errno : fd;
}

/* How much of the first `size` bytes of fd is really written: the offset of the first hole.
 * Without SEEK_HOLE support, all of it if its blocks cover it, else none. */
static uint64_t written_prefix(int fd, const struct stat *st, uint64_t size)
{
	off_t hole = size ? lseek(fd, 0, SEEK_HOLE) : 0;

	if (hole < 0)
		return (uint64_t)st->st_blocks * 512 >= size ? size : 0;
	return (uint64_t)hole < size ? (uint64_t)hole : size;
}

/* A read-only place may still hold a usable file: reuse it if its size is right (or larger,
 * when a longer file is kept) and it has no holes. */
static int reusable_readonly(const char *path, uint64_t size, bool keep_longer)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	     ((uint64_t)st.st_size == size || (keep_longer && (uint64_t)st.st_size > size)) &&
	     written_prefix(fd, &st, size) == size;
	close(fd);
	return ok;
}

static int fail_open(struct lb_io_prepare *p, int r, uint32_t open_flags, char *errbuf,
		     uint32_t len)
{
	if (r == -EINVAL && (open_flags & LB_IO_O_DIRECT))
		return lb_io_msg(errbuf, len, r,
				 "prepare %s: O_DIRECT is not supported on this filesystem", p->path);
	lb_io_describe_errno(errbuf, len, "prepare", p->path, -r);
	return r;
}

/* Restart granularity when extending: whole check blocks, and O_DIRECT-aligned. */
static uint64_t rewrite_unit(const struct lb_io_prepare *p)
{
	uint64_t a = p->check_block_bytes ? p->check_block_bytes : REWRITE_UNIT, b = REWRITE_UNIT;

	while (b) { /* lcm(a, 4096) = a * 4096 / gcd */
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return (p->check_block_bytes ? p->check_block_bytes : REWRITE_UNIT) * REWRITE_UNIT / a;
}

/* Decide what to do with what is there: reuse, truncate, or write from start_bytes (the
 * end of the written prefix, rounded down to a restart unit). */
static int plan(struct lb_io_prepare *p)
{
	struct stat st;
	uint64_t size, written;

	if (fstat(p->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return lb_io_msg(p->errmsg, sizeof(p->errmsg), -EINVAL,
				 "prepare %s: not a regular file (block devices are used as they are)",
				 p->path);
	size = (uint64_t)st.st_size;
	bool cut = size > p->total_bytes && !p->keep_longer;
	if (cut && ftruncate(p->fd, (off_t)p->total_bytes) < 0)
		return -errno;
	/* Clean cached pages over never-written extents (mmap's read-around creates them) count
	 * as data for SEEK_HOLE; dropping them also makes a reused file start cold. */
	posix_fadvise(p->fd, 0, 0, POSIX_FADV_DONTNEED);
	written = written_prefix(p->fd, &st, size < p->total_bytes ? size : p->total_bytes);
	if (p->created)
		p->state = LB_IO_PREP_CREATED;
	else if (cut)
		p->state = LB_IO_PREP_TRUNCATED;
	else
		p->state = written == p->total_bytes ? LB_IO_PREP_REUSED : LB_IO_PREP_EXTENDED;
	if (written == p->total_bytes) {
		p->start_bytes = p->pos_bytes = p->total_bytes;
		p->finished = 1;
		return 0;
	}
	/* rewrite a partial last block: it may be a torn check block, and O_DIRECT needs it */
	p->start_bytes = p->pos_bytes = written / rewrite_unit(p) * rewrite_unit(p);
	return 0;
}

static int reserve_space(struct lb_io_prepare *p)
{
	uint64_t len = p->total_bytes - p->start_bytes;

	if (!len || fallocate(p->fd, FALLOC_FL_KEEP_SIZE, (off_t)p->start_bytes, (off_t)len) == 0)
		return 0;
	/* filesystems without fallocate are fine: the writes will allocate */
	return errno == ENOSPC || errno == EFBIG ? -errno : 0;
}

static void append(struct lb_io_prepare *p, const char *s)
{
	strncat(p->errmsg, s, sizeof(p->errmsg) - strlen(p->errmsg) - 1);
}

/* Record the first failure with one message naming path and cause, and for failures while
 * reserving or writing, the progress and what became of the file. */
static int fail(struct lb_io_prepare *p, int r, int writing)
{
	char what[128];

	if (p->error)
		return p->error;
	p->error = r;
	if (!p->errmsg[0])
		lb_io_describe_errno(p->errmsg, sizeof(p->errmsg), "prepare", p->path, -r);
	if (writing) {
		snprintf(what, sizeof(what), " (%" PRIu64 " of %" PRIu64 " bytes written",
			 p->pos_bytes - p->start_bytes, p->total_bytes - p->start_bytes);
		append(p, what);
		append(p, p->created ? "; partial file removed)" : "; existing file left as it is)");
	}
	if (p->created && p->fd >= 0) {
		close(p->fd);
		p->fd = -1;
		unlink(p->path);
	}
	return r;
}

int lb_io_prepare_new(const char *path, uint64_t size_bytes, uint32_t open_flags,
		      uint32_t write_block_bytes, uint32_t check_block_bytes,
		      struct lb_io_prepare **out, char *errbuf, uint32_t errbuf_len)
{
	struct lb_io_prepare *p;
	int r;

	*out = NULL;
	lb_io_msg(errbuf, errbuf_len, 0, "%s", ""); /* success leaves an empty message */
	write_block_bytes = write_block_bytes ? write_block_bytes : DEFAULT_WRITE_BLOCK;
	r = check_args(size_bytes, write_block_bytes, check_block_bytes, errbuf, errbuf_len);
	if (r < 0)
		return r;
	if (!path || !path[0])
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_ARG, "prepare: empty path");
	p = calloc(1, sizeof(*p));
	if (!p || !(p->path = strdup(path))) {
		free(p);
		return lb_io_msg(errbuf, errbuf_len, -ENOMEM, "prepare %s: out of memory", path);
	}
	p->total_bytes = size_bytes;
	p->write_block_bytes = write_block_bytes;
	p->check_block_bytes = check_block_bytes;
	p->direct = !!(open_flags & LB_IO_O_DIRECT);
	p->keep_longer = !!(open_flags & LB_IO_PREP_KEEP_LONGER);
	p->fd = open_target(path, open_flags, &p->created);
	if (p->fd < 0 && (p->fd == -EROFS || p->fd == -EACCES) &&
	    reusable_readonly(path, size_bytes, p->keep_longer)) {
		p->state = LB_IO_PREP_REUSED;
		p->start_bytes = p->pos_bytes = size_bytes;
		p->finished = 1;
		*out = p;
		return 0;
	}
	if (p->fd < 0) {
		r = fail_open(p, p->fd, open_flags, errbuf, errbuf_len);
		lb_io_prepare_free(p);
		return r;
	}
	r = plan(p);
	if (r < 0)
		fail(p, r, 0);
	if (r == 0)
		r = reserve_space(p);
	if (r == 0 && p->pos_bytes < p->total_bytes &&
	    !(p->buf = lb_io_buf_alloc(write_block_bytes, 4096)))
		r = -ENOMEM;
	if (r < 0) {
		fail(p, r, 1);
		lb_io_msg(errbuf, errbuf_len, r, "%s", p->errmsg);
		lb_io_prepare_free(p);
		return r;
	}
	*out = p;
	return 0;
}

static void fill_chunk(struct lb_io_prepare *p, uint64_t pos, uint32_t n)
{
	uint32_t cb = p->check_block_bytes;

	if (!cb) {
		lb_io_pattern_fill(p->buf, n, pos, 0);
		return;
	}
	for (uint32_t k = 0; k < n; k += cb)
		lb_io_block_fill((char *)p->buf + k, cb, pos + k, 0);
}

/* O_DIRECT cannot write an unaligned tail; drop the flag for it (Linux allows F_SETFL). */
static int leave_direct(struct lb_io_prepare *p)
{
	int fl = fcntl(p->fd, F_GETFL);

	if (fl < 0 || fcntl(p->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return -errno;
	p->direct = 0;
	return 0;
}

static int write_chunk(struct lb_io_prepare *p, uint32_t n)
{
	uint32_t done = 0;
	int r;

	if (p->direct && n % REWRITE_UNIT && (r = leave_direct(p)) < 0)
		return r;
	fill_chunk(p, p->pos_bytes, n);
	while (done < n) {
		ssize_t w = pwrite(p->fd, (char *)p->buf + done, n - done,
				   (off_t)(p->pos_bytes + done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return lb_io_msg(p->errmsg, sizeof(p->errmsg), LB_IO_E_SHORT,
					 "prepare %s: write returned 0 bytes", p->path);
		done += (uint32_t)w;
		p->pos_bytes += (uint64_t)w; /* progress counts bytes really written */
	}
	return 0;
}

/* Durable and out of the page cache, so the run measures the disk. */
static int finish(struct lb_io_prepare *p)
{
	if (fsync(p->fd) < 0)
		return -errno;
	posix_fadvise(p->fd, 0, 0, POSIX_FADV_DONTNEED);
	p->finished = 1;
	return 0;
}

int64_t lb_io_prepare_step(struct lb_io_prepare *p, uint64_t budget_bytes)
{
	uint64_t written = 0;
	int r;

	if (p->error)
		return p->error;
	if (p->finished)
		return (int64_t)p->pos_bytes;
	while (p->pos_bytes < p->total_bytes && (written < budget_bytes || !written)) {
		uint64_t left = p->total_bytes - p->pos_bytes;
		uint32_t n = left < p->write_block_bytes ? (uint32_t)left : p->write_block_bytes;

		r = write_chunk(p, n);
		if (r < 0)
			return fail(p, r, 1);
		written += n;
	}
	if (p->pos_bytes == p->total_bytes && (r = finish(p)) < 0)
		return fail(p, r, 1);
	return (int64_t)p->pos_bytes;
}

int32_t lb_io_prepare_done(const struct lb_io_prepare *p)
{
	return p->finished;
}

uint64_t lb_io_prepare_total_bytes(const struct lb_io_prepare *p)
{
	return p->total_bytes;
}

uint64_t lb_io_prepare_to_write_bytes(const struct lb_io_prepare *p)
{
	return p->total_bytes - p->start_bytes;
}

uint32_t lb_io_prepare_state(const struct lb_io_prepare *p)
{
	return p->state;
}

const char *lb_io_prepare_errmsg(const struct lb_io_prepare *p)
{
	return p->errmsg;
}

void lb_io_prepare_free(struct lb_io_prepare *p)
{
	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	lb_io_buf_free(p->buf);
	free(p->path);
	free(p);
}
