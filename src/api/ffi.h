/* The FFI surface: every C function and type the Lua side reaches through ffi.C.
 *
 * This header and its two companions are the single source of truth. The build runs each through
 * the preprocessor with LB_CDEF defined and embeds the result as a module (`luabench.cdef` here,
 * `luabench.cdef_sql` for ffi_sql.h, `luabench.cdef_io` for ffi_io.h), so no declaration is ever
 * copied by hand into Lua. The SQL and file I/O declarations are only parsed by the Lua states
 * that load those APIs: a state costs about 100 KiB less, which matters with thousands of threads. Rules for everything declared here: scalars, opaque pointers and
 * caller-owned buffers only; never raise a Lua error, never call back into Lua, never allocate
 * per call on the hot path; report failures with return codes.
 *
 * The sysbench section declares exactly the names sysbench 1.0.20 pre-declares, with the same
 * enum constants, because existing scripts re-declare those functions and rely on the types
 * (LuaJIT accepts a repeated function prototype but not a repeated enum constant). */
#ifndef LB_API_FFI_H
#define LB_API_FFI_H

#include "engine/ffi_engine.h"

struct lb_script_hist;
struct lb_mutexes;

/* ---- user histograms: sysbench.histogram (script_hist.c); updates are thread-safe --------------- */
LB_FFI struct lb_script_hist *lb_script_hist_new(uint32_t size, double range_min, double range_max);
LB_FFI void lb_script_hist_free(struct lb_script_hist *h);
LB_FFI void lb_script_hist_update(struct lb_script_hist *h, double value);
LB_FFI void lb_script_hist_print(struct lb_script_hist *h);
LB_FFI double lb_script_hist_percentile(struct lb_script_hist *h, double pct);

/* ---- named objects shared by all Lua states of a run (shared.c) --------------------------- */
/* Zeroed memory of `size` bytes named `name`, created on first use and kept until the run ends. Later
 * calls with the same name return the same block (and fail with NULL if the size differs). */
LB_FFI void *lb_shared_bytes(struct lb_worker *w, const char *name, uint64_t size);
/* An array of n mutexes named `name`, created on first use. */
LB_FFI struct lb_mutexes *lb_shared_mutexes(struct lb_worker *w, const char *name, uint32_t n);
/* Atomic operations on shared memory (counters, tickets, flags): return the previous value. */
LB_FFI uint64_t lb_atomic_add(uint64_t *p, uint64_t v);
LB_FFI uint64_t lb_atomic_load(uint64_t *p);
LB_FFI uint64_t lb_atomic_cas(uint64_t *p, uint64_t expected, uint64_t desired);

/* ---- sockets for scripts: luabench.socket (socket.c) --------------------------------------
 * TCP or connected UDP. Functions return >= 0, or -errno (lb_sock_strerror says it in words).
 * A call given wait_ns >= 1000 on a thread's (blocking) socket waits in the kernel up to that
 * long (-ETIMEDOUT when nothing came); otherwise, and on a user's (non-blocking) socket, it does
 * what it can now: -EAGAIN/-EINPROGRESS mean: wait for the socket (lb_sock_wait in a thread,
 * lb_user_sched_wait_fd for a user), then call again. Byte counts are doubles (FFI numbers). */
struct lb_sock;
enum { LB_SOCK_READ = 1, LB_SOCK_WRITE = 2 };
/* Resolves host and connects: with timeout_ns >= 1000 a blocking socket, connected or failed
 * within timeout_ns (for a thread); else a non-blocking one, connecting (for a user). NULL with
 * the reason in err. */
LB_FFI struct lb_sock *lb_sock_open(struct lb_worker *w, const char *host, int port, int udp, double timeout_ns,
				    char *err, int errlen);
/* 0 once connected, -EINPROGRESS while the handshake goes on, -errno when it failed. */
LB_FFI int lb_sock_connected(struct lb_sock *s);
LB_FFI int lb_sock_fd(struct lb_sock *s);
/* The word a user's waits on the socket keep their epoll registration in (lb_user_sched_wait_fd). */
LB_FFI uint64_t *lb_sock_poll_tag(struct lb_sock *s);
/* Sends what the socket takes (bytes sent; counted in bytes_written). */
LB_FFI double lb_sock_send(struct lb_sock *s, const char *data, size_t len, double wait_ns);
/* Sends up to len (at most 64 KiB) zero bytes. */
LB_FFI double lb_sock_send_zeros(struct lb_sock *s, size_t len, double wait_ns);
/* One piece of a send in several pieces: len bytes at data, or (data NULL) the whole number num
 * written in decimal. */
struct lb_sock_piece {
	const char *data;
	size_t len;
	int64_t num;
};
enum { LB_SOCK_MAX_PIECES = 64 };
/* Sends n pieces (1..LB_SOCK_MAX_PIECES) but their first skip_bytes bytes (sent by earlier
 * calls) in one sendmsg: bytes sent, as lb_sock_send; *total_bytes gets the pieces' length. */
