/* Every engine writes and reads back the bytes it claims (checked with plain pread), keeps
 * start <= issue <= complete, completes fsync/fdatasync, honours O_DIRECT alignment; plus the
 * registry, misuse of the job helper, and the io_uring probe failure path. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iocheck.h"
#include "ioengine.h"
#include "iofile.h"
#include "iotest.h"

#define BS 4096u
#define NBLK 8u

static const char *const engines[] = { "psync", "libaio", "io_uring", "mmap", "null" };

static int new_ctx(const char *engine, uint32_t depth, struct lb_io_ctx **ctx)
{
	char err[256] = "";
	int r = lb_io_ctx_new(engine, depth, ctx, err, sizeof(err));

	if (r == LB_IO_E_UNSUPPORTED) {
		iot_skip("%s not usable here: %s", engine, err);
		return 0;
	}
	ok(r == 0 && *ctx, "%s: context at depth %u %s", engine, depth, err);
	return r == 0;
}

/* A file of n zero bytes written with plain write(), so that mmap has something to map. */
static void make_zero_file(const char *path, size_t n)
{
	char *z = calloc(1, n);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, z, n) != (ssize_t)n)
		diag("cannot create %s", path);
	close(fd);
	free(z);
}

static int stamps_ordered(const struct lb_io *io)
{
	return io->start_ns && io->start_ns <= io->issue_ns && io->issue_ns <= io->complete_ns;
}

/* Reap exactly n ios; returns how many were fine (no error, full length, ordered stamps). */
static unsigned reap_all(struct lb_io_ctx *ctx, unsigned n, struct lb_io **seen)
{
	unsigned got = 0, good = 0;

	while (got < n) {
		int r = lb_io_reap(ctx, 1, NBLK, seen + got, -1);

		if (r <= 0) {
			diag("reap: %d %s", r, lb_io_ctx_errmsg(ctx));
			break;
		}
		for (int i = 0; i < r; i++) {
			struct lb_io *io = seen[got + i];
			int64_t want = io->op <= LB_IO_WRITE ? (int64_t)io->length_bytes : 0;

			if (!io->error && io->result_bytes == want && stamps_ordered(io))
				good++;
			else
				diag("io tag %llu: error %d result %lld stamps %llu/%llu/%llu",
				     (unsigned long long)io->tag, io->error, (long long)io->result_bytes,
				     (unsigned long long)io->start_ns, (unsigned long long)io->issue_ns,
				     (unsigned long long)io->complete_ns);
		}
		got += (unsigned)r;
	}
	return good;
}

static void submit_blocks(struct lb_io_ctx *ctx, struct lb_io *ios, uint32_t op,
			  struct lb_io_file *f, void **bufs)
{
	static const unsigned order[NBLK] = { 5, 2, 7, 0, 3, 6, 1, 4 };

	for (unsigned k = 0; k < NBLK; k++) {
		unsigned i = order[k];

		memset(&ios[i], 0, sizeof(ios[i]));
		lb_io_prep(&ios[i], op, f, bufs[i], BS, (uint64_t)i * BS, i);
		if (lb_io_submit(ctx, &ios[i], k == NBLK - 1 ? LB_IO_SUBMIT_COMMIT : 0) < 0)
			diag("submit: %s", lb_io_ctx_errmsg(ctx));
	}
}

static int file_matches(const char *path, uint64_t seed, int zeros)
{
	static unsigned char got[NBLK * BS], want[NBLK * BS];

	if (iot_read(path, got, sizeof(got), 0) != (long long)sizeof(got))
		return 0;
	if (zeros)
		memset(want, 0, sizeof(want));
	else
		lb_io_pattern_fill(want, sizeof(want), 0, seed);
	return memcmp(got, want, sizeof(want)) == 0;
}

static void test_syncs(const char *engine, struct lb_io_ctx *ctx, struct lb_io_file *f)
{
	struct lb_io ios[2], *seen[NBLK];

	memset(ios, 0, sizeof(ios));
	lb_io_prep(&ios[0], LB_IO_FSYNC, f, NULL, 0, 0, 100);
	lb_io_prep(&ios[1], LB_IO_FDATASYNC, f, NULL, 0, 0, 101);
	ok(lb_io_submit(ctx, &ios[0], 0) == 0 && lb_io_submit(ctx, &ios[1], 0) == 0,
	   "%s: fsync + fdatasync submitted", engine);
	is_int(reap_all(ctx, 2, seen), 2, "%s: fsync and fdatasync completed without error", engine);
	is_int(lb_io_fsync(ctx, f), 0, "%s: blocking fsync", engine);
	is_int(lb_io_fdatasync(ctx, f), 0, "%s: blocking fdatasync", engine);
}

