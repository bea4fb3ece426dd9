/* System metrics from /proc and /sys, sampled by the monitor thread (see sysmetrics.h). */
#include "sys/sysmetrics.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "util/log.h"
#include "sys/cpufreq.h"
#include "sys/cpuinfo.h"
#include "sys/diskstats.h"
#include "sys/schedstat.h"
#include "util/opt.h"
#include "util/util.h"

#define MAX_DISKS 64
#define MAX_CPUS 1024
#define MIB (1024.0 * 1024.0)


enum { M_TOTAL, M_AVAILABLE, M_CACHED, M_BUFFERS, M_DIRTY, M_SWAP_TOTAL, M_SWAP_FREE, M_N };

/* One reading of every counter; samples are differences of two readings. */
struct raw {
	int64_t t_ns;
	bool cpu_ok;
	uint64_t cpu[LB_SYS_CPU_N];
	uint64_t ctxt;
	unsigned running, blocked;
	double load[3];
	uint64_t mem_kb[M_N];
	int64_t self_user_us, self_sys_us, self_vcs, self_ivcs;
	uint64_t self_rss_kb;
	uint64_t db_user, db_sys; /* cumulative ticks of the watched processes */
	int db_n;
	uint64_t (*disk)[LB_DISKSTAT_NFIELDS]; /* per known device */
	struct lb_net_raw net;
	double mhz;               /* mean clock of the CPUs in use; 0 unknown */
};

/* The threads' schedstat at one reading. */
struct sched_reading {
	struct lb_task_sched *v;
	int n, cap;
};

/* A watched process as seen by the last scan, to turn its CPU time into increments. */
struct proc_ent {
	int pid, ppid;
	uint64_t user, sys, start;
	char comm[20];
	bool match;
};

struct lb_sysmon {
	struct lb_sys_conf conf;
	long hz, page_kb;
	int ncpus, ndisks;
	char names[MAX_DISKS][LB_SYS_NAME_BYTES];
	bool physical[MAX_DISKS];
	struct raw base, prev, cur;
	/* End of the run, read as soon as the workers leave their loops (before their connections
	 * close and their server processes exit, taking their CPU time with them). */
	struct raw end;
	bool stopped;
	/* run-queue gauge over the readings of the current window */
	double rq_sum;
	unsigned rq_n, rq_max;
	/* the clock: the CPUs luabench may use, and the mean over the window's readings */
	unsigned char use[MAX_CPUS];
	bool cpufreq;             /* scaling_cur_freq exists (else /proc/cpuinfo's "cpu MHz") */
	double mhz_sum;
	unsigned mhz_n;
	struct sched_reading sched_base, sched_end;
	/* watched processes */
	struct proc_ent *procs, *seen;
	int nprocs, capprocs, nseen, capseen;
	bool scanned;
	uint64_t db_user, db_sys;
	struct lb_sys_sample *samples;
	int nsamples, capsamples;
	char *buf;
	size_t bufcap;
};

/* ---- options ------------------------------------------------------------------------------- */

static const struct lb_opt_def sys_opts[] = {
	{ "system-stats", LB_OPT_BOOL, "on",
	  "sample machine and process CPU, run queue, memory and disk I/O from /proc each report interval: a 'System statistics' block in the report and 'system' in the JSON result" },
	{ "report-system", LB_OPT_BOOL, "off",
	  "print a 'sys:' line (CPU, run queue, memory, disks) after each intermediate report line" },
	{ "db-server-pid", LB_OPT_LIST, "",
	  "also report the CPU of these local database server processes and their descendants (e.g. the postmaster's pid)" },
	{ "db-server-name", LB_OPT_LIST, "",
	  "also report the CPU of local processes with these names (e.g. postgres,mariadbd,mysqld)" },
};

int lb_sysmon_register_options(struct lb_opts *opts, char *err, int errlen)
{
	return lb_opts_add_defs(opts, sys_opts, LB_ARRAY_LENGTH(sys_opts), "System metrics options", err, errlen);
}

