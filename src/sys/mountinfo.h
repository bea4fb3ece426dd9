/* /proc/self/mountinfo: which mount holds a path, its filesystem type, the device named as its
 * source and its options (the mount's and the filesystem's own). */
#ifndef LB_SYS_MOUNTINFO_H
#define LB_SYS_MOUNTINFO_H

#include <stdbool.h>

struct lb_mount {
	char point[256];     /* where it is mounted: "/", "/data" */
	char fs_type[32];    /* "ext4", "xfs", "tmpfs", "overlay" */
	char source[128];    /* "/dev/nvme0n1p2", "tmpfs" */
	char options[512];   /* the mount's options then the filesystem's, each once: "rw,noatime,discard" */
};

/* The mount of device major:minor whose mount point is the longest prefix of path (an absolute
 * path without symbolic links). False when the text names none. */
bool lb_mountinfo_find(const char *text, unsigned major, unsigned minor, const char *path,
		       struct lb_mount *out);

/* The first mount of filesystem type fs_type ("cgroup2", "cgroup") whose options include
 * `option` (NULL: any). False when none. */
bool lb_mountinfo_find_type(const char *text, const char *fs_type, const char *option, struct lb_mount *out);

#endif
