/* Fill pattern and self-describing blocks (layout in iocheck.h). The pattern depends only on
 * (seed, absolute position), so any byte range of a file can be regenerated to compare with,
 * and a block copied from elsewhere never passes for the original. */
#include <inttypes.h>
#include <string.h>

#include "io_internal.h"
#include "iocheck.h"

/* splitmix64 finalizer over the word index: cheap (~1 ns per 8 bytes), no visible period. */
static uint64_t pattern_word(uint64_t seed, uint64_t word_index)
{
	uint64_t z = word_index * 0x9e3779b97f4a7c15u ^ seed;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint8_t pattern_byte(uint64_t seed, uint64_t offset)
{
	return (uint8_t)(pattern_word(seed, offset >> 3) >> ((offset & 7) * 8));
}

void lb_io_pattern_fill(void *buf, uint64_t len_bytes, uint64_t offset_bytes, uint64_t seed)
{
	unsigned char *p = buf;
	uint64_t off = offset_bytes, end = offset_bytes + len_bytes;

	for (; off < end && (off & 7); off++)
		*p++ = pattern_byte(seed, off);
	for (; off + 8 <= end; off += 8, p += 8) {
		uint64_t w = pattern_word(seed, off >> 3);

		memcpy(p, &w, 8); /* little-endian hosts: byte k of the word is offset 8i+k */
	}
	for (; off < end; off++)
		*p++ = pattern_byte(seed, off);
}

int64_t lb_io_pattern_check(const void *buf, uint64_t len_bytes, uint64_t offset_bytes,
			    uint64_t seed)
{
	const unsigned char *p = buf;

	for (uint64_t i = 0; i < len_bytes; i++) {
		uint64_t off = offset_bytes + i;

		/* compare whole words when aligned, fall back to bytes to find the index */
		if (!(off & 7) && i + 8 <= len_bytes) {
			uint64_t w = pattern_word(seed, off >> 3);

			if (memcmp(p + i, &w, 8) == 0) {
				i += 7;
				continue;
			}
		}
		if (p[i] != pattern_byte(seed, off))
			return (int64_t)i;
	}
	return -1;
}

struct block_hdr {
	uint32_t magic;
	uint32_t crc32c;
	uint64_t offset;
	uint32_t length;
	uint32_t zero;
	uint64_t seq;
};

_Static_assert(sizeof(struct block_hdr) == LB_IO_BLOCK_HDR_BYTES, "block header layout");

/* CRC of the block as if its crc field were 0, without copying the block. */
static uint32_t block_crc(const unsigned char *b, uint32_t len)
{
	static const uint32_t zero;
	uint32_t c = lb_io_crc32c(0, b, 4);

	c = lb_io_crc32c(c, &zero, 4);
	return lb_io_crc32c(c, b + 8, len - 8);
}

int lb_io_block_fill(void *buf, uint32_t len_bytes, uint64_t offset_bytes, uint64_t seq)
{
	struct block_hdr h = { LB_IO_BLOCK_MAGIC, 0, offset_bytes, len_bytes, 0, seq };
	unsigned char *b = buf;

	if (!buf || len_bytes < LB_IO_BLOCK_HDR_BYTES)
		return LB_IO_E_ARG;
	memcpy(b, &h, sizeof(h));
	lb_io_pattern_fill(b + sizeof(h), len_bytes - sizeof(h), offset_bytes + sizeof(h), seq);
	h.crc32c = block_crc(b, len_bytes);
	memcpy(b + 4, &h.crc32c, 4);
	return 0;
}

int lb_io_block_verify(const void *buf, uint32_t len_bytes, uint64_t offset_bytes,
		       uint64_t *seq_out, char *errbuf, uint32_t errbuf_len)
{
	struct block_hdr h;
	uint32_t crc;

	if (!buf || len_bytes < LB_IO_BLOCK_HDR_BYTES)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_ARG, "block of %u bytes is too short",
				 len_bytes);
	memcpy(&h, buf, sizeof(h));
	if (h.magic != LB_IO_BLOCK_MAGIC)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_TORN,
				 "block at offset %" PRIu64 ": no block header (magic 0x%08x; never "
				 "written, overwritten, or torn)", offset_bytes, h.magic);
	crc = block_crc(buf, len_bytes);
	if (crc != h.crc32c)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_TORN,
				 "block at offset %" PRIu64 " of %u bytes: checksum 0x%08x, header "
				 "says 0x%08x (torn or corrupted)", offset_bytes, len_bytes, crc,
				 h.crc32c);
	if (h.offset != offset_bytes || h.length != len_bytes)
		return lb_io_msg(errbuf, errbuf_len, LB_IO_E_MISPLACED,
				 "block at offset %" PRIu64 " holds the intact block written for "
				 "offset %" PRIu64 " (length %u): misdirected write or read",
				 offset_bytes, h.offset, h.length);
	if (seq_out)
		*seq_out = h.seq;
	return 0;
}