int lb_sysmon_configure(const struct lb_opts *opts, struct lb_sys_conf *conf, char *err, int errlen)
{
	memset(conf, 0, sizeof(*conf));
	conf->enabled = lb_opts_bool(opts, "system-stats");
	conf->report = lb_opts_bool(opts, "report-system");
	conf->proc_root = "/proc";
	conf->sys_root = "/sys";
	const struct lb_opt *p = lb_opts_find(opts, "db-server-pid");
	const struct lb_opt *n = lb_opts_find(opts, "db-server-name");
	if (p->nlist > LB_SYS_MAX_WATCH || n->nlist > LB_SYS_MAX_WATCH) {
		snprintf(err, (size_t)errlen, "at most %d --db-server-pid and %d --db-server-name values",
			 LB_SYS_MAX_WATCH, LB_SYS_MAX_WATCH);
		return -1;
	}
	for (int i = 0; i < p->nlist; i++) {
		char *end;
		long v = strtol(p->list[i], &end, 10);
		if (end == p->list[i] || *end || v <= 0 || v > INT32_MAX) {
			snprintf(err, (size_t)errlen,
				 "Invalid value for the 'db-server-pid' option: '%s' (expected process ids)", p->list[i]);
			return -1;
		}
		conf->pids[conf->npids++] = (int)v;
	}
	for (int i = 0; i < n->nlist; i++)
		if (*n->list[i])
			conf->names[conf->nnames++] = n->list[i];
	if ((conf->npids || conf->nnames || conf->report) && !conf->enabled) {
		snprintf(err, (size_t)errlen, "--report-system, --db-server-pid and --db-server-name need --system-stats=on");
		return -1;
	}
	return 0;
}

/* ---- reading /proc -------------------------------------------------------------------------- */

/* Reads a whole (small, virtual) file into the monitor's buffer; NULL if unreadable. */
static char *slurp(struct lb_sysmon *m, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t len = 0;
	for (;;) {
		if (len + 4096 + 1 > m->bufcap) {
			m->bufcap = m->bufcap ? m->bufcap * 2 : 65536;
			m->buf = lb_xrealloc(m->buf, m->bufcap);
		}
		ssize_t r = read(fd, m->buf + len, m->bufcap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	m->buf[len] = '\0';
	return m->buf;
}

static char *slurpf(struct lb_sysmon *m, const char *root, const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return slurp(m, path);
}

/* Value of "key <number>" at the start of a line of /proc/stat or /proc/meminfo. */
static bool keyed(const char *text, const char *key, uint64_t *out)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, key, kl)) {
			*out = strtoull(l + kl, NULL, 10);
			return true;
		}
	}
	return false;
}

static void read_stat(struct lb_sysmon *m, struct raw *r)
{
	char *s = slurpf(m, m->conf.proc_root, "stat");
	r->cpu_ok = s && !strncmp(s, "cpu ", 4);
	if (!r->cpu_ok)
		return;
	char *p = s + 4;
	for (int i = 0; i < LB_SYS_CPU_N; i++)
		r->cpu[i] = strtoull(p, &p, 10);
	uint64_t v;
	r->ctxt = keyed(s, "ctxt ", &v) ? v : 0;
	r->running = keyed(s, "procs_running ", &v) ? (unsigned)v : 0;
	r->blocked = keyed(s, "procs_blocked ", &v) ? (unsigned)v : 0;
	int n = 0;
	for (const char *l = s; (l = strstr(l, "\ncpu")); l++)
		n += isdigit((unsigned char)l[4]) != 0;
	m->ncpus = n ? n : 1;
}

