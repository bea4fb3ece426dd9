#include "sys/sysfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/* Reads fd to its end or until *cap - 1 bytes; with grow, *buf doubles when full. The bytes read
 * (NUL-terminated), or -1. */
static long read_all(int fd, char **buf, size_t *cap, bool grow)
{
	size_t got = 0;
	for (;;) {
		if (grow && got + 4096 + 1 > *cap) {
			*cap *= 2;
			*buf = lb_xrealloc(*buf, *cap);
		}
		if (got + 1 >= *cap)
			break;
		ssize_t r = read(fd, *buf + got, *cap - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	(*buf)[got] = '\0';
	return (long)got;
}

static int open_in(const char *root, const char *rel)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return open(path, O_RDONLY | O_CLOEXEC);
}

long lb_sysfile_read(const char *root, const char *rel, char *buf, size_t len)
{
	buf[0] = '\0';
	int fd = open_in(root, rel);
	return fd < 0 ? -1 : read_all(fd, &buf, &len, false);
}

char *lb_sysfile_slurp(const char *root, const char *rel)
{
	int fd = open_in(root, rel);
	if (fd < 0)
		return NULL;
	size_t cap = 8192;
	char *buf = lb_xzalloc(cap);
	read_all(fd, &buf, &cap, true);
	return buf;
}

bool lb_sysfile_line(const char *root, const char *rel, char *buf, size_t len)
{
	if (lb_sysfile_read(root, rel, buf, len) < 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	size_t start = 0, n = strlen(buf);
	while (start < n && isspace((unsigned char)buf[start]))
		start++;
	while (n > start && isspace((unsigned char)buf[n - 1]))
		n--;
	memmove(buf, buf + start, n - start);
	buf[n - start] = '\0';
	return buf[0] != '\0';
}

void lb_sysfile_selected(const char *text, char *out, size_t len)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		size_t n = (size_t)(close - open - 1);
		if (n >= len)
			n = len - 1;
		memmove(out, open + 1, n);
		out[n] = '\0';
	} else if (out != text) {
		snprintf(out, len, "%s", text);
	}
}

int lb_sysfile_list_count(const char *list)
{
	int n = 0;
	const char *p = list;
	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p || lo < 0)
			return -1;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return -1;
			p = end;
		}
		n += (int)(hi - lo + 1);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return n;
}
