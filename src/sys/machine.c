#include "sys/machine.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sys/cpufreq.h"
#include "sys/cpuinfo.h"
#include "sys/sysfile.h"
#include "util/secret.h"
#include "util/util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static void read_cpuinfo(struct lb_machine *m, const char *proc_root, bool *hypervisor)
{
	char *text = lb_sysfile_slurp(proc_root, "cpuinfo");
	struct lb_cpuinfo ci;
	lb_cpuinfo_parse(text ? text : "", NULL, 0, &ci);
	free(text);
	snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", ci.model);
	snprintf(m->isa, sizeof(m->isa), "%s", ci.isa);
	*hypervisor = ci.hypervisor;
}

static void read_meminfo(struct lb_machine *m, const char *proc_root)
{
	char path[512], line[256];
	snprintf(path, sizeof(path), "%s/meminfo", proc_root);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	unsigned long long kib;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1) {
			m->mem_total_mib = (double)kib / 1024.0;
			break;
		}
	fclose(f);
}

static void read_os_release(struct lb_machine *m)
{
	FILE *f = fopen("/etc/os-release", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "PRETTY_NAME=", 12))
			continue;
		char *v = line + 12;
		v[strcspn(v, "\n")] = '\0';
		size_t n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		snprintf(m->os, sizeof(m->os), "%.127s", v);
		break;
	}
	fclose(f);
}

/* The hypervisor's own name from CPUID leaf 0x40000000 (x86), "" when there is none. */
static void cpuid_hypervisor(char *out, size_t len)
{
	out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return;
	__cpuid(0x40000000, a, b, c, d);
	char vendor[13];
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &c, 4);
	memcpy(vendor + 8, &d, 4);
	vendor[12] = '\0';
	static const char *const known[][2] = {
		{ "KVMKVMKVM", "kvm" }, { "Microsoft Hv", "hyper-v" }, { "VMwareVMware", "vmware" },
		{ "XenVMMXenVMM", "xen" }, { "TCGTCGTCGTCG", "qemu-tcg" }, { "ACRNACRNACRN", "acrn" },
		{ " lrpepyh  vr", "parallels" }, { "bhyve bhyve ", "bhyve" }, { "QNXQVMBSQG", "qnx" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(vendor, known[i][0], strlen(known[i][0]))) {
			snprintf(out, len, "%s", known[i][1]);
			return;
		}
	snprintf(out, len, "%s", vendor);
#else
	(void)len;
#endif
}

/* Who virtualizes the machine: CPUID's vendor, else Xen's /sys/hypervisor, else the firmware's
 * (DMI) vendor and product when a hypervisor is announced; "none" when nothing says so. */
