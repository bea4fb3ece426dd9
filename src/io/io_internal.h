/* Internal to src/io: the file object, engine-side helpers and the engine tables.
 * Not part of the public/FFI surface. */
#ifndef LB_IO_IO_INTERNAL_H
#define LB_IO_IO_INTERNAL_H

#include <stdint.h>
#include <time.h>

#include "lb_config.h"
#include "util/clock.h"
#include "ioengine.h"
#include "iofile.h"

struct lb_io_file {
	int fd;
	uint32_t flags;        /* enum lb_io_open_flags */
	uint64_t size_bytes;   /* at open */
	uint32_t mem_align;    /* O_DIRECT buffer alignment */
	uint32_t offset_align; /* O_DIRECT offset and length alignment */
	int is_blockdev;
	uint64_t id;           /* unique per open, never reused */
	char *path;
};

/* Time source for all three I/O timestamps: the engine's clock, so they compare with its. */
static inline uint64_t lb_io_now_ns(void)
{
	return (uint64_t)lb_now_ns();
}

/* Engine side of the context. */
void *lb_io_ctx_priv(struct lb_io_ctx *ctx);
int lb_io_ctx_set_error(struct lb_io_ctx *ctx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf into an optional caller buffer (buf may be NULL or len 0); returns code. */
int lb_io_msg(char *buf, uint32_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* One line explaining errno err for an operation on path, naming the missing directory for
 * ENOENT, the size limit for EFBIG, and so on. `what` is e.g. "open" or "prepare". */
void lb_io_describe_errno(char *buf, uint32_t len, const char *what, const char *path, int err);

/* Size of the target now (it may have grown since open): st_size or BLKGETSIZE64. */
int lb_io_file_current_size(const struct lb_io_file *f, uint64_t *size_bytes);

/* Portable CRC32C kept callable for tests that compare it with the hardware path. */
uint32_t lb_io_crc32c_sw(uint32_t crc, const void *buf, uint64_t len_bytes);

extern const struct lb_io_ops lb_io_psync_ops;
extern const struct lb_io_ops lb_io_mmap_ops;
extern const struct lb_io_ops lb_io_null_ops;
#if LB_HAVE_LIBAIO
extern const struct lb_io_ops lb_io_libaio_ops;
#endif
#if LB_HAVE_IO_URING
extern const struct lb_io_ops lb_io_uring_ops;
#endif

/* Registry lookup (ioengine.c): the checked ops for name, or NULL with a code and message. */
const struct lb_io_ops *lb_io_engine_find(const char *name, int *code, char *errbuf,
					  uint32_t errbuf_len);

#endif
