/* Helpers shared by the io test programs: a private temporary directory, independent reads
 * of file contents (plain open/pread, never through the layer under test), TAP skips. */
#ifndef LB_IOTEST_H
#define LB_IOTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static char iot_dir[256];

/* Under $TMPDIR (or /tmp); removed by iot_cleanup(). */
static inline const char *iot_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");

	snprintf(iot_dir, sizeof(iot_dir), "%s/lb-io-%s-XXXXXX", base && *base ? base : "/tmp",
		 tag);
	if (!mkdtemp(iot_dir)) {
		printf("Bail out! mkdtemp %s: %s\n", iot_dir, strerror(errno));
		exit(1);
	}
	return iot_dir;
}

static inline void iot_path(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", iot_dir, name);
}

static inline void iot_cleanup(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", iot_dir);
	if (system(cmd) != 0)
		diag("could not remove %s", iot_dir);
}

/* Read len bytes at off with plain pread; returns bytes read or -errno. */
static inline long long iot_read(const char *path, void *buf, size_t len, off_t off)
{
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = pread(fd, buf, len, off);
	close(fd);
	return r < 0 ? -errno : r;
}

static inline long long iot_size(const char *path)
{
	int fd = open(path, O_RDONLY);
	off_t end;

	if (fd < 0)
		return -errno;
	end = lseek(fd, 0, SEEK_END);
	close(fd);
	return end;
}

#define iot_skip(...)                                                                     \
	do {                                                                              \
		printf("ok %d # SKIP ", ++tap_n);                                         \
		printf(__VA_ARGS__);                                                      \
		printf("\n");                                                             \
	} while (0)

#endif
