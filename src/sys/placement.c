#include "sys/placement.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lb_config.h"
#include "util/opt.h"
#include "util/util.h"

#if LB_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif

static const struct lb_opt_def place_opts[] = {
	{ "cpu-affinity", LB_OPT_STRING, "",
	  "pin each worker thread to one CPU of this list, round-robin in the order given (e.g. 0-3,8: thread 0 on CPU 0, ... thread 4 on CPU 8); with --cpu-affinity-mode=process the whole process runs on the listed CPUs instead; empty = no pinning" },
	{ "cpu-affinity-mode", LB_OPT_STRING, "workers",
	  "what --cpu-affinity places: workers (each worker thread on one CPU, round-robin) or process (every thread of the process, an embedded engine's own threads included, on all the listed CPUs, as taskset -c does)" },
	{ "numa-node", LB_OPT_STRING, "",
	  "run the worker threads on the CPUs of this NUMA node and allocate their memory there (libnuma; with --cpu-affinity the listed CPUs are used and the node binds memory only); empty = no binding" },
};

int lb_place_register_options(struct lb_opts *opts, char *err, int errlen)
{
	return lb_opts_add_defs(opts, place_opts, LB_ARRAY_LENGTH(place_opts), "Placement options", err, errlen);
}

static int parse_num(const char **p, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(*p, &end, 10);
	if (end == *p || errno || v < 0 || *p[0] == '-' || *p[0] == '+')
		return -1;
	*p = end;
	*out = v;
	return 0;
}

int lb_cpulist_parse(const char *s, short *cpus, int max, char *err, int errlen)
{
	int n = 0;
	const char *p = s;
	while (*p) {
		long lo, hi;
		if (parse_num(&p, &lo) < 0)
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_num(&p, &hi) < 0 || hi < lo)
				goto bad;
		}
		if (hi >= LB_PLACE_MAX_CPUS) {
			snprintf(err, (size_t)errlen, "Invalid value for the 'cpu-affinity' option: '%s' (CPU %ld: at most %d)",
				 s, hi, LB_PLACE_MAX_CPUS - 1);
			return -1;
		}
		for (long c = lo; c <= hi; c++) {
			if (n == max) {
				snprintf(err, (size_t)errlen, "Invalid value for the 'cpu-affinity' option: '%s' (more than %d CPUs)", s, max);
				return -1;
			}
			cpus[n++] = (short)c;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (n)
		return n;
bad:
	snprintf(err, (size_t)errlen, "Invalid value for the 'cpu-affinity' option: '%s' (expected CPU numbers and ranges, e.g. 0-3,8)", s);
	return -1;
}

/* Ascending ranges of the set: the form of /proc's Cpus_allowed_list. */
static void format_set(char *buf, size_t len, const unsigned char *is_set, int n)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!is_set[i])
			continue;
		int j = i;
		while (j + 1 < n && is_set[j + 1])
			j++;
		int w = j > i ? snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", i, j)
			      : snprintf(buf + at, len - at, "%s%d", at ? "," : "", i);
		if (w < 0 || (size_t)w >= len - at) {
			snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
			return;
		}
		at += (size_t)w;
		i = j;
	}
}

static void format_cpuset(char *buf, size_t len, const cpu_set_t *set)
{
	unsigned char is_set[LB_PLACE_MAX_CPUS];
	for (int i = 0; i < LB_PLACE_MAX_CPUS; i++)
		is_set[i] = CPU_ISSET(i, set) ? 1 : 0;
	format_set(buf, len, is_set, LB_PLACE_MAX_CPUS);
}

static int check_cpus(const struct lb_place_conf *c, char *err, int errlen)
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return 0; /* cannot tell: pinning itself will say what is wrong */
	for (int i = 0; i < c->ncpus; i++)
		if (!CPU_ISSET(c->cpus[i], &allowed)) {
			char list[LB_PLACE_LIST_BYTES];
			format_cpuset(list, sizeof(list), &allowed);
			snprintf(err, (size_t)errlen, "--cpu-affinity: CPU %d is not one this process may run on (%s)",
				 c->cpus[i], list);
			return -1;
		}
	return 0;
}

