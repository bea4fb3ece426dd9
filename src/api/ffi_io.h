/* Part of the FFI surface (see ffi.h): file I/O. Parsed only by the Lua states that load luabench.io. */
#ifndef LB_API_FFI_IO_H
#define LB_API_FFI_IO_H

#ifndef LB_CDEF
#include "api/ffi.h"
#else
#define LB_FFI
struct lb_worker;
#endif

/* ---- file I/O: the engine layer (src/io) and its statistics (fileio.c) ----------------------
 * luabench.io and the fileio workload call the engine layer directly (ioengine.h: contexts,
 * submit/reap, blocking calls; iofile.h: files, aligned buffers, preparation; iocheck.h:
 * CRC32C and self-checking blocks). The lb_fio_* functions add what a run needs on top: each
 * reaped I/O recorded in the run's statistics, and the figures of the fileio report. */
#ifdef LB_CDEF
#define LB_IO_API
#endif
#include "io/ioengine.h"
#include "io/iofile.h"
#include "io/iocheck.h"

struct lb_fio_stat;   /* one per Lua state that does I/O; kept until the run ends */
struct lb_fio_report; /* the figures of the current statistics window, for a report hook */
struct lb_fio_busy;   /* byte ranges in flight (process-wide, for --validate) */

enum lb_fio_flags {
	LB_FIO_EVENT = 1, /* the I/O is an engine event: its latency goes into the event histogram */
	LB_FIO_PARTS = 2, /* asynchronous engine: also record the submit and completion parts */
	LB_FIO_BATCH = 4, /* queue without committing (lb_io_commit or the next reap submits) */
};

/* One latency distribution of the current window, in ns. ms[k] counts latencies in
 * [k, k + 1) ms, ms[24] those of 24 ms and more (SQLIO's histogram). */
struct lb_fio_lat {
	uint64_t count, errors, overflow;
	double sum_ns, min_ns, max_ns, mean_ns, stddev_ns;
	double pct_ns[32];
	uint64_t ms[25];
};

/* Process-wide figures of the current window. Index 0..3 of the iops arrays: read, write,
 * sync, all. depth_pct: share of time with 0, 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+ I/Os in
 * flight (summed over threads). dev: /proc/diskstats deltas of the watched device (fields in
 * sys/diskstats.h order; dev[8] is the in-flight count at the end), from the run's system metrics
 * (dev_source 1: no merge counts) or, with --system-stats=off, from fileio's own readings
 * (dev_source 2). The CPU figures come from the same source. */
struct lb_fio_window {
	double start_s, end_s, elapsed_s;
	int32_t finished;
	uint32_t seconds;
	double iops_mean[4], iops_stddev[4], iops_min[4], iops_max[4];
	uint32_t depth_threads;
	double depth_sum;
	double depth_pct[8];
	int32_t have_cpu;
	double cpu_user_s, cpu_sys_s, cpu_wall_s;
	int32_t have_dev;
	int32_t dev_source;
	char dev_name[32];
	uint32_t dev_major, dev_minor;
	uint64_t dev[17];
};

/* The device counters the run's report shows: the block device holding path. 0, or a negative errno
 * with one line in err (e.g. tmpfs has no block device); the report then leaves them out. */
LB_FFI int lb_fio_watch(struct lb_worker *w, const char *path, char *err, uint32_t errlen);
/* Process set-up for file I/O (called when luabench.io loads): writes beyond the file size
 * limit (ulimit -f) fail with EFBIG instead of raising SIGXFSZ. */
LB_FFI void lb_fio_setup(void);
LB_FFI struct lb_fio_stat *lb_fio_stat_new(struct lb_worker *w);
/* Queues whose achieved depth this worker reports (untrack before freeing the context). */
LB_FFI void lb_fio_track(struct lb_fio_stat *s, struct lb_io_ctx *ctx);
LB_FFI void lb_fio_untrack(struct lb_fio_stat *s, struct lb_io_ctx *ctx);
/* Takes a pool I/O, fills it and submits it (committing unless LB_FIO_BATCH). type_id: a
 * luabench.stats type (-1: none); tag: 48 bits for the caller. 0, or a negative code of the
 * engine layer (message from lb_io_ctx_errmsg; LB_IO_E_FULL when depth I/Os are pending). */