static void read_virtualization(struct lb_machine *m, const char *sys_root, bool hypervisor_flag)
{
	char *v = m->virtualization;
	size_t len = sizeof(m->virtualization);
	cpuid_hypervisor(v, len);
	if (v[0])
		return;
	if (lb_sysfile_line(sys_root, "hypervisor/type", v, len))
		return;
	char vendor[64] = "", product[64] = "";
	lb_sysfile_line(sys_root, "class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	lb_sysfile_line(sys_root, "class/dmi/id/product_name", product, sizeof(product));
	if (hypervisor_flag && (vendor[0] || product[0]))
		snprintf(v, len, "%.30s%s%.30s", vendor, vendor[0] && product[0] ? " " : "", product);
	else
		snprintf(v, len, "%s", hypervisor_flag ? "unknown hypervisor" : "none");
}

static void read_clocks(struct lb_machine *m, const char *sys_root, int cpu)
{
	struct lb_cpufreq f;
	lb_cpufreq_read(sys_root, cpu, &f);
	m->mhz_nominal = f.base_mhz > 0 ? f.base_mhz : lb_cpuinfo_model_mhz(m->cpu_model);
	m->mhz_max = f.max_mhz;
	snprintf(m->governor, sizeof(m->governor), "%s", f.governor);
	snprintf(m->cpufreq_driver, sizeof(m->cpufreq_driver), "%s", f.driver);
}

void lb_machine_read(struct lb_machine *m, const char *proc_root, const char *sys_root, int cpu)
{
	memset(m, 0, sizeof(*m));
	bool hypervisor_flag = false;
	read_cpuinfo(m, proc_root, &hypervisor_flag);
	read_meminfo(m, proc_root);
	read_clocks(m, sys_root, cpu);
	lb_cpucache_read(sys_root, cpu, &m->cache);
	char buf[256];
	if (lb_sysfile_line(sys_root, "devices/system/node/online", buf, sizeof(buf)))
		m->numa_nodes = lb_sysfile_list_count(buf) > 0 ? lb_sysfile_list_count(buf) : 0;
	if (lb_sysfile_line(sys_root, "kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)))
		lb_sysfile_selected(buf, m->thp, sizeof(m->thp));
	read_virtualization(m, sys_root, hypervisor_flag);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	m->cpus = n > 0 ? (int)n : 0;
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%.60s %.60s", u.sysname, u.release);
		snprintf(m->arch, sizeof(m->arch), "%.31s", u.machine);
	}
	read_os_release(m);
}

void lb_machine_read_storage(struct lb_machine *m, const char *path, const char *proc_root, const char *sys_root)
{
	m->have_storage = path && *path && lb_storage_read(path, proc_root, sys_root, &m->storage);
}

static void buf_puts(struct lb_buf *b, const char *s)
{
	lb_buf_append(b, s, strlen(s));
}

static bool is_secret_option(const char *arg)
{
	if (arg[0] != '-')
		return false;
	size_t n = strcspn(arg, "=");
	for (size_t i = 0; i + 8 <= n; i++)
		if (!strncasecmp(arg + i, "password", 8))
			return true;
	return false;
}

static void append_quoted(struct lb_buf *b, const char *s)
{
	bool plain = *s != '\0';
	for (const char *p = s; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || strchr("-_=./,:@%+", *p);
	if (plain) {
		buf_puts(b, s);
		return;
	}
	buf_puts(b, "'");
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			buf_puts(b, "'\\''");
		else
			lb_buf_printf(b, "%c", *p);
	}
	buf_puts(b, "'");
}

char *lb_machine_cmdline(const char *proc_root)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/self/cmdline", proc_root);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char raw[65536];
	size_t n = fread(raw, 1, sizeof(raw) - 1, f);
	fclose(f);
	raw[n] = '\0';
	struct lb_buf b = { 0 };
	bool mask_next = false, conn_string_next = false;
	for (size_t i = 0; i < n; i += strlen(raw + i) + 1) {
		const char *arg = raw + i;
		if (b.len)
			buf_puts(&b, " ");
		if (mask_next) {
			buf_puts(&b, "***");
			mask_next = false;
		} else if (conn_string_next) {
			char *masked = lb_secret_conn_string_masked(arg);
			append_quoted(&b, masked);
			free(masked);
			conn_string_next = false;
		} else if (is_secret_option(arg)) {
			const char *eq = strchr(arg, '=');
			if (eq) {
				char *name = lb_xstrndup(arg, (size_t)(eq - arg));
				append_quoted(&b, name);
				buf_puts(&b, "=***");
				free(name);
			} else {
				append_quoted(&b, arg);
				mask_next = true; /* "--pgsql-password secret" */
			}
		} else if (arg[0] == '-' && strchr(arg, '=') &&
			   lb_secret_conn_string_option(arg, (size_t)(strchr(arg, '=') - arg))) {
			char *masked = lb_secret_conn_string_masked(arg);
			append_quoted(&b, masked);
			free(masked);
		} else {
			append_quoted(&b, arg);
			conn_string_next = arg[0] == '-' && lb_secret_conn_string_option(arg, strlen(arg));
		}
	}
	return b.data ? b.data : lb_xstrdup("");
}