static void read_meminfo(struct lb_sysmon *m, struct raw *r)
{
	static const char *const keys[M_N] = { "MemTotal:", "MemAvailable:", "Cached:", "Buffers:",
					       "Dirty:", "SwapTotal:", "SwapFree:" };
	char *s = slurpf(m, m->conf.proc_root, "meminfo");
	for (int i = 0; i < M_N; i++)
		if (!s || !keyed(s, keys[i], &r->mem_kb[i]))
			r->mem_kb[i] = 0;
}

static void read_loadavg(struct lb_sysmon *m, struct raw *r)
{
	char *s = slurpf(m, m->conf.proc_root, "loadavg");
	if (!s || sscanf(s, "%lf %lf %lf", &r->load[0], &r->load[1], &r->load[2]) != 3)
		r->load[0] = r->load[1] = r->load[2] = 0;
}

static void read_self(struct lb_sysmon *m, struct raw *r)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		r->self_user_us = (int64_t)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec;
		r->self_sys_us = (int64_t)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec;
		r->self_vcs = ru.ru_nvcsw;
		r->self_ivcs = ru.ru_nivcsw;
	}
	char *s = slurpf(m, m->conf.proc_root, "self/statm");
	unsigned long long size, res;
	r->self_rss_kb = s && sscanf(s, "%llu %llu", &size, &res) == 2 ? res * (uint64_t)m->page_kb : 0;
}

static int disk_index(const struct lb_sysmon *m, const char *name)
{
	for (int i = 0; i < m->ndisks; i++)
		if (!strcmp(m->names[i], name))
			return i;
	return -1;
}

static void read_diskstats(struct lb_sysmon *m, struct raw *r)
{
	memset(r->disk, 0, sizeof(*r->disk) * (size_t)m->ndisks);
	char *s = slurpf(m, m->conf.proc_root, "diskstats");
	for (char *l = s; l && *l;) {
		char *next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		uint32_t maj, min;
		char name[LB_SYS_NAME_BYTES];
		uint64_t v[LB_DISKSTAT_NFIELDS];
		int i;
		if (lb_diskstats_parse_line(l, &maj, &min, name, sizeof(name), v) == 0 &&
		    (i = disk_index(m, name)) >= 0)
			memcpy(r->disk[i], v, sizeof(v));
		l = next;
	}
}

/* ---- watched database server processes ---------------------------------------------------- */

static bool parse_proc_stat(const char *s, struct proc_ent *e)
{
	const char *open = strchr(s, '('), *close = strrchr(s, ')');
	if (!open || !close || close < open)
		return false;
	size_t n = (size_t)(close - open - 1);
	if (n >= sizeof(e->comm))
		n = sizeof(e->comm) - 1;
	memcpy(e->comm, open + 1, n);
	e->comm[n] = '\0';
	/* Fields after the command: state ppid ... utime (14) stime (15) ... starttime (22). */
	char *p = (char *)close + 2;
	uint64_t f[20] = { 0 };
	for (int k = 0; k < 20 && *p; k++) {
		if (k == 0) {
			p++; /* state letter */
			continue;
		}
		f[k] = strtoull(p, &p, 10);
	}
	e->ppid = (int)f[1];
	e->user = f[11];
	e->sys = f[12];
	e->start = f[19];
	return true;
}

static void scan_procs(struct lb_sysmon *m)
{
	m->nprocs = 0;
	DIR *d = opendir(m->conf.proc_root);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char rel[300];
		snprintf(rel, sizeof(rel), "%s/stat", de->d_name);
		char *s = slurpf(m, m->conf.proc_root, rel);
		struct proc_ent e = { .pid = atoi(de->d_name) };
		if (!s || !parse_proc_stat(s, &e))
			continue; /* it exited meanwhile */
		if (m->nprocs == m->capprocs) {
			m->capprocs = m->capprocs ? m->capprocs * 2 : 256;
			m->procs = lb_xrealloc(m->procs, (size_t)m->capprocs * sizeof(*m->procs));
		}
		m->procs[m->nprocs++] = e;
	}
	closedir(d);
}