static void test_write_read(const char *engine, uint64_t seed)
{
	char path[300], err[256];
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	struct lb_io ios[NBLK], *seen[NBLK];
	void *bufs[NBLK];
	int fake = !strcmp(engine, "null"), same = 1;

	if (!new_ctx(engine, NBLK, &ctx))
		return;
	iot_path(path, sizeof(path), engine);
	make_zero_file(path, NBLK * BS);
	ok(lb_io_file_open(path, 0, &f, err, sizeof(err)) == 0, "%s: open %s", engine, err);
	for (unsigned i = 0; i < NBLK; i++) {
		bufs[i] = lb_io_buf_alloc(BS, 0);
		lb_io_pattern_fill(bufs[i], BS, (uint64_t)i * BS, seed);
	}
	submit_blocks(ctx, ios, LB_IO_WRITE, f, bufs);
	is_int(reap_all(ctx, NBLK, seen), NBLK, "%s: %u writes complete, stamps ordered", engine,
	       NBLK);
	is_int(lb_io_inflight(ctx), 0, "%s: nothing in flight after reaping", engine);
	ok(file_matches(path, seed, fake), "%s: file holds %s (plain pread)", engine,
	   fake ? "its old zeros (null moves no data)" : "exactly the bytes written");

	for (unsigned i = 0; i < NBLK; i++)
		memset(bufs[i], 0xee, BS);
	submit_blocks(ctx, ios, LB_IO_READ, f, bufs);
	is_int(reap_all(ctx, NBLK, seen), NBLK, "%s: %u reads complete", engine, NBLK);
	for (unsigned i = 0; i < NBLK && !fake; i++)
		same &= lb_io_pattern_check(bufs[i], BS, (uint64_t)i * BS, seed) < 0;
	ok(same, "%s: reads return the file's bytes", engine);

	test_syncs(engine, ctx, f);
	is_int(lb_io_pwrite(ctx, f, bufs[0], BS, 0), BS, "%s: blocking pwrite", engine);
	is_int(lb_io_pread(ctx, f, bufs[1], BS, 0), BS, "%s: blocking pread", engine);
	ok(lb_io_last_lat_ns(ctx) > 0, "%s: blocking path reports a latency (%llu ns)", engine,
	   (unsigned long long)lb_io_last_lat_ns(ctx));

	for (unsigned i = 0; i < NBLK; i++)
		lb_io_buf_free(bufs[i]);
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
}

static void test_direct(const char *engine)
{
	char path[300], err[256], want[64];
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	unsigned char *buf = lb_io_buf_alloc(2 * BS, 0), check[BS];
	uint32_t a;
	int r;

	if (!new_ctx(engine, 4, &ctx))
		return;
	snprintf(path, sizeof(path), "%s/%s.direct", iot_dir, engine);
	make_zero_file(path, 16 * BS);
	r = lb_io_file_open(path, LB_IO_O_DIRECT, &f, err, sizeof(err));
	ok(r == 0, "%s: O_DIRECT open %s", engine, err);
	if (r) {
		lb_io_ctx_free(ctx);
		return;
	}
	a = lb_io_file_offset_align(f);
	diag("%s: O_DIRECT alignment offset %u, memory %u", engine, a, lb_io_file_mem_align(f));
	lb_io_pattern_fill(buf, BS, BS, 7);
	is_int(lb_io_pwrite(ctx, f, buf, BS, BS), BS, "%s: aligned O_DIRECT write", engine);
	if (strcmp(engine, "null") != 0) {
		ok(iot_read(path, check, BS, BS) == BS && !memcmp(check, buf, BS),
		   "%s: O_DIRECT write landed (plain pread)", engine);
		is_int(lb_io_pread(ctx, f, buf + BS, BS, BS), BS, "%s: aligned O_DIRECT read", engine);
		ok(!memcmp(buf + BS, buf, BS), "%s: O_DIRECT read returns the bytes", engine);
	}
	snprintf(want, sizeof(want), "aligned to %u bytes", a);
	if (!strcmp(engine, "mmap")) {
		is_int(lb_io_pread(ctx, f, buf + 1, 100, 3), 100,
		       "mmap: O_DIRECT rules do not apply to a mapping");
	} else {
		r = (int)lb_io_pread(ctx, f, buf, BS, a / 2);
		ok(r == LB_IO_E_ALIGN && strstr(lb_io_ctx_errmsg(ctx), want),
		   "%s: unaligned offset refused: %s", engine, lb_io_ctx_errmsg(ctx));
		r = (int)lb_io_pwrite(ctx, f, buf, a + a / 2, 0);
		ok(r == LB_IO_E_ALIGN, "%s: unaligned length refused", engine);
		r = (int)lb_io_pread(ctx, f, buf + 1, BS, 0);
		ok(r == LB_IO_E_ALIGN && strstr(lb_io_ctx_errmsg(ctx), "buffer to"),
		   "%s: unaligned buffer refused", engine);
		is_int(lb_io_inflight(ctx), 0, "%s: refused I/Os are not pending", engine);
	}
	lb_io_buf_free(buf);
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
}

