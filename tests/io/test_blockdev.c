/* Block devices as targets: a loop device with 4096-byte logical blocks over a file in the
 * temporary directory. Size comes from BLKGETSIZE64, O_DIRECT alignment from statx or
 * BLKSSZGET (4096 here, not the 512 of the filesystem below), and I/O through the async
 * engines reaches the backing file. The device detaches itself when closed (autoclear). */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "iocheck.h"
#include "ioengine.h"
#include "iofile.h"
#include "iotest.h"

#define DEV_BYTES (4u << 20)
#define LBS 4096u

/* Attach path to a free loop device; returns its open fd (keeps it alive) or -errno. */
static int attach_loop(const char *path, char *dev, size_t len)
{
	struct loop_config cfg;
	int ctl, num, fd, back;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	num = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (num < 0)
		return -errno;
	snprintf(dev, len, "/dev/loop%d", num);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	back = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || back < 0)
		return -errno;
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (uint32_t)back;
	cfg.block_size = LBS;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	if (ioctl(fd, LOOP_CONFIGURE, &cfg) < 0) {
		int err = errno;

		close(fd);
		close(back);
		return -err;
	}
	close(back);
	return fd;
}

static void io_through(const char *engine, struct lb_io_file *f, const char *backing)
{
	struct lb_io_ctx *ctx;
	unsigned char *buf = lb_io_buf_alloc(2 * LBS, LBS), check[LBS];
	char err[256];
	uint64_t off = 3 * LBS;

	if (lb_io_ctx_new(engine, 4, &ctx, err, sizeof(err)) < 0) {
		iot_skip("%s: %s", engine, err);
		lb_io_buf_free(buf);
		return;
	}
	lb_io_pattern_fill(buf, LBS, off, 9);
	ok(lb_io_pwrite(ctx, f, buf, LBS, off) == LBS && lb_io_fsync(ctx, f) == 0,
	   "%s: O_DIRECT write + fsync on the device %s", engine, lb_io_ctx_errmsg(ctx));
	ok(iot_read(backing, check, LBS, (off_t)off) == LBS && !memcmp(check, buf, LBS),
	   "%s: the bytes are in the backing file", engine);
	ok(lb_io_pread(ctx, f, buf + LBS, LBS, off) == LBS && !memcmp(buf + LBS, buf, LBS),
	   "%s: read back from the device", engine);
	lb_io_ctx_free(ctx);
	lb_io_buf_free(buf);
}

int main(void)
{
	char backing[300], dev[64], err[300], want[64];
	struct lb_io_ctx *ctx;
	struct lb_io_prepare *p;
	struct lb_io_file *f;
	void *buf;
	int keep;

	iot_tmpdir("blockdev");
	iot_path(backing, sizeof(backing), "backing.img");
	if (lb_io_prepare_new(backing, DEV_BYTES, 0, 0, 0, &p, err, sizeof(err)) == 0) {
		lb_io_prepare_step(p, DEV_BYTES);
		lb_io_prepare_free(p);
	}
	keep = geteuid() == 0 ? attach_loop(backing, dev, sizeof(dev)) : -EPERM;
	if (keep < 0) {
		iot_skip("no loop device (%s): block device targets not exercised", strerror(-keep));
		iot_cleanup();
		return done_testing();
	}
	ok(lb_io_file_open(dev, LB_IO_O_DIRECT, &f, err, sizeof(err)) == 0, "open %s %s", dev, err);
	ok(lb_io_file_is_blockdev(f), "%s is a block device", dev);
	is_int(lb_io_file_size_bytes(f), DEV_BYTES, "size from BLKGETSIZE64");
	is_int(lb_io_file_offset_align(f), LBS, "O_DIRECT offset alignment = logical block size");
	ok(lb_io_file_mem_align(f) >= 512, "memory alignment %u", lb_io_file_mem_align(f));
	io_through("libaio", f, backing);
	io_through("io_uring", f, backing);

	buf = lb_io_buf_alloc(LBS, LBS);
	snprintf(want, sizeof(want), "aligned to %u bytes", LBS);
	if (lb_io_ctx_new("psync", 1, &ctx, err, sizeof(err)) == 0) {
		ok(lb_io_pread(ctx, f, buf, 512, 512) == LB_IO_E_ALIGN &&
		   strstr(lb_io_ctx_errmsg(ctx), want), "512-byte I/O refused: %s",
		   lb_io_ctx_errmsg(ctx));
		lb_io_ctx_free(ctx);
	}
	ok(lb_io_prepare_new(dev, DEV_BYTES, 0, 0, 0, &p, err, sizeof(err)) < 0 &&
	   strstr(err, "not a regular file"), "prepare refuses a block device: %s", err);
	lb_io_buf_free(buf);
	lb_io_file_close(f);
	close(keep); /* autoclear detaches the loop device */
	iot_cleanup();
	return done_testing();
}
