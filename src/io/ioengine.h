/* luabench I/O engine layer: the engine contract, the per-I/O object and the job helper.
 *
 * Three layers, all in C, none of them knows about Lua:
 *   1. struct lb_io_ops   - one const, versioned table per engine (psync, libaio, io_uring,
 *                           mmap, null), modelled on fio's queue/commit/getevents/event protocol.
 *   2. struct lb_io       - one I/O: what to do (op, file, offset, length, buffer, tag) and what
 *                           happened (result, error, three CLOCK_MONOTONIC timestamps).
 *   3. struct lb_io_ctx   - one per worker thread: owns an engine instance, submits and reaps,
 *                           keeps the achieved-depth accounting, offers a blocking path.
 *
 * FFI rules: every public function takes opaque pointers, fixed-width scalars and caller-owned
 * buffers; nothing calls back into the caller, nothing exits, nothing allocates per I/O. Errors
 * are 0 / negative errno / negative enum lb_io_err, with a message readable from the context.
 *
 * Thread safety: a struct lb_io_ctx and the ios submitted to it belong to one thread. Files
 * (iofile.h) are read-only after open and may be shared by contexts on several threads.
 *
 * Latency definitions (fio's slat/clat/lat):
 *   lat        = complete_ns - start_ns   (robust; what SQLIO/DiskSpd/fio "lat" report)
 *   submit     = issue_ns    - start_ns   (async engines: includes the submit syscall)
 *   completion = complete_ns - issue_ns   (async engines; includes time spent waiting to be reaped)
 * Sync engines (psync, mmap) set issue_ns = start_ns: all of the latency is "completion".
 */
#ifndef LB_IO_IOENGINE_H
#define LB_IO_IOENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifndef LB_IO_API
#define LB_IO_API __attribute__((visibility("default")))
#endif

struct lb_io_file; /* iofile.h */
struct lb_io_ctx;  /* opaque, one per thread */

/* Error codes of this layer. All are negative and below -4095, so they never collide with a
 * negative errno, which the layer passes through unchanged (-ENOSPC, -EINVAL, ...). */
enum lb_io_err {
	LB_IO_E_ALIGN = -5001,       /* O_DIRECT I/O whose offset, length or buffer is misaligned */
	LB_IO_E_UNKNOWN = -5002,     /* no engine of that name */
	LB_IO_E_UNSUPPORTED = -5003, /* engine not built in, or refused by this kernel: fall back */
	LB_IO_E_BADOPS = -5004,      /* an ops table failed its registration check */
	LB_IO_E_FULL = -5005,        /* depth I/Os already pending: reap before submitting */
	LB_IO_E_STATE = -5006,       /* call not valid now (io already pending, ctx not idle, ...) */
	LB_IO_E_ARG = -5007,         /* bad argument (unknown op, NULL buffer, zero length, ...) */
	LB_IO_E_TORN = -5008,        /* checksum mismatch: block torn or corrupted */
	LB_IO_E_MISPLACED = -5009,   /* intact block that belongs to another offset */
	LB_IO_E_SHORT = -5010,       /* fewer bytes than asked and no errno to explain it */
};

enum lb_io_op {
	LB_IO_READ = 0,
	LB_IO_WRITE = 1,
	LB_IO_FSYNC = 2,     /* fsync(2) semantics; offset/length/buf ignored */
	LB_IO_FDATASYNC = 3, /* fdatasync(2) semantics; offset/length/buf ignored */
};

/* One I/O. The caller fills the first block and submits; the core and the engine fill the
 * rest. The caller may own the struct (any memory, zeroed before its first submit and kept
 * alive until reaped) or take one from the context's pool (lb_io_get/lb_io_put). All fields
 * are fixed width for the FFI. One transfer is at most LB_IO_MAX_BYTES (Linux's limit for a
 * single read/write); longer ones are refused with LB_IO_E_ARG. */