static void test_registry(void)
{
	static const struct lb_io_ops good = { .name = "x", .version = LB_IO_OPS_VERSION,
					       .flags = LB_IO_F_SYNC,
					       .queue = (void *)1 };
	struct lb_io_ops bad = good;
	struct lb_io_ctx *ctx = (void *)1;
	char err[256];

	is_int(lb_io_ops_check(&good, err, sizeof(err)), 0, "registry: a minimal sync engine passes");
	bad.version = LB_IO_OPS_VERSION + 1;
	ok(lb_io_ops_check(&bad, err, sizeof(err)) == LB_IO_E_BADOPS && strstr(err, "version"),
	   "registry: wrong version rejected: %s", err);
	bad = good;
	bad.queue = NULL;
	ok(lb_io_ops_check(&bad, err, sizeof(err)) == LB_IO_E_BADOPS, "registry: no queue: %s", err);
	bad = good;
	bad.flags = LB_IO_F_ASYNC;
	ok(lb_io_ops_check(&bad, err, sizeof(err)) == LB_IO_E_BADOPS,
	   "registry: async without getevents: %s", err);
	bad.flags = LB_IO_F_ASYNC | LB_IO_F_SYNC;
	ok(lb_io_ops_check(&bad, err, sizeof(err)) == LB_IO_E_BADOPS, "registry: both kinds: %s",
	   err);
	ok(lb_io_engine_count() == 5 && !strcmp(lb_io_engine_name(1), "libaio") &&
	   !lb_io_engine_name(99), "registry: 5 names in order");
	ok(lb_io_ctx_new("aio", 1, &ctx, err, sizeof(err)) == LB_IO_E_UNKNOWN && !ctx &&
	   strstr(err, "'aio'"), "unknown engine named: %s", err);
	ok(lb_io_ctx_new("null", 0, &ctx, err, sizeof(err)) == LB_IO_E_ARG, "depth 0 refused: %s",
	   err);
	ok(lb_io_engine_flags("libaio") & LB_IO_F_NEEDS_DIRECT, "libaio is flagged NEEDS_DIRECT");
	is_str(lb_io_engine_fallback("io_uring"), "libaio", "registry: io_uring gives way to libaio");
	is_str(lb_io_engine_fallback("libaio"), "psync", "registry: libaio gives way to psync");
	ok(!lb_io_engine_fallback("psync") && !lb_io_engine_fallback("mmap") &&
	   !lb_io_engine_fallback("null") && !lb_io_engine_fallback("aio") && !lb_io_engine_fallback(NULL),
	   "registry: psync, mmap, null and unknown names have no stand-in");
	ok(lb_io_engine_max_depth("null", NULL, 0) == 65536 && lb_io_engine_max_depth("aio", NULL, 0) == 0,
	   "max depth: the core's 65536 for an engine without its own limit, 0 for an unknown one");
	if (lb_io_engine_flags("io_uring") >= 0) {
		char why[160];
		ok(lb_io_engine_max_depth("io_uring", why, sizeof(why)) == 32768 && strstr(why, "IORING_MAX_ENTRIES"),
		   "max depth: io_uring holds 32768 (%s)", why);
		ok(lb_io_ctx_new("io_uring", 40000, &ctx, err, sizeof(err)) == LB_IO_E_ARG && !ctx &&
		   strstr(err, "at most 32768") && !strstr(err, "fall back"), "io_uring at 40000 refused first: %s", err);
	}
	is_str(lb_io_strerror(-ENOSPC), "No space left on device", "strerror passes errno through");
	is_str(lb_io_strerror(LB_IO_E_ALIGN), "misaligned O_DIRECT I/O", "strerror of own codes");
}

