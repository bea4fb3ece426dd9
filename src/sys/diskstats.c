#include "sys/diskstats.h"

#include <errno.h>
#include <stdarg.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DEFAULT_DISKSTATS "/proc/diskstats"

int lb_diskstats_parse_line(const char *line, uint32_t *major, uint32_t *minor, char *name,
			    size_t namelen, uint64_t *fields)
{
	unsigned ma, mi;
	char nm[64];
	int pos = 0;
	if (sscanf(line, "%u %u %63s%n", &ma, &mi, nm, &pos) != 3)
		return -1;
	*major = ma;
	*minor = mi;
	if (name && namelen)
		snprintf(name, namelen, "%.*s", (int)namelen - 1, nm);
	const char *p = line + pos;
	for (int i = 0; fields && i < LB_DISKSTAT_NFIELDS; i++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);
		fields[i] = end == p ? 0 : (uint64_t)v;
		p = end;
	}
	return 0;
}

/* Finds major:minor in diskstats; fills name and, if fields != NULL, the counters. */
static int find_line(const char *diskstats, uint32_t major, uint32_t minor, char *name,
		     size_t namelen, uint64_t *fields)
{
	FILE *f = fopen(diskstats ? diskstats : DEFAULT_DISKSTATS, "re");
	if (!f)
		return -errno;
	char line[512];
	int rc = -ENOENT;
	while (rc && fgets(line, sizeof(line), f)) {
		uint32_t ma, mi;
		char nm[64];
		uint64_t v[LB_DISKSTAT_NFIELDS];
		if (lb_diskstats_parse_line(line, &ma, &mi, nm, sizeof(nm), v) < 0 || ma != major || mi != minor)
			continue;
		if (name)
			snprintf(name, namelen, "%.*s", (int)namelen - 1, nm);
		if (fields)
			memcpy(fields, v, sizeof(v));
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* The whole disk of a partition (sysfs: the partition's directory sits inside the disk's). */
static void whole_disk(uint32_t *major, uint32_t *minor)
{
	char link[PATH_MAX], real[PATH_MAX], path[PATH_MAX + 16];
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u/partition", *major, *minor);
	if (access(link, F_OK) != 0)
		return;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", *major, *minor);
	if (!realpath(link, real))
		return;
	snprintf(path, sizeof(path), "%s/dev", dirname(real));
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	unsigned ma, mi;
	if (fscanf(f, "%u:%u", &ma, &mi) == 2) {
		*major = ma;
		*minor = mi;
	}
	fclose(f);
}

static int failed(char *errbuf, size_t len, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int failed(char *errbuf, size_t len, int code, const char *fmt, ...)
{
	if (errbuf && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(errbuf, len, fmt, ap);
		va_end(ap);
	}
	return code;
}

int lb_diskstats_dev_of_path(const char *path, const char *diskstats, struct lb_disk_dev *out,
			     char *errbuf, size_t errbuf_len)
{
	memset(out, 0, sizeof(*out));
	struct stat st;
	if (stat(path, &st) < 0)
		return failed(errbuf, errbuf_len, -errno, "cannot stat %s: %s", path, strerror(errno));
	dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	uint32_t ma = major(d), mi = minor(d);
	if (!diskstats)
		whole_disk(&ma, &mi);
	int r = find_line(diskstats, ma, mi, out->name, sizeof(out->name), NULL);
	if (r == -ENOENT)
		return failed(errbuf, errbuf_len, r,
			      "%s is on device %u:%u, which has no line in /proc/diskstats (tmpfs, "
			      "overlayfs or another filesystem without a block device)", path, ma, mi);
	if (r < 0)
		return failed(errbuf, errbuf_len, r, "cannot read %s: %s",
			      diskstats ? diskstats : DEFAULT_DISKSTATS, strerror(-r));
	out->major = ma;
	out->minor = mi;
	if (errbuf && errbuf_len)
		errbuf[0] = 0;
	return 0;
}

int lb_diskstats_read(const struct lb_disk_dev *dev, const char *diskstats, uint64_t *out)
{
	memset(out, 0, LB_DISKSTAT_NFIELDS * sizeof(*out));
	return find_line(diskstats, dev->major, dev->minor, NULL, 0, out);
}
