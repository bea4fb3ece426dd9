/* luabench I/O targets: files and block devices, aligned buffers, and file preparation.
 *
 * A struct lb_io_file is opened once (typically by the control thread) and may then be used by
 * the contexts of every worker thread: nothing in it changes after lb_io_file_open().
 * All calls return 0 / a value >= 0, or a negative errno / enum lb_io_err (ioengine.h);
 * messages always name the path and the problem. Nothing here exits or prints.
 */
#ifndef LB_IO_IOFILE_H
#define LB_IO_IOFILE_H

#include <stdint.h>

#include "ioengine.h"

enum lb_io_open_flags {
	LB_IO_O_RDONLY = 1u << 0, /* default is read-write */
	LB_IO_O_CREATE = 1u << 1, /* create a missing regular file (mode 0644) */
	LB_IO_O_DIRECT = 1u << 2, /* O_DIRECT: I/O must respect the file's alignment */
	LB_IO_O_DSYNC = 1u << 3,  /* O_DSYNC: each write is durable (data) before it completes */
	LB_IO_O_SYNC = 1u << 4,   /* O_SYNC: each write is durable (data + metadata) */
	/* Access pattern hints (fio's fadvise_hint): posix_fadvise at open, and the mmap engine's
	 * madvise of its mapping. Random turns the page cache's read-ahead off: without it a 4 KiB
	 * page fault of a random mmap read brought in ~2.7 MiB on the test machine. */
	LB_IO_O_RANDOM = 1u << 5,
	LB_IO_O_SEQUENTIAL = 1u << 6,
};

/* Open path. Alignment for O_DIRECT comes from statx(STATX_DIOALIGN); when the kernel or the
 * filesystem does not report it, from the logical block size (BLKSSZGET) of a block device,
 * else 4096. Size: st_size, or BLKGETSIZE64 for a block device.
 * On success *out owns the file (lb_io_file_close), errbuf is emptied and 0 is returned; else
 * *out = NULL, a
 * negative errno and one line in errbuf (may be NULL) such as
 * "open /x/y: directory /x does not exist" or "open /dev/shm/f: O_DIRECT not supported here". */
LB_IO_API int lb_io_file_open(const char *path, uint32_t flags, struct lb_io_file **out,
			      char *errbuf, uint32_t errbuf_len);
/* Close the descriptor and free. The caller guarantees no I/O on it is pending. NULL: no-op. */
LB_IO_API void lb_io_file_close(struct lb_io_file *f);

LB_IO_API int32_t lb_io_file_fd(const struct lb_io_file *f);
LB_IO_API const char *lb_io_file_path(const struct lb_io_file *f); /* owned by f */
LB_IO_API uint32_t lb_io_file_flags(const struct lb_io_file *f);   /* enum lb_io_open_flags */
LB_IO_API uint64_t lb_io_file_size_bytes(const struct lb_io_file *f); /* at open time */
LB_IO_API uint32_t lb_io_file_mem_align(const struct lb_io_file *f);  /* buffer alignment */
LB_IO_API uint32_t lb_io_file_offset_align(const struct lb_io_file *f); /* offset/length */
LB_IO_API int32_t lb_io_file_is_blockdev(const struct lb_io_file *f);
/* Unique, never reused id (engines key per-file state on it, not on the pointer). */
LB_IO_API uint64_t lb_io_file_id(const struct lb_io_file *f);

/* Would an I/O with these parameters be refused on f? 0 if fine (always for non-O_DIRECT
 * files), LB_IO_E_ALIGN with "… needs offset, length and buffer aligned to N bytes …" in
 * errbuf otherwise. lb_io_submit applies the same check. */
LB_IO_API int lb_io_file_check_align(const struct lb_io_file *f, const void *buf,
				     uint64_t length_bytes, uint64_t offset_bytes, char *errbuf,
				     uint32_t errbuf_len);

/* Does engine `name` lose its asynchrony on f (libaio on a file without O_DIRECT blocks inside
 * io_submit, so the I/Os run one at a time, although the achieved depth, which counts an I/O
 * until it is reaped, does not drop to 1)? 1 with a warning line in errbuf, 0 if not,
 * negative code for an unknown engine. The caller decides whether to warn or refuse. */
LB_IO_API int lb_io_file_degraded(const char *engine, const struct lb_io_file *f, char *errbuf,
				  uint32_t errbuf_len);

/* Buffer of size_bytes (rounded up to align) aligned to align (0 means 4096; must be a power of
 * two); zero-filled. From 1 MiB on, aligned and sized to 2 MiB and backed by transparent huge
 * pages where the kernel allows (MADV_HUGEPAGE), so that a large O_DIRECT request is a few
 * physically contiguous segments and the block layer does not split it (see buf.c). A guard
 * page follows it. NULL if out of memory or align is invalid. Free with lb_io_buf_free. */