static void test_misuse(void)
{
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	struct lb_io *io[3], *out[4];
	char path[300], err[256];
	void *buf = lb_io_buf_alloc(BS, 0);

	if (!new_ctx("null", 2, &ctx))
		return;
	iot_path(path, sizeof(path), "misuse");
	make_zero_file(path, BS);
	lb_io_file_open(path, 0, &f, err, sizeof(err));
	io[0] = lb_io_get(ctx);
	io[1] = lb_io_get(ctx);
	ok(io[0] && io[1] && !lb_io_get(ctx), "pool: depth ios, then NULL");
	lb_io_prep(io[0], LB_IO_READ, f, buf, BS, 0, 1);
	lb_io_prep(io[1], LB_IO_READ, f, buf, BS, 0, 2);
	is_int(lb_io_submit(ctx, io[0], 0), 0, "submit one");
	is_int(lb_io_submit(ctx, io[0], 0), LB_IO_E_STATE, "same io twice refused");
	is_int(lb_io_submit(ctx, io[1], 0), 0, "submit two");
	io[2] = &(struct lb_io){ .op = LB_IO_READ, .file = f, .buf = buf, .length_bytes = BS };
	ok(lb_io_submit(ctx, io[2], 0) == LB_IO_E_FULL && strstr(lb_io_ctx_errmsg(ctx), "reap"),
	   "beyond depth: %s", lb_io_ctx_errmsg(ctx));
	lb_io_put(ctx, io[0]); /* pending: must be ignored */
	is_int(lb_io_reap(ctx, 4, 4, out, -1), 2, "reap with min > pending returns what is there");
	ok(out[0]->tag + out[1]->tag == 3, "both ios came back once");
	lb_io_put(ctx, io[0]);
	ok(lb_io_get(ctx) == io[0], "pool: put makes it available again");
	io[2]->op = 9;
	ok(lb_io_submit(ctx, io[2], 0) == LB_IO_E_ARG, "unknown op: %s", lb_io_ctx_errmsg(ctx));
	ok(lb_io_avg_depth(ctx) > 0, "null engine depth accounting runs (%.2f)",
	   lb_io_avg_depth(ctx));
	ok(lb_io_file_degraded("libaio", f, err, sizeof(err)) == 1 && strstr(err, "O_DIRECT"),
	   "libaio on a buffered file is reported degraded: %s", err);
	is_int(lb_io_file_degraded("psync", f, err, sizeof(err)), 0, "psync is never degraded");
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
	lb_io_buf_free(buf);
}

static void test_mmap_edges(void)
{
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	struct lb_io io = { 0 }, *out;
	char path[300], err[256], buf[BS];

	if (!new_ctx("mmap", 1, &ctx))
		return;
	iot_path(path, sizeof(path), "mmap-edges");
	make_zero_file(path, 1000);
	lb_io_file_open(path, 0, &f, err, sizeof(err));
	is_int(lb_io_pread(ctx, f, buf, BS, 0), 1000, "mmap: read at EOF is short, like pread");
	lb_io_prep(&io, LB_IO_WRITE, f, buf, BS, 0, 0);
	lb_io_submit(ctx, &io, 0);
	ok(lb_io_reap(ctx, 1, 1, &out, -1) == 1 && io.error == LB_IO_E_ARG,
	   "mmap: a write past EOF fails (a mapping cannot extend a file)");
	lb_io_file_close(f);
	lb_io_file_open(path, LB_IO_O_RDONLY, &f, err, sizeof(err));
	is_int(lb_io_pwrite(ctx, f, buf, 10, 0), -EBADF, "mmap: write to a read-only file: EBADF");
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
}