static int check_node(int node, char *err, int errlen)
{
#if LB_HAVE_NUMA
	if (numa_available() < 0) {
		snprintf(err, (size_t)errlen, "--numa-node: this kernel has no NUMA support (numa_available() failed)");
		return -1;
	}
	if (node > numa_max_node()) {
		int max = numa_max_node();
		if (max)
			snprintf(err, (size_t)errlen, "--numa-node=%d: this machine has NUMA nodes 0-%d", node, max);
		else
			snprintf(err, (size_t)errlen, "--numa-node=%d: this machine has one NUMA node, 0", node);
		return -1;
	}
	return 0;
#else
	(void)node;
	snprintf(err, (size_t)errlen, "--numa-node: this luabench was built without libnuma (install libnuma-dev and rebuild)");
	return -1;
#endif
}

int lb_place_configure(const struct lb_opts *opts, struct lb_place_conf *c, char *err, int errlen)
{
	c->ncpus = 0;
	c->numa_node = -1;
	c->process = false;
	const char *mode = lb_opts_str(opts, "cpu-affinity-mode");
	if (mode && *mode && strcmp(mode, "workers") && strcmp(mode, "process")) {
		snprintf(err, (size_t)errlen, "Invalid value for the 'cpu-affinity-mode' option: '%s' (expected workers or process)", mode);
		return -1;
	}
	c->process = mode && !strcmp(mode, "process");
	const char *list = lb_opts_str(opts, "cpu-affinity");
	if (list && *list) {
		c->ncpus = lb_cpulist_parse(list, c->cpus, LB_PLACE_MAX_CPUS, err, errlen);
		if (c->ncpus < 0 || check_cpus(c, err, errlen) < 0)
			return -1;
	}
	const char *node = lb_opts_str(opts, "numa-node");
	if (node && *node) {
		long v;
		const char *p = node;
		if (parse_num(&p, &v) < 0 || *p || v > 4095) {
			snprintf(err, (size_t)errlen, "Invalid value for the 'numa-node' option: '%s' (expected a node number)", node);
			return -1;
		}
		c->numa_node = (int)v;
		if (check_node(c->numa_node, err, errlen) < 0)
			return -1;
	}
	return 0;
}

#if LB_HAVE_NUMA
static int bind_node(const struct lb_place_conf *c, char *err, int errlen)
{
	int node = c->numa_node;
	struct bitmask *nodes = numa_allocate_nodemask();
	numa_bitmask_setbit(nodes, (unsigned)node);
	int rc = set_mempolicy(MPOL_BIND, nodes->maskp, nodes->size + 1);
	numa_bitmask_free(nodes);
	if (rc < 0) {
		snprintf(err, (size_t)errlen, "--numa-node=%d: cannot bind memory to the node: %s", node, strerror(errno));
		return -1;
	}
	if (c->ncpus)
		return 0;
	struct bitmask *cpus = numa_allocate_cpumask();
	cpu_set_t set;
	CPU_ZERO(&set);
	if (numa_node_to_cpus(node, cpus) == 0)
		for (unsigned i = 0; i < cpus->size && i < LB_PLACE_MAX_CPUS; i++)
			if (numa_bitmask_isbitset(cpus, i))
				CPU_SET(i, &set);
	numa_bitmask_free(cpus);
	if (!CPU_COUNT(&set)) {
		snprintf(err, (size_t)errlen, "--numa-node=%d: the node has no CPUs (give --cpu-affinity)", node);
		return -1;
	}
	rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc) {
		snprintf(err, (size_t)errlen, "--numa-node=%d: cannot run on the node's CPUs: %s", node, strerror(rc));
		return -1;
	}
	return 0;
}
#endif

/* Every thread the process has now: those made later inherit the calling thread's mask. */
static int set_all_threads(const cpu_set_t *set, char *err, int errlen)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int rc = 0;
	while (d && (de = readdir(d)) && rc == 0) {
		pid_t tid = (pid_t)atoi(de->d_name);
		if (tid > 0 && sched_setaffinity(tid, sizeof(*set), set) < 0 && errno != ESRCH) {
			snprintf(err, (size_t)errlen, "--cpu-affinity-mode=process: cannot run on the listed CPUs: %s",
				 strerror(errno));
			rc = -1;
		}
	}
	if (d)
		closedir(d);
	else if (sched_setaffinity(0, sizeof(*set), set) < 0)
		rc = -1;
	return rc;
}

