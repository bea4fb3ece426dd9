/* Leveled messages with sysbench's levels and prefixes ("FATAL: ", "WARNING: ").
 * Problems (FATAL/ALERT/WARNING) go to stderr so they are never lost in a pipe of the report;
 * informational lines go to the "info" stream: stdout, or stderr when stdout carries JSON/CSV. */
#ifndef LB_UTIL_LOG_H
#define LB_UTIL_LOG_H

#include <stdio.h>

enum lb_log_level {
	LB_LOG_FATAL = 0,
	LB_LOG_ALERT = 1,
	LB_LOG_WARNING = 2,
	LB_LOG_NOTICE = 3,
	LB_LOG_INFO = 4,
	LB_LOG_DEBUG = 5,
};

void lb_log_set_verbosity(int level);
int lb_log_verbosity(void);
/* Where NOTICE/INFO/DEBUG lines go (stdout by default). */
void lb_log_set_info_stream(FILE *f);
FILE *lb_log_info_stream(void);
/* Where FATAL/ALERT/WARNING lines go (stderr by default; sysbench writes them to stdout). */
void lb_log_set_problem_stream(FILE *f);
void lb_log(enum lb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* msg with the control characters of the text it carries shown as escapes (lb_escape), so that
 * it prints as the lines luabench means: the newlines that start a level's own line ("\nWARNING:
 * ...", see lb_log) and a --debug traceback from "\nstack traceback:" on are kept. len bytes of
 * msg (a NUL among them is shown as \0); allocated. */
char *lb_log_escape(const char *msg, size_t len);

#define lb_fatal(...) lb_log(LB_LOG_FATAL, __VA_ARGS__)
#define lb_alert(...) lb_log(LB_LOG_ALERT, __VA_ARGS__)
#define lb_warn(...) lb_log(LB_LOG_WARNING, __VA_ARGS__)
#define lb_notice(...) lb_log(LB_LOG_NOTICE, __VA_ARGS__)
#define lb_info(...) lb_log(LB_LOG_INFO, __VA_ARGS__)
#define lb_debug(...) lb_log(LB_LOG_DEBUG, __VA_ARGS__)

#endif
