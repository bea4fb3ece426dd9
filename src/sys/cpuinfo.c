#include "sys/cpuinfo.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The extensions a comparison of two machines should show (x86 and arm64 names). Every flag
 * beginning with "avx512" or "amx" counts too. */
static const char *const ISA[] = {
	"sse4_2", "avx", "avx2", "fma", "bmi2", "avx_vnni", "aes", "vaes", "pclmulqdq", "vpclmulqdq",
	"sha_ni", "asimd", "asimddp", "sve", "sve2", "pmull", "sha1", "sha2", "sha3", "sha512", "crc32",
	"atomics", "i8mm", "bf16",
};

static bool isa_wanted(const char *flag, size_t n)
{
	if ((n > 6 && !strncmp(flag, "avx512", 6)) || (n > 3 && !strncmp(flag, "amx", 3)))
		return true;
	for (size_t i = 0; i < sizeof(ISA) / sizeof(ISA[0]); i++)
		if (strlen(ISA[i]) == n && !strncmp(ISA[i], flag, n))
			return true;
	return false;
}

/* The value after "key<blanks>: " when line starts with key, else NULL. */
static const char *value_of(const char *line, const char *key)
{
	size_t k = strlen(key);
	if (strncmp(line, key, k))
		return NULL;
	const char *p = line + k;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static void copy_value(char *dst, size_t len, const char *v)
{
	size_t n = strcspn(v, "\n");
	while (n > 0 && isspace((unsigned char)v[n - 1]))
		n--;
	snprintf(dst, len, "%.*s", (int)n, v);
}

static void pick_isa(char *out, size_t len, const char *flags)
{
	size_t at = 0;
	out[0] = '\0';
	for (const char *p = flags; *p && *p != '\n';) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strcspn(p, " \t\n");
		if (n && isa_wanted(p, n) && at + n + 2 < len)
			at += (size_t)snprintf(out + at, len - at, "%s%.*s", at ? " " : "", (int)n, p);
		p += n;
	}
}

/* Walks the lines; calls back with the processor each line belongs to. */
struct walk {
	const unsigned char *use;
	int nuse, cpu;
	double mhz_sum;
	int mhz_n;
};

static void note_mhz(struct walk *w, const char *v)
{
	if (w->use && (w->cpu < 0 || w->cpu >= w->nuse || !w->use[w->cpu]))
		return;
	double mhz = strtod(v, NULL);
	if (mhz > 0) {
		w->mhz_sum += mhz;
		w->mhz_n++;
	}
}

void lb_cpuinfo_parse(const char *text, const unsigned char *use, int nuse, struct lb_cpuinfo *out)
{
	memset(out, 0, sizeof(*out));
	struct walk w = { .use = use, .nuse = nuse, .cpu = -1 };
	bool have_flags = false;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v;
		if ((v = value_of(l, "processor")) && isdigit((unsigned char)*v)) {
			w.cpu = atoi(v);
			out->processors++;
		} else if ((v = value_of(l, "cpu MHz"))) {
			note_mhz(&w, v);
		} else if (!out->model[0] && ((v = value_of(l, "model name")) || (v = value_of(l, "Hardware")) ||
					      (v = value_of(l, "Processor")))) {
			copy_value(out->model, sizeof(out->model), v);
		} else if (!have_flags && ((v = value_of(l, "flags")) || (v = value_of(l, "Features")))) {
			have_flags = true;
			pick_isa(out->isa, sizeof(out->isa), v);
			for (const char *p = strstr(v, "hypervisor"); p; p = strstr(p + 1, "hypervisor"))
				if ((p == v || p[-1] == ' ') && (p[10] == ' ' || p[10] == '\n' || !p[10]))
					out->hypervisor = true;
		}
	}
	out->mhz = w.mhz_n ? w.mhz_sum / w.mhz_n : 0;
}

double lb_cpuinfo_mhz(const char *text, const unsigned char *use, int nuse)
{
	struct walk w = { .use = use, .nuse = nuse, .cpu = -1 };
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *v;
		if (*l == 'p' && (v = value_of(l, "processor")))
			w.cpu = atoi(v);
		else if (*l == 'c' && (v = value_of(l, "cpu MHz")))
			note_mhz(&w, v);
	}
	return w.mhz_n ? w.mhz_sum / w.mhz_n : 0;
}

double lb_cpuinfo_model_mhz(const char *model)
{
	const char *at = strrchr(model, '@');
	if (!at)
		return 0;
	char *end;
	double v = strtod(at + 1, &end);
	while (*end == ' ')
		end++;
	if (v <= 0)
		return 0;
	if (!strncasecmp(end, "GHz", 3))
		return v * 1000;
	if (!strncasecmp(end, "MHz", 3))
		return v;
	return 0;
}
