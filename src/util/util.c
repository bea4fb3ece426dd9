#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void oom(size_t size)
{
	fprintf(stderr, "FATAL: out of memory allocating %zu bytes\n", size);
	abort();
}

void *lb_xzalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *lb_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *lb_xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		oom(size);
	return q;
}

char *lb_xstrdup(const char *s)
{
	return lb_xstrndup(s, strlen(s));
}

char *lb_xstrndup(const char *s, size_t n)
{
	char *p = lb_xzalloc(n + 1);
	memcpy(p, s, n);
	return p;
}

char *lb_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return s;
}

/* Escapes len bytes of s into out, which holds at least 4 * len + 1 bytes. */
static void escape_into(char *out, const char *s, size_t len)
{
	static const char letters[] = "0......abtnvfr";
	char *o = out;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7f) {
			*o++ = (char)c;
		} else if (c < sizeof(letters) - 1 && letters[c] != '.') {
			*o++ = '\\';
			*o++ = letters[c];
		} else {
			o += sprintf(o, "\\x%02x", c);
		}
	}
	*o = '\0';
}

char *lb_escape(const char *s, size_t len)
{
	char *out = lb_xcalloc(len * 4 + 1, 1);
	escape_into(out, s, len);
	return out;
}

const char *lb_escape_to(char *buf, size_t n, const char *s)
{
	if (!n)
		return buf;
	char *e = lb_escape(s ? s : "", s ? strlen(s) : 0);
	snprintf(buf, n, "%s", e);
	free(e);
	return buf;
}

static char fold(char c)
{
	return c == '-' ? '_' : c;
}

bool lb_name_eqn(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fold(a[i]) != fold(b[i]))
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

bool lb_name_eq(const char *a, const char *b)
{
	size_t la = strlen(a);
	return la == strlen(b) && lb_name_eqn(a, b, la);
}

int lb_str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = lb_xcalloc(lb + 1, sizeof(int));
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
			int best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	int d = row[lb];
	free(row);
	return d;
}

void lb_buf_append(struct lb_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = lb_xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void lb_buf_printf(struct lb_buf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		lb_buf_append(b, small, (size_t)n);
		return;
	}
	char *big = lb_xzalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	lb_buf_append(b, big, (size_t)n);
	free(big);
}

void lb_buf_free(struct lb_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int lb_write_file_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = lb_xasprintf("%s.tmp.%d", path, (int)getpid());
	int rc = 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		off += (size_t)n;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	return rc;
}

static int affinity_cpus(pid_t pid)
{
	cpu_set_t set;
	if (sched_getaffinity(pid, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int lb_process_cpus(void)
{
	return affinity_cpus(getpid());
}

int lb_thread_cpus(void)
{
	return affinity_cpus(0);
}
