/* System metrics as output: the final report's block, the --report-system line and the JSON
 * object. */
#ifndef LB_OUTPUT_SYS_REPORT_H
#define LB_OUTPUT_SYS_REPORT_H

#include <stdio.h>

#include "sys/sysmetrics.h"

struct cJSON;

/* One line of a block laid out as sysbench's: the label indented by 4, the value from column
 * 42 (so `cut -c42-` works). */
void lb_report_row(FILE *out, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

void lb_sys_report_block(FILE *out, const struct lb_sys_sample *s);
void lb_sys_report_line(FILE *out, double time_s, const struct lb_sys_sample *s);
struct cJSON *lb_sys_json(const struct lb_sys_sample *s);
/* Sum of IOPS over physical devices (so a dm device on top of a disk is not counted twice). */
double lb_sys_disk_iops(const struct lb_sys_sample *s);

#endif
