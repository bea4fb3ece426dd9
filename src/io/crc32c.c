/* CRC32C (Castagnoli, reflected polynomial 0x82f63b78): the SSE4.2 crc32 instruction when the
 * CPU has it, else slice-by-8 tables (8 table lookups per 8 input bytes). The choice is made
 * once; both paths give identical results (tests compare them). */
#include <pthread.h>
#include <string.h>

#include "io_internal.h"
#include "iocheck.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#define CRC32C_POLY 0x82f63b78u

static uint32_t table[8][256];
static uint32_t (*crc_impl)(uint32_t, const unsigned char *, uint64_t);
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

/* crc here is the running register (already inverted). */
static uint32_t crc_sw(uint32_t crc, const unsigned char *p, uint64_t len)
{
	while (len && ((uintptr_t)p & 7)) {
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		len--;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		w ^= crc;
		crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		      table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		      table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		      table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
	}
#endif
	while (len--)
		crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const unsigned char *p,
							 uint64_t len)
{
	uint64_t c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8((uint32_t)c, *p++);
		len--;
	}
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
	}
	while (len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

static void crc_setup(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
	crc_impl = crc_sw;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		crc_impl = crc_hw;
#endif
}

uint32_t lb_io_crc32c(uint32_t crc, const void *buf, uint64_t len_bytes)
{
	pthread_once(&crc_once, crc_setup);
	return ~crc_impl(~crc, buf, len_bytes);
}

uint32_t lb_io_crc32c_sw(uint32_t crc, const void *buf, uint64_t len_bytes)
{
	pthread_once(&crc_once, crc_setup);
	return ~crc_sw(~crc, buf, len_bytes);
}
