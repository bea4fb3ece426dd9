#include "sys/cgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/mountinfo.h"
#include "sys/sysfile.h"

/* A memory limit this large means none (v1 writes PAGE_COUNTER_MAX pages in bytes). */
#define NO_LIMIT_BYTES (1ULL << 60)

double lb_cgroup_cpu_max_cpus(const char *text)
{
	char quota[32];
	double period;
	if (sscanf(text, "%31s %lf", quota, &period) != 2 || period <= 0)
		return -1;
	if (!strcmp(quota, "max"))
		return 0;
	double q = strtod(quota, NULL);
	return q > 0 ? q / period : 0;
}

/* The group of controller `ctrl` in /proc/self/cgroup ("" for v2's unified line). */
static bool group_of(const char *text, const char *ctrl, char *out, size_t len)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *eol = l + strcspn(l, "\n");
		if (!c2 || c2 > eol)
			continue;
		size_t n = (size_t)(c2 - c1 - 1), k = strlen(ctrl);
		bool match = !*ctrl ? n == 0 && !strncmp(l, "0:", 2) : false;
		for (const char *p = c1 + 1; *ctrl && p < c2; p += strcspn(p, ",:") + 1)
			match = match || (strcspn(p, ",:") == k && !strncmp(p, ctrl, k));
		if (match) {
			snprintf(out, len, "%.*s", (int)(eol - c2 - 1), c2 + 1);
			return true;
		}
	}
	return false;
}

struct where {
	const char *fs_root, *mount; /* files are at fs_root + mount + group + "/" + file */
	int version;
	bool cpu, memory;            /* which limits to read */
};

static bool read_in(const struct where *w, const char *group, const char *file, char *buf, size_t len)
{
	char rel[768];
	snprintf(rel, sizeof(rel), "%s%s%s/%s", w->fs_root, w->mount, strcmp(group, "/") ? group : "", file);
	return lb_sysfile_line("", rel, buf, len);
}

/* One group's CPU limit (in CPUs, -1 none) and memory limit (MiB, 0 none); notes the first
 * cpu.max text seen. */
static void limits_of(const struct where *w, const char *g, struct lb_cgroup *out, double *cpus, double *mib)
{
	char buf[64], period[32], both[100];
	*cpus = -1;
	*mib = 0;
	both[0] = '\0';
	if (w->cpu && w->version == 2 && read_in(w, g, "cpu.max", buf, sizeof(buf)))
		snprintf(both, sizeof(both), "%s", buf);
	if (w->cpu && w->version == 1 && read_in(w, g, "cpu.cfs_quota_us", buf, sizeof(buf)) &&
	    read_in(w, g, "cpu.cfs_period_us", period, sizeof(period)))
		snprintf(both, sizeof(both), "%s %s", atof(buf) < 0 ? "max" : buf, period);
	if (both[0]) {
		*cpus = lb_cgroup_cpu_max_cpus(both);
		if (!out->cpu_max[0])
			snprintf(out->cpu_max, sizeof(out->cpu_max), "%s", both);
	}
	if (w->memory && read_in(w, g, w->version == 2 ? "memory.max" : "memory.limit_in_bytes", buf, sizeof(buf)) &&
	    strcmp(buf, "max") && strtoull(buf, NULL, 10) < NO_LIMIT_BYTES)
		*mib = strtod(buf, NULL) / 1048576;
}

/* From the group up to the root, the tightest limit each level gives. */
static void walk_up(const struct where *w, const char *group, struct lb_cgroup *out)
{
	char g[256];
	snprintf(g, sizeof(g), "%s", group[0] ? group : "/");
	for (;;) {
		double cpus, mib;
		limits_of(w, g, out, &cpus, &mib);
		if (cpus > 0 && (out->cpu_limit == 0 || cpus < out->cpu_limit))
			out->cpu_limit = cpus;
		if (mib > 0 && (out->memory_max_mib == 0 || mib < out->memory_max_mib))
			out->memory_max_mib = mib;
		if (!strcmp(g, "/"))
			break;
		char *slash = strrchr(g, '/');
		if (slash == g || !slash)
			snprintf(g, sizeof(g), "/");
		else
			*slash = '\0';
	}
}

static void read_v1(const char *fs_root, const char *groups, const char *mounts, struct lb_cgroup *out)
{
	char group[256];
	struct lb_mount m;
	if (group_of(groups, "memory", group, sizeof(group)) && lb_mountinfo_find_type(mounts, "cgroup", "memory", &m)) {
		struct where w = { fs_root, m.point, 1, false, true };
		out->version = 1;
		snprintf(out->path, sizeof(out->path), "%s", group);
		walk_up(&w, group, out);
	}
	if (group_of(groups, "cpu", group, sizeof(group)) && lb_mountinfo_find_type(mounts, "cgroup", "cpu", &m)) {
		struct where w = { fs_root, m.point, 1, true, false };
		out->version = 1;
		snprintf(out->path, sizeof(out->path), "%s", group);
		walk_up(&w, group, out);
	}
}

void lb_cgroup_read(const char *proc_root, const char *fs_root, struct lb_cgroup *out)
{
	memset(out, 0, sizeof(*out));
	char *groups = lb_sysfile_slurp(proc_root, "self/cgroup");
	char *mounts = lb_sysfile_slurp(proc_root, "self/mountinfo");
	char group[256];
	struct lb_mount m;
	if (groups && mounts && group_of(groups, "", group, sizeof(group)) &&
	    lb_mountinfo_find_type(mounts, "cgroup2", NULL, &m)) {
		/* v2 holds the limits only where its controllers are enabled: a hybrid system (v1
		 * controllers, an empty v2 tree) has none there. */
		struct where w = { fs_root, m.point, 2, true, true };
		char controllers[256] = "";
		read_in(&w, "/", "cgroup.controllers", controllers, sizeof(controllers));
		if (strstr(controllers, "cpu") || strstr(controllers, "memory")) {
			out->version = 2;
			snprintf(out->path, sizeof(out->path), "%s", group);
			walk_up(&w, group, out);
		}
	}
	if (!out->version && groups && mounts)
		read_v1(fs_root, groups, mounts, out);
	free(groups);
	free(mounts);
}
