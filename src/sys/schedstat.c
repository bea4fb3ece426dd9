#include "sys/schedstat.h"

#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sysfile.h"
#include "util/util.h"

bool lb_schedstat_parse(const char *text, uint64_t *run_ns, uint64_t *wait_ns)
{
	return sscanf(text, "%" SCNu64 " %" SCNu64, run_ns, wait_ns) == 2;
}

static int by_tid(const void *x, const void *y)
{
	const struct lb_task_sched *a = x, *b = y;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

int lb_schedstat_read(const char *proc_root, struct lb_task_sched **v, int *cap)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/self/task", proc_root);
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char rel[300], buf[128];
		snprintf(rel, sizeof(rel), "self/task/%s/schedstat", de->d_name);
		struct lb_task_sched t = { .tid = atoi(de->d_name) };
		if (lb_sysfile_read(proc_root, rel, buf, sizeof(buf)) <= 0 || !lb_schedstat_parse(buf, &t.run_ns, &t.wait_ns))
			continue; /* the thread ended meanwhile, or no schedstats in this kernel */
		if (n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*v = lb_xrealloc(*v, (size_t)*cap * sizeof(**v));
		}
		(*v)[n++] = t;
	}
	closedir(d);
	if (n > 1)
		qsort(*v, (size_t)n, sizeof(**v), by_tid);
	return n ? n : -1;
}

void lb_schedstat_diff(const struct lb_task_sched *a, int na, const struct lb_task_sched *b, int nb,
		       uint64_t *run_ns, uint64_t *wait_ns)
{
	*run_ns = *wait_ns = 0;
	for (int i = 0, j = 0; i < na && j < nb;) {
		if (a[i].tid < b[j].tid) {
			i++;
		} else if (a[i].tid > b[j].tid) {
			j++;
		} else {
			if (b[j].run_ns >= a[i].run_ns)
				*run_ns += b[j].run_ns - a[i].run_ns;
			if (b[j].wait_ns >= a[i].wait_ns)
				*wait_ns += b[j].wait_ns - a[i].wait_ns;
			i++;
			j++;
		}
	}
}

bool lb_schedstat_self(const char *proc_root, struct lb_task_sched *out)
{
	char buf[128];
	memset(out, 0, sizeof(*out));
	out->tid = (int)gettid();
	return lb_sysfile_read(proc_root, "thread-self/schedstat", buf, sizeof(buf)) > 0 &&
	       lb_schedstat_parse(buf, &out->run_ns, &out->wait_ns);
}

int lb_schedstat_merge(struct lb_task_sched **v, int n, int *cap, const struct lb_task_sched *extra, int nextra)
{
	int had = n < 0 ? 0 : n;
	n = had;
	for (int k = 0; k < nextra; k++) {
		struct lb_task_sched key = { .tid = extra[k].tid };
		if (extra[k].tid <= 0 || (had && bsearch(&key, *v, (size_t)had, sizeof(key), by_tid)))
			continue;
		if (n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*v = lb_xrealloc(*v, (size_t)*cap * sizeof(**v));
		}
		(*v)[n++] = extra[k];
	}
	if (n > 1)
		qsort(*v, (size_t)n, sizeof(**v), by_tid);
	return n ? n : -1;
}
