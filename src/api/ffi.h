/* The FFI surface: every C function and type the Lua side reaches through ffi.C.
 *
 * This header and its companions are the single source of truth. The build runs each through
 * the preprocessor with LB_CDEF defined and embeds the result as a module (`luabench.cdef` here,
 * `luabench.cdef_sql` for ffi_sql.h, `luabench.cdef_io` for ffi_io.h, `luabench.cdef_socket` for
 * ffi_socket.h, `luabench.cdef_kernels` for ffi_kernels.h), so no declaration is ever copied by
 * hand into Lua. Only the states that load an API parse its declarations: each declaration costs
 * every Lua state memory, which matters with thousands of threads. Rules for everything declared
 * here: scalars, opaque pointers and
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
/* A ticket counter of the run, named `name`: 0, 1, 2 ... across all threads (kernels.c; the
 * threads test: which lock the next event uses; parallel loads: which unit a thread takes). */
LB_FFI uint64_t lb_kernel_ticket(struct lb_worker *w, const char *name);

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
