#include "util/log.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Process-wide settings written once at startup, before any thread exists. */
static int verbosity = LB_LOG_NOTICE;
static FILE *info_stream;
static FILE *problem_stream;

void lb_log_set_verbosity(int level)
{
	verbosity = level;
}

int lb_log_verbosity(void)
{
	return verbosity;
}

void lb_log_set_info_stream(FILE *f)
{
	info_stream = f;
}

FILE *lb_log_info_stream(void)
{
	return info_stream ? info_stream : stdout;
}

void lb_log_set_problem_stream(FILE *f)
{
	problem_stream = f;
}

static const char *const prefixes[] = { "FATAL: ", "ALERT: ", "WARNING: ", "", "", "DEBUG: " };

static void emit(enum lb_log_level level, const char *line, size_t n)
{
	if ((int)level > verbosity)
		return;
	FILE *out = level <= LB_LOG_WARNING ? (problem_stream ? problem_stream : stderr) : lb_log_info_stream();
	/* One fprintf per line keeps lines from different threads whole. */
	fprintf(out, "%s%.*s\n", prefixes[level], (int)n, line);
	fflush(out);
}

/* The level a continuation line names with its own prefix ("WARNING: ..."), or -1. */
static int continuation_level(const char *line)
{
	for (int l = LB_LOG_FATAL; l <= LB_LOG_WARNING; l++)
		if (!strncmp(line, prefixes[l], strlen(prefixes[l])))
			return l;
	return -1;
}

void lb_log(enum lb_log_level level, const char *fmt, ...)
{
	if ((int)level > verbosity && level > LB_LOG_WARNING)
		return;
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[--n] = '\0';
	/* A problem and its hint are two lines at their own levels, as sysbench logs them ("FATAL:
	 * Cannot open file ..." then "WARNING: Did you forget ..."): a continuation line that
	 * starts with a level's prefix is that level's line, filtered by --verbosity on its own. */
	const char *start = line;
	enum lb_log_level cur = level;
	for (;;) {
		const char *nl = level <= LB_LOG_WARNING ? strchr(start, '\n') : NULL;
		while (nl && continuation_level(nl + 1) < 0)
			nl = strchr(nl + 1, '\n');
		size_t len = nl ? (size_t)(nl - start) : strlen(start);
		emit(cur, start, len);
		if (!nl)
			break;
		start = nl + 1;
		cur = (enum lb_log_level)continuation_level(start);
		start += strlen(prefixes[cur]);
	}
}

char *lb_log_escape(const char *msg, size_t len)
{
	struct lb_buf out = { 0 };
	lb_buf_append(&out, "", 0);
	const char *tb = memmem(msg, len, "\nstack traceback:", 17);
	size_t end = tb ? (size_t)(tb - msg) : len;
	size_t start = 0;
	for (size_t i = 0; i <= end; i++) {
		if (i < end && !(msg[i] == '\n' && continuation_level(msg + i + 1) >= 0))
			continue;
		char *piece = lb_escape(msg + start, i - start);
		lb_buf_printf(&out, "%s%s", piece, i < end ? "\n" : "");
		free(piece);
		start = i + 1;
	}
	if (tb)
		lb_buf_append(&out, tb, len - (size_t)(tb - msg));
	return out.data;
}