LB_FFI int32_t lb_fio_submit(struct lb_fio_stat *s, struct lb_io_ctx *ctx, uint32_t op,
			     struct lb_io_file *f, void *buf, uint64_t len, uint64_t off,
			     uint64_t tag, int32_t type_id, uint32_t flags);
/* lb_io_reap, then records each I/O and gives it back to the pool: out[i] stays readable
 * (error, result_bytes, offset, tag & 0xffffffffffff ...) until the next submit. */
LB_FFI int32_t lb_fio_reap(struct lb_fio_stat *s, struct lb_io_ctx *ctx, uint32_t min,
			   uint32_t max, struct lb_io **out, int64_t timeout_ns);
/* Records one engine event of latency lat_ns (for I/Os submitted without LB_FIO_EVENT whose
 * event latency the caller measures itself, e.g. from an intended start in --rate mode). */
LB_FFI void lb_fio_event(struct lb_fio_stat *s, double lat_ns);
/* One blocking I/O on an idle context, recorded: bytes, or a negative code. */
LB_FFI int64_t lb_fio_sync(struct lb_fio_stat *s, struct lb_io_ctx *ctx, uint32_t op,
			   struct lb_io_file *f, void *buf, uint64_t len, uint64_t off,
			   int32_t type_id, uint32_t flags);
/* Publishes the achieved depth; final != 0 at the end of a worker's loop (the last one also
 * takes the closing CPU and device reading). */
LB_FFI void lb_fio_flush(struct lb_fio_stat *s, int32_t final);

LB_FFI struct lb_fio_report *lb_fio_report_new(struct lb_worker *w);
LB_FFI void lb_fio_report_free(struct lb_fio_report *r);
/* Figures of a luabench.stats type; 0 if it has nothing in this window. */
LB_FFI int32_t lb_fio_report_type(struct lb_fio_report *r, int32_t type_id, const double *pcts,
				  int32_t npct, struct lb_fio_lat *out);
/* Submit (part 0) or completion (part 1) part of read (dir 0), write (1) or sync (2) I/Os. */
LB_FFI int32_t lb_fio_report_part(struct lb_fio_report *r, uint32_t dir, uint32_t part,
				  const double *pcts, int32_t npct, struct lb_fio_lat *out);
LB_FFI void lb_fio_report_window(struct lb_fio_report *r, struct lb_fio_window *out);
/* Completions in each whole second of the window (dir 3 = all); returns the number of seconds. */
LB_FFI uint32_t lb_fio_report_series(struct lb_fio_report *r, uint32_t dir, double *out,
				     uint32_t max);

/* Atomic fetch-and-add on shared memory (luabench.shared). */
LB_FFI uint64_t lb_fio_ticket(uint64_t *counter, uint64_t n);
/* Sequential cursor over files of file_size bytes (total = files x file_size), shared by
 * threads: returns the offset of the next request and its length in *len_out (at most want,
 * never crossing the end of a file, wrapping at total). */
LB_FFI uint64_t lb_fio_seq_next(uint64_t *cursor, uint64_t want, uint64_t file_size,
				uint64_t total, uint64_t *len_out);
/* The i-th element of a pseudo-random permutation of [0, n) chosen by key. */
LB_FFI uint64_t lb_fio_perm(uint64_t i, uint64_t n, uint64_t key);
LB_FFI struct lb_fio_busy *lb_fio_busy_get(struct lb_worker *w, const char *name, uint32_t slots);
/* A slot if no I/O in flight overlaps [off, off + len) of file, else -1. */
LB_FFI int32_t lb_fio_busy_claim(struct lb_fio_busy *b, uint32_t file, uint64_t off, uint64_t len);
LB_FFI void lb_fio_busy_release(struct lb_fio_busy *b, int32_t slot);
/* Creates path empty (truncating it if it exists), then sizes it to size_bytes with a hole
 * (sysbench's sequential-write "creation" test). 0, or a negative errno with one line in err. */
LB_FFI int32_t lb_fio_create(const char *path, uint64_t size_bytes, char *err, uint32_t errlen);

#endif
