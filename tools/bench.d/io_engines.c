/* Micro-benchmark, not a test: 4k random O_DIRECT reads through each engine, to compare with
 * fio 3.33 on the same file (reference io.md §4.3). Usage:
 *
 *     io_engines FILE [seconds=5] [file_size_mib=1024] [engine [depth [batch]]]
 *
 * FILE is created (really written, by lb_io_prepare) if it does not have the size. Offsets are
 * uniform with replacement over the file; latency is start -> reaped (fio's "lat"). For each
 * run the equivalent fio command line is printed. Without an engine, a fixed set runs: QD1
 * psync/libaio/io_uring, QD32 libaio/io_uring with fio's default loop (commit each I/O, reap
 * one at a time) and with batching (queue all free slots, one commit, reap all ready). */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ioengine.h"
#include "iofile.h"
#include <stdio.h>

#define BS 4096u
#define MAX_DEPTH 64u

struct run {
	const char *engine;
	uint32_t depth;
	int batch; /* 0: fio's default (commit each io, reap one); 1: queue all, reap all ready */
};

struct result {
	uint64_t ios, errors;
	double secs, avg_depth, lat_avg_us, slat_avg_us, usr_s, sys_s;
	double p50_us, p99_us, p999_us;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cpu_s(int sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return sys ? ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6
		   : ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Lazily grown array of latencies: exact percentiles, no histogram error in a comparison. */
struct lats {
	uint64_t *v;
	uint64_t n, cap;
};

static void lat_add(struct lats *l, uint64_t ns)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1 << 20;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = ns;
}

static double pct_us(const struct lats *l, double p)
{
	return l->n ? (double)l->v[(uint64_t)(p / 100.0 * (double)(l->n - 1))] / 1e3 : 0;
}

static void account(struct lb_io **out, int n, struct lats *l, struct result *r, double *slat)
{
	for (int i = 0; i < n; i++) {
		r->ios++;
		r->errors += out[i]->error != 0 || out[i]->result_bytes != BS;
		lat_add(l, out[i]->complete_ns - out[i]->start_ns);
		*slat += (double)(out[i]->issue_ns - out[i]->start_ns);
	}
}

/* Sort the latencies into percentiles and averages; frees them. */
static void summarize(struct lats *l, double slat_sum_ns, struct result *r)
{
	qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
	for (uint64_t i = 0; i < l->n; i++)
		r->lat_avg_us += (double)l->v[i] / 1e3;
	r->lat_avg_us /= l->n ? (double)l->n : 1;
	r->slat_avg_us = l->n ? slat_sum_ns / (double)l->n / 1e3 : 0;
	r->p50_us = pct_us(l, 50);
	r->p99_us = pct_us(l, 99);
	r->p999_us = pct_us(l, 99.9);
	free(l->v);
}

static int bench(struct lb_io_file *f, struct run run, double secs, struct result *r)
{
	int batch = run.batch;
	struct lb_io ios[MAX_DEPTH], *spare[MAX_DEPTH], *out[MAX_DEPTH];
	unsigned char *bufs = lb_io_buf_alloc((uint64_t)MAX_DEPTH * BS, 0);
	uint64_t blocks = lb_io_file_size_bytes(f) / BS, t0, end, x = 88172645463325252ull;
	uint32_t nspare = run.depth;
	struct lb_io_ctx *ctx;
	struct lats l = { 0 };
	double slat = 0, u0, s0;
	char err[256];
	int n;

	if (lb_io_ctx_new(run.engine, run.depth, &ctx, err, sizeof(err)) < 0) {
		printf("%s: %s\n", run.engine, err);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	memset(ios, 0, sizeof(ios)); /* caller-owned ios start zeroed (core_state) */
	for (uint32_t i = 0; i < run.depth; i++) {
		spare[i] = &ios[i];
		ios[i].buf = bufs + (uint64_t)i * BS;
	}
	u0 = cpu_s(0);
	s0 = cpu_s(1);
	t0 = now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	while (nspare || lb_io_inflight(ctx)) {
		while (nspare && now_ns() < end) {
			struct lb_io *io = spare[--nspare];

			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
			lb_io_prep(io, LB_IO_READ, f, io->buf, BS, (x % blocks) * BS, 0);
			if (lb_io_submit(ctx, io, batch ? 0 : LB_IO_SUBMIT_COMMIT) < 0) {
				printf("%s: %s\n", run.engine, lb_io_ctx_errmsg(ctx));
				end = 0;
				spare[nspare++] = io;
				break;
			}
		}
		if (!lb_io_inflight(ctx))
			break;
		n = lb_io_reap(ctx, 1, batch ? run.depth : 1, out, -1);
		if (n < 0) {
			printf("%s: %s\n", run.engine, lb_io_ctx_errmsg(ctx));
			break;
		}
		account(out, n, &l, r, &slat);
		for (int i = 0; i < n; i++)
			spare[nspare++] = out[i];
	}
	r->secs = (double)(now_ns() - t0) / 1e9;
	r->usr_s = cpu_s(0) - u0;
	r->sys_s = cpu_s(1) - s0;
	r->avg_depth = lb_io_avg_depth(ctx);
	summarize(&l, slat, r);
	lb_io_ctx_free(ctx);
	lb_io_buf_free(bufs);
	return 0;
}

static int ensure_file(const char *path, uint64_t size)
{
	struct lb_io_prepare *p;
	char err[256];
	uint64_t t0 = now_ns();
	int64_t r = lb_io_prepare_new(path, size, LB_IO_O_DIRECT, 0, 0, &p, err, sizeof(err));

	if (r < 0) {
		printf("%s\n", err);
		return -1;
	}
	while (r >= 0 && !lb_io_prepare_done(p))
		r = lb_io_prepare_step(p, 256u << 20);
	if (r < 0)
		printf("%s\n", lb_io_prepare_errmsg(p));
	else if (lb_io_prepare_to_write_bytes(p))
		printf("prepared %s: %.0f MiB in %.2f s (%.0f MB/s)\n", path, size / 1048576.0,
		       (double)(now_ns() - t0) / 1e9,
		       (double)lb_io_prepare_to_write_bytes(p) / ((double)(now_ns() - t0) / 1e3));
	lb_io_prepare_free(p);
	return r < 0 ? -1 : 0;
}

static void report(const char *file, uint64_t mib, double secs, struct run run,
		   const struct result *r)
{
	printf("%-9s %3u %5s %9.0f %8.1f %9.1f %8.1f %8.1f %8.1f %8.1f %6.2f %6.1f %6.1f%s\n",
	       run.engine, run.depth, run.batch ? "yes" : "no", (double)r->ios / r->secs,
	       (double)r->ios * BS / r->secs / 1e6, r->lat_avg_us, r->p50_us, r->p99_us,
	       r->p999_us, r->slat_avg_us, r->avg_depth, 100 * r->usr_s / r->secs,
	       100 * r->sys_s / r->secs, r->errors ? " ERRORS" : "");
	printf("  fio: fio --name=b --filename=%s --size=%lluM --direct=1 --time_based "
	       "--runtime=%g --rw=randread --bs=4k --ioengine=%s --iodepth=%u\n", file,
	       (unsigned long long)mib, secs, run.engine, run.depth);
}

int main(int argc, char **argv)
{
	static const struct run runs[] = {
		{ "psync", 1, 0 },   { "libaio", 1, 0 },   { "io_uring", 1, 0 },
		{ "libaio", 32, 0 }, { "io_uring", 32, 0 }, { "libaio", 32, 1 }, { "io_uring", 32, 1 },
	};
	double secs = argc > 2 ? atof(argv[2]) : 5;
	uint64_t mib = argc > 3 ? strtoull(argv[3], NULL, 10) : 1024;
	struct run one = { argc > 4 ? argv[4] : NULL, argc > 5 ? (uint32_t)atoi(argv[5]) : 1,
			   argc > 6 ? atoi(argv[6]) : 0 };
	struct lb_io_file *f;
	struct result r;
	char err[256];

	if (argc < 2 || one.depth < 1 || one.depth > MAX_DEPTH) {
		printf("usage: %s FILE [seconds=5] [file_size_mib=1024] [engine [depth [batch]]]\n",
		       argv[0]);
		return 2;
	}
	if (ensure_file(argv[1], mib << 20) < 0 ||
	    lb_io_file_open(argv[1], LB_IO_O_DIRECT | LB_IO_O_RDONLY, &f, err, sizeof(err)) < 0) {
		printf("%s\n", err);
		return 1;
	}
	printf("%-9s %3s %5s %9s %8s %9s %8s %8s %8s %8s %6s %6s %6s\n", "engine", "qd", "batch",
	       "IOPS", "MB/s", "lat avg", "p50", "p99", "p99.9", "slat", "depth", "usr%", "sys%");
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct run run = one.engine ? one : runs[i];

		if (bench(f, run, secs, &r) == 0)
			report(argv[1], mib, secs, run, &r);
		if (one.engine)
			break;
	}
	lb_io_file_close(f);
	return 0;
}