static int cmp_pid(const void *a, const void *b)
{
	const struct proc_ent *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct proc_ent *find_pid(struct proc_ent *v, int n, int pid)
{
	struct proc_ent key = { .pid = pid };
	return n > 0 ? bsearch(&key, v, (size_t)n, sizeof(*v), cmp_pid) : NULL;
}

static bool watched_pid(const struct lb_sys_conf *c, int pid)
{
	for (int i = 0; i < c->npids; i++)
		if (c->pids[i] == pid)
			return true;
	return false;
}

/* A process is watched if its name is listed, or it or one of its ancestors has a listed pid. */
static void match_procs(struct lb_sysmon *m)
{
	const struct lb_sys_conf *c = &m->conf;
	for (int i = 0; i < m->nprocs; i++) {
		struct proc_ent *e = &m->procs[i];
		e->match = false;
		for (int k = 0; k < c->nnames && !e->match; k++)
			e->match = !strncmp(e->comm, c->names[k], 15); /* the kernel keeps 15 characters */
		const struct proc_ent *a = e;
		for (int hop = 0; a && hop < 64 && !e->match && c->npids; hop++) {
			e->match = watched_pid(c, a->pid);
			a = a->ppid > 0 ? find_pid(m->procs, m->nprocs, a->ppid) : NULL;
		}
	}
}

/* Adds the CPU each watched process used since the previous scan to the cumulative totals. */
static void account_procs(struct lb_sysmon *m, struct raw *r)
{
	if (!m->conf.npids && !m->conf.nnames)
		return;
	scan_procs(m);
	if (m->nprocs > 1)
		qsort(m->procs, (size_t)m->nprocs, sizeof(*m->procs), cmp_pid);
	match_procs(m);
	int n = 0;
	for (int i = 0; i < m->nprocs; i++) {
		const struct proc_ent *e = &m->procs[i];
		if (!e->match)
			continue;
		const struct proc_ent *p = find_pid(m->seen, m->nseen, e->pid);
		if (p && p->start == e->start) {
			m->db_user += e->user >= p->user ? e->user - p->user : 0;
			m->db_sys += e->sys >= p->sys ? e->sys - p->sys : 0;
		} else if (m->scanned) {
			/* Started since the last scan: all of its CPU time is new. */
			m->db_user += e->user;
			m->db_sys += e->sys;
		}
		n++;
	}
	/* Remember the watched ones (still sorted by pid) for the next scan. */
	if (n > m->capseen) {
		m->capseen = n;
		m->seen = lb_xrealloc(m->seen, (size_t)n * sizeof(*m->seen));
	}
	m->nseen = 0;
	for (int i = 0; i < m->nprocs; i++)
		if (m->procs[i].match)
			m->seen[m->nseen++] = m->procs[i];
	m->scanned = true;
	if (r) {
		r->db_user = m->db_user;
		r->db_sys = m->db_sys;
		r->db_n = n;
	}
}

static void read_net(struct lb_sysmon *m, struct raw *r)
{
	/* Both files go through the one buffer: the first is parsed before the second is read. */
	lb_net_parse_dev(&r->net, slurpf(m, m->conf.proc_root, "net/dev"));
	lb_net_parse_snmp(&r->net, slurpf(m, m->conf.proc_root, "net/snmp"));
}

static void read_clock(struct lb_sysmon *m, struct raw *r)
{
	r->mhz = m->cpufreq ? lb_cpufreq_cur_mhz(m->conf.sys_root, m->use, MAX_CPUS) : 0;
	if (r->mhz <= 0) {
		const char *s = slurpf(m, m->conf.proc_root, "cpuinfo");
		r->mhz = s ? lb_cpuinfo_mhz(s, m->use, MAX_CPUS) : 0;
	}
}

static void take_reading(struct lb_sysmon *m, struct raw *r, int64_t now_ns)
{
	r->t_ns = now_ns;
	read_clock(m, r);
	read_stat(m, r);
	read_meminfo(m, r);
	read_loadavg(m, r);
	read_self(m, r);
	read_diskstats(m, r);
	read_net(m, r);
	account_procs(m, r);
}

/* Runnable tasks; the sampling thread itself is running while it reads /proc/stat. */
static unsigned run_queue(const struct raw *r)
{
	return r->running > 0 ? r->running - 1 : 0;
}

static void note_mhz(struct lb_sysmon *m, const struct raw *r)
{
	if (r->mhz > 0) {
		m->mhz_sum += r->mhz;
		m->mhz_n++;
	}
}

static void note_run_queue(struct lb_sysmon *m, unsigned rq)
{
	m->rq_sum += rq;
	m->rq_n++;
	if (rq > m->rq_max)
		m->rq_max = rq;
}

/* ---- devices --------------------------------------------------------------------------------- */

/* Whole block devices from /sys/block; a device link means real hardware (or a virtio disk). */
static void find_disks(struct lb_sysmon *m)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/block", m->conf.sys_root);
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d)) && m->ndisks < MAX_DISKS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= LB_SYS_NAME_BYTES)
			continue;
		char *name = m->names[m->ndisks];
		snprintf(name, LB_SYS_NAME_BYTES, "%s", de->d_name);
		for (char *c = name; *c; c++)
			if (*c == '!')
				*c = '/'; /* /sys spells cciss/c0d0 as cciss!c0d0 */
		snprintf(path, sizeof(path), "%s/block/%s/device", m->conf.sys_root, de->d_name);
		m->physical[m->ndisks++] = access(path, F_OK) == 0;
	}
	if (d)
		closedir(d);
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