#define LB_IO_MAX_BYTES 0x7ffff000u
struct lb_io {
	/* in: set by the caller */
	struct lb_io_file *file; /* borrowed; must outlive the I/O */
	void *buf;               /* borrowed; NULL for FSYNC/FDATASYNC */
	uint64_t offset_bytes;
	uint64_t length_bytes;
	uint64_t tag;            /* caller's; never touched by the layer */
	uint32_t op;             /* enum lb_io_op */
	/* out: set by the core / engine */
	int32_t error;           /* 0, negative errno, or enum lb_io_err */
	int64_t result_bytes;    /* bytes transferred (may be short); 0 for syncs and on error */
	uint64_t start_ns;       /* CLOCK_MONOTONIC: core, just before the engine's queue() */
	uint64_t issue_ns;       /* after the submit call returned (one stamp per commit) */
	uint64_t complete_ns;    /* when reaped (one stamp per reaping call) */
	/* private */
	void *engine_data;       /* owned by the engine while the I/O is pending */
	uint32_t core_state;     /* owned by the core: idle / pending / pooled bits */
	uint32_t core_reserved;
};

/* ---------------------------------------------------------------------------------------
 * Engine contract (for engine authors; workloads use the job helper below).
 * ------------------------------------------------------------------------------------- */

#define LB_IO_OPS_VERSION 1
/* The most I/Os one context holds, whatever the engine (an engine may allow fewer). */
#define LB_IO_MAX_DEPTH 65536u

enum lb_io_q {
	LB_IO_Q_COMPLETED = 0, /* done inline (sync engine, or failed early): io->error/result set */
	LB_IO_Q_QUEUED = 1,    /* accepted; becomes visible to the device at the next commit() */
	LB_IO_Q_BUSY = 2,      /* no room: call commit() and reap, then queue again */
};

enum lb_io_engine_flags {
	LB_IO_F_SYNC = 1u << 0,         /* queue() always completes inline; no commit/getevents */
	LB_IO_F_ASYNC = 1u << 1,        /* queue()/commit()/getevents()/event() protocol */
	LB_IO_F_NEEDS_DIRECT = 1u << 2, /* async only on O_DIRECT files (libaio blocks otherwise) */
	LB_IO_F_MEMMAP = 1u << 3,       /* goes through a mapping, not the fd: O_DIRECT rules n/a */
	LB_IO_F_FAKE = 1u << 4,         /* moves no data (null engine) */
};

/* Engine operations. The core allocates priv_size zeroed bytes per context (reach them with
 * lb_io_ctx_priv()) and calls init() once before any other op. Required: name, version ==
 * LB_IO_OPS_VERSION, queue, exactly one of SYNC/ASYNC, and for ASYNC commit, getevents, event.
 * Engines report failures of init() through lb_io_ctx_set_error(). */
struct lb_io_ops {
	const char *name;
	uint32_t version;
	uint32_t flags;     /* enum lb_io_engine_flags */
	size_t priv_size;   /* fixed part of the per-context state; depth-sized arrays from init() */
	/* Prepare for up to depth pending I/Os. 0 or a negative code (message set on ctx). */
	int (*init)(struct lb_io_ctx *ctx, uint32_t depth);
	/* Release everything init() acquired; must cope with a failed or partial init(). */
	void (*cleanup)(struct lb_io_ctx *ctx);
	/* Accept one I/O whose start_ns is set. Never blocks on an ASYNC engine (except libaio on
	 * buffered files, which is why NEEDS_DIRECT exists). */
	enum lb_io_q (*queue)(struct lb_io_ctx *ctx, struct lb_io *io);
	/* Hand everything queued to the kernel and set issue_ns on each I/O it accepted (one stamp
	 * per submit call). Returns how many I/Os left the queue (submitted, or failed and made
	 * reapable), or a negative code. Leaving I/Os queued (EAGAIN) is allowed: the core reaps
	 * and commits again. */
	int (*commit)(struct lb_io_ctx *ctx);
	/* Wait until at least min I/Os completed (or timeout_ns elapsed; < 0 waits for ever, 0
	 * polls; min == 0 never blocks) and collect at most max (<= depth). Returns the number
	 * collected or a negative code. */
	int (*getevents)(struct lb_io_ctx *ctx, uint32_t min, uint32_t max, int64_t timeout_ns);
	/* The i-th I/O collected by the last getevents(), with error/result_bytes filled in. */
	struct lb_io *(*event)(struct lb_io_ctx *ctx, uint32_t i);
	/* Optional: the most I/Os one context can hold here (the kernel's limit), with where the
	 * limit comes from in why. Absent: the core's own limit (65536). */
	uint32_t (*max_depth)(char *why, uint32_t why_len);
};

