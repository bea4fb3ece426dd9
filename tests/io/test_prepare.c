/* File preparation: exact size and content (checked with plain reads), progress, reuse,
 * extension and truncation, check blocks, O_DIRECT with an unaligned tail; and one clear
 * error for ENOENT, ENOSPC (small tmpfs), EROFS (read-only tmpfs) and EFBIG (RLIMIT_FSIZE). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iocheck.h"
#include "ioengine.h"
#include "iofile.h"
#include "iotest.h"

#define MiB (1ull << 20)

struct outcome {
	int64_t result;   /* last step result, or the code from _new */
	uint32_t state;
	uint64_t to_write;
	int steps, monotonic;
	char err[512];
};

static void run(const char *path, uint64_t size, uint32_t flags, uint32_t check_block,
		uint64_t budget, struct outcome *o)
{
	struct lb_io_prepare *p;
	int64_t last = -1;

	memset(o, 0, sizeof(*o));
	o->monotonic = 1;
	o->result = lb_io_prepare_new(path, size, flags, 0, check_block, &p, o->err, sizeof(o->err));
	if (o->result < 0)
		return;
	o->state = lb_io_prepare_state(p);
	o->to_write = lb_io_prepare_to_write_bytes(p);
	do {
		o->result = lb_io_prepare_step(p, budget);
		o->steps++;
		if (o->result >= 0 && o->result <= last)
			o->monotonic = 0;
		last = o->result;
	} while (o->result >= 0 && !lb_io_prepare_done(p));
	if (o->result < 0)
		snprintf(o->err, sizeof(o->err), "%s", lb_io_prepare_errmsg(p));
	lb_io_prepare_free(p);
}

/* Compare the file with the prepare pattern, skipping the first `skip` bytes. */
static int content_ok(const char *path, uint64_t size, uint64_t skip)
{
	static unsigned char buf[MiB];
	uint64_t off = skip;

	while (off < size) {
		size_t n = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);

		if (iot_read(path, buf, n, (off_t)off) != (long long)n ||
		    lb_io_pattern_check(buf, n, off, 0) >= 0)
			return 0;
		off += n;
	}
	return 1;
}

static void test_create_reuse_extend(void)
{
	char path[300];
	struct outcome o;
	struct stat st;
	uint64_t size = 10 * MiB + 12345;
	int fd;

	iot_path(path, sizeof(path), "prep.dat");
	run(path, size, 0, 0, 3 * MiB, &o);
	ok(o.result == (int64_t)size && o.state == LB_IO_PREP_CREATED && o.to_write == size,
	   "created %llu bytes %s", (unsigned long long)size, o.err);
	ok(o.steps >= 3 && o.monotonic, "progress in %d increasing steps", o.steps);
	is_int(iot_size(path), size, "file has exactly the requested size");
	ok(content_ok(path, size, 0), "content is the pattern (plain reads)");
	memset(&st, 0, sizeof(st));
	stat(path, &st);
	ok((uint64_t)st.st_blocks * 512 >= size, "all of it is allocated (%lld blocks)",
	   (long long)st.st_blocks);

	run(path, size, 0, 0, 3 * MiB, &o);
	ok(o.result == (int64_t)size && o.state == LB_IO_PREP_REUSED && o.to_write == 0 &&
	   o.steps == 1, "second call reuses the file");

	fd = open(path, O_RDWR);
	ok(fd >= 0 && ftruncate(fd, 5 * MiB + 100) == 0 && pwrite(fd, "MARK", 4, 0) == 4,
	   "shortened to 5 MiB + 100, marker at 0");
	close(fd);
	run(path, size, 0, 0, 64 * MiB, &o);
	ok(o.result == (int64_t)size && o.state == LB_IO_PREP_EXTENDED &&
	   o.to_write == size - 5 * MiB, "extended: wrote %llu bytes from the last 4k boundary",
	   (unsigned long long)o.to_write);
	ok(iot_size(path) == (long long)size && content_ok(path, size, 4),
	   "extended file has the right size and content");
	char mark[4];
	ok(iot_read(path, mark, 4, 0) == 4 && !memcmp(mark, "MARK", 4), "head was not rewritten");

	fd = open(path, O_RDWR);
	ok(fd >= 0 && ftruncate(fd, size + MiB) == 0, "grown by 1 MiB");
	close(fd);
	run(path, size, 0, 0, 0, &o);
	ok(o.result == (int64_t)size && o.state == LB_IO_PREP_TRUNCATED &&
	   iot_size(path) == (long long)size, "too long: truncated to size");

	/* fileio keeps a longer file, as sysbench's binary does: nothing written, nothing cut */
	fd = open(path, O_RDWR);
	ok(fd >= 0 && pwrite(fd, "TAIL", 4, (off_t)size) == 4, "grown by 4 written bytes");
	close(fd);
	run(path, size, LB_IO_PREP_KEEP_LONGER, 0, 0, &o);
	ok(o.result == (int64_t)size && o.state == LB_IO_PREP_REUSED && o.to_write == 0 &&
	   iot_size(path) == (long long)size + 4, "too long, kept: reused as it is %s", o.err);
	ok(iot_read(path, mark, 4, (off_t)size) == 4 && !memcmp(mark, "TAIL", 4), "its tail is intact");
}

