/* I/O buffers of a MiB or more sit on 2 MiB boundaries and on transparent huge pages, so that a
 * large O_DIRECT request is one physically contiguous run and the block layer does not split it
 * for having too many segments (1 MiB in 4 KiB pages is 256 segments; virtio-blk allows 254).
 * Checked against the kernel's own view: the AnonHugePages of the buffer's mapping in
 * /proc/self/smaps and, where this process may read page frame numbers (root), the physical
 * runs of each 1 MiB slot in /proc/self/pagemap. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "iofile.h"
#include "tap.h"

#define MIB (1ull << 20)
#define SLOT_BYTES MIB
#define SLOTS 8u

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Is THP on for madvised memory ("always" or "madvise" selected)? */
static int thp_enabled(void)
{
	char line[128] = "";
	FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!fp)
		return 0;
	if (!fgets(line, sizeof(line), fp))
		line[0] = 0;
	fclose(fp);
	return strstr(line, "[always]") || strstr(line, "[madvise]");
}

/* AnonHugePages (KiB) of the mapping that contains p; -1 if not found. */
static long huge_kib_of(const void *p)
{
	char line[256];
	unsigned long lo, hi, addr = (unsigned long)p;
	long kib = -1;
	int inside = 0;
	FILE *fp = fopen("/proc/self/smaps", "r");

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			inside = addr >= lo && addr < hi;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	}
	fclose(fp);
	return kib;
}

/* Physically contiguous runs of len bytes at p; 0 if page frames cannot be read. */
static unsigned phys_runs(int pm, const unsigned char *p, uint64_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t prev = 0, e;
	unsigned runs = 0;

	for (uint64_t off = 0; off < len; off += (uint64_t)page) {
		uint64_t vpn = ((uintptr_t)p + off) / (uint64_t)page;
		uint64_t pfn;

		if (pread(pm, &e, sizeof(e), (off_t)(vpn * sizeof(e))) != (ssize_t)sizeof(e))
			return 0;
		pfn = e & ((1ull << 55) - 1);
		if (!(e >> 63) || !pfn)
			return 0; /* not present, or frame numbers hidden (not root) */
		if (off == 0 || pfn != prev + 1)
			runs++;
		prev = pfn;
	}
	return runs;
}

int main(void)
{
	unsigned char *big = lb_io_buf_alloc(SLOTS * SLOT_BYTES, 4096);
	unsigned char *small = lb_io_buf_alloc(64 * 1024, 4096);
	unsigned char *one = lb_io_buf_alloc(MIB, 4096); /* a 1 MiB block at depth 1 */
	int pm;

	ok(big && small && one, "buffers allocated");
	if (!big || !small || !one)
		return done_testing();
	ok((uintptr_t)big % (2 * MIB) == 0, "an 8 MiB buffer asked 4096-aligned is 2 MiB-aligned");
	ok((uintptr_t)small % 4096 == 0, "a 64 KiB buffer keeps the alignment asked for");
	ok(big[0] == 0 && big[SLOTS * SLOT_BYTES - 1] == 0, "zero-filled");

	if (thp_enabled()) {
		long kib = huge_kib_of(big);
#ifdef UNDER_ASAN
		diag("under ASan (its allocator owns the mapping): AnonHugePages %ld kB", kib);
#else
		ok(kib >= 2048, "the buffer is on huge pages (AnonHugePages %ld kB)", kib);
		kib = huge_kib_of(one);
		ok(kib >= 2048, "a 1 MiB buffer too: its mapping spans the whole huge page (AnonHugePages %ld kB)", kib);
#endif
	} else {
		diag("transparent huge pages are off here: the buffer keeps 4 KiB pages");
	}

	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm >= 0) {
		unsigned worst = 0, r = 0;

		for (unsigned s = 0; s < SLOTS; s++) {
			r = phys_runs(pm, big + s * SLOT_BYTES, SLOT_BYTES);
			if (!r)
				break;
			if (r > worst)
				worst = r;
		}
		close(pm);
		if (r && thp_enabled()) {
#ifdef UNDER_ASAN
			diag("under ASan: the worst 1 MiB slot is %u physical runs", worst);
#else
			ok(worst == 1, "each 1 MiB slot is one physically contiguous run (worst: %u)", worst);
#endif
		} else {
			diag("page frame numbers not readable here (not root) or THP off: contiguity not checked");
		}
	}
	lb_io_buf_free(big);
	lb_io_buf_free(small);
	lb_io_buf_free(one);
	return done_testing();
}
