/* The FFI surface: every C function and type the Lua side reaches through ffi.C.
 *
 * This header is the single source of truth. The build runs it through the preprocessor with
 * LB_CDEF defined and embeds the result as the `luabench.cdef` module, so no declaration is ever
 * copied by hand into Lua. Rules for everything declared here: scalars, opaque pointers and
 * caller-owned buffers only; never raise a Lua error, never call back into Lua, never allocate
 * per call on the hot path; report failures with return codes.
 *
 * The sysbench section declares exactly the names sysbench 1.0.20 pre-declares, with the same
 * enum constants, because existing scripts re-declare those functions and rely on the types
 * (LuaJIT accepts a repeated function prototype but not a repeated enum constant). */
#ifndef LB_BIND_FFI_H
#define LB_BIND_FFI_H

#ifndef LB_CDEF
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#define LB_FFI __attribute__((visibility("default")))
#else
#define LB_FFI
#endif

#include "db/driver.h"

struct lb_worker;
struct lb_rng;
struct lb_uhist;
struct lb_mutexes;

/* ---- event loop (worker.c) ---------------------------------------------------------------- */

/* Ends the previous event (prev_start_ns >= 0: records its latency, now - prev_start_ns) and
 * starts the next one. Returns the next event's start time in ns since the run started (its
 * intended start in --rate mode, after sleeping until it is due), or -1 when this worker must
 * stop (time or event limit reached, shutdown requested). One clock read per event. */
LB_FFI double lb_event_next(struct lb_worker *w, double prev_start_ns);
/* Marks the worker as not in an event (the event returned a stop value or failed). */
LB_FFI void lb_event_abandon(struct lb_worker *w);
/* ns since the run started (CLOCK_MONOTONIC). */
LB_FFI double lb_clock_ns(struct lb_worker *w);
/* Think time in a worker without emulated users: sleeps, and the time is left out of the
 * current event's latency. */
LB_FFI void lb_think_ns(struct lb_worker *w, double ns);
LB_FFI void lb_counter_add(struct lb_worker *w, int counter, uint64_t n);
LB_FFI int lb_worker_tid(struct lb_worker *w);
LB_FFI struct lb_rng *lb_worker_rng(struct lb_worker *w);
/* 1 once the run is stopping (time up, signal, fatal error): long custom loops should poll it. */
LB_FFI int lb_worker_stopping(struct lb_worker *w);
LB_FFI void lb_sleep_ns(double ns);

/* ---- emulated users (usched.c, worker.c) ---------------------------------------------------
 * With --users, each worker runs its users as Lua coroutines. A user parks itself here before
 * yielding (on a timer, on a database socket, or on nothing until lb_usched_ready), and the
 * worker's loop asks lb_usched_next() whom to resume; that call blocks in epoll until a timer
 * is due or a socket is ready. One scheduler per worker, used by that worker's thread only. */
struct lb_usched;

LB_FFI struct lb_usched *lb_usched_new(struct lb_worker *w, int nusers);
LB_FFI void lb_usched_free(struct lb_usched *s);
/* Wakes `user` (0..nusers-1 on this worker) at wake_ns (ns since the run started). */
LB_FFI void lb_usched_sleep(struct lb_usched *s, int user, double wake_ns);
/* Wakes `user` when connection c's operation in flight can progress, or at its deadline
 * (then with LB_DB_WAIT_TIMEOUT). Returns 0, or -1 if the connection has nothing in flight. */
LB_FFI int lb_usched_wait_db(struct lb_usched *s, int user, struct lb_db_conn *c);
/* Parks `user` without a wake-up of its own (lb_usched_ready will wake it). */
LB_FFI void lb_usched_park(struct lb_usched *s, int user);
LB_FFI void lb_usched_ready(struct lb_usched *s, int user);
/* Whether `user` is parked on something (a yield without a wait would lose the user). */
LB_FFI int lb_usched_waiting(struct lb_usched *s, int user);
/* The next user to resume; *bits = database readiness (LB_DB_WAIT_*), 0 for other wake-ups.
 * Returns -1 when the run is over (time or event limit, shutdown): nobody is resumed again. */
LB_FFI int lb_usched_next(struct lb_usched *s, uint32_t *bits);

/* Users of this worker (0 = one implicit user: sysbench mode), all users, and the global id of
 * this worker's i-th user. */
LB_FFI int lb_users_here(struct lb_worker *w);
LB_FFI int lb_users_total(struct lb_worker *w);
LB_FFI int lb_users_global_id(struct lb_worker *w, int i);
/* When global user `uid` starts, in ns since the run started (--ramp-up). */
LB_FFI double lb_users_start_ns(struct lb_worker *w, int uid);
/* Physical connections this worker's pool may open (--connections split over the workers). */
LB_FFI int lb_users_pool_size(struct lb_worker *w);
/* lb_event_next for users: the previous event's latency excludes excluded_ns (think time spent
 * inside it); the worker's concurrency counts users inside an event. */
