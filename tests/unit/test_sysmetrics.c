/* System metrics arithmetic on fabricated /proc and /sys trees: CPU shares, disk rates, queue
 * size and utilisation, memory, run queue, watched processes (by name, by pid with descendants,
 * restarts), windows versus intervals, the report layout and the options. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../tap.h"
#include "fake_tree.h"
#include "sys/diskstats.h"
#include "util/opt.h"
#include "sys/sysmetrics.h"
#include "output/sys_report.h"

#define S(x) ((int64_t)(x) * 1000000000LL)


/* /proc/stat with the given jiffies (user nice system idle iowait irq softirq steal). */
static void stat_file(unsigned long long u, unsigned long long sy, unsigned long long idle,
		      unsigned long long iow, unsigned long long steal, unsigned long long ctxt, int running)
{
	put("proc/stat",
	    "cpu  %llu 0 %llu %llu %llu 0 0 %llu 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\ncpu1 1 0 1 1 0 0 0 0 0 0\n"
	    "intr 123 4 5\nctxt %llu\nbtime 1\nprocesses 99\nprocs_running %d\nprocs_blocked 1\n",
	    u, sy, idle, iow, steal, ctxt, running);
}

/* vda: reads, sectors read, ms reading, writes, sectors written, ms writing, io ms, weighted ms. */
static void disks(unsigned long long rd, unsigned long long rs, unsigned long long rms, unsigned long long wr,
		  unsigned long long ws, unsigned long long wms, unsigned long long io, unsigned long long wt,
		  unsigned long long loop_rd, unsigned long long flushes)
{
	put("proc/diskstats",
	    "   7       0 loop0 %llu 0 %llu 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	    " 254       0 vda %llu 0 %llu %llu %llu 0 %llu %llu 0 %llu %llu 0 0 0 0 %llu 0\n"
	    " 254       1 vda1 5 0 5 5 5 0 5 5 0 5 5 0 0 0 0 0 0\n",
	    loop_rd, loop_rd * 8, rd, rs, rms, wr, ws, wms, io, wt, flushes);
}

static void proc_pid(int pid, const char *comm, int ppid, int ut, int st, int start)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	put(rel, "%d (%s) S %d 1 1 0 -1 4194560 100 0 0 0 %d %d 0 0 20 0 1 0 %d 1000 10\n", pid, comm, ppid,
	    ut, st, start);
}

static const struct lb_sys_disk *disk(const struct lb_sys_sample *s, const char *name)
{
	for (int i = 0; i < s->ndisks; i++)
		if (!strcmp(s->disks[i].name, name))
			return &s->disks[i];
	return NULL;
}

static int near(double got, double want, const char *what)
{
	int r = ok(fabs(got - want) < 1e-6 * (fabs(want) + 1), "%s", what);
	if (!r)
		diag("got %.9g, want %.9g", got, want);
	return r;
}

