/* System metrics in the text report, the --report-system line and the JSON result. The text
 * block follows the layout of sysbench's blocks (values from column 42) so `cut -c42-` works. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>

#include "output/sys_report.h"

#include "engine/result.h"
#include "sys/placement.h"

void lb_report_row(FILE *out, const char *label, const char *fmt, ...)
{
	va_list ap;
	fprintf(out, "    %-37s", label);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

double lb_sys_disk_iops(const struct lb_sys_sample *s)
{
	double n = 0;
	for (int i = 0; i < s->ndisks; i++)
		if (s->disks[i].physical)
			n += s->disks[i].reads_per_s + s->disks[i].writes_per_s;
	return n;
}

static bool disk_active(const struct lb_sys_disk *d)
{
	return d->reads || d->writes || d->flushes || d->util_pct > 0;
}

/* Interfaces with traffic in the window, then TCP retransmits. No sysbench report key (min:,
 * avg:, max:, total:, events) may appear in these lines: scripts grep for those. */
static void net_rows(FILE *out, const struct lb_sys_net *n)
{
	for (int i = 0; i < n->nnics; i++) {
		const struct lb_sys_nic *c = &n->nics[i];
		char label[64];
		snprintf(label, sizeof(label), "net %s rx/tx (MiB/s):", c->name);
		lb_report_row(out, label, "%.2f/%.2f, pkt/s %.2f/%.2f, drops %llu/%llu, errors %llu/%llu", c->rx_mib_per_s,
		    c->tx_mib_per_s, c->rx_packets_per_s, c->tx_packets_per_s,
		    (unsigned long long)c->n[LB_NET_RX_DROPS], (unsigned long long)c->n[LB_NET_TX_DROPS],
		    (unsigned long long)c->n[LB_NET_RX_ERRORS], (unsigned long long)c->n[LB_NET_TX_ERRORS]);
	}
	if (!n->nnics)
		lb_report_row(out, "net:", "no traffic");
	if (n->have_tcp)
		lb_report_row(out, "tcp retransmits per sec.:", "%.2f (%llu of %llu segments sent)", n->tcp_retrans_per_s,
		    (unsigned long long)n->tcp_retrans_segs, (unsigned long long)n->tcp_out_segs);
}

bool lb_result_host_busy(const struct lb_result *r, struct lb_host_busy *out)
{
	int usable = r->proc_place ? lb_place_usable_cpus(r->proc_place) : 0;
	return r->sys && lb_host_busy_judge(r->sys, r->nthreads, usable, out);
}

/* Only when the rule says busy: what made it so, with the figures. */
static void busy_row(FILE *out, const struct lb_host_busy *b)
{
	char why[512];
	int n = 0;
	if (b->cpu_contention) {
		n = snprintf(why, sizeof(why), "run queue %.2f > %d CPUs; luabench %.1f%% of the %.0f%% its %d thread%s could use",
			     b->run_queue_avg, b->cpus, b->luabench_cpu_pct, b->capacity_pct, b->threads,
			     b->threads == 1 ? "" : "s");
		if (b->have_wait)
			n += snprintf(why + n, sizeof(why) - (size_t)n, ", waiting for a CPU %.0f%% of the time", b->wait_share_pct);
		if (b->have_others)
			n += snprintf(why + n, sizeof(why) - (size_t)n, "; other processes %.0f%%", b->others_cpu_pct);
	}
	if (b->steal)
		snprintf(why + n, sizeof(why) - (size_t)n, "%ssteal %.1f%% of all CPUs", n ? "; " : "", b->steal_pct);
	lb_report_row(out, "busy host:", "%s", why);
}

