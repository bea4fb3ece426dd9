/* System metrics as output: the final report's block, the --report-system line and the JSON
 * object. */
#ifndef LB_OUTPUT_SYS_REPORT_H
#define LB_OUTPUT_SYS_REPORT_H

#include <stdio.h>

#include "sys/hostbusy.h"
#include "sys/sysmetrics.h"

struct cJSON;
struct lb_result;

/* One line of a block laid out as sysbench's: the label indented by 4, the value from column
 * 42 (so `cut -c42-` works). */
void lb_report_row(FILE *out, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The final report's block. busy: the busy-host rule's verdict on s (a line when busy; NULL =
 * not judged); usable_cpus: the CPUs luabench may use, said in the heading when fewer than the
 * machine's (0 = not known). */
void lb_sys_report_block(FILE *out, const struct lb_sys_sample *s, const struct lb_host_busy *busy, int usable_cpus);
/* The busy-host rule on a run's window: false when the result cannot tell (no system metrics). */
bool lb_result_host_busy(const struct lb_result *r, struct lb_host_busy *out);
/* The JSON "host_busy" value: null when not busy, else the figures. */
struct cJSON *lb_host_busy_json(const struct lb_host_busy *b);
void lb_sys_report_line(FILE *out, double time_s, const struct lb_sys_sample *s);
struct cJSON *lb_sys_json(const struct lb_sys_sample *s);
/* Sum of IOPS over physical devices (so a dm device on top of a disk is not counted twice). */
double lb_sys_disk_iops(const struct lb_sys_sample *s);

#endif
