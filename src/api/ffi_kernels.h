/* Part of the FFI surface (see ffi.h): the built-in workloads' kernels (cpu, memory, threads, mutex).
 * Parsed only by the Lua states of those workloads. */
#ifndef LB_API_FFI_KERNELS_H
#define LB_API_FFI_KERNELS_H

#ifndef LB_CDEF
#include "api/ffi.h"
#else
#define LB_FFI
#endif

struct lb_worker;
struct lb_mutexes;
struct lb_rng;

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
/* mutex: `locks` times: spin `loops` empty iterations, then lock a random mutex and bump a
 * shared counter under it. */
LB_FFI void lb_kernel_mutex(struct lb_mutexes *m, uint32_t locks, uint32_t loops, struct lb_rng *r);

#endif