/* A sparse file mapped for writing gets its blocks first (a full disk is then ENOSPC at
 * mapping time, not a SIGBUS on the first store), and a fault the reservation cannot
 * prevent (the file cut short under the mapping) fails the I/O with EIO instead of killing
 * the process. */
static void test_mmap_faults(void)
{
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	struct stat st;
	char path[300], err[256], buf[BS];
	int fd;

	if (!new_ctx("mmap", 1, &ctx))
		return;
	iot_path(path, sizeof(path), "mmap-sparse");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && ftruncate(fd, 16 * BS) == 0, "sparse file of 16 blocks");
	close(fd);
	lb_io_file_open(path, 0, &f, err, sizeof(err));
	memset(buf, 'x', BS);
	is_int(lb_io_pwrite(ctx, f, buf, BS, 0), BS, "mmap: write to a sparse file");
	ok(stat(path, &st) == 0 && (uint64_t)st.st_blocks * 512 >= 16 * BS,
	   "mmap: the whole mapping's blocks are reserved (%lld blocks of 512)",
	   (long long)st.st_blocks);
	ok(truncate(path, 0) == 0, "file cut to 0 bytes under the mapping");
	is_int(lb_io_pread(ctx, f, buf, BS, 8 * BS), -EIO,
	       "mmap: a read of a page past the new end fails with EIO, no SIGBUS");
	is_int(lb_io_pwrite(ctx, f, buf, BS, 8 * BS), -EIO,
	       "mmap: so does a write; the message names the file: %s", lb_io_ctx_errmsg(ctx));
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
}

static void test_open_errors(void)
{
	struct lb_io_file *f;
	char path[300], err[300];
	int r;

	snprintf(path, sizeof(path), "%s/no/such/dir/file", iot_dir);
	r = lb_io_file_open(path, LB_IO_O_CREATE, &f, err, sizeof(err));
	ok(r == -ENOENT && !f && strstr(err, "no/such/dir does not exist"),
	   "open in a missing directory: %s", err);
	r = lb_io_file_open(iot_dir, 0, &f, err, sizeof(err));
	ok(r < 0 && strstr(err, iot_dir), "open a directory: %s", err);
}

static void test_uring_probe(void)
{
	struct lb_io_ctx *ctx;
	char err[300];
	int r;

	if (lb_io_engine_flags("io_uring") < 0) {
		iot_skip("io_uring not built");
		return;
	}
	setenv("LB_IO_TEST_URING_ERRNO", "EPERM", 1);
	r = lb_io_ctx_new("io_uring", 8, &ctx, err, sizeof(err));
	/* the cause only: callers wrap it in "I/O engine io_uring is not available here (…)" */
	ok(r == LB_IO_E_UNSUPPORTED && !ctx &&
	   !strcmp(err, "io_uring_setup: Operation not permitted; kernel.io_uring_disabled, a "
			"seccomp filter or an old kernel refuses it"),
	   "io_uring refused (EPERM): %s", err);
	setenv("LB_IO_TEST_URING_ERRNO", "ENOSYS", 1);
	r = lb_io_ctx_new("io_uring", 8, &ctx, err, sizeof(err));
	ok(r == LB_IO_E_UNSUPPORTED && strstr(err, "Function not implemented"),
	   "io_uring refused (ENOSYS): %s", err);
	if (r == LB_IO_E_UNSUPPORTED)
		r = lb_io_ctx_new("libaio", 8, &ctx, err, sizeof(err));
	ok(r == 0 && !strcmp(lb_io_ctx_engine(ctx), "libaio"), "caller falls back to libaio");
	lb_io_ctx_free(ctx);
	unsetenv("LB_IO_TEST_URING_ERRNO");
	r = lb_io_ctx_new("io_uring", 8, &ctx, err, sizeof(err));
	ok(r == 0, "io_uring works again without the forced failure");
	lb_io_ctx_free(ctx);
}

int main(void)
{
	iot_tmpdir("engines");
	for (unsigned i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		test_write_read(engines[i], 1000 + i);
		test_direct(engines[i]);
	}
	test_registry();
	test_misuse();
	test_mmap_edges();
	test_mmap_faults();
	test_open_errors();
	test_uring_probe();
	iot_cleanup();
	return done_testing();
}
