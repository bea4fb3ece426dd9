/* luabench block-device counters: which device holds a path, and its /proc/diskstats line.
 *
 * The fileio report shows what the device itself did during the run (requests, sectors, time
 * busy, time in queue), beside what luabench submitted, so I/O from other processes and
 * merges or splits by the block layer are visible. Readings are cumulative counters; callers
 * subtract two of them. Nothing here allocates, prints or keeps state.
 */
#ifndef LB_IO_DEVSTATS_H
#define LB_IO_DEVSTATS_H

#include <stdint.h>

#include "ioengine.h"

/* /proc/diskstats fields after major, minor and name, in kernel order (Documentation/
 * admin-guide/iostats.rst). Older kernels have fewer; missing ones read as 0. */
enum lb_io_dev_field {
	LB_IO_DEV_READS = 0,       /* reads completed */
	LB_IO_DEV_READ_MERGES,     /* reads merged */
	LB_IO_DEV_READ_SECTORS,    /* 512-byte sectors read */
	LB_IO_DEV_READ_MS,         /* ms spent reading (sum over requests) */
	LB_IO_DEV_WRITES,
	LB_IO_DEV_WRITE_MERGES,
	LB_IO_DEV_WRITE_SECTORS,
	LB_IO_DEV_WRITE_MS,
	LB_IO_DEV_IN_FLIGHT,       /* requests in flight now (not a counter) */
	LB_IO_DEV_BUSY_MS,         /* ms with at least one request in flight */
	LB_IO_DEV_QUEUE_MS,        /* weighted ms: sum of in-flight requests over time */
	LB_IO_DEV_DISCARDS,
	LB_IO_DEV_DISCARD_MERGES,
	LB_IO_DEV_DISCARD_SECTORS,
	LB_IO_DEV_DISCARD_MS,
	LB_IO_DEV_FLUSHES,         /* cache flushes completed (fsync reaching the device) */
	LB_IO_DEV_FLUSH_MS,
	LB_IO_DEV_NFIELDS
};

struct lb_io_dev {
	char name[32];  /* as in /proc/diskstats, e.g. "vda", "nvme0n1", "dm-0" */
	uint32_t major, minor;
};

/* The block device that holds path (a file, a directory or a block device node). A partition
 * is reported as its whole disk, where queueing and other partitions' I/O show. Returns 0, or
 * a negative errno with one line in errbuf (may be NULL), e.g. "/dev/shm is on tmpfs (no
 * block device)". diskstats = NULL reads /proc/diskstats (a test may pass a fabricated file). */
LB_IO_API int lb_io_dev_of_path(const char *path, const char *diskstats, struct lb_io_dev *out,
				char *errbuf, uint32_t errbuf_len);

/* Current counters of dev into out[0 .. LB_IO_DEV_NFIELDS). 0, or -ENOENT when the device is
 * not (any more) in diskstats, or -errno when the file cannot be read. */
LB_IO_API int lb_io_dev_read(const struct lb_io_dev *dev, const char *diskstats, uint64_t *out);

#endif
