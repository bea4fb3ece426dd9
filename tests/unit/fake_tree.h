/* A fabricated /proc and /sys tree under a temporary directory, for the tests of the parsers in
 * src/sys: put("proc/stat", "...") writes root/proc/stat, making its directories. */
#ifndef LB_TEST_FAKE_TREE_H
#define LB_TEST_FAKE_TREE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static char root[256];

static void put(const char *rel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(const char *rel, const char *fmt, ...)
{
	char path[512], dir[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* create the parent directories */
	for (char *p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	FILE *f = fopen(path, "w");
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

#endif
