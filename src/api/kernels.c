/* The inner loops of the built-in cpu, memory, threads and mutex workloads. They do the same
 * work per event as sysbench 1.0.20's C tests, so events/s compare like for like; the Lua
 * workloads around them only handle options and reporting. */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api/ffi_kernels.h"
#include "util/log.h"
#include "engine/rand.h"
#include "util/util.h"

pthread_mutex_t *lb_mutexes_at(struct lb_mutexes *m, uint32_t i);
uint64_t *lb_mutexes_counter(struct lb_mutexes *m);

LB_FFI uint32_t lb_kernel_cpu(uint32_t max_prime)
{
	uint32_t n = 0;
	/* 64-bit trial division, exactly as sysbench's cpu test. */
	for (unsigned long long c = 3; c < max_prime; c++) {
		double t = sqrt((double)c);
		unsigned long long l;
		for (l = 2; l <= t; l++)
			if (c % l == 0)
				break;
		if (l > t)
			n++;
	}
	return n;
}

/* Word-sized volatile accesses, one per word, like sysbench's: the same instructions per event,
 * so MiB/s compare like for like (plain C loops would be vectorized into a different test).
 * size_bytes is a power of two, so random offsets are a mask, not a division. */
LB_FFI uint64_t lb_kernel_memory(void *buf, uint64_t size_bytes, int oper, int rnd, struct lb_rng *r)
{
	volatile size_t *p = buf;
	size_t words = size_bytes / sizeof(size_t), mask = words - 1, tmp = 0;
	/* A private copy of the generator stays in registers: stores through p can't alias it. */
	struct lb_rng local = *r, *rl = &local;
	switch (oper * 2 + !!rnd) {
	case 4: /* write, sequential */
		for (size_t i = 0; i < words; i++)
			p[i] = words - i;
		break;
	case 5: /* write, random */
		for (size_t i = 0; i < words; i++)
			p[lb_rng_next(rl) & mask] = i;
		break;
	case 2: /* read, sequential */
		for (size_t i = 0; i < words; i++)
			tmp = p[i];
		break;
	case 3: /* read, random */
		for (size_t i = 0; i < words; i++)
			tmp = p[lb_rng_next(rl) & mask];
		break;
	case 1: /* none, random: only the addressing work */
		for (size_t i = 0; i < words; i++) {
			size_t at = lb_rng_next(rl) & mask;
			__asm__ volatile("" ::"r"(at));
		}
		break;
	default: /* none, sequential */
		for (size_t i = 0; i < words; i++)
			__asm__ volatile("" ::: "memory");
	}
	*r = local;
	return tmp;
}

LB_FFI void *lb_kernel_memory_alloc(uint64_t size_bytes, int hugetlb)
{
	if (hugetlb) {
		void *p = mmap(NULL, size_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p != MAP_FAILED)
			return p;
		lb_warn("huge pages unavailable for a %llu-byte block (%s); using normal pages",
			(unsigned long long)size_bytes, "mmap MAP_HUGETLB failed");
	}
	void *p = NULL;
	if (posix_memalign(&p, 4096, size_bytes ? size_bytes : 1))
		return NULL;
	memset(p, 0, size_bytes);
	return p;
}

LB_FFI void lb_kernel_memory_free(void *p)
{
	free(p);
}

/* mbw's DUMB method: one long at a time, as mbw's binary does it: Debian builds it at -O2, a loop
 * of one load, one store and the counter per element. Kept so here: at this file's -O3 gcc would
 * vectorize it or turn it into the memcpy call MEMCPY measures, and -funroll-loops would copy 8
 * elements per iteration (about 10% faster than mbw's loop). */
__attribute__((optimize("no-tree-loop-distribute-patterns", "no-tree-vectorize", "no-unroll-loops")))
static uint64_t copy_elements(long *restrict dst, const long *restrict src, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		dst[i] = src[i];
	return n * sizeof(long);
}

/* mbw's MCBLOCK method: the destination filled by memcpy in block_bytes pieces, each from the
 * start of the source: mbw advances only its destination pointer, so its source block stays in
 * the cache and the figure is mostly write bandwidth. The same here, to give its figures; the last
 * piece is shorter (mbw's would run past the array when the block does not divide it). */
static uint64_t copy_blocks(char *dst, const char *src, uint64_t bytes, uint64_t block_bytes)
{
	uint64_t done = 0;
	if (block_bytes > bytes)
		block_bytes = bytes;
	while (bytes - done >= block_bytes) {
		memcpy(dst + done, src, block_bytes);
		done += block_bytes;
	}
	if (done < bytes)
		memcpy(dst + done, src, bytes - done);
	return bytes;
}

/* As mbw's make_array: calloc() gives a large array its own mmap, the array 16 bytes into its
 * first page (not page-aligned, as lb_kernel_memory_alloc's blocks are), so the copies run at
 * mbw's offsets within pages and cache lines; every page is then written, so no page fault is
 * timed in the first copy. */
LB_FFI void *lb_kernel_mbw_array(uint64_t bytes)
{
	uint64_t n = bytes / sizeof(long);
	long *a = calloc(n ? n : 1, sizeof(long));
	if (!a)
		return NULL;
	for (uint64_t i = 0; i < n; i++)
		a[i] = 0xaa;
	return a;
}

LB_FFI uint64_t lb_kernel_mbw_copy(void *dst, const void *src, uint64_t bytes, int method, uint64_t block_bytes)
{
	switch (method) {
	case LB_MBW_MEMCPY:
		memcpy(dst, src, bytes);
		return bytes;
	case LB_MBW_DUMB:
		return copy_elements(dst, src, bytes / sizeof(long));
	case LB_MBW_MCBLOCK:
		return copy_blocks(dst, src, bytes, block_bytes ? block_bytes : bytes);
	default:
		return 0;
	}
}

LB_FFI void lb_kernel_threads(struct lb_mutexes *m, uint32_t idx, uint32_t yields)
{
	pthread_mutex_t *mx = lb_mutexes_at(m, idx);
	for (uint32_t i = 0; i < yields; i++) {
		pthread_mutex_lock(mx);
		sched_yield();
		pthread_mutex_unlock(mx);
	}
}

LB_FFI uint64_t lb_kernel_ticket(struct lb_worker *w, const char *name)
{
	uint64_t *t = lb_shared_bytes(w, name, sizeof(uint64_t));
	return t ? __atomic_fetch_add(t, 1, __ATOMIC_RELAXED) : 0;
}

LB_FFI void lb_kernel_mutex(struct lb_mutexes *m, uint32_t locks, uint32_t loops, struct lb_rng *r)
{
	uint64_t *counter = lb_mutexes_counter(m);
	/* sysbench's empty loop re-reads its bound from memory on every pass (the compiler barrier
	 * forces it): the same here, so an event is the same work. */
	volatile uint32_t bound = loops;
	for (uint32_t i = 0; i < locks; i++) {
		for (uint32_t j = 0; j < bound; j++)
			__asm__ volatile("" ::: "memory");
		pthread_mutex_t *mx = lb_mutexes_at(m, lb_rand_uniform(r, 0, UINT32_MAX));
		pthread_mutex_lock(mx);
		(*counter)++;
		pthread_mutex_unlock(mx);
	}
}