static void raw_init(struct lb_sysmon *m, struct raw *r)
{
	memset(r, 0, sizeof(*r));
	r->disk = lb_xcalloc((size_t)(m->ndisks ? m->ndisks : 1), sizeof(*r->disk));
}

static void raw_copy(const struct lb_sysmon *m, struct raw *dst, const struct raw *src)
{
	uint64_t (*disk)[LB_DISKSTAT_NFIELDS] = dst->disk;
	*dst = *src;
	dst->disk = disk;
	memcpy(disk, src->disk, sizeof(*disk) * (size_t)m->ndisks);
}

static void warn_unmatched(struct lb_sysmon *m)
{
	const struct lb_sys_conf *c = &m->conf;
	for (int k = 0; k < c->nnames; k++) {
		bool found = false;
		for (int i = 0; i < m->nseen && !found; i++)
			found = !strncmp(m->seen[i].comm, c->names[k], 15);
		char b[128];
		if (!found)
			lb_warn("no process named '%s' is running (--db-server-name)", lb_escape_to(b, sizeof(b), c->names[k]));
	}
	for (int k = 0; k < c->npids; k++)
		if (!find_pid(m->seen, m->nseen, c->pids[k]))
			lb_warn("no process with pid %d is running (--db-server-pid)", c->pids[k]);
}

struct lb_sysmon *lb_sysmon_new(const struct lb_sys_conf *conf)
{
	if (!conf->enabled)
		return NULL;
	struct lb_sysmon *m = lb_xzalloc(sizeof(*m));
	m->conf = *conf;
	if (!m->conf.proc_root)
		m->conf.proc_root = "/proc";
	if (!m->conf.sys_root)
		m->conf.sys_root = "/sys";
	m->hz = sysconf(_SC_CLK_TCK);
	m->page_kb = sysconf(_SC_PAGESIZE) / 1024;
	if (m->hz <= 0)
		m->hz = 100;
	find_disks(m);
	cpu_set_t set;
	bool have_set = sched_getaffinity(0, sizeof(set), &set) == 0;
	for (int i = 0; i < MAX_CPUS; i++)
		m->use[i] = !have_set || CPU_ISSET(i, &set);
	m->cpufreq = lb_cpufreq_cur_mhz(m->conf.sys_root, m->use, MAX_CPUS) > 0;
	raw_init(m, &m->base);
	raw_init(m, &m->prev);
	raw_init(m, &m->cur);
	raw_init(m, &m->end);
	/* A first scan now: warnings about missing servers come before the run starts. */
	account_procs(m, &m->cur);
	if (m->conf.npids || m->conf.nnames)
		warn_unmatched(m);
	return m;
}

