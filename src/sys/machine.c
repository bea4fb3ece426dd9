#include "sys/machine.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/secret.h"
#include "util/util.h"

static void trim_copy(char *dst, size_t len, const char *src)
{
	while (isspace((unsigned char)*src))
		src++;
	snprintf(dst, len, "%s", src);
	size_t n = strlen(dst);
	while (n > 0 && isspace((unsigned char)dst[n - 1]))
		dst[--n] = '\0';
}

static void read_cpuinfo(struct lb_machine *m, const char *proc_root)
{
	char path[512], line[512];
	snprintf(path, sizeof(path), "%s/cpuinfo", proc_root);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && !m->cpu_model[0]) {
		/* x86: "model name"; arm64 kernels name no model, some print "Hardware"/"Processor". */
		char *colon = strchr(line, ':');
		if (colon && (!strncmp(line, "model name", 10) || !strncmp(line, "Processor", 9) ||
			      !strncmp(line, "Hardware", 8)))
			trim_copy(m->cpu_model, sizeof(m->cpu_model), colon + 1);
	}
	fclose(f);
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

void lb_machine_read(struct lb_machine *m, const char *proc_root)
{
	memset(m, 0, sizeof(*m));
	read_cpuinfo(m, proc_root);
	read_meminfo(m, proc_root);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	m->cpus = n > 0 ? (int)n : 0;
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%.60s %.60s", u.sysname, u.release);
		snprintf(m->arch, sizeof(m->arch), "%.31s", u.machine);
	}
	read_os_release(m);
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