LB_FFI double lb_user_event_next(struct lb_worker *w, double prev_start_ns, double excluded_ns);

/* ---- named transaction types: luabench.stats (worker.c) ------------------------------------ */
/* Id of the type called `name` (the same in every thread), or -1 when 64 types exist already. */
LB_FFI int lb_type_define(const char *name);
/* Records an outcome: 0 ok, 1 error, 2 intentional rollback, 3 retried; for 0 and 2 the
 * latency is now - start_ns (ns since the run started, from lb_clock_ns). */
LB_FFI void lb_type_record(struct lb_worker *w, int id, double start_ns, int outcome);

/* ---- random numbers (rand.c); arguments wrap to uint32 as in sysbench ---------------------- */
LB_FFI uint32_t lb_rand_uniform(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_gaussian(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_special(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_pareto(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_zipfian(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_default(struct lb_rng *r, uint32_t a, uint32_t b);
LB_FFI uint32_t lb_rand_unique(void);
LB_FFI double lb_rand_exp(struct lb_rng *r, double mean);
LB_FFI void lb_rand_str(struct lb_rng *r, const char *fmt, char *buf, uint32_t len);
LB_FFI uint64_t lb_rand_u64(struct lb_rng *r);
LB_FFI double lb_rand_double(struct lb_rng *r);

/* ---- user histograms: sysbench.histogram (uhist.c); updates are thread-safe --------------- */
LB_FFI struct lb_uhist *lb_uhist_new(uint32_t size, double range_min, double range_max);
LB_FFI void lb_uhist_free(struct lb_uhist *h);
LB_FFI void lb_uhist_update(struct lb_uhist *h, double value);
LB_FFI void lb_uhist_print(struct lb_uhist *h);
LB_FFI double lb_uhist_percentile(struct lb_uhist *h, double pct);

/* ---- process-wide named objects shared by all Lua states (shared.c) ----------------------- */
/* Zeroed memory of `size` bytes named `name`, created on first use and kept until exit. Later
 * calls with the same name return the same block (and fail with NULL if the size differs). */
LB_FFI void *lb_shared_bytes(const char *name, uint64_t size);
/* An array of n mutexes named `name`, created on first use. */
LB_FFI struct lb_mutexes *lb_shared_mutexes(const char *name, uint32_t n);
/* Atomic operations on shared memory (counters, tickets, flags): return the previous value. */
LB_FFI uint64_t lb_atomic_add(uint64_t *p, uint64_t v);
LB_FFI uint64_t lb_atomic_load(uint64_t *p);
LB_FFI uint64_t lb_atomic_cas(uint64_t *p, uint64_t expected, uint64_t desired);

/* ---- built-in workload kernels (kernels.c) ------------------------------------------------ */
/* cpu: trial-divides every number in [3, max_prime]; returns the number of primes found. */
LB_FFI uint32_t lb_kernel_cpu(uint32_t max_prime);
/* memory: one pass over `size_bytes` of buf with word loads (oper 1) or stores (oper 2), or
 * nothing (0); rnd != 0 visits random word offsets. Returns a checksum so reads aren't elided. */
LB_FFI uint64_t lb_kernel_memory(void *buf, uint64_t size_bytes, int oper, int rnd, struct lb_rng *r);
/* Allocates an aligned block for the memory test (huge pages when hugetlb != 0). */
LB_FFI void *lb_kernel_memory_alloc(uint64_t size_bytes, int hugetlb);
/* threads: `yields` times lock mutex `idx`, sched_yield(), unlock. */
LB_FFI void lb_kernel_threads(struct lb_mutexes *m, uint32_t idx, uint32_t yields);
/* A process-wide ticket counter (threads test: which lock the next event uses). */
LB_FFI uint64_t lb_kernel_ticket(const char *name);
/* mutex: `locks` times: spin `loops` empty iterations, then lock a random mutex and bump a
 * shared counter under it. */
LB_FFI void lb_kernel_mutex(struct lb_mutexes *m, uint32_t locks, uint32_t loops, struct lb_rng *r);

/* ---- SQL (bind/sql.c): the driver layer plus accounting, waiting and --db-* options --------- */

/* The result object of a connection (one live result set per connection, as in sysbench). The
 * first fields are what sysbench scripts read: rs.nrows (rows, or affected rows for DML),
 * rs.nfields. */
struct lb_sql_result {
	uint32_t nrows;
	uint32_t nfields;
	int32_t counter;             /* how the statement was counted (sb_counter_type) */
	int32_t freed;               /* rs:free() was called for this result set */
	struct lb_db_result r;
	struct lb_db_row row;
	struct lb_db_conn *conn;
};

/* The process-wide configuration of driver `name` (NULL = --db-driver) built from the --db-*,
 * --mysql-* and --pgsql-* options; created once and kept until exit. NULL with a message in err
 * when the driver is unknown or the options are invalid. */
LB_FFI struct lb_db_config *lb_sql_config(struct lb_worker *w, const char *name, char *err,
					  uint32_t errlen);
LB_FFI const char *lb_sql_driver_name(struct lb_db_config *cfg);
/* Blocking calls that count the statement in the worker's read/write/other/error counters
 * (lost connections are not errors: the reconnect is counted) and fill rs. Waiting is bounded
 * by the statement's read timeout and by the end of the run. */
LB_FFI int32_t lb_sql_connect(struct lb_worker *w, struct lb_db_conn *c);
LB_FFI int32_t lb_sql_query(struct lb_worker *w, struct lb_sql_result *rs, const char *sql, uint64_t len);
LB_FFI int32_t lb_sql_execute(struct lb_worker *w, struct lb_sql_result *rs, struct lb_db_stmt *s);
LB_FFI int32_t lb_sql_bulk_next(struct lb_worker *w, struct lb_sql_result *rs, const char *row, uint64_t len);
LB_FFI int32_t lb_sql_bulk_done(struct lb_worker *w, struct lb_sql_result *rs);
/* Non-blocking twins for emulated users: start returns LB_DB_PENDING or the final code (then
 * counted like the blocking calls); after PENDING, park on the connection (lb_usched_wait_db)
 * and call lb_sql_step with the readiness bits until it returns something else. */
LB_FFI int32_t lb_sql_query_start(struct lb_worker *w, struct lb_sql_result *rs, const char *sql, uint64_t len);
LB_FFI int32_t lb_sql_execute_start(struct lb_worker *w, struct lb_sql_result *rs, struct lb_db_stmt *s);
LB_FFI int32_t lb_sql_step(struct lb_worker *w, struct lb_sql_result *rs, uint32_t ready);
/* Reconnects with backoff until --db-reconnect-timeout or the end of the run; counts a
 * reconnect on success. */
LB_FFI int32_t lb_sql_reconnect(struct lb_worker *w, struct lb_db_conn *c);

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

struct lb_fio_stat;   /* one per Lua state that does I/O; kept until the process exits */
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
 * devstats.h order; dev[8] is the in-flight count at the end), from the run's system metrics
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

/* The device counters the report shows: the block device holding path. 0, or a negative errno
 * with one line in err (e.g. tmpfs has no block device); the report then leaves them out. */
LB_FFI int lb_fio_watch(const char *path, char *err, uint32_t errlen);
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
LB_FFI struct lb_fio_busy *lb_fio_busy_get(const char *name, uint32_t slots);
/* A slot if no I/O in flight overlaps [off, off + len) of file, else -1. */
LB_FFI int32_t lb_fio_busy_claim(struct lb_fio_busy *b, uint32_t file, uint64_t off, uint64_t len);
LB_FFI void lb_fio_busy_release(struct lb_fio_busy *b, int32_t slot);
/* Creates path empty (truncating it if it exists), then sizes it to size_bytes with a hole
 * (sysbench's sequential-write "creation" test). 0, or a negative errno with one line in err. */
LB_FFI int32_t lb_fio_create(const char *path, uint64_t size_bytes, char *err, uint32_t errlen);

/* ---- sysbench 1.0.20 names (compat.c) ------------------------------------------------------ */
typedef enum {
	SB_CNT_OTHER,
	SB_CNT_READ,
	SB_CNT_WRITE,
	SB_CNT_TRX,
	SB_CNT_ERROR,
	SB_CNT_RECONNECT,
	SB_CNT_MAX
} sb_counter_type;

LB_FFI void sb_counter_inc(int thread_id, sb_counter_type type);
LB_FFI uint64_t sb_counter_val(int thread_id, sb_counter_type type);
LB_FFI bool sb_more_events(int thread_id);
LB_FFI void sb_event_start(int thread_id);
LB_FFI void sb_event_stop(int thread_id);
LB_FFI void sb_rand_str(const char *fmt, char *buf);
LB_FFI uint32_t sb_rand_uniform(uint32_t a, uint32_t b);
LB_FFI uint32_t sb_rand_gaussian(uint32_t a, uint32_t b);
LB_FFI uint32_t sb_rand_special(uint32_t a, uint32_t b);
LB_FFI uint32_t sb_rand_pareto(uint32_t a, uint32_t b);
LB_FFI uint32_t sb_rand_zipfian(uint32_t a, uint32_t b);
LB_FFI uint32_t sb_rand_unique(void);
LB_FFI uint32_t sb_rand_default(uint32_t a, uint32_t b);
LB_FFI uint64_t sb_rand_uniform_uint64(void);
LB_FFI double sb_rand_uniform_double(void);

typedef struct lb_uhist sb_histogram_t;
LB_FFI sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
LB_FFI void sb_histogram_delete(sb_histogram_t *h);
LB_FFI void sb_histogram_update(sb_histogram_t *h, double value);
LB_FFI void sb_histogram_print(sb_histogram_t *h);

#endif
