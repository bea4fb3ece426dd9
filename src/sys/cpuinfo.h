/* /proc/cpuinfo: the CPU's model, the instruction-set extensions that change what a workload
 * runs at (vector units, crypto), whether a hypervisor is announced, and the clock each CPU
 * reports ("cpu MHz", x86). Parses text the caller read; keeps nothing. */
#ifndef LB_SYS_CPUINFO_H
#define LB_SYS_CPUINFO_H

#include <stdbool.h>

struct lb_cpuinfo {
	char model[128];     /* "model name" (x86), "Hardware"/"Processor" (some arm); "" when none */
	char isa[512];       /* the extensions of interest the first CPU has, space-separated, in
	                      * the kernel's spelling: "avx2 avx512f ... aes sha_ni", "asimd sve" */
	bool hypervisor;     /* the x86 "hypervisor" flag: running under a virtual machine monitor */
	int processors;      /* "processor" entries */
	double mhz;          /* mean "cpu MHz" of the processors selected; 0 when none says */
};

/* Fills out from the text of /proc/cpuinfo. use[cpu] != 0 selects the processors whose clock
 * counts in out->mhz (NULL: all; CPUs at or beyond nuse are left out). */
void lb_cpuinfo_parse(const char *text, const unsigned char *use, int nuse, struct lb_cpuinfo *out);

/* Only the mean clock (the cheap part, for sampling during a run); 0 when none says. */
double lb_cpuinfo_mhz(const char *text, const unsigned char *use, int nuse);

/* The nominal clock a model name states ("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz" -> 2500),
 * 0 when it states none. */
double lb_cpuinfo_model_mhz(const char *model);

#endif