static void test_sampling(void)
{
	put("sys/block/vda/device", "x");
	put("sys/block/loop0/size", "0");
	put("proc/meminfo", "MemTotal: 8388608 kB\nMemFree: 100 kB\nMemAvailable: 6291456 kB\nBuffers: 1024 kB\n"
			    "Cached: 1047552 kB\nSwapCached: 0 kB\nDirty: 2048 kB\nSwapTotal: 1024 kB\nSwapFree: 0 kB\n");
	put("proc/loadavg", "1.50 0.75 0.25 3/200 999\n");
	stat_file(1000, 500, 10000, 100, 0, 5000, 3);
	disks(100, 800, 50, 200, 4000, 400, 1000, 2000, 16, 7);
	proc_pid(4000, "postgres", 1, 100, 50, 10);
	proc_pid(4001, "postgres", 4000, 10, 5, 20);
	proc_pid(4002, "walwriter x)", 4000, 7, 7, 21); /* a name with a parenthesis */
	proc_pid(5000, "mysqld", 1, 500, 500, 30);
	proc_pid(6000, "bash", 1, 1, 1, 40);

	char proc_root[300], sys_root[300];
	snprintf(proc_root, sizeof(proc_root), "%s/proc", root);
	snprintf(sys_root, sizeof(sys_root), "%s/sys", root);
	struct lb_sys_conf conf = { .enabled = true, .npids = 1, .pids = { 4000 }, .nnames = 1,
				    .names = { "mysqld" }, .proc_root = proc_root, .sys_root = sys_root };
	struct lb_sysmon *m = lb_sysmon_new(&conf);
	ok(m != NULL, "a monitor when enabled");
	lb_sysmon_start(m, S(100));

	/* Two seconds later: 2 CPUs x 2 s x 100 Hz = 400 jiffies: 200 user, 100 system, 60 idle,
	 * 20 iowait, 20 steal. */
	stat_file(1200, 600, 10060, 120, 20, 5000 + 3000, 5);
	disks(100 + 400, 800 + 8192, 50 + 800, 200 + 1000, 4000 + 20480, 400 + 3000, 1000 + 1500, 2000 + 4000, 16, 14);
	proc_pid(4000, "postgres", 1, 100 + 20, 50 + 10, 10);
	proc_pid(4001, "postgres", 4000, 10 + 30, 5 + 10, 20);
	proc_pid(4003, "postgres", 4000, 40, 0, 50);    /* a new backend: all of its time counts */
	proc_pid(5000, "mysqld", 1, 500 + 100, 500, 30);
	proc_pid(6000, "bash", 1, 1 + 300, 1, 40);      /* not watched */
	int i = lb_sysmon_sample(m, S(102));
	is_int(i, 0, "first interval sample");
	const struct lb_sys_sample *s = lb_sysmon_at(m, i);
	near(s->interval_s, 2, "interval length from the caller's clock");
	is_int(s->cpus, 2, "CPUs counted from the cpuN lines");
	ok(s->have_cpu, "CPU figures available");
	near(s->cpu_pct[LB_SYS_USER], 50, "user share of all CPUs");
	near(s->cpu_pct[LB_SYS_SYSTEM], 25, "system share");
	near(s->cpu_pct[LB_SYS_IDLE], 15, "idle share");
	near(s->cpu_pct[LB_SYS_IOWAIT], 5, "iowait share");
	near(s->cpu_pct[LB_SYS_STEAL], 5, "steal share");
	near(s->ctxt_per_s, 1500, "context switches per second");
	near(s->run_queue_avg, 4, "run queue leaves out the sampling thread");
	is_int(s->blocked, 1, "blocked tasks");
	near(s->load[0], 1.5, "load average");
	near(s->mem_total_mib, 8192, "memory total");
	near(s->mem_used_mib, 2048, "memory used = total - available");
	near(s->mem_cached_mib, 1024, "page cache and buffers");
	near(s->mem_dirty_mib, 2, "dirty memory");
	near(s->swap_used_mib, 1, "swap used");
	ok(s->db, "database server watched");
	/* postgres tree: 20+30+40 user, 10+10 system ticks; mysqld 100 user: 190/200 over 2 s at 100 Hz */
	is_int(s->db_processes, 5, "postmaster, its children (any name) and mysqld by name");
	near(s->db_user_pct, 100.0 * 190 / 100 / 2, "watched processes' user CPU, % of one CPU");
	near(s->db_system_pct, 100.0 * (10 + 10 + 7 * 0) / 100 / 2, "their system CPU");
	const struct lb_sys_disk *d = disk(s, "vda");
	ok(d && d->physical, "the physical disk is reported");
	ok(!disk(s, "loop0"), "an idle loop device is not");
	ok(!disk(s, "vda1"), "partitions are not (their disk holds the sum)");
	if (d) {
		near(d->reads_per_s, 200, "reads per second");
		near(d->writes_per_s, 500, "writes per second");
		near(d->read_mib_per_s, 8192.0 * 512 / 1048576 / 2, "read MiB/s from 512-byte sectors");
		near(d->write_mib_per_s, 20480.0 * 512 / 1048576 / 2, "write MiB/s");
		near(d->util_pct, 75, "utilisation: busy ms over elapsed ms");
		near(d->avg_queue, 2, "average queue: weighted ms over elapsed ms");
		near(d->read_await_ms, 2, "read await");
		near(d->write_await_ms, 3, "write await");
		is_int(d->flushes, 7, "flush requests (kernel 5.5+ fields)");
	}
	near(lb_sys_disk_iops(s), 700, "IOPS over physical disks");

	/* The loop device wakes up; the postmaster restarts under the same pid (new start time). */
	stat_file(1400, 700, 10120, 140, 40, 8000, 1);
	disks(500, 8992, 850, 1200, 24480, 3400, 2500, 6000, 16 + 10, 14);
	proc_pid(4000, "postgres", 1, 5, 5, 999);
	for (int pid = 4001; pid <= 4003; pid++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/proc/%d/stat", root, pid);
		unlink(path);
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
	int j = lb_sysmon_sample(m, S(103));
	s = lb_sysmon_at(m, j);
	ok(disk(s, "loop0") && !disk(s, "loop0")->physical, "a virtual device appears once it does I/O");
	is_int(s->db_processes, 2, "exited processes are gone, mysqld stays");
	near(s->db_user_pct, 5.0, "a restarted process counts from zero, not as a negative difference");
	near(s->run_queue_avg, 0, "an idle run queue is 0, not -1");

	/* The window from the start covers both intervals; its run queue averages the readings. */
	struct lb_sys_sample w;
	ok(lb_sysmon_window(m, S(104), &w), "window sample");
	near(w.interval_s, 4, "window length");
	near(w.cpu_pct[LB_SYS_USER], 100.0 * 400 / 800, "window CPU from the first and last readings");
	near(w.run_queue_avg, (2 + 4 + 0 + 0) / 4.0, "window run queue averages start, samples and end");
	is_int(w.run_queue_max, 4, "and keeps its maximum");
	near(w.db_user_pct, 100.0 * (190 + 5) / 100 / 4, "watched CPU accumulates across samples");

	/* --report-system line and block: values of the block start at column 42. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	lb_sys_report_block(f, &w, NULL, 0);
	lb_sys_report_line(f, 5, s);
	fclose(f);
	ok(strstr(buf, "System statistics (2 CPUs;") == buf, "block title");
	const char *l = strstr(buf, "    context switches:");
	ok(l && l[41] != ' ' && l[40] == ' ', "values start at column 42");
	ok(strstr(buf, "    db server cpu usr/sys (%):") != NULL, "database server line");
	ok(strstr(buf, "    disk vda r/w per sec.:") != NULL, "a line per active disk");
	ok(strstr(buf, "[ 5s ] sys: cpu usr/sys/iow/steal/idle ") != NULL, "intermediate line");
	free(buf);

	cJSON *j2 = lb_sys_json(&w);
	cJSON *cpu = cJSON_GetObjectItem(j2, "cpu_pct"), *dj = cJSON_GetObjectItem(cJSON_GetObjectItem(j2, "disks"), "vda");
	ok(cpu && cJSON_GetObjectItem(cpu, "steal"), "JSON cpu_pct has every state");
	ok(dj && cJSON_IsTrue(cJSON_GetObjectItem(dj, "physical")), "JSON disks keyed by device name");
	ok(cJSON_GetObjectItem(cJSON_GetObjectItem(j2, "db_server"), "processes") != NULL, "JSON db_server");
	cJSON_Delete(j2);
	lb_sys_sample_fini(&w);
	lb_sysmon_free(m);

	struct lb_sys_conf off = { .enabled = false };
	ok(lb_sysmon_new(&off) == NULL, "no monitor when disabled");
	is_int(lb_sysmon_sample(NULL, 0), -1, "and sampling it is a no-op");
}

static void test_options(void)
{
	static const char *const bad[] = { "db-server-pid=abc", "db-server-pid=-3", "db-server-pid=0" };
	char err[256];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct lb_opts o;
		struct lb_sys_conf c;
		lb_opts_init(&o);
		lb_opts_push(&o, bad[i], "command line");
		ok(lb_sysmon_register_options(&o, err, sizeof(err)) < 0 ||
			   lb_sysmon_configure(&o, &c, err, sizeof(err)) < 0,
		   "--%s is refused", bad[i]);
		lb_opts_fini(&o);
	}
	struct lb_opts o;
	struct lb_sys_conf c;
	lb_opts_init(&o);
	lb_opts_push(&o, "db-server-pid=12,34", "command line");
	lb_opts_push(&o, "db-server-name=postgres", "command line");
	lb_opts_push(&o, "report-system", "command line");
	ok(lb_sysmon_register_options(&o, err, sizeof(err)) == 0 && lb_sysmon_configure(&o, &c, err, sizeof(err)) == 0,
	   "valid options");
	ok(c.enabled && c.report && c.npids == 2 && c.pids[1] == 34 && c.nnames == 1 && !strcmp(c.names[0], "postgres"),
	   "parsed into the configuration");
	lb_opts_fini(&o);
	lb_opts_init(&o);
	lb_opts_push(&o, "system-stats=off", "command line");
	lb_opts_push(&o, "report-system=on", "command line");
	ok(lb_sysmon_register_options(&o, err, sizeof(err)) == 0 && lb_sysmon_configure(&o, &c, err, sizeof(err)) < 0 &&
		   strstr(err, "--system-stats=on"),
	   "--report-system needs --system-stats");
	lb_opts_fini(&o);
}

/* fileio's device: the line of the device that holds a path, in a fabricated diskstats. */
static void test_diskstats(void)
{
	struct stat st;
	ok(stat(root, &st) == 0, "stat the test directory");
	char path[400], line[200];
	snprintf(path, sizeof(path), "%s/diskstats.dev", root);
	FILE *f = fopen(path, "w");
	fprintf(f, "   7       0 loop0 1 2 3 4 5 6 7 8 0 9 10\n");
	fprintf(f, " %3u %7u sdz 11 0 22 33 44 0 55 66 0 77 88 0 0 0 0 99 111\n", major(st.st_dev), minor(st.st_dev));
	fclose(f);
	struct lb_disk_dev d;
	char err[200];
	is_int(lb_diskstats_dev_of_path(root, path, &d, err, sizeof(err)), 0, "the device of a directory: %s", err);
	is_str(d.name, "sdz", "its name");
	uint64_t v[LB_DISKSTAT_NFIELDS];
	is_int(lb_diskstats_read(&d, path, v), 0, "its counters");
	ok(v[LB_DISKSTAT_READS] == 11 && v[LB_DISKSTAT_READ_SECTORS] == 22 && v[LB_DISKSTAT_WRITES] == 44 &&
	   v[LB_DISKSTAT_QUEUE_MS] == 88 && v[LB_DISKSTAT_FLUSHES] == 99 && v[LB_DISKSTAT_FLUSH_MS] == 111,
	   "fields in kernel order");
	uint32_t ma, mi;
	is_int(lb_diskstats_parse_line("   7       0 loop0 1 2 3 4", &ma, &mi, line, sizeof(line), v), 0, "a short line");
	ok(ma == 7 && mi == 0 && !strcmp(line, "loop0") && v[3] == 4 && v[4] == 0, "missing fields read as 0");
	ok(lb_diskstats_parse_line("garbage", &ma, &mi, NULL, 0, v) < 0, "not a diskstats line");
	f = fopen(path, "w");
	fprintf(f, "   7       0 loop0 1 2 3 4 5 6 7 8 0 9 10\n");
	fclose(f);
	ok(lb_diskstats_dev_of_path(root, path, &d, err, sizeof(err)) == -ENOENT && strstr(err, "has no line in /proc/diskstats"),
	   "a device with no line says so: %s", err);
}

int main(void)
{
	snprintf(root, sizeof(root), "/tmp/lb-sysmetrics.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	test_sampling();
	test_options();
	test_diskstats();
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
	return done_testing();
}