void lb_sys_report_block(FILE *out, const struct lb_sys_sample *s, const struct lb_host_busy *busy, int usable_cpus)
{
	if (usable_cpus > 0 && usable_cpus < s->cpus)
		fprintf(out, "System statistics (%d CPUs, luabench may use %d; machine CPU in %% of all CPUs, process CPU in %% of one CPU):\n",
			s->cpus, usable_cpus);
	else
		fprintf(out, "System statistics (%d CPUs; machine CPU in %% of all CPUs, process CPU in %% of one CPU):\n",
			s->cpus);
	if (!s->have_cpu) {
		lb_report_row(out, "not available:", "/proc/stat cannot be read");
		fprintf(out, "\n");
		return;
	}
	const double *c = s->cpu_pct;
	lb_report_row(out, "cpu usr/sys/iow/steal/idle (%):", "%.2f/%.2f/%.2f/%.2f/%.2f", c[LB_SYS_USER] + c[LB_SYS_NICE],
	    c[LB_SYS_SYSTEM] + c[LB_SYS_IRQ] + c[LB_SYS_SOFTIRQ], c[LB_SYS_IOWAIT], c[LB_SYS_STEAL], c[LB_SYS_IDLE]);
	lb_report_row(out, "context switches:", "%.2f per sec.", s->ctxt_per_s);
	lb_report_row(out, "run queue avg/max, blocked:", "%.2f/%u, %u", s->run_queue_avg, s->run_queue_max, s->blocked);
	lb_report_row(out, "load average 1/5/15 minutes:", "%.2f/%.2f/%.2f", s->load[0], s->load[1], s->load[2]);
	lb_report_row(out, "memory used/available/dirty (MiB):", "%.0f/%.0f/%.0f", s->mem_used_mib, s->mem_available_mib,
	    s->mem_dirty_mib);
	lb_report_row(out, "luabench cpu usr/sys (%):", "%.2f/%.2f", s->proc_user_pct, s->proc_system_pct);
	if (busy && busy->busy)
		busy_row(out, busy);
	if (s->db && isnan(s->db_user_pct))
		lb_report_row(out, "db server cpu usr/sys (%):", "-/- (not available: no process matched --db-server-name/--db-server-pid)");
	else if (s->db)
		lb_report_row(out, "db server cpu usr/sys (%):", "%.2f/%.2f (%d processes)", s->db_user_pct, s->db_system_pct,
		    s->db_processes);
	int shown = 0;
	for (int i = 0; i < s->ndisks; i++) {
		const struct lb_sys_disk *d = &s->disks[i];
		if (!disk_active(d))
			continue;
		char label[64];
		snprintf(label, sizeof(label), "disk %s r/w per sec.:", d->name);
		lb_report_row(out, label, "%.2f/%.2f, MiB/s %.2f/%.2f, await ms %.2f/%.2f, aqu-sz %.2f, util %.1f%%",
		    d->reads_per_s, d->writes_per_s, d->read_mib_per_s, d->write_mib_per_s, d->read_await_ms,
		    d->write_await_ms, d->avg_queue, d->util_pct);
		shown++;
	}
	if (!shown)
		lb_report_row(out, "disks:", "no I/O");
	net_rows(out, &s->net);
	fprintf(out, "\n");
}

void lb_sys_report_line(FILE *out, double time_s, const struct lb_sys_sample *s)
{
	const double *c = s->cpu_pct;
	fprintf(out, "[ %.0fs ] sys: cpu usr/sys/iow/steal/idle %.1f/%.1f/%.1f/%.1f/%.1f cs/s %.0f rq %u mem used %.0f MiB proc usr/sys %.1f/%.1f",
		time_s, c[LB_SYS_USER] + c[LB_SYS_NICE], c[LB_SYS_SYSTEM] + c[LB_SYS_IRQ] + c[LB_SYS_SOFTIRQ],
		c[LB_SYS_IOWAIT], c[LB_SYS_STEAL], c[LB_SYS_IDLE], s->ctxt_per_s, s->run_queue_max,
		s->mem_used_mib, s->proc_user_pct, s->proc_system_pct);
	if (s->db && isnan(s->db_user_pct))
		fprintf(out, " db usr/sys -/-");
	else if (s->db)
		fprintf(out, " db usr/sys %.1f/%.1f", s->db_user_pct, s->db_system_pct);
	for (int i = 0; i < s->ndisks; i++) {
		const struct lb_sys_disk *d = &s->disks[i];
		if (disk_active(d))
			fprintf(out, ", %s r/w/s %.0f/%.0f MiB/s %.2f/%.2f util %.1f%%", d->name, d->reads_per_s,
				d->writes_per_s, d->read_mib_per_s, d->write_mib_per_s, d->util_pct);
	}
	for (int i = 0; i < s->net.nnics; i++) {
		const struct lb_sys_nic *nic = &s->net.nics[i];
		fprintf(out, ", %s rx/tx MiB/s %.2f/%.2f", nic->name, nic->rx_mib_per_s, nic->tx_mib_per_s);
	}
	if (s->net.have_tcp)
		fprintf(out, ", tcp retrans/s %.1f", s->net.tcp_retrans_per_s);
	fputc('\n', out);
}

