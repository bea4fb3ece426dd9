/* /sys/devices/system/cpu/cpuN/cpufreq: how the kernel drives a CPU's clock (driver,
 * governor), its nominal and highest clock, and the clock it runs at now. A virtual machine
 * usually has none of these files: every figure is then 0 or "". */
#ifndef LB_SYS_CPUFREQ_H
#define LB_SYS_CPUFREQ_H

struct lb_cpufreq {
	char driver[32];      /* scaling_driver: "intel_pstate", "acpi-cpufreq", "cppc_cpufreq" */
	char governor[32];    /* scaling_governor: "performance", "powersave", "schedutil" */
	double base_mhz;      /* base_frequency (intel_pstate): the nominal clock */
	double max_mhz;       /* cpuinfo_max_freq: the highest (turbo) clock */
};

/* CPU `cpu`'s settings under sys_root ("/sys"). */
void lb_cpufreq_read(const char *sys_root, int cpu, struct lb_cpufreq *out);

/* The mean scaling_cur_freq of the CPUs use[] selects (NULL: 0 .. nuse - 1), in MHz; 0 when no
 * CPU has the file. */
double lb_cpufreq_cur_mhz(const char *sys_root, const unsigned char *use, int nuse);

#endif