void lb_sys_sample_fini(struct lb_sys_sample *s)
{
	free(s->disks);
	s->disks = NULL;
	s->ndisks = 0;
	lb_sys_net_fini(&s->net);
}

void lb_sysmon_free(struct lb_sysmon *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nsamples; i++)
		lb_sys_sample_fini(&m->samples[i]);
	free(m->samples);
	free(m->base.disk);
	free(m->prev.disk);
	free(m->end.disk);
	free(m->cur.disk);
	free(m->procs);
	free(m->seen);
	free(m->sched_base.v);
	free(m->sched_end.v);
	free(m->buf);
	free(m);
}

static void read_sched(struct lb_sysmon *m, struct sched_reading *s)
{
	s->n = lb_schedstat_read(m->conf.proc_root, &s->v, &s->cap);
}

/* A window starts at reading r: the gauges restart, the threads' schedstat is its base. */
static void reset_gauges(struct lb_sysmon *m, const struct raw *r)
{
	m->rq_sum = 0;
	m->rq_n = 0;
	m->rq_max = 0;
	m->mhz_sum = 0;
	m->mhz_n = 0;
	note_run_queue(m, run_queue(r));
	note_mhz(m, r);
	read_sched(m, &m->sched_base);
}

void lb_sysmon_start(struct lb_sysmon *m, int64_t now_ns)
{
	if (!m)
		return;
	take_reading(m, &m->base, now_ns);
	raw_copy(m, &m->prev, &m->base);
	reset_gauges(m, &m->base);
}

void lb_sysmon_new_window(struct lb_sysmon *m, int64_t now_ns)
{
	if (!m)
		return;
	take_reading(m, &m->base, now_ns);
	reset_gauges(m, &m->base);
}

/* ---- samples --------------------------------------------------------------------------------- */

static uint64_t delta(uint64_t b, uint64_t a)
{
	return b >= a ? b - a : 0;
}

static double rate(uint64_t n, double s)
{
	return s > 0 ? (double)n / s : 0;
}

static void diff_cpu(const struct raw *a, const struct raw *b, struct lb_sys_sample *s)
{
	uint64_t d[LB_SYS_CPU_N], total = 0;
	for (int i = 0; i < LB_SYS_CPU_N; i++) {
		d[i] = delta(b->cpu[i], a->cpu[i]);
		total += d[i];
	}
	s->have_cpu = a->cpu_ok && b->cpu_ok;
	for (int i = 0; i < LB_SYS_CPU_N; i++)
		s->cpu_pct[i] = total ? 100.0 * (double)d[i] / (double)total : 0;
	s->ctxt_per_s = rate(delta(b->ctxt, a->ctxt), s->interval_s);
}

