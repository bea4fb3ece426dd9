/* luabench data validation: CRC32C, a position-dependent fill pattern, and self-describing
 * blocks that detect torn writes (checksum mismatch) and misplaced data (intact block that
 * carries another offset), e.g. after a crash test or a buggy device/driver.
 *
 * Block layout (little-endian, LB_IO_BLOCK_HDR_BYTES header, then payload):
 *   u32 magic   "LBIO" (0x4f49424c)
 *   u32 crc32c  over the whole block with this field taken as 0
 *   u64 offset  absolute offset of the block in its file
 *   u32 length  block length in bytes
 *   u32 zero
 *   u64 seq     caller's sequence number / seed (also seeds the payload pattern)
 *
 * All functions are pure (no global state after the first call), thread-safe and FFI-safe.
 */
#ifndef LB_IO_IOCHECK_H
#define LB_IO_IOCHECK_H

#include <stdint.h>

#include "ioengine.h"

#define LB_IO_BLOCK_HDR_BYTES 32u
#define LB_IO_BLOCK_MAGIC 0x4f49424cu

/* CRC32C (Castagnoli), reflected, init/xor-out ~0 handled inside: pass crc = 0 for a fresh
 * checksum, or a previous result to continue. Uses the SSE4.2 instruction when the CPU has
 * it, else slice-by-8 tables. crc32c("123456789") = 0xe3069283. */
LB_IO_API uint32_t lb_io_crc32c(uint32_t crc, const void *buf, uint64_t len_bytes);

/* Fill buf with the pattern for [offset_bytes, offset_bytes + len_bytes) of a file: each
 * 8-byte word is a hash of (seed, its absolute word index), so any range can be regenerated
 * and compared without knowing how it was written. Offsets need not be 8-byte aligned. */
LB_IO_API void lb_io_pattern_fill(void *buf, uint64_t len_bytes, uint64_t offset_bytes,
				  uint64_t seed);
/* Index of the first byte differing from the pattern, or -1 if all bytes match. */
LB_IO_API int64_t lb_io_pattern_check(const void *buf, uint64_t len_bytes, uint64_t offset_bytes,
				      uint64_t seed);

/* Make buf (len_bytes >= LB_IO_BLOCK_HDR_BYTES, <= 4 GiB) a valid block for offset_bytes:
 * header + pattern payload seeded by seq. Returns 0 or LB_IO_E_ARG. */
LB_IO_API int lb_io_block_fill(void *buf, uint32_t len_bytes, uint64_t offset_bytes,
			       uint64_t seq);

/* Verify a block read from offset_bytes. Returns 0 (seq_out, if not NULL, gets its seq),
 * LB_IO_E_TORN (bad magic, length or checksum: partly written or corrupted), or
 * LB_IO_E_MISPLACED (intact block written for another offset: misdirected write or read).
 * errbuf (may be NULL) gets one line naming the offset and, for MISPLACED, the offset found. */
LB_IO_API int lb_io_block_verify(const void *buf, uint32_t len_bytes, uint64_t offset_bytes,
				 uint64_t *seq_out, char *errbuf, uint32_t errbuf_len);

#endif
