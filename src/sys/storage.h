/* Where a directory's data lives: the block device (its model, whether it spins, its I/O
 * scheduler) and the filesystem with its mount options, for a result's machine fingerprint
 * (fileio's --file-dir, an embedded database's file, a local server's data directory). */
#ifndef LB_SYS_STORAGE_H
#define LB_SYS_STORAGE_H

#include <stdbool.h>

#include "sys/mountinfo.h"

struct lb_storage {
	char path[256];       /* the directory, as given */
	char device[32];      /* the whole disk, as /proc/diskstats names it: "nvme0n1", "vda", "dm-0"; "" none */
	char model[96];       /* the device's model ("Samsung SSD 980 PRO 1TB"), or its dm name; "" unknown */
	int rotational;       /* 1 spinning, 0 not, -1 unknown */
	char scheduler[32];   /* the I/O scheduler in use: "none", "mq-deadline", "bfq" */
	bool have_mount;
	struct lb_mount mount;
};

/* Fills out for path under proc_root and sys_root ("/proc", "/sys"); false when path cannot be
 * examined (out->path is still set). */
bool lb_storage_read(const char *path, const char *proc_root, const char *sys_root, struct lb_storage *out);

#endif
