/* /proc/diskstats, read in one place: the system metrics (every disk, sysmetrics.c) and
 * fileio's device (the one that holds its files, beside what luabench submitted, so I/O from
 * other processes and merges or splits by the block layer show). Readings are cumulative
 * counters; callers subtract two of them. Nothing here allocates or keeps state.
 */
#ifndef LB_SYS_DISKSTATS_H
#define LB_SYS_DISKSTATS_H

#include <stddef.h>
#include <stdint.h>

/* The fields after major, minor and name, in kernel order (Documentation/admin-guide/
 * iostats.rst). Older kernels have fewer; missing ones read as 0. */
enum lb_diskstat_field {
	LB_DISKSTAT_READS = 0,       /* reads completed */
	LB_DISKSTAT_READ_MERGES,     /* reads merged */
	LB_DISKSTAT_READ_SECTORS,    /* 512-byte sectors read */
	LB_DISKSTAT_READ_MS,         /* ms spent reading (sum over requests) */
	LB_DISKSTAT_WRITES,
	LB_DISKSTAT_WRITE_MERGES,
	LB_DISKSTAT_WRITE_SECTORS,
	LB_DISKSTAT_WRITE_MS,
	LB_DISKSTAT_IN_FLIGHT,       /* requests in flight now (not a counter) */
	LB_DISKSTAT_BUSY_MS,         /* ms with at least one request in flight */
	LB_DISKSTAT_QUEUE_MS,        /* weighted ms: sum of in-flight requests over time */
	LB_DISKSTAT_DISCARDS,
	LB_DISKSTAT_DISCARD_MERGES,
	LB_DISKSTAT_DISCARD_SECTORS,
	LB_DISKSTAT_DISCARD_MS,
	LB_DISKSTAT_FLUSHES,         /* cache flushes completed (fsync reaching the device) */
	LB_DISKSTAT_FLUSH_MS,
	LB_DISKSTAT_NFIELDS
};

/* One line of /proc/diskstats: 0 with its device numbers, name (truncated to namelen) and
 * fields[0 .. LB_DISKSTAT_NFIELDS), or -1 when the line is not one. */
int lb_diskstats_parse_line(const char *line, uint32_t *major, uint32_t *minor, char *name,
			    size_t namelen, uint64_t *fields);

struct lb_disk_dev {
	char name[32];  /* as in /proc/diskstats, e.g. "vda", "nvme0n1", "dm-0" */
	uint32_t major, minor;
};

/* The block device that holds path (a file, a directory or a block device node). A partition
 * is reported as its whole disk, where queueing and other partitions' I/O show. Returns 0, or
 * a negative errno with one line in errbuf (may be NULL), e.g. "/dev/shm is on device 0:25,
 * which has no line in /proc/diskstats (tmpfs, ...)". diskstats = NULL reads /proc/diskstats
 * (a test may pass a fabricated file). */
int lb_diskstats_dev_of_path(const char *path, const char *diskstats, struct lb_disk_dev *out,
			     char *errbuf, size_t errbuf_len);

/* Current counters of dev into out[0 .. LB_DISKSTAT_NFIELDS). 0, or -ENOENT when the device
 * is not (any more) in diskstats, or -errno when the file cannot be read. */
int lb_diskstats_read(const struct lb_disk_dev *dev, const char *diskstats, uint64_t *out);

#endif
