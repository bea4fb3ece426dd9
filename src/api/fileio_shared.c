/* fileio's helpers shared by its threads, all lock-free or a short spin: tickets and the
 * sequential cursor (each I/O's place in a shared order), a memoryless permutation for random
 * offsets without repeats, and busy ranges for --validate. Declared in api/ffi_io.h. */
#include <stdint.h>

#include "api/ffi.h"
#include "api/ffi_io.h"

LB_FFI uint64_t lb_fio_ticket(uint64_t *counter, uint64_t n)
{
	return __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

LB_FFI uint64_t lb_fio_seq_next(uint64_t *cursor, uint64_t want, uint64_t file_size,
				uint64_t total, uint64_t *len_out)
{
	uint64_t cur = __atomic_load_n(cursor, __ATOMIC_RELAXED), len, next;

	do {
		if (cur >= total)
			cur = 0;
		uint64_t in_file = cur % file_size;
		len = file_size - in_file < want ? file_size - in_file : want;
		next = cur + len >= total ? 0 : cur + len;
	} while (!__atomic_compare_exchange_n(cursor, &cur, next, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	*len_out = len;
	return cur;
}

/* A keyed 4-round Feistel network on 2h bits, walked until it lands below n: a pseudo-random
 * permutation of [0, n) that needs no memory (fio keeps a bitmap for the same purpose). */
static uint64_t round_fn(uint64_t x, uint64_t key, int round)
{
	x ^= key + (uint64_t)round * UINT64_C(0x9e3779b97f4a7c15);
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 31;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 29;
	return x;
}

LB_FFI uint64_t lb_fio_perm(uint64_t i, uint64_t n, uint64_t key)
{
	if (n <= 1)
		return 0;
	int bits = 64 - __builtin_clzll(n - 1);
	int h = (bits + 1) / 2;
	uint64_t mask = (UINT64_C(1) << h) - 1, x = i % n;

	do {
		uint64_t l = x >> h, r = x & mask;
		for (int k = 0; k < 4; k++) {
			uint64_t t = l ^ (round_fn(r, key, k) & mask);
			l = r;
			r = t;
		}
		x = (l << h) | r;
	} while (x >= n);
	return x;
}

/* Busy ranges: an array of slots under a spin lock. Only --validate uses it, where two I/Os
 * on the same bytes at once would make a correct device look torn. */
struct lb_fio_busy {
	uint32_t lock, n;
	struct {
		uint32_t used, file;
		uint64_t off, len;
	} slot[];
};

LB_FFI struct lb_fio_busy *lb_fio_busy_get(struct lb_worker *w, const char *name, uint32_t slots)
{
	uint64_t size = sizeof(struct lb_fio_busy) + (uint64_t)slots * sizeof(((struct lb_fio_busy *)0)->slot[0]);
	struct lb_fio_busy *b = lb_shared_bytes(w, name, size);

	if (b)
		__atomic_store_n(&b->n, slots, __ATOMIC_RELEASE);
	return b;
}

LB_FFI int32_t lb_fio_busy_claim(struct lb_fio_busy *b, uint32_t file, uint64_t off, uint64_t len)
{
	int32_t got = -1, free_slot = -1;

	while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE))
		;
	for (uint32_t i = 0; i < b->n; i++) {
		if (!b->slot[i].used) {
			if (free_slot < 0)
				free_slot = (int32_t)i;
			continue;
		}
		if (b->slot[i].file == file && b->slot[i].off < off + len && off < b->slot[i].off + b->slot[i].len)
			goto out;
	}
	if (free_slot >= 0) {
		b->slot[free_slot].used = 1;
		b->slot[free_slot].file = file;
		b->slot[free_slot].off = off;
		b->slot[free_slot].len = len;
		got = free_slot;
	}
out:
	__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
	return got;
}

LB_FFI void lb_fio_busy_release(struct lb_fio_busy *b, int32_t slot)
{
	if (slot >= 0 && (uint32_t)slot < b->n) {
		while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE))
			;
		b->slot[slot].used = 0;
		__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
	}
}

