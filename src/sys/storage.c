#include "sys/storage.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "sys/sysfile.h"

/* The whole disk that holds device major:minor, by its sysfs directory: a partition's directory
 * sits in its disk's. Writes the disk's name into out. */
static bool disk_name(const char *sys_root, unsigned ma, unsigned mi, char *out, size_t len)
{
	char link[256], real[PATH_MAX];
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys_root, ma, mi);
	if (!realpath(link, real))
		return false;
	char probe[PATH_MAX + 16];
	snprintf(probe, sizeof(probe), "%s/partition", real);
	struct stat st;
	if (stat(probe, &st) == 0) {
		char *slash = strrchr(real, '/');
		if (slash)
			*slash = '\0';
	}
	const char *name = strrchr(real, '/');
	int n = snprintf(out, len, "%s", name ? name + 1 : real);
	return n > 0 && (size_t)n < len; /* a longer name is no device we can find again */
}

static void device_facts(const char *sys_root, struct lb_storage *s)
{
	char rel[128], buf[256];
	snprintf(rel, sizeof(rel), "block/%s/queue/rotational", s->device);
	s->rotational = lb_sysfile_line(sys_root, rel, buf, sizeof(buf)) ? atoi(buf) != 0 : -1;
	snprintf(rel, sizeof(rel), "block/%s/queue/scheduler", s->device);
	if (lb_sysfile_line(sys_root, rel, buf, sizeof(buf)))
		lb_sysfile_selected(buf, s->scheduler, sizeof(s->scheduler));
	snprintf(rel, sizeof(rel), "block/%s/device/model", s->device);
	if (!lb_sysfile_line(sys_root, rel, s->model, sizeof(s->model))) {
		snprintf(rel, sizeof(rel), "block/%s/dm/name", s->device);
		if (lb_sysfile_line(sys_root, rel, buf, sizeof(buf)) &&
		    snprintf(s->model, sizeof(s->model), "device-mapper %s", buf) >= (int)sizeof(s->model))
			s->model[sizeof(s->model) - 1] = '\0'; /* a long name, cut */
	}
}

bool lb_storage_read(const char *path, const char *proc_root, const char *sys_root, struct lb_storage *out)
{
	memset(out, 0, sizeof(*out));
	out->rotational = -1;
	snprintf(out->path, sizeof(out->path), "%s", path);
	struct stat st;
	char real[PATH_MAX];
	if (stat(path, &st) < 0 || !realpath(path, real))
		return false;
	unsigned ma = major(st.st_dev), mi = minor(st.st_dev);
	char *text = lb_sysfile_slurp(proc_root, "self/mountinfo");
	if (text)
		out->have_mount = lb_mountinfo_find(text, ma, mi, real, &out->mount);
	free(text);
	/* btrfs and overlay report an anonymous device: their source names the disk, if any. */
	struct stat src;
	if (!disk_name(sys_root, ma, mi, out->device, sizeof(out->device)) && out->have_mount &&
	    out->mount.source[0] == '/' && stat(out->mount.source, &src) == 0 && S_ISBLK(src.st_mode))
		disk_name(sys_root, major(src.st_rdev), minor(src.st_rdev), out->device, sizeof(out->device));
	if (out->device[0])
		device_facts(sys_root, out);
	return true;
}
