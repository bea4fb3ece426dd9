#include "sys/hostbusy.h"

#include <string.h>

bool lb_host_busy_judge(const struct lb_sys_sample *s, int threads, int usable_cpus, struct lb_host_busy *out)
{
	memset(out, 0, sizeof(*out));
	if (!s || !s->have_cpu)
		return false;
	out->cpus = s->cpus;
	out->usable_cpus = usable_cpus > 0 ? usable_cpus : s->cpus;
	out->threads = threads;
	out->run_queue_avg = s->run_queue_avg;
	out->luabench_cpu_pct = s->proc_user_pct + s->proc_system_pct;
	out->capacity_pct = 100.0 * (threads < out->usable_cpus ? threads : out->usable_cpus);
	out->have_wait = s->have_sched;
	out->wait_share_pct = s->proc_cpu_wait_share_pct;
	out->steal_pct = s->cpu_pct[LB_SYS_STEAL];
	out->have_others = s->db;
	if (s->db) {
		double idle = s->cpu_pct[LB_SYS_IDLE] + s->cpu_pct[LB_SYS_IOWAIT] + s->cpu_pct[LB_SYS_STEAL];
		double busy = (100.0 - idle) * s->cpus; /* % of one CPU */
		out->others_cpu_pct = busy - out->luabench_cpu_pct - s->db_user_pct - s->db_system_pct;
		if (out->others_cpu_pct < 0)
			out->others_cpu_pct = 0;
	}
	out->cpu_contention = threads > 0 && s->run_queue_avg > s->cpus &&
			      out->luabench_cpu_pct < LB_BUSY_CAPACITY_SHARE * out->capacity_pct &&
			      (!out->have_wait || out->wait_share_pct >= LB_BUSY_WAIT_SHARE_PCT) &&
			      (!out->have_others || out->others_cpu_pct >= LB_BUSY_OTHERS_PCT);
	out->steal = out->steal_pct >= LB_BUSY_STEAL_PCT;
	out->busy = out->cpu_contention || out->steal;
	return true;
}
