/* memory --memory-method: mbw's three copy methods copy what mbw copies, and say how many bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "api/ffi_kernels.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

int main(void)
{
	enum { BYTES = 1 << 20 };
	unsigned char *src = malloc(BYTES), *dst = malloc(BYTES), *want = malloc(BYTES);
	fill(src, BYTES, 7);

	memset(dst, 0, BYTES);
	is_int(lb_kernel_mbw_copy(dst, src, BYTES, LB_MBW_MEMCPY, 0), BYTES, "memcpy: bytes copied");
	ok(!memcmp(dst, src, BYTES), "memcpy: the destination is the source");

	memset(dst, 0, BYTES);
	is_int(lb_kernel_mbw_copy(dst, src, BYTES, LB_MBW_DUMB, 0), BYTES, "dumb: bytes copied");
	ok(!memcmp(dst, src, BYTES), "dumb: the destination is the source");

	/* MCBLOCK: every block of the destination is the source's first block, the last one cut
	 * short (a block of 100000 bytes does not divide 1 MiB). */
	const size_t block = 100000;
	memset(dst, 0, BYTES);
	is_int(lb_kernel_mbw_copy(dst, src, BYTES, LB_MBW_MCBLOCK, block), BYTES, "mcblock: bytes copied");
	for (size_t at = 0; at < BYTES; at += block)
		memcpy(want + at, src, BYTES - at < block ? BYTES - at : block);
	ok(!memcmp(dst, want, BYTES), "mcblock: each block is the source's first");
	memset(dst, 0, BYTES);
	is_int(lb_kernel_mbw_copy(dst, src, 4096, LB_MBW_MCBLOCK, 1 << 30), 4096, "mcblock: a block larger than the array");
	ok(!memcmp(dst, src, 4096) && dst[4096] == 0, "... copies the array once, nothing past it");

	is_int(lb_kernel_mbw_copy(dst, src, BYTES, 9, 0), 0, "an unknown method copies nothing");

	/* The arrays: mbw's pattern (0xaa in every long) written over the whole array. */
	long *arr = lb_kernel_mbw_array(BYTES);
	size_t wrong = 0;
	for (size_t i = 0; arr && i < BYTES / sizeof(long); i++)
		wrong += arr[i] != 0xaa;
	ok(arr && !wrong, "an array holds 0xaa in every long (%zu wrong)", wrong);
	ok(arr && (uintptr_t)arr % sizeof(long) == 0, "... long-aligned");
	lb_kernel_memory_free(arr);
	free(src);
	free(dst);
	free(want);
	return done_testing();
}
