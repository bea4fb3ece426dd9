/* Async engines at depth 16 on an O_DIRECT file really keep ~16 I/Os in flight: checked with
 * the layer's own time-weighted accounting and, when the file sits on a block device, with
 * the kernel's view (/sys/dev/block/M:m/inflight). Every read returns its own block's bytes
 * and has ordered timestamps. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "iocheck.h"
#include "ioengine.h"
#include "iofile.h"
#include "iotest.h"

#define FILE_BYTES (64ull << 20)
#define BS 4096u
#define DEPTH 16u
#define RUN_NS 600000000ull

struct loop_result {
	uint64_t ios, bad_data, bad_stamps, errors;
	int kernel_max; /* most I/Os the device had in flight at a sample; -1 if unavailable */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static FILE *open_inflight(const char *path)
{
	char sys[128];
	struct stat st;

	if (stat(path, &st) < 0)
		return NULL;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/inflight", major(st.st_dev),
		 minor(st.st_dev));
	return fopen(sys, "r");
}

static int sample_inflight(FILE *fp)
{
	unsigned r = 0, w = 0;

	if (!fp)
		return -1;
	rewind(fp);
	fflush(fp);
	return fscanf(fp, "%u %u", &r, &w) == 2 ? (int)(r + w) : -1;
}

static void check_io(struct lb_io *io, struct loop_result *res)
{
	res->ios++;
	if (io->error || io->result_bytes != BS)
		res->errors++;
	else if (lb_io_pattern_check(io->buf, BS, io->offset_bytes, 0) >= 0)
		res->bad_data++;
	if (!(io->start_ns <= io->issue_ns && io->issue_ns <= io->complete_ns))
		res->bad_stamps++;
}

/* Keep the queue full with random 4k reads for RUN_NS. The test owns twice depth ios (each
 * with its own buffer) so that it can refill the queue before checking the data of the ios
 * just reaped; checking first would leave the queue short meanwhile. */
static void run_loop(struct lb_io_ctx *ctx, struct lb_io_file *f, uint32_t depth,
		     const char *path, struct loop_result *res)
{
	struct lb_io ios[2 * DEPTH], *spare[2 * DEPTH], *out[DEPTH];
	unsigned char *bufs = lb_io_buf_alloc(2ull * DEPTH * BS, 0);
	uint32_t nspare = 2 * depth, blocks = FILE_BYTES / BS, iter = 0;
	uint64_t end = now_ns() + RUN_NS;
	FILE *fp = open_inflight(path);
	unsigned seed = 42;
	int n = 0;

	memset(res, 0, sizeof(*res));
	memset(ios, 0, sizeof(ios));
	res->kernel_max = fp ? 0 : -1;
	for (uint32_t i = 0; i < nspare; i++) {
		spare[i] = &ios[i];
		ios[i].buf = bufs + (uint64_t)i * BS;
	}
	while (now_ns() < end || lb_io_inflight(ctx)) {
		while (now_ns() < end && lb_io_inflight(ctx) < depth) {
			struct lb_io *io = spare[--nspare];

			lb_io_prep(io, LB_IO_READ, f, io->buf, BS,
				   (uint64_t)(rand_r(&seed) % blocks) * BS, 0);
			if (lb_io_submit(ctx, io, 0) < 0)
				diag("submit: %s", lb_io_ctx_errmsg(ctx));
		}
		lb_io_commit(ctx);
		if (fp && ++iter % 16 == 0) {
			int k = sample_inflight(fp);

			if (k > res->kernel_max)
				res->kernel_max = k;
		}
		for (int i = 0; i < n; i++) { /* the previous batch, now that the queue is full */
			check_io(out[i], res);
			spare[nspare++] = out[i];
		}
		n = lb_io_reap(ctx, 1, DEPTH, out, -1);
		if (n < 0)
			break;
	}
	for (int i = 0; i < n; i++)
		check_io(out[i], res);
	if (fp)
		fclose(fp);
	lb_io_buf_free(bufs);
}

/* A context of `engine` and the test file opened O_DIRECT; false (test skipped) if either fails. */
static bool open_engine(const char *engine, uint32_t depth, const char *path, struct lb_io_ctx **ctx,
			struct lb_io_file **f)
{
	char err[256];

