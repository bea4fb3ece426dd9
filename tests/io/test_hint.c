/* The access hints reach the page cache: random 4 KiB reads of a cold file opened with
 * LB_IO_O_RANDOM bring in about the pages they read, through psync (buffered) and mmap, where
 * read-ahead would bring in tens or hundreds of times more (a 4 KiB mmap fault read ~2.7 MiB
 * on the test machine, read_ahead_kb 8192). Counted with mincore over a fresh mapping. On
 * tmpfs every page is resident whatever is read, so the count says nothing there. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ioengine.h"
#include "iofile.h"
#include "iotest.h"

#define FILE_BYTES (64ull << 20)
#define BS 4096u
#define READS 200u
#define TMPFS_MAGIC_ 0x01021994

/* Written, synced and dropped from the page cache. */
static int make_cold_file(const char *path)
{
	unsigned char *chunk = calloc(1, 1 << 20);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644), okw = fd >= 0 && chunk;

	for (uint64_t done = 0; okw && done < FILE_BYTES; done += 1 << 20) {
		memset(chunk, (int)(done >> 20) | 1, 1 << 20);
		okw = write(fd, chunk, 1 << 20) == 1 << 20;
	}
	okw = okw && fsync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
	if (fd >= 0)
		close(fd);
	free(chunk);
	return okw;
}

static size_t resident_pages(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = FILE_BYTES / (uint64_t)page, count = 0;
	unsigned char *vec = calloc(n, 1);
	int fd = open(path, O_RDONLY);
	void *m = fd >= 0 ? mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;

	if (m != MAP_FAILED && vec && mincore(m, FILE_BYTES, vec) == 0)
		for (size_t i = 0; i < n; i++)
			count += vec[i] & 1;
	if (m != MAP_FAILED)
		munmap(m, FILE_BYTES);
	if (fd >= 0)
		close(fd);
	free(vec);
	return count;
}

static void random_reads(const char *engine, const char *path)
{
	char err[256] = "";
	struct lb_io_ctx *ctx = NULL;
	struct lb_io_file *f = NULL;
	void *buf = lb_io_buf_alloc(BS, 0);
	unsigned bad = 0;
	size_t pages;

	if (!make_cold_file(path)) {
		ok(0, "%s: cold file %s", engine, path);
		return;
	}
	if (lb_io_ctx_new(engine, 1, &ctx, err, sizeof(err)) < 0 ||
	    lb_io_file_open(path, LB_IO_O_RDONLY | LB_IO_O_RANDOM, &f, err, sizeof(err)) < 0) {
		ok(0, "%s: context and file: %s", engine, err);
		goto out;
	}
	srand(7);
	for (unsigned i = 0; i < READS; i++) {
		uint64_t off = (uint64_t)(rand() % (int)(FILE_BYTES / BS)) * BS;

		if (lb_io_pread(ctx, f, buf, BS, off) != BS)
			bad++;
	}
	is_int(bad, 0, "%s: %u random 4 KiB reads", engine, READS);
	pages = resident_pages(path);
	ok(pages <= 4 * READS, "%s with LB_IO_O_RANDOM: %zu pages resident after %u reads (read-ahead off)",
	   engine, pages, READS);
out:
	lb_io_file_close(f);
	lb_io_ctx_free(ctx);
	lb_io_buf_free(buf);
}

int main(void)
{
	const char *dir = iot_tmpdir("hint");
	struct statfs sf;
	char path[300];

	iot_path(path, sizeof(path), "cold.dat");
	if (statfs(dir, &sf) == 0 && sf.f_type == TMPFS_MAGIC_) {
		diag("%s is on tmpfs: the page cache is the file, nothing to measure", dir);
	} else {
		random_reads("psync", path);
		random_reads("mmap", path);
	}
	iot_cleanup();
	return done_testing();
}