/* A file of the right size is reused only if it has no holes: `truncate -s`, a file written
 * only in part, or only fallocated, holds nothing an O_DIRECT read would fetch from disk. */
static void test_holes(void)
{
	char path[300];
	struct outcome o;
	uint64_t size = 4 * MiB;
	int fd;

	iot_path(path, sizeof(path), "holes.dat");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && ftruncate(fd, (off_t)size) == 0, "truncate -s 4 MiB: right size, no data");
	close(fd);
	run(path, size, 0, 0, 0, &o);
	ok(o.result == (int64_t)size && o.state == LB_IO_PREP_EXTENDED && o.to_write == size,
	   "all holes: rewritten from 0, not reused (state %u, %llu bytes) %s", o.state,
	   (unsigned long long)o.to_write, o.err);
	ok(content_ok(path, size, 0), "content is the pattern");
	run(path, size, 0, 0, 0, &o);
	ok(o.state == LB_IO_PREP_REUSED && o.to_write == 0, "then it is reused");

	fd = open(path, O_RDWR);
	ok(fd >= 0 && ftruncate(fd, (off_t)MiB) == 0 && ftruncate(fd, (off_t)size) == 0,
	   "cut to 1 MiB and grown back to 4 MiB with a hole");
	close(fd);
	run(path, size, 0, 0, 0, &o);
	ok(o.state == LB_IO_PREP_EXTENDED && o.to_write == size - MiB && content_ok(path, size, 0),
	   "written from the first hole (%llu bytes)", (unsigned long long)o.to_write);

	fd = open(path, O_RDWR | O_TRUNC);
	ok(fd >= 0 && fallocate(fd, 0, 0, (off_t)size) == 0, "fallocated, never written");
	close(fd);
	run(path, size, 0, 0, 0, &o);
	ok(o.state == LB_IO_PREP_EXTENDED && o.to_write == size && content_ok(path, size, 0),
	   "fallocated extents count as holes (%llu bytes written)",
	   (unsigned long long)o.to_write);

	fd = open(path, O_RDWR);
	ok(fd >= 0 && ftruncate(fd, (off_t)(size + MiB)) == 0, "grown by a 1 MiB hole");
	close(fd);
	run(path, size, 0, 0, 0, &o);
	ok(o.state == LB_IO_PREP_TRUNCATED && o.to_write == 0 && iot_size(path) == (long long)size,
	   "a hole past the size is cut off; nothing to write");
}

static void test_check_blocks_and_direct(void)
{
	char path[300], err[256];
	unsigned char *buf = malloc(4096);
	struct outcome o;
	int bad = 0;

	iot_path(path, sizeof(path), "blocks.dat");
	run(path, 2 * MiB, 0, 4096, 0, &o);
	is_int(o.result, 2 * MiB, "prepared 2 MiB of check blocks %s", o.err);
	for (uint64_t off = 0; off < 2 * MiB; off += 4096)
		if (iot_read(path, buf, 4096, (off_t)off) != 4096 ||
		    lb_io_block_verify(buf, 4096, off, NULL, err, sizeof(err)) != 0)
			bad++;
	is_int(bad, 0, "every 4k block verifies at its offset");
	run(path, 2 * MiB, 0, 3000, 0, &o);
	ok(o.result == LB_IO_E_ARG && strstr(o.err, "check block"), "bad check block: %s", o.err);

	iot_path(path, sizeof(path), "direct.dat");
	run(path, MiB + 1000, LB_IO_O_DIRECT, 0, 0, &o);
	ok(o.result == (int64_t)(MiB + 1000) && content_ok(path, MiB + 1000, 0),
	   "O_DIRECT prepare with an unaligned tail %s", o.err);
	free(buf);
}