LB_IO_API void *lb_io_buf_alloc(uint64_t size_bytes, uint32_t align);
LB_IO_API void lb_io_buf_free(void *buf);

/* ---------------------------------------------------------------------------------------
 * Preparation (fileio "prepare"): make path a regular file of exactly size_bytes whose bytes
 * were all really written (never-written extents are not disk reads), in large writes, with
 * progress pulled by the caller:
 *
 *     struct lb_io_prepare *p;
 *     if (lb_io_prepare_new(path, size, 0, 0, 0, &p, err, sizeof err) < 0) fail(err);
 *     while (!lb_io_prepare_done(p)) {
 *             int64_t done = lb_io_prepare_step(p, 64 << 20);
 *             if (done < 0) fail(lb_io_prepare_errmsg(p));
 *             print progress done / lb_io_prepare_total_bytes(p) ...
 *     }
 *     lb_io_prepare_free(p);
 *
 * Content: with check_block_bytes = 0 a position-dependent pseudo-random pattern
 * (lb_io_pattern_fill, seed 0, iocheck.h); otherwise blocks of check_block_bytes filled by
 * lb_io_block_fill(…, seq = 0), so a later run can verify every block it reads.
 * An existing file of the right size with no holes is reused as is; a shorter one, or one
 * with holes (SEEK_HOLE: never written, or only fallocated), is written from its first hole
 * (or its end) on; a longer one is truncated (and written from its first hole, if any). The file is fsync'ed at the end and its pages dropped
 * from the page cache, so the run that follows starts cold.
 * On error the message names the path and the cause: ENOSPC (with bytes written so far),
 * EROFS, EACCES, EFBIG (file size limit, ulimit -f), ENOENT (missing directory). A file this
 * prepare created is removed on error; a pre-existing one is left at its current size.
 * ------------------------------------------------------------------------------------- */

enum lb_io_prepare_state {
	LB_IO_PREP_CREATED = 1,   /* did not exist; being written */
	LB_IO_PREP_REUSED = 2,    /* existed with the right size, no holes; nothing written */
	LB_IO_PREP_EXTENDED = 3,  /* existed shorter or with holes; written from the first hole */
	LB_IO_PREP_TRUNCATED = 4, /* existed longer; cut to size (then as EXTENDED if holes); with
				   * LB_IO_PREP_KEEP_LONGER: REUSED or EXTENDED, never cut */
};

struct lb_io_prepare; /* opaque */

/* A prepare flag beside the open flags: a longer file is kept as it is (its first size_bytes
 * trusted as far as its first hole), not cut to size. sysbench 1.0.20's binary reuses a longer
 * test file ("Reusing existing file"), and fileio does the same. */
enum { LB_IO_PREP_KEEP_LONGER = 1u << 16 };

/* open_flags: 0, LB_IO_O_DIRECT (write with O_DIRECT; an unaligned tail is written without),
 * LB_IO_PREP_KEEP_LONGER.
 * write_block_bytes: size of each write (0: 1 MiB; a multiple of 4096).
 * check_block_bytes: see above; 0, or a multiple of 512 that divides both write_block_bytes and
 * size_bytes. Content is not verified on reuse (only the size and the absence of holes).
 * Returns 0 with *out owned by the caller (errbuf emptied), or a negative code with a line in
 * errbuf. A read-only location holding a file of the right size without holes counts as
 * reusable. */
LB_IO_API int lb_io_prepare_new(const char *path, uint64_t size_bytes, uint32_t open_flags,
				uint32_t write_block_bytes, uint32_t check_block_bytes,
				struct lb_io_prepare **out, char *errbuf, uint32_t errbuf_len);
/* Write up to budget_bytes more (at least one write; 0 means one write). Returns how many
 * bytes of the target are in place (starts at total - to_write, == total when done; for MB/s
 * use the difference), or a negative code (message in lb_io_prepare_errmsg); after an error
 * every further call returns the same code. */
LB_IO_API int64_t lb_io_prepare_step(struct lb_io_prepare *p, uint64_t budget_bytes);
LB_IO_API int32_t lb_io_prepare_done(const struct lb_io_prepare *p);
LB_IO_API uint64_t lb_io_prepare_total_bytes(const struct lb_io_prepare *p);
/* Bytes this prepare actually had to write (0 when reused), for an honest MB/s figure. */
LB_IO_API uint64_t lb_io_prepare_to_write_bytes(const struct lb_io_prepare *p);
LB_IO_API uint32_t lb_io_prepare_state(const struct lb_io_prepare *p); /* lb_io_prepare_state */
LB_IO_API const char *lb_io_prepare_errmsg(const struct lb_io_prepare *p);
/* Close and free (does not remove a finished file). NULL: no-op. */
LB_IO_API void lb_io_prepare_free(struct lb_io_prepare *p);

#endif
