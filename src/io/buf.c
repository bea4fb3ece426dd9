/* I/O buffers, mapped on their own: a page before each holds its mapping, a page after it is a
 * guard (an overrun faults at once instead of corrupting a neighbour).
 *
 * A buffer of a MiB or more is placed on 2 MiB boundaries and asked for transparent huge
 * pages: an O_DIRECT request becomes one scatter-gather segment per physically contiguous run
 * of its buffer. A 1 MiB read into scattered 4 KiB pages is up to 256 segments: past the
 * device's limit (virtio-blk: max_segments 254 on the test machine) the block layer splits it,
 * and below it the device still pays per segment. 1 MiB sequential reads at depth 8 went from
 * ~1,400 to ~3,000 per second there (BENCHMARKS.md, fileio). The pages are our own mapping, untouched before the advice, so that nothing (malloc
 * perturbation, a previous user of the memory) has faulted them in as small pages first. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io_internal.h"

#define HUGE_PAGE_BYTES (2ull << 20)
#define HUGE_MIN_BYTES (1ull << 20) /* smaller buffers would waste most of a huge page */
#define BUF_MAGIC 0x6c62696f62756621ull

struct buf_head {
	uint64_t magic;
	void *map;
	size_t map_bytes;
};

void *lb_io_buf_alloc(uint64_t size_bytes, uint32_t align)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), a, len, map_bytes;
	uintptr_t base, p, end;
	struct buf_head *h;
	void *m;

	if (!align)
		align = 4096;
	if (align & (align - 1))
		return NULL;
	a = align < page ? page : align;
	if (size_bytes >= HUGE_MIN_BYTES && a < HUGE_PAGE_BYTES)
		a = HUGE_PAGE_BYTES;
	/* Whole multiples of the alignment (as documented): a huge page can only back a 2 MiB
	 * range that lies entirely inside the mapping. */
	len = size_bytes ? (size_bytes + a - 1) / a * a : a;
	if (size_bytes > SIZE_MAX / 2 || len > SIZE_MAX - a - 2 * page)
		return NULL;
	map_bytes = page + a + len + page; /* head page, alignment slack, buffer, guard page */
	m = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	base = (uintptr_t)m;
	p = (base + page + a - 1) / a * a;
	end = p + len;
	/* Give back the slack before the head page; keep the rest in one mapping. */
	if (p - page > base)
		munmap(m, p - page - base);
	if (base + map_bytes > end + page)
		munmap((void *)(end + page), base + map_bytes - end - page);
	mprotect((void *)end, page, PROT_NONE);
	h = (struct buf_head *)(p - page);
	h->magic = BUF_MAGIC;
	h->map = (void *)(p - page);
	h->map_bytes = len + 2 * page;
#ifdef MADV_HUGEPAGE
	/* Advice only: with THP "never" (or no THP) the buffer keeps 4 KiB pages. Before the first
	 * touch, so that the faults below take huge pages. */
	if (a >= HUGE_PAGE_BYTES)
		(void)madvise((void *)p, len, MADV_HUGEPAGE);
#endif
	memset((void *)p, 0, len); /* fault everything in now, not during the run */
	return (void *)p;
}

void lb_io_buf_free(void *buf)
{
	struct buf_head *h;

	if (!buf)
		return;
	/* The kernel may still be writing into it for an I/O of a context that has not been freed
	 * yet: a Lua state closing after an error finalizes its cdata in no particular order. */
	lb_io_quiesce_thread();
	h = (struct buf_head *)((uintptr_t)buf - (uintptr_t)sysconf(_SC_PAGESIZE));
	if (h->magic != BUF_MAGIC)
		return; /* not ours: leak rather than unmap something else */
	h->magic = 0;
	munmap(h->map, h->map_bytes);
}