/* Check an ops table as the registry does. 0, or LB_IO_E_BADOPS with a message in errbuf.
 * Exposed so that tests can feed it broken tables. errbuf may be NULL. */
LB_IO_API int lb_io_ops_check(const struct lb_io_ops *ops, char *errbuf, uint32_t errbuf_len);

/* Engine names in registry order (all known names, also those not built in). i >= count: NULL. */
LB_IO_API uint32_t lb_io_engine_count(void);
LB_IO_API const char *lb_io_engine_name(uint32_t i);
/* Flags of an engine that is built in and passed its check, or a negative code:
 * LB_IO_E_UNKNOWN, LB_IO_E_UNSUPPORTED (not built), LB_IO_E_BADOPS. */
LB_IO_API int64_t lb_io_engine_flags(const char *name);
/* The most I/Os one context of engine `name` can hold (its own limit, at most the core's 65536),
 * and in why (may be NULL) where that limit comes from; 0 for an engine not built in. */
LB_IO_API uint32_t lb_io_engine_max_depth(const char *name, char *why, uint32_t why_len);
/* The engine that stands in for `name` where `name` cannot run (not built, or refused by the
 * kernel or a sandbox): the next best, with a subset of its capabilities. NULL: none. */
LB_IO_API const char *lb_io_engine_fallback(const char *name);

/* Static text for a code returned by this layer (also handles negative errno). Never NULL. */
LB_IO_API const char *lb_io_strerror(int code);

/* ---------------------------------------------------------------------------------------
 * Job helper: what a workload calls. One context per thread.
 * ------------------------------------------------------------------------------------- */

/* Create a context running engine `name` with room for depth (1..65536) pending I/Os.
 * On success *out owns a context (free with lb_io_ctx_free), errbuf is emptied and 0 is
 * returned. Create it on the thread that will use it. On failure
 * *out = NULL, a negative code is returned and errbuf (may be NULL) gets one line, e.g.
 * LB_IO_E_UNSUPPORTED when io_uring is disabled by kernel.io_uring_disabled or seccomp: the
 * caller is expected to fall back to "libaio" or "psync" and to say so (the message gives the
 * cause only, e.g. "io_uring_setup: Operation not permitted; …", to be wrapped). */
LB_IO_API int lb_io_ctx_new(const char *name, uint32_t depth, struct lb_io_ctx **out,
			    char *errbuf, uint32_t errbuf_len);

/* Tear down the engine (waiting for or cancelling I/Os still pending) and free the context,
 * including its pool of ios. NULL is a no-op. */
LB_IO_API void lb_io_ctx_free(struct lb_io_ctx *ctx);

/* Waits (up to 5 s per stuck context) until no context of the calling thread has an I/O in
 * flight, discarding the completions. Called before a buffer is freed. */
LB_IO_API void lb_io_quiesce_thread(void);

/* The last error message of this context ("" if none). Owned by ctx; valid until the next call. */
LB_IO_API const char *lb_io_ctx_errmsg(const struct lb_io_ctx *ctx);
LB_IO_API const char *lb_io_ctx_engine(const struct lb_io_ctx *ctx);
LB_IO_API uint32_t lb_io_ctx_depth(const struct lb_io_ctx *ctx);

/* Pool: the context owns depth ios. lb_io_get returns a free one (fields cleared) or NULL if
 * all are in use; lb_io_put gives it back once the caller is done with a reaped io.
 * Putting an io that is pending, or not from this pool, is ignored. */
LB_IO_API struct lb_io *lb_io_get(struct lb_io_ctx *ctx);
LB_IO_API void lb_io_put(struct lb_io_ctx *ctx, struct lb_io *io);