static void diff_disks(const struct lb_sysmon *m, const struct raw *a, const struct raw *b,
		       struct lb_sys_sample *s)
{
	s->disks = lb_xcalloc((size_t)(m->ndisks ? m->ndisks : 1), sizeof(*s->disks));
	double ms = s->interval_s * 1e3;
	for (int i = 0; i < m->ndisks; i++) {
		uint64_t d[LB_DISKSTAT_NFIELDS];
		for (int k = 0; k < LB_DISKSTAT_NFIELDS; k++)
			d[k] = delta(b->disk[i][k], a->disk[i][k]);
		/* Virtual devices (loop, ram, zram, …) only when they did something. */
		if (!m->physical[i] && !d[LB_DISKSTAT_READS] && !d[LB_DISKSTAT_WRITES] && !d[LB_DISKSTAT_FLUSHES] && !d[LB_DISKSTAT_BUSY_MS])
			continue;
		struct lb_sys_disk *o = &s->disks[s->ndisks++];
		snprintf(o->name, sizeof(o->name), "%s", m->names[i]);
		o->physical = m->physical[i];
		o->reads = d[LB_DISKSTAT_READS];
		o->writes = d[LB_DISKSTAT_WRITES];
		o->flushes = d[LB_DISKSTAT_FLUSHES];
		o->reads_per_s = rate(d[LB_DISKSTAT_READS], s->interval_s);
		o->writes_per_s = rate(d[LB_DISKSTAT_WRITES], s->interval_s);
		o->flushes_per_s = rate(d[LB_DISKSTAT_FLUSHES], s->interval_s);
		o->read_mib_per_s = rate(d[LB_DISKSTAT_READ_SECTORS], s->interval_s) * 512 / MIB;
		o->write_mib_per_s = rate(d[LB_DISKSTAT_WRITE_SECTORS], s->interval_s) * 512 / MIB;
		o->avg_queue = ms > 0 ? (double)d[LB_DISKSTAT_QUEUE_MS] / ms : 0;
		o->util_pct = ms > 0 ? 100.0 * (double)d[LB_DISKSTAT_BUSY_MS] / ms : 0;
		if (o->util_pct > 100)
			o->util_pct = 100; /* io_ticks is sampled at request boundaries */
		o->read_await_ms = d[LB_DISKSTAT_READS] ? (double)d[LB_DISKSTAT_READ_MS] / (double)d[LB_DISKSTAT_READS] : 0;
		o->write_await_ms = d[LB_DISKSTAT_WRITES] ? (double)d[LB_DISKSTAT_WRITE_MS] / (double)d[LB_DISKSTAT_WRITES] : 0;
	}
}

/* Counters become rates between two readings; gauges (memory, load) are taken at the end. */
static void diff(const struct lb_sysmon *m, const struct raw *a, const struct raw *b,
		 double rq_avg, unsigned rq_max, struct lb_sys_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->interval_s = (double)(b->t_ns - a->t_ns) / 1e9;
	s->cpus = m->ncpus;
	diff_cpu(a, b, s);
	s->run_queue_avg = rq_avg;
	s->run_queue_max = rq_max;
	s->blocked = b->blocked;
	memcpy(s->load, b->load, sizeof(s->load));
	s->mem_total_mib = (double)b->mem_kb[M_TOTAL] / 1024;
	s->mem_available_mib = (double)b->mem_kb[M_AVAILABLE] / 1024;
	s->mem_used_mib = s->mem_total_mib - s->mem_available_mib;
	s->mem_cached_mib = (double)(b->mem_kb[M_CACHED] + b->mem_kb[M_BUFFERS]) / 1024;
	s->mem_dirty_mib = (double)b->mem_kb[M_DIRTY] / 1024;
	s->swap_used_mib = (double)delta(b->mem_kb[M_SWAP_TOTAL], b->mem_kb[M_SWAP_FREE]) / 1024;
	double t = s->interval_s > 0 ? s->interval_s : 1;
	s->proc_user_pct = (double)(b->self_user_us - a->self_user_us) / 1e4 / t;
	s->proc_system_pct = (double)(b->self_sys_us - a->self_sys_us) / 1e4 / t;
	s->proc_vcs_per_s = (double)(b->self_vcs - a->self_vcs) / t;
	s->proc_ivcs_per_s = (double)(b->self_ivcs - a->self_ivcs) / t;
	s->proc_rss_mib = (double)b->self_rss_kb / 1024;
	s->db = m->conf.npids || m->conf.nnames;
	if (s->db) {
		s->db_processes = b->db_n;
		/* No process matched (a wrong --db-server-name): not available, not 0 % */
		bool seen = a->db_n > 0 || b->db_n > 0;
		s->db_user_pct = seen ? 100.0 * (double)delta(b->db_user, a->db_user) / (double)m->hz / t : NAN;
		s->db_system_pct = seen ? 100.0 * (double)delta(b->db_sys, a->db_sys) / (double)m->hz / t : NAN;
	}
	diff_disks(m, a, b, s);
	lb_net_diff(&a->net, &b->net, s->interval_s, &s->net);
}