int lb_place_apply_process(const struct lb_place_conf *c, char *err, int errlen)
{
	if (!c->process)
		return 0;
	if (c->ncpus) {
		cpu_set_t set;
		CPU_ZERO(&set);
		for (int i = 0; i < c->ncpus; i++)
			CPU_SET(c->cpus[i], &set);
		if (set_all_threads(&set, err, errlen) < 0)
			return -1;
	}
#if LB_HAVE_NUMA
	/* A memory policy is inherited by the threads made afterwards; bind_node also gives the
	 * node's CPUs when no list was given. */
	if (c->numa_node >= 0)
		return bind_node(c, err, errlen);
#endif
	return 0;
}

int lb_place_apply(const struct lb_place_conf *c, int index, char *err, int errlen)
{
	if (c->process)
		return 0; /* the process has it: the thread inherited it */
	if (c->ncpus) {
		int cpu = c->cpus[index % c->ncpus];
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
		if (rc) {
			snprintf(err, (size_t)errlen, "--cpu-affinity: cannot pin thread %d to CPU %d: %s", index, cpu,
				 strerror(rc));
			return -1;
		}
	}
#if LB_HAVE_NUMA
	if (c->numa_node >= 0)
		return bind_node(c, err, errlen);
#endif
	return 0;
}

static void read_mem_policy(struct lb_placement *out)
{
	snprintf(out->mem_policy, sizeof(out->mem_policy), "default");
#if LB_HAVE_NUMA
	if (numa_available() < 0)
		return;
	enum { MAX_NODES = 4096 };
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))];
	int mode = 0;
	memset(mask, 0, sizeof(mask));
	if (get_mempolicy(&mode, mask, MAX_NODES, NULL, 0) < 0)
		return;
	static const char *const names[] = { "default", "preferred", "bind", "interleave", "local" };
	int m = mode & 0xff; /* without the mode flags (MPOL_F_STATIC_NODES ...) */
	snprintf(out->mem_policy, sizeof(out->mem_policy), "%s", m >= 0 && m < 5 ? names[m] : "other");
	if (m == MPOL_DEFAULT || m == MPOL_LOCAL)
		return;
	unsigned char is_set[MAX_NODES];
	for (int i = 0; i < MAX_NODES; i++)
		is_set[i] = (mask[i / (8 * sizeof(unsigned long))] >> (i % (8 * sizeof(unsigned long)))) & 1;
	format_set(out->mem_nodes, sizeof(out->mem_nodes), is_set, MAX_NODES);
#endif
}

void lb_place_read_process(struct lb_proc_place *out, const char *proc_root)
{
	memset(out, 0, sizeof(*out));
	out->set = true;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	out->online_cpus = online > 0 ? (int)online : 0;
	cpu_set_t set;
	/* The process's, not a worker's: pid 0 is the calling (main) thread, which is never pinned. */
	if (sched_getaffinity(getpid(), sizeof(set), &set) == 0) {
		out->ncpus = CPU_COUNT(&set);
		out->first_cpu = -1;
		for (int i = 0; i < LB_PLACE_MAX_CPUS && out->first_cpu < 0; i++)
			if (CPU_ISSET(i, &set))
				out->first_cpu = i;
		format_cpuset(out->cpus, sizeof(out->cpus), &set);
	} else {
		out->ncpus = out->online_cpus;
	}
	lb_cgroup_read(proc_root, "", &out->cgroup);
}

int lb_place_usable_cpus(const struct lb_proc_place *p)
{
	int n = p->ncpus > 0 ? p->ncpus : p->online_cpus;
	if (p->cgroup.cpu_limit > 0 && ceil(p->cgroup.cpu_limit) < n)
		n = (int)ceil(p->cgroup.cpu_limit);
	return n > 0 ? n : 1;
}

void lb_place_read(struct lb_placement *out)
{
	memset(out, 0, sizeof(*out));
	out->set = true;
	cpu_set_t set;
	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0)
		format_cpuset(out->cpus, sizeof(out->cpus), &set);
	read_mem_policy(out);
}
