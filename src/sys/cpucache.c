#include "sys/cpucache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysfile.h"

double lb_cpucache_size_kib(const char *text)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || v <= 0)
		return 0;
	switch (*end) {
	case 'K': case 'k': return v;
	case 'M': case 'm': return v * 1024;
	case 'G': case 'g': return v * 1024 * 1024;
	case '\0': return v / 1024;
	default: return 0;
	}
}

void lb_cpucache_read(const char *sys_root, int cpu, struct lb_cpucache *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 16; i++) {
		char rel[128], level[16], type[32], size[32];
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
		if (!lb_sysfile_line(sys_root, rel, level, sizeof(level)))
			break;
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
		lb_sysfile_line(sys_root, rel, type, sizeof(type));
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/cache/index%d/size", cpu, i);
		lb_sysfile_line(sys_root, rel, size, sizeof(size));
		double kib = lb_cpucache_size_kib(size);
		int lv = atoi(level);
		if (lv == 1 && !strcmp(type, "Data"))
			out->l1d_kib = kib;
		else if (lv == 1 && !strcmp(type, "Instruction"))
			out->l1i_kib = kib;
		else if (lv == 2)
			out->l2_kib = kib;
		else if (lv == 3)
			out->l3_kib = kib;
	}
}
