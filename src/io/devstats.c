/* Block-device counters from /proc/diskstats for the device that holds a path. */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "devstats.h"
#include "io_internal.h"

#define DEFAULT_DISKSTATS "/proc/diskstats"

/* Finds major:minor in diskstats; fills name and, if fields != NULL, the counters. */
static int find_line(const char *diskstats, uint32_t major, uint32_t minor, char *name,
		     size_t namelen, uint64_t *fields)
{
	FILE *f = fopen(diskstats ? diskstats : DEFAULT_DISKSTATS, "re");
	char line[512];
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned ma, mi;
		char nm[64];
		int pos = 0;

		if (sscanf(line, "%u %u %63s%n", &ma, &mi, nm, &pos) != 3 || ma != major || mi != minor)
			continue;
		if (name)
			snprintf(name, namelen, "%.*s", (int)namelen - 1, nm);
		if (fields) {
			const char *p = line + pos;

			for (int i = 0; i < LB_IO_DEV_NFIELDS; i++) {
				char *end;
				unsigned long long v = strtoull(p, &end, 10);

				fields[i] = end == p ? 0 : (uint64_t)v;
				p = end;
			}
		}
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/* The whole disk of a partition (sysfs: the partition's directory sits inside the disk's). */
static void whole_disk(uint32_t *major, uint32_t *minor)
{
	char link[PATH_MAX], real[PATH_MAX], path[PATH_MAX + 16];
	unsigned ma, mi;
	FILE *f;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u/partition", *major, *minor);
	if (access(link, F_OK) != 0)
		return;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", *major, *minor);
	if (!realpath(link, real))
		return;
	snprintf(path, sizeof(path), "%s/dev", dirname(real));
	f = fopen(path, "re");
	if (!f)
		return;
	if (fscanf(f, "%u:%u", &ma, &mi) == 2) {
		*major = ma;
		*minor = mi;
	}
	fclose(f);
}

int lb_io_dev_of_path(const char *path, const char *diskstats, struct lb_io_dev *out,
		      char *errbuf, uint32_t errbuf_len)
{
	struct stat st;
	dev_t d;
	uint32_t ma, mi;
	int r;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st) < 0) {
		r = -errno;
		lb_io_describe_errno(errbuf, errbuf_len, "stat", path, errno);
		return r;
	}
	d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	ma = major(d);
	mi = minor(d);
	if (!diskstats)
		whole_disk(&ma, &mi);
	r = find_line(diskstats, ma, mi, out->name, sizeof(out->name), NULL);
	if (r == -ENOENT)
		return lb_io_msg(errbuf, errbuf_len, r,
				 "%s is on device %u:%u, which has no line in /proc/diskstats (tmpfs, "
				 "overlayfs or another filesystem without a block device)", path, ma, mi);
	if (r < 0)
		return lb_io_msg(errbuf, errbuf_len, r, "cannot read %s: %s",
				 diskstats ? diskstats : DEFAULT_DISKSTATS, lb_io_strerror(r));
	out->major = ma;
	out->minor = mi;
	if (errbuf && errbuf_len)
		errbuf[0] = 0;
	return 0;
}

int lb_io_dev_read(const struct lb_io_dev *dev, const char *diskstats, uint64_t *out)
{
	memset(out, 0, LB_IO_DEV_NFIELDS * sizeof(*out));
	return find_line(diskstats, dev->major, dev->minor, NULL, 0, out);
}
