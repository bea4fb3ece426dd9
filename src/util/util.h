/* Small helpers shared by every module: allocation that aborts on OOM, string utilities. */
#ifndef LB_UTIL_UTIL_H
#define LB_UTIL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LB_ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))
#define LB_CACHELINE 64
#define LB_LIKELY(x) __builtin_expect(!!(x), 1)
#define LB_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Functions the Lua side reaches through the FFI must survive -fvisibility=hidden. */
#define LB_EXPORT __attribute__((visibility("default")))

void *lb_xzalloc(size_t size);
void *lb_xcalloc(size_t n, size_t size);
void *lb_xrealloc(void *p, size_t size);
char *lb_xstrdup(const char *s);
char *lb_xstrndup(const char *s, size_t n);
/* Allocates and formats like asprintf; aborts on OOM. */
char *lb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* User- or server-supplied text made fit for a one-line message: control characters and DEL
 * become escapes (\r \n \t \0 ..., \x1b for those without a letter); every other byte,
 * backslashes and UTF-8 included, stays as it is. len bytes of s; allocated. The Lua twin is
 * luabench.escape (lua/luabench/init.lua). */
char *lb_escape(const char *s, size_t len);
/* The same for a NUL-terminated s, into buf (n bytes, cut short if need be); returns buf: for a
 * message's argument, lb_warn("... '%s'", lb_escape_to(b, sizeof(b), name)). */
const char *lb_escape_to(char *buf, size_t n, const char *s);

/* Edit distance between two strings, '-' and '_' counted as equal; for "did you mean". */
int lb_str_distance(const char *a, const char *b);
/* True if both names are equal once '-' and '_' are treated as the same character. */
bool lb_name_eq(const char *a, const char *b);
bool lb_name_eqn(const char *a, const char *b, size_t n);

/* A growable byte buffer. */
struct lb_buf {
	char *data;
	size_t len;
	size_t cap;
};
void lb_buf_append(struct lb_buf *b, const char *s, size_t n);
void lb_buf_printf(struct lb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lb_buf_free(struct lb_buf *b);

/* The CPUs the process (its main thread's set: taskset, a container's cpuset) or the calling
 * thread (a worker's pin included) may run on, by sched_getaffinity; the online count when the
 * kernel does not say. */
int lb_process_cpus(void);
int lb_thread_cpus(void);

/* Writes `len` bytes to `path` atomically (temp file + rename). Returns 0 or -errno. */
int lb_write_file_atomic(const char *path, const char *data, size_t len);

#endif
