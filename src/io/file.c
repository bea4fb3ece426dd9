/* Targets (regular files and block devices), O_DIRECT alignment discovery, aligned buffers. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"

#define FALLBACK_ALIGN 4096u

static uint64_t next_file_id = 1;

void lb_io_describe_errno(char *buf, uint32_t len, const char *what, const char *path, int err)
{
	char dir[4096];
	struct stat st;

	switch (err) {
	case ENOENT:
		snprintf(dir, sizeof(dir), "%s", path);
		if (stat(dirname(dir), &st) < 0) {
			snprintf(dir, sizeof(dir), "%s", path);
			lb_io_msg(buf, len, 0, "%s %s: directory %s does not exist", what, path,
				  dirname(dir));
			return;
		}
		lb_io_msg(buf, len, 0, "%s %s: no such file", what, path);
		return;
	case ENOSPC:
		lb_io_msg(buf, len, 0, "%s %s: no space left on device", what, path);
		return;
	case EFBIG:
		lb_io_msg(buf, len, 0,
			  "%s %s: file too large (over the process file size limit, see ulimit -f, "
			  "or the filesystem's maximum file size)", what, path);
		return;
	case EROFS:
		lb_io_msg(buf, len, 0, "%s %s: read-only file system", what, path);
		return;
	case EACCES:
	case EPERM:
		lb_io_msg(buf, len, 0, "%s %s: permission denied", what, path);
		return;
	}
	lb_io_msg(buf, len, 0, "%s %s: %s", what, path, lb_io_strerror(-err));
}

static int open_flags(uint32_t flags)
{
	int o = (flags & LB_IO_O_RDONLY) ? O_RDONLY : O_RDWR;

	o |= O_CLOEXEC;
	if (flags & LB_IO_O_CREATE)
		o |= O_CREAT;
	if (flags & LB_IO_O_DIRECT)
		o |= O_DIRECT;
	if (flags & LB_IO_O_DSYNC)
		o |= O_DSYNC;
	if (flags & LB_IO_O_SYNC)
		o |= O_SYNC;
	return o;
}

/* statx(STATX_DIOALIGN) (Linux 6.1+) gives both alignments; 0 values mean "not reported". */
static void probe_statx_align(int fd, uint32_t *mem, uint32_t *off)
{
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN)) {
		*mem = stx.stx_dio_mem_align;
		*off = stx.stx_dio_offset_align;
	}
#else
	(void)fd;
	(void)mem;
	(void)off;
#endif
}

