/* CRC32C against published vectors (hardware and table paths agree), the position-dependent
 * pattern, and block verification catching a flipped byte (torn) and a block copied from
 * another offset (misplaced), in memory and through a real file. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_internal.h"
#include "iocheck.h"
#include "ioengine.h"
#include "iofile.h"
#include "iotest.h"

#define BS 4096u

static void test_crc(void)
{
	unsigned char buf[300], z[32] = { 0 }, ff[32], inc[32];
	int same = 1;

	memset(ff, 0xff, sizeof(ff));
	for (int i = 0; i < 32; i++)
		inc[i] = (unsigned char)i;
	is_int(lb_io_crc32c(0, "123456789", 9), 0xe3069283u, "crc32c check value");
	is_int(lb_io_crc32c_sw(0, "123456789", 9), 0xe3069283u, "crc32c check value (tables)");
	is_int(lb_io_crc32c(0, z, 32), 0x8a9136aau, "crc32c of 32 zero bytes (RFC 3720)");
	is_int(lb_io_crc32c(0, ff, 32), 0x62a8ab43u, "crc32c of 32 0xff bytes (RFC 3720)");
	is_int(lb_io_crc32c(0, inc, 32), 0x46dd794eu, "crc32c of 0..31 (RFC 3720)");
	srand(1);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	for (unsigned off = 0; off < 9; off++)
		for (unsigned len = 0; len + off <= sizeof(buf); len += 7) {
			uint32_t hw = lb_io_crc32c(0, buf + off, len);
			uint32_t part = lb_io_crc32c(lb_io_crc32c(0, buf + off, len / 3),
						     buf + off + len / 3, len - len / 3);

			same &= hw == lb_io_crc32c_sw(0, buf + off, len) && hw == part;
		}
	ok(same, "hardware and table CRC agree at every alignment/length; chaining works");
}

static void test_pattern(void)
{
	unsigned char a[200], b[100];

	lb_io_pattern_fill(a, sizeof(a), 1000, 5);
	lb_io_pattern_fill(b, sizeof(b), 1003, 5);
	ok(!memcmp(a + 3, b, sizeof(b)), "pattern depends only on absolute offset");
	is_int(lb_io_pattern_check(a, sizeof(a), 1000, 5), -1, "pattern check passes");
	a[77] ^= 1;
	is_int(lb_io_pattern_check(a, sizeof(a), 1000, 5), 77, "pattern check finds the byte");
	is_int(lb_io_pattern_check(b, sizeof(b), 1003, 6) >= 0, 1, "another seed differs");
}

static void test_blocks_in_memory(void)
{
	unsigned char *x = malloc(BS), *y = malloc(BS);
	uint64_t seq = 0;
	char err[256];

	is_int(lb_io_block_fill(x, BS, 8192, 77), 0, "block filled");
	ok(lb_io_block_verify(x, BS, 8192, &seq, err, sizeof(err)) == 0 && seq == 77,
	   "intact block verifies, seq %llu", (unsigned long long)seq);
	memcpy(y, x, BS);
	y[1000] ^= 0x10;
	ok(lb_io_block_verify(y, BS, 8192, NULL, err, sizeof(err)) == LB_IO_E_TORN &&
	   strstr(err, "torn"), "one flipped payload bit: %s", err);
	memcpy(y, x, BS);
	y[9] ^= 1; /* inside the offset field */
	is_int(lb_io_block_verify(y, BS, 8192, NULL, err, sizeof(err)), LB_IO_E_TORN,
	       "a flipped header bit is torn too, not misplaced");
	ok(lb_io_block_verify(x, BS, 12288, NULL, err, sizeof(err)) == LB_IO_E_MISPLACED &&
	   strstr(err, "12288") && strstr(err, "8192"), "block read at another offset: %s", err);
	memset(y, 0, BS);
	ok(lb_io_block_verify(y, BS, 0, NULL, err, sizeof(err)) == LB_IO_E_TORN &&
	   strstr(err, "no block header"), "never-written block: %s", err);
	is_int(lb_io_block_fill(x, 16, 0, 0), LB_IO_E_ARG, "block shorter than its header refused");
	free(x);
	free(y);
}

/* Write 4 blocks through an engine, damage the file behind its back, read through it again. */
static void test_blocks_on_disk(void)
{
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	unsigned char *buf = lb_io_buf_alloc(BS, 0), raw[BS];
	char path[300], err[256];
	int codes[4], fd;

	iot_path(path, sizeof(path), "blocks.dat");
	if (lb_io_ctx_new("psync", 1, &ctx, err, sizeof(err)) < 0 ||
	    lb_io_file_open(path, LB_IO_O_CREATE, &f, err, sizeof(err)) < 0) {
		ok(0, "setup: %s", err);
		return;
	}
	for (unsigned i = 0; i < 4; i++) {
		lb_io_block_fill(buf, BS, (uint64_t)i * BS, 1);
		lb_io_pwrite(ctx, f, buf, BS, (uint64_t)i * BS);
	}
	fd = open(path, O_RDWR);
	ok(pwrite(fd, "X", 1, 2 * BS + 2000) == 1, "flipped one byte of block 2 on disk");
	ok(pread(fd, raw, BS, 0) == BS && pwrite(fd, raw, BS, 3 * BS) == BS,
	   "copied block 0 over block 3 on disk");
	close(fd);
	for (unsigned i = 0; i < 4; i++) {
		lb_io_pread(ctx, f, buf, BS, (uint64_t)i * BS);
		codes[i] = lb_io_block_verify(buf, BS, (uint64_t)i * BS, NULL, err, sizeof(err));
		if (codes[i])
			diag("block %u: %s", i, err);
	}
	ok(codes[0] == 0 && codes[1] == 0, "untouched blocks verify");
	is_int(codes[2], LB_IO_E_TORN, "corrupted block detected as torn");
	is_int(codes[3], LB_IO_E_MISPLACED, "copied block detected as wrong offset");
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
	lb_io_buf_free(buf);
}

int main(void)
{
	iot_tmpdir("checksum");
	test_crc();
	test_pattern();
	test_blocks_in_memory();
	test_blocks_on_disk();
	iot_cleanup();
	return done_testing();
}