static void test_enoent_efbig(void)
{
	char path[300];
	struct outcome o;
	struct rlimit old, lim;

	snprintf(path, sizeof(path), "%s/missing/dir/f.dat", iot_dir);
	run(path, MiB, 0, 0, 0, &o);
	ok(o.result == -ENOENT && strstr(o.err, "missing/dir does not exist") &&
	   strstr(o.err, "f.dat"), "missing directory: %s", o.err);

	iot_path(path, sizeof(path), "big.dat");
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = MiB;
	setrlimit(RLIMIT_FSIZE, &lim);
	run(path, 4 * MiB, 0, 0, 0, &o);
	setrlimit(RLIMIT_FSIZE, &old);
	ok(o.result == -EFBIG && strstr(o.err, "ulimit -f") && strstr(o.err, path),
	   "file size limit: %s", o.err);
	ok(access(path, F_OK) < 0, "partial file was removed");
}

/* A private mount namespace, so the tmpfs mounts vanish with the process. */
static const char *enter_mount_ns(void)
{
	if (geteuid() != 0)
		return "not root";
	if (unshare(CLONE_NEWNS) < 0)
		return "unshare(CLONE_NEWNS) refused";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return "cannot make / private";
	return NULL;
}

static int mount_tmpfs(const char *dir, const char *opts, unsigned long flags)
{
	mkdir(dir, 0755);
	return mount("tmpfs", dir, "tmpfs", flags, opts);
}

static void test_mounts(void)
{
	char dir[300], path[320];
	struct outcome o;
	const char *why = enter_mount_ns();

	if (why) {
		for (int i = 0; i < 4; i++)
			iot_skip("ENOSPC/EROFS need tmpfs mounts: %s", why);
		return;
	}
	iot_path(dir, sizeof(dir), "small");
	snprintf(path, sizeof(path), "%s/f.dat", dir);
	if (mount_tmpfs(dir, "size=1m", 0) < 0) {
		iot_skip("mount tmpfs size=1m: %s", strerror(errno));
	} else {
		run(path, 4 * MiB, 0, 0, 0, &o);
		ok(o.result == -ENOSPC && strstr(o.err, "no space left") && strstr(o.err, path) &&
		   access(path, F_OK) < 0, "ENOSPC on a 1 MiB tmpfs: %s", o.err);
		umount(dir);
	}
	iot_path(dir, sizeof(dir), "ro");
	snprintf(path, sizeof(path), "%s/f.dat", dir);
	if (mount_tmpfs(dir, "size=4m", MS_RDONLY) < 0) {
		iot_skip("mount read-only tmpfs: %s", strerror(errno));
	} else {
		run(path, MiB, 0, 0, 0, &o);
		ok(o.result == -EROFS && strstr(o.err, "read-only file system") &&
		   strstr(o.err, path), "read-only mount: %s", o.err);
		umount(dir);
	}
	if (mount_tmpfs(dir, "size=4m", 0) < 0) {
		iot_skip("mount tmpfs: %s", strerror(errno));
		iot_skip("mount tmpfs: %s", strerror(errno));
		return;
	}
	run(path, MiB, 0, 0, 0, &o);
	ok(o.result == (int64_t)MiB &&
	   mount("tmpfs", dir, "tmpfs", MS_REMOUNT | MS_RDONLY, "size=4m") == 0,
	   "file prepared, then the mount made read-only");
	run(path, MiB, 0, 0, 0, &o);
	ok(o.result == (int64_t)MiB && o.state == LB_IO_PREP_REUSED,
	   "a right-sized file on a read-only mount is reused %s", o.err);
	umount(dir);
}

int main(void)
{
	iot_tmpdir("prepare");
	test_create_reuse_extend();
	test_holes();
	test_check_blocks_and_direct();
	test_enoent_efbig();
	test_mounts();
	iot_cleanup();
	return done_testing();
}