static cJSON *cpu_json(const struct lb_sys_sample *s)
{
	static const char *const names[LB_SYS_CPU_N] = { "user", "nice", "system", "idle", "iowait",
							 "irq", "softirq", "steal" };
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < LB_SYS_CPU_N; i++)
		cJSON_AddNumberToObject(o, names[i], s->cpu_pct[i]);
	return o;
}

static cJSON *disk_json(const struct lb_sys_disk *d)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "physical", d->physical);
	cJSON_AddNumberToObject(o, "reads", (double)d->reads);
	cJSON_AddNumberToObject(o, "writes", (double)d->writes);
	cJSON_AddNumberToObject(o, "flushes", (double)d->flushes);
	cJSON_AddNumberToObject(o, "reads_per_s", d->reads_per_s);
	cJSON_AddNumberToObject(o, "writes_per_s", d->writes_per_s);
	cJSON_AddNumberToObject(o, "iops", d->reads_per_s + d->writes_per_s);
	cJSON_AddNumberToObject(o, "flushes_per_s", d->flushes_per_s);
	cJSON_AddNumberToObject(o, "read_mib_per_s", d->read_mib_per_s);
	cJSON_AddNumberToObject(o, "write_mib_per_s", d->write_mib_per_s);
	cJSON_AddNumberToObject(o, "read_await_ms", d->read_await_ms);
	cJSON_AddNumberToObject(o, "write_await_ms", d->write_await_ms);
	cJSON_AddNumberToObject(o, "avg_queue", d->avg_queue);
	cJSON_AddNumberToObject(o, "util_pct", d->util_pct);
	return o;
}

static cJSON *nic_json(const struct lb_sys_nic *c)
{
	static const char *const names[LB_NET_FIELDS] = { "rx_bytes", "rx_packets", "rx_errors", "rx_drops",
							  "tx_bytes", "tx_packets", "tx_errors", "tx_drops" };
	cJSON *o = cJSON_CreateObject();
	for (int k = 0; k < LB_NET_FIELDS; k++)
		cJSON_AddNumberToObject(o, names[k], (double)c->n[k]);
	cJSON_AddNumberToObject(o, "rx_mib_per_s", c->rx_mib_per_s);
	cJSON_AddNumberToObject(o, "tx_mib_per_s", c->tx_mib_per_s);
	cJSON_AddNumberToObject(o, "rx_packets_per_s", c->rx_packets_per_s);
	cJSON_AddNumberToObject(o, "tx_packets_per_s", c->tx_packets_per_s);
	return o;
}

static void add_net(cJSON *o, const struct lb_sys_net *n)
{
	cJSON *nics = cJSON_AddObjectToObject(o, "net");
	for (int i = 0; i < n->nnics; i++)
		cJSON_AddItemToObject(nics, n->nics[i].name, nic_json(&n->nics[i]));
	if (!n->have_tcp)
		return;
	cJSON *tcp = cJSON_AddObjectToObject(o, "tcp");
	cJSON_AddNumberToObject(tcp, "out_segs", (double)n->tcp_out_segs);
	cJSON_AddNumberToObject(tcp, "retrans_segs", (double)n->tcp_retrans_segs);
	cJSON_AddNumberToObject(tcp, "out_segs_per_s", n->tcp_out_segs_per_s);
	cJSON_AddNumberToObject(tcp, "retrans_per_s", n->tcp_retrans_per_s);
}