LB_FFI double lb_sock_sendv(struct lb_sock *s, const struct lb_sock_piece *pieces, int n, double skip_bytes,
			    double wait_ns, double *total_bytes);
/* Reads what is there into the socket's buffer: bytes read (counted in bytes_read), 0 at the
 * end of the stream. A non-blocking socket's first call after a send says -EAGAIN without
 * reading (the reply cannot be there yet: wait for the socket). */
LB_FFI double lb_sock_fill(struct lb_sock *s, double wait_ns);
/* The buffered bytes: how many, where, the length up to and including the first delim (-1:
 * not there yet), and taking n of them (returns how many were taken). */
LB_FFI double lb_sock_buffered(struct lb_sock *s);
LB_FFI const char *lb_sock_peek(struct lb_sock *s);
LB_FFI double lb_sock_find(struct lb_sock *s, const char *delim, size_t dlen);
LB_FFI double lb_sock_consume(struct lb_sock *s, double n);
/* Takes the len bytes at p if they are the next ones buffered: 1; -1 if the buffered bytes
 * differ from them (nothing taken); 0 if those buffered so far are fewer and agree (fill more). */
LB_FFI int lb_sock_skip_if(struct lb_sock *s, const char *p, size_t len);
/* Waits (blocking the thread) until the socket is ready for `events` (LB_SOCK_*) or timeout_ns
 * passed (< 0: no limit): the events ready, 0 on timeout. */
LB_FFI int lb_sock_wait(struct lb_sock *s, uint32_t events, double timeout_ns);
LB_FFI void lb_sock_close(struct lb_sock *s);
LB_FFI const char *lb_sock_strerror(int err);
/* The run's sockets: opened, connected, failed to connect, closed. */
LB_FFI void lb_sock_counts(struct lb_worker *w, uint64_t *out4);

/* ---- built-in workload kernels (kernels.c) ------------------------------------------------ */
/* cpu: trial-divides every number in [3, max_prime]; returns the number of primes found. */
LB_FFI uint32_t lb_kernel_cpu(uint32_t max_prime);
/* memory: one pass over `size_bytes` of buf with word loads (oper 1) or stores (oper 2), or
 * nothing (0); rnd != 0 visits random word offsets. Returns a checksum so reads aren't elided. */
LB_FFI uint64_t lb_kernel_memory(void *buf, uint64_t size_bytes, int oper, int rnd, struct lb_rng *r);
/* Allocates an aligned block for the memory test (huge pages when hugetlb != 0). */
LB_FFI void *lb_kernel_memory_alloc(uint64_t size_bytes, int hugetlb);
/* Frees a block of lb_kernel_memory_alloc(size, 0) (not one of huge pages). */
LB_FFI void lb_kernel_memory_free(void *p);
/* memory --memory-method: mbw's three ways of copying an array (man mbw): one memcpy() of the
 * whole array, a loop of long-sized element copies (its size a multiple of sizeof(long)), or
 * memcpy() in block_bytes pieces. Returns the bytes copied (0 for an unknown method). */
enum lb_mbw_method { LB_MBW_MEMCPY = 0, LB_MBW_DUMB = 1, LB_MBW_MCBLOCK = 2 };
LB_FFI uint64_t lb_kernel_mbw_copy(void *dst, const void *src, uint64_t bytes, int method, uint64_t block_bytes);
/* One of the arrays lb_kernel_mbw_copy copies, allocated and written as mbw makes its own: calloc()
 * and 0xaa stored in every long (bytes a multiple of sizeof(long)). NULL when out of memory;
 * freed with lb_kernel_memory_free. */
LB_FFI void *lb_kernel_mbw_array(uint64_t bytes);
/* threads: `yields` times lock mutex `idx`, sched_yield(), unlock. */
LB_FFI void lb_kernel_threads(struct lb_mutexes *m, uint32_t idx, uint32_t yields);
/* A ticket counter of the run (threads test: which lock the next event uses). */
LB_FFI uint64_t lb_kernel_ticket(struct lb_worker *w, const char *name);
/* mutex: `locks` times: spin `loops` empty iterations, then lock a random mutex and bump a
 * shared counter under it. */
LB_FFI void lb_kernel_mutex(struct lb_mutexes *m, uint32_t locks, uint32_t loops, struct lb_rng *r);

/* ---- sysbench 1.0.20 names (sb_compat.c) ------------------------------------------------------ */
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

typedef struct lb_script_hist sb_histogram_t;
LB_FFI sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
LB_FFI void sb_histogram_delete(sb_histogram_t *h);
LB_FFI void sb_histogram_update(sb_histogram_t *h, double value);
LB_FFI void sb_histogram_print(sb_histogram_t *h);

#endif