	if (lb_io_ctx_new(engine, depth, ctx, err, sizeof(err)) < 0) {
		iot_skip("%s: %s", engine, err);
		return false;
	}
	if (lb_io_file_open(path, LB_IO_O_DIRECT | LB_IO_O_RDONLY, f, err, sizeof(err)) < 0) {
		iot_skip("%s: %s", engine, err);
		lb_io_ctx_free(*ctx);
		return false;
	}
	return true;
}

static void test_engine(const char *engine, uint32_t depth, const char *path)
{
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	struct loop_result res;
	uint64_t hist[LB_IO_DEPTH_BUCKETS], total = 0;
	double avg;

	if (!open_engine(engine, depth, path, &ctx, &f))
		return;
	run_loop(ctx, f, depth, path, &res);
	avg = lb_io_avg_depth(ctx);
	lb_io_depth_hist(ctx, hist, LB_IO_DEPTH_BUCKETS);
	for (int i = 0; i < LB_IO_DEPTH_BUCKETS; i++)
		total += hist[i];
	diag("%s depth %u: %llu ios in %.1f s, avg depth %.2f, device in flight max %d, "
	     "time at 16-31: %.1f%%", engine, depth, (unsigned long long)res.ios, RUN_NS / 1e9,
	     avg, res.kernel_max, total ? 100.0 * (double)hist[5] / (double)total : 0);
	ok(res.ios > 1000 && !res.errors, "%s: %llu random O_DIRECT reads, no errors", engine,
	   (unsigned long long)res.ios);
	is_int(res.bad_data, 0, "%s: every read returned its own block's bytes", engine);
	is_int(res.bad_stamps, 0, "%s: start <= issue <= complete for every I/O", engine);
	if (depth == 1) {
		ok(avg > 0.5 && avg <= 1.0, "%s: achieved depth %.2f (<= 1)", engine, avg);
	} else {
		ok(avg >= depth - 2.0 && avg <= depth, "%s: achieved depth %.2f ~ %u", engine, avg,
		   depth);
		/* the device's own count: a synchronous or degraded engine never exceeds 1 */
		if (res.kernel_max < 0)
			iot_skip("%s: no /sys/dev/block inflight for this file", engine);
		else
			ok(res.kernel_max >= (int)depth / 2, "%s: the device had up to %d I/Os in flight",
			   engine, res.kernel_max);
	}
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
}

/* Freeing a buffer while reads into it are in flight (a Lua state closing after an error frees
 * cdata in any order) first waits for this thread's I/Os: afterwards nothing is in flight. */
static void test_free_in_flight(const char *engine, const char *path)
{
	struct lb_io_ctx *ctx;
	struct lb_io_file *f;
	uint32_t queued = 0;

	if (!open_engine(engine, DEPTH, path, &ctx, &f))
		return;
	uint8_t *buf = lb_io_buf_alloc((uint64_t)DEPTH * BS, 4096);
	for (uint32_t i = 0; i < DEPTH; i++) {
		struct lb_io *io = lb_io_get(ctx);
		lb_io_prep(io, LB_IO_READ, f, buf + (size_t)i * BS, BS, (uint64_t)i * 7919 * BS % FILE_BYTES, i);
		queued += lb_io_submit(ctx, io, LB_IO_SUBMIT_COMMIT) == 0;
	}
	is_int(queued, DEPTH, "%s: %u reads submitted", engine, DEPTH);
	lb_io_buf_free(buf);
	is_int(lb_io_inflight(ctx), 0, "%s: freeing their buffer waited for all of them", engine);
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
}

static int make_file(const char *path)
{
	struct lb_io_prepare *p;
	char err[256];
	int64_t r = lb_io_prepare_new(path, FILE_BYTES, 0, 0, 0, &p, err, sizeof(err));

	if (r < 0)
		return ok(0, "prepare: %s", err);
	while (r >= 0 && !lb_io_prepare_done(p))
		r = lb_io_prepare_step(p, 16u << 20);
	ok(r >= 0, "64 MiB file prepared %s", r < 0 ? lb_io_prepare_errmsg(p) : "");
	lb_io_prepare_free(p);
	return r >= 0;
}

int main(void)
{
	char path[300];

	iot_tmpdir("depth");
	iot_path(path, sizeof(path), "depth.dat");
	if (make_file(path)) {
		test_engine("libaio", DEPTH, path);
		test_engine("io_uring", DEPTH, path);
		test_engine("psync", 1, path);
		test_free_in_flight("io_uring", path);
		test_free_in_flight("libaio", path);
	}
	iot_cleanup();
	return done_testing();
}
