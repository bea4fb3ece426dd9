#include "util/log.h"

#include <stdarg.h>
#include <string.h>

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

void lb_log(enum lb_log_level level, const char *fmt, ...)
{
	if ((int)level > verbosity)
		return;
	FILE *out = level <= LB_LOG_WARNING ? (problem_stream ? problem_stream : stderr) : lb_log_info_stream();
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	/* One fprintf per line keeps lines from different threads whole. */
	fprintf(out, "%s%s%s", prefixes[level], line, (n && line[n - 1] == '\n') ? "" : "\n");
	fflush(out);
}