int lb_sysmon_sample(struct lb_sysmon *m, int64_t now_ns)
{
	if (!m)
		return -1;
	take_reading(m, &m->cur, now_ns);
	unsigned rq = run_queue(&m->cur);
	note_run_queue(m, rq);
	note_mhz(m, &m->cur);
	if (m->nsamples == m->capsamples) {
		m->capsamples = m->capsamples ? m->capsamples * 2 : 64;
		m->samples = lb_xrealloc(m->samples, (size_t)m->capsamples * sizeof(*m->samples));
	}
	/* An interval's run queue and clock are the reading at its end; the window averages its
	 * readings. */
	diff(m, &m->prev, &m->cur, rq, rq, &m->samples[m->nsamples]);
	m->samples[m->nsamples].cpu_mhz = m->cur.mhz;
	raw_copy(m, &m->prev, &m->cur);
	return m->nsamples++;
}

const struct lb_sys_sample *lb_sysmon_at(const struct lb_sysmon *m, int index)
{
	return m && index >= 0 && index < m->nsamples ? &m->samples[index] : NULL;
}

bool lb_sysmon_watches_procs(const struct lb_sysmon *m)
{
	return m && (m->conf.npids || m->conf.nnames);
}

void lb_sysmon_note_procs(struct lb_sysmon *m)
{
	if (m && m->scanned && !m->stopped)
		account_procs(m, NULL);
}

void lb_sysmon_stop(struct lb_sysmon *m, int64_t now_ns, const struct lb_task_sched *ended, int nended)
{
	if (!m)
		return;
	take_reading(m, &m->end, now_ns);
	read_sched(m, &m->sched_end);
	m->sched_end.n = lb_schedstat_merge(&m->sched_end.v, m->sched_end.n, &m->sched_end.cap, ended, nended);
	m->stopped = true;
}

/* luabench's threads between the window's start and now (or the stop). */
static void sched_window(struct lb_sysmon *m, struct lb_sys_sample *out)
{
	struct sched_reading now = { 0 };
	const struct sched_reading *end = &m->sched_end;
	if (!m->stopped) {
		read_sched(m, &now);
		end = &now;
	}
	out->have_sched = m->sched_base.n > 0 && end->n > 0;
	if (out->have_sched) {
		uint64_t run_ns, wait_ns;
		lb_schedstat_diff(m->sched_base.v, m->sched_base.n, end->v, end->n, &run_ns, &wait_ns);
		double t = out->interval_s > 0 ? out->interval_s : 1;
		out->proc_cpu_wait_pct = (double)wait_ns / 1e7 / t;
		out->proc_cpu_wait_share_pct = run_ns + wait_ns ? 100.0 * (double)wait_ns / (double)(run_ns + wait_ns) : 0;
	}
	free(now.v);
}

bool lb_sysmon_window(struct lb_sysmon *m, int64_t now_ns, struct lb_sys_sample *out)
{
	if (!m)
		return false;
	struct raw now;
	raw_init(m, &now);
	if (m->stopped)
		raw_copy(m, &now, &m->end);
	else
		take_reading(m, &now, now_ns);
	unsigned rq = run_queue(&now);
	double avg = (m->rq_sum + rq) / (m->rq_n + 1);
	diff(m, &m->base, &now, avg, rq > m->rq_max ? rq : m->rq_max, out);
	unsigned mhz_n = m->mhz_n + (now.mhz > 0);
	out->cpu_mhz = mhz_n ? (m->mhz_sum + now.mhz) / mhz_n : 0;
	sched_window(m, out);
	free(now.disk);
	return true;
}