static void probe_align(struct lb_io_file *f)
{
	uint32_t mem = 0, off = 0;
	int lbs = 0;

	probe_statx_align(f->fd, &mem, &off);
	if ((!mem || !off) && f->is_blockdev && ioctl(f->fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
		mem = off = (uint32_t)lbs;
	f->mem_align = mem ? mem : FALLBACK_ALIGN;
	f->offset_align = off ? off : FALLBACK_ALIGN;
}

static int probe_size(struct lb_io_file *f, char *errbuf, uint32_t errbuf_len)
{
	struct stat st;

	if (fstat(f->fd, &st) < 0) {
		int err = errno;

		lb_io_describe_errno(errbuf, errbuf_len, "stat", f->path, err);
		return -err;
	}
	f->is_blockdev = S_ISBLK(st.st_mode);
	if (S_ISDIR(st.st_mode))
		return lb_io_msg(errbuf, errbuf_len, -EISDIR, "open %s: is a directory", f->path);
	if (!f->is_blockdev) {
		f->size_bytes = (uint64_t)st.st_size;
		return 0;
	}
	if (ioctl(f->fd, BLKGETSIZE64, &f->size_bytes) < 0) {
		int err = errno;

		return lb_io_msg(errbuf, errbuf_len, -err, "open %s: cannot get device size: %s",
				 f->path, lb_io_strerror(-err));
	}
	return 0;
}

int lb_io_file_current_size(const struct lb_io_file *f, uint64_t *size_bytes)
{
	struct stat st;

	if (f->is_blockdev)
		return ioctl(f->fd, BLKGETSIZE64, size_bytes) < 0 ? -errno : 0;
	if (fstat(f->fd, &st) < 0)
		return -errno;
	*size_bytes = (uint64_t)st.st_size;
	return 0;
}

int lb_io_file_open(const char *path, uint32_t flags, struct lb_io_file **out, char *errbuf,
		    uint32_t errbuf_len)
{
	struct lb_io_file *f;
	int r;

	*out = NULL;
	lb_io_msg(errbuf, errbuf_len, 0, "%s", ""); /* success leaves an empty message */
	if (!path || !path[0])
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_ARG, "open: empty path");
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return lb_io_msg(errbuf, errbuf_len, -ENOMEM, "open %s: out of memory", path);
	}
	f->flags = flags;
	f->fd = open(path, open_flags(flags), 0644);
	if (f->fd < 0) {
		r = -errno;
		if (r == -EINVAL && (flags & LB_IO_O_DIRECT))
			lb_io_msg(errbuf, errbuf_len, 0,
				  "open %s: O_DIRECT is not supported on this filesystem", path);
		else
			lb_io_describe_errno(errbuf, errbuf_len, "open", path, -r);
		goto fail;
	}
	r = probe_size(f, errbuf, errbuf_len);
	if (r < 0)
		goto fail;
	/* A hint: a filesystem that ignores it changes nothing but the read-ahead. */
	if (flags & LB_IO_O_RANDOM)
		(void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_RANDOM);
	else if (flags & LB_IO_O_SEQUENTIAL)
		(void)posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	probe_align(f);
	f->id = __atomic_fetch_add(&next_file_id, 1, __ATOMIC_RELAXED);
	*out = f;
	return 0;
fail:
	lb_io_file_close(f);
	return r;
}

void lb_io_file_close(struct lb_io_file *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	free(f);
}

int32_t lb_io_file_fd(const struct lb_io_file *f) { return f->fd; }
const char *lb_io_file_path(const struct lb_io_file *f) { return f->path; }
uint32_t lb_io_file_flags(const struct lb_io_file *f) { return f->flags; }
uint64_t lb_io_file_size_bytes(const struct lb_io_file *f) { return f->size_bytes; }
uint32_t lb_io_file_mem_align(const struct lb_io_file *f) { return f->mem_align; }
uint32_t lb_io_file_offset_align(const struct lb_io_file *f) { return f->offset_align; }
int32_t lb_io_file_is_blockdev(const struct lb_io_file *f) { return f->is_blockdev; }
uint64_t lb_io_file_id(const struct lb_io_file *f) { return f->id; }

int lb_io_file_check_align(const struct lb_io_file *f, const void *buf, uint64_t length_bytes,
			   uint64_t offset_bytes, char *errbuf, uint32_t errbuf_len)
{
	uint32_t a = f->offset_align, m = f->mem_align;

	if (!(f->flags & LB_IO_O_DIRECT))
		return 0;
	if (offset_bytes % a == 0 && length_bytes % a == 0 && (uintptr_t)buf % m == 0)
		return 0;
	return lb_io_msg(errbuf, errbuf_len, LB_IO_E_ALIGN,
			 "O_DIRECT I/O on %s needs offset and length aligned to %u bytes and the "
			 "buffer to %u bytes (got offset %llu, length %llu, buffer %p)",
			 f->path, a, m, (unsigned long long)offset_bytes,
			 (unsigned long long)length_bytes, buf);
}

int lb_io_file_degraded(const char *engine, const struct lb_io_file *f, char *errbuf,
			uint32_t errbuf_len)
{
	int code;
	const struct lb_io_ops *ops = lb_io_engine_find(engine, &code, errbuf, errbuf_len);

	if (!ops)
		return code;
	if (!(ops->flags & LB_IO_F_NEEDS_DIRECT) || (f->flags & LB_IO_O_DIRECT))
		return 0;
	return lb_io_msg(errbuf, errbuf_len, 1,
			 "%s on %s without O_DIRECT: io_submit blocks until each I/O is done, so "
			 "the I/Os run one at a time and throughput is that of depth 1 (the achieved "
			 "depth still counts each I/O until it is reaped); open with direct, or use "
			 "io_uring", engine, f->path);
}
