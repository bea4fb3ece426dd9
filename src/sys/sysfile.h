/* One small /proc or /sys file read into a buffer: the shared step of the parsers in this
 * folder, each of which then makes sense of one file's format. Nothing here keeps state. */
#ifndef LB_SYS_SYSFILE_H
#define LB_SYS_SYSFILE_H

#include <stdbool.h>
#include <stddef.h>

/* Reads at most len - 1 bytes of root/rel into buf (NUL-terminated). The number of bytes read,
 * or -1 (buf = "") when the file cannot be read. */
long lb_sysfile_read(const char *root, const char *rel, char *buf, size_t len);

/* The whole of root/rel, however long (/proc/cpuinfo, mountinfo), NUL-terminated; NULL when it
 * cannot be read. The caller frees. */
char *lb_sysfile_slurp(const char *root, const char *rel);

/* The first line of root/rel without its newline and surrounding blanks; false (buf = "") when
 * the file cannot be read or is empty. */
bool lb_sysfile_line(const char *root, const char *rel, char *buf, size_t len);

/* The entry in brackets of a sysfs choice list ("always [madvise] never" -> "madvise"), or the
 * whole text when none is bracketed. Writes into out; out may be text. */
void lb_sysfile_selected(const char *text, char *out, size_t len);

/* How many CPUs or nodes a kernel list names ("0-3,8" -> 5); -1 when it is not one. */
int lb_sysfile_list_count(const char *list);

#endif
