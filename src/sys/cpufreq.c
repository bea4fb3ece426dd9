#include "sys/cpufreq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysfile.h"

/* A kHz figure of cpu's cpufreq directory in MHz; 0 when absent. */
static double khz_file(const char *sys_root, int cpu, const char *name)
{
	char rel[128], buf[64];
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/%s", cpu, name);
	if (!lb_sysfile_line(sys_root, rel, buf, sizeof(buf)))
		return 0;
	double khz = strtod(buf, NULL);
	return khz > 0 ? khz / 1000 : 0;
}

static void text_file(const char *sys_root, int cpu, const char *name, char *out, size_t len)
{
	char rel[128];
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cpufreq/%s", cpu, name);
	lb_sysfile_line(sys_root, rel, out, len);
}

void lb_cpufreq_read(const char *sys_root, int cpu, struct lb_cpufreq *out)
{
	memset(out, 0, sizeof(*out));
	text_file(sys_root, cpu, "scaling_driver", out->driver, sizeof(out->driver));
	text_file(sys_root, cpu, "scaling_governor", out->governor, sizeof(out->governor));
	out->base_mhz = khz_file(sys_root, cpu, "base_frequency");
	out->max_mhz = khz_file(sys_root, cpu, "cpuinfo_max_freq");
}

double lb_cpufreq_cur_mhz(const char *sys_root, const unsigned char *use, int nuse)
{
	double sum = 0;
	int n = 0;
	for (int cpu = 0; cpu < nuse; cpu++) {
		if (use && !use[cpu])
			continue;
		double mhz = khz_file(sys_root, cpu, "scaling_cur_freq");
		if (mhz <= 0) {
			/* No cpufreq at all (a virtual machine): one miss says it for every CPU. */
			if (!n)
				return 0;
			continue;
		}
		sum += mhz;
		n++;
	}
	return n ? sum / n : 0;
}