cJSON *lb_sys_json(const struct lb_sys_sample *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "interval_s", s->interval_s);
	cJSON_AddNumberToObject(o, "cpus", s->cpus);
	if (s->have_cpu)
		cJSON_AddItemToObject(o, "cpu_pct", cpu_json(s));
	cJSON_AddNumberToObject(o, "context_switches_per_s", s->ctxt_per_s);
	cJSON *rq = cJSON_AddObjectToObject(o, "run_queue");
	cJSON_AddNumberToObject(rq, "avg", s->run_queue_avg);
	cJSON_AddNumberToObject(rq, "max", s->run_queue_max);
	cJSON_AddNumberToObject(rq, "blocked", s->blocked);
	cJSON *la = cJSON_AddArrayToObject(o, "load_avg");
	for (int i = 0; i < 3; i++)
		cJSON_AddItemToArray(la, cJSON_CreateNumber(s->load[i]));
	cJSON *mem = cJSON_AddObjectToObject(o, "memory_mib");
	cJSON_AddNumberToObject(mem, "total", s->mem_total_mib);
	cJSON_AddNumberToObject(mem, "used", s->mem_used_mib);
	cJSON_AddNumberToObject(mem, "available", s->mem_available_mib);
	cJSON_AddNumberToObject(mem, "cached", s->mem_cached_mib);
	cJSON_AddNumberToObject(mem, "dirty", s->mem_dirty_mib);
	cJSON_AddNumberToObject(mem, "swap_used", s->swap_used_mib);
	cJSON *p = cJSON_AddObjectToObject(o, "process");
	cJSON_AddNumberToObject(p, "user_pct", s->proc_user_pct);
	cJSON_AddNumberToObject(p, "system_pct", s->proc_system_pct);
	cJSON_AddNumberToObject(p, "voluntary_cs_per_s", s->proc_vcs_per_s);
	cJSON_AddNumberToObject(p, "involuntary_cs_per_s", s->proc_ivcs_per_s);
	cJSON_AddNumberToObject(p, "rss_mib", s->proc_rss_mib);
	if (s->have_sched) {
		cJSON_AddNumberToObject(p, "cpu_wait_pct", s->proc_cpu_wait_pct);
		cJSON_AddNumberToObject(p, "cpu_wait_share_pct", s->proc_cpu_wait_share_pct);
	}
	if (s->cpu_mhz > 0)
		cJSON_AddNumberToObject(o, "cpu_mhz", s->cpu_mhz);
	if (s->db) {
		cJSON *db = cJSON_AddObjectToObject(o, "db_server");
		cJSON_AddNumberToObject(db, "processes", s->db_processes);
		if (isnan(s->db_user_pct)) {
			cJSON_AddNullToObject(db, "user_pct");
			cJSON_AddNullToObject(db, "system_pct");
		} else {
			cJSON_AddNumberToObject(db, "user_pct", s->db_user_pct);
			cJSON_AddNumberToObject(db, "system_pct", s->db_system_pct);
		}
	}
	cJSON *disks = cJSON_AddObjectToObject(o, "disks");
	for (int i = 0; i < s->ndisks; i++)
		cJSON_AddItemToObject(disks, s->disks[i].name, disk_json(&s->disks[i]));
	cJSON_AddNumberToObject(o, "disk_iops", lb_sys_disk_iops(s));
	add_net(o, &s->net);
	return o;
}

cJSON *lb_host_busy_json(const struct lb_host_busy *b)
{
	if (!b->busy)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "cpu_contention", b->cpu_contention);
	cJSON_AddBoolToObject(o, "steal", b->steal);
	cJSON_AddNumberToObject(o, "run_queue_avg", b->run_queue_avg);
	cJSON_AddNumberToObject(o, "cpus", b->cpus);
	cJSON_AddNumberToObject(o, "usable_cpus", b->usable_cpus);
	cJSON_AddNumberToObject(o, "threads", b->threads);
	cJSON_AddNumberToObject(o, "luabench_cpu_pct", b->luabench_cpu_pct);
	cJSON_AddNumberToObject(o, "capacity_pct", b->capacity_pct);
	if (b->have_wait)
		cJSON_AddNumberToObject(o, "cpu_wait_share_pct", b->wait_share_pct);
	else
		cJSON_AddNullToObject(o, "cpu_wait_share_pct");
	if (b->have_others)
		cJSON_AddNumberToObject(o, "others_cpu_pct", b->others_cpu_pct);
	else
		cJSON_AddNullToObject(o, "others_cpu_pct");
	cJSON_AddNumberToObject(o, "steal_pct", b->steal_pct);
	return o;
}