/* Fill the input fields of io in one call (convenience for the FFI). */
LB_IO_API void lb_io_prep(struct lb_io *io, uint32_t op, struct lb_io_file *file, void *buf,
			  uint64_t length_bytes, uint64_t offset_bytes, uint64_t tag);

enum lb_io_submit_flags {
	LB_IO_SUBMIT_COMMIT = 1u << 0, /* commit right away instead of batching */
};

/* Stamp start_ns and queue io. Commits automatically when the engine's queue is full; with
 * LB_IO_SUBMIT_COMMIT also right away. Returns 0 (io is now pending and will come back from
 * lb_io_reap exactly once, possibly with io->error set) or a negative code, in which case io
 * was not queued: LB_IO_E_FULL (depth pending: reap first), LB_IO_E_ALIGN (O_DIRECT rules,
 * message names the alignment), LB_IO_E_ARG, LB_IO_E_STATE (io already pending). */
LB_IO_API int lb_io_submit(struct lb_io_ctx *ctx, struct lb_io *io, uint32_t flags);

/* Commit everything queued. Returns the number of ios that left the queue, or a negative code. */
LB_IO_API int lb_io_commit(struct lb_io_ctx *ctx);

/* Collect completed ios into out[0..n) (at most max), waiting until at least min are
 * available or timeout_ns passed (< 0: no timeout; 0: just poll). Commits queued ios first.
 * min is clamped to the number pending. Each returned io has complete_ns set (one stamp per
 * call) and is no longer pending. Returns n >= 0 or a negative code. */
LB_IO_API int lb_io_reap(struct lb_io_ctx *ctx, uint32_t min, uint32_t max, struct lb_io **out,
			 int64_t timeout_ns);

/* Submitted and not yet reaped. */
LB_IO_API uint32_t lb_io_inflight(const struct lb_io_ctx *ctx);

/* Achieved depth: time-weighted average number of ios inside the engine (queued, submitted
 * or completing) since the first submit after creation or lb_io_depth_reset(); 0 if no time
 * elapsed. Sync engines count an io from start_ns to its completion, not until it is reaped. */
LB_IO_API double lb_io_avg_depth(const struct lb_io_ctx *ctx);

/* Time (ns) spent at each depth level, fio-style buckets:
 * [0]=idle, [1]=1, [2]=2-3, [3]=4-7, [4]=8-15, [5]=16-31, [6]=32-63, [7]=>=64.
 * Copies min(n, LB_IO_DEPTH_BUCKETS) values; returns LB_IO_DEPTH_BUCKETS. */
#define LB_IO_DEPTH_BUCKETS 8
LB_IO_API uint32_t lb_io_depth_hist(const struct lb_io_ctx *ctx, uint64_t *out_ns, uint32_t n);

/* Restart the depth accounting (e.g. after warm-up). Pending ios keep counting. */
LB_IO_API void lb_io_depth_reset(struct lb_io_ctx *ctx);

/* Counters since creation: ios submitted, ios reaped, commit calls that submitted something,
 * reap calls that returned something. out must hold 4 values. */
LB_IO_API void lb_io_ctx_counters(const struct lb_io_ctx *ctx, uint64_t *out4);

/* Blocking path, one I/O at a time through the same engine (depth 1 in effect). The context
 * must have nothing pending (else LB_IO_E_STATE). Returns bytes transferred (pread/pwrite:
 * may be short) or 0 for syncs, or a negative code. lb_io_last_lat_ns() then gives its
 * latency (complete - start). */
LB_IO_API int64_t lb_io_pread(struct lb_io_ctx *ctx, struct lb_io_file *f, void *buf,
			      uint64_t length_bytes, uint64_t offset_bytes);
LB_IO_API int64_t lb_io_pwrite(struct lb_io_ctx *ctx, struct lb_io_file *f, const void *buf,
			       uint64_t length_bytes, uint64_t offset_bytes);
LB_IO_API int64_t lb_io_fsync(struct lb_io_ctx *ctx, struct lb_io_file *f);
LB_IO_API int64_t lb_io_fdatasync(struct lb_io_ctx *ctx, struct lb_io_file *f);
LB_IO_API uint64_t lb_io_last_lat_ns(const struct lb_io_ctx *ctx);

#endif
