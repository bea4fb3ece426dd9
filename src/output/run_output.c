#include "output/run_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind/vm.h"
#include "output/metrics_http.h"
#include "output/metrics_report.h"
#include "output/personality.h"
#include "output/result_json.h"
#include "output/sys_report.h"
#include "output/text_report.h"
#include "output/thresholds.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/util.h"

#define ERRLEN 4096

void lb_run_output_init(struct lb_run_output *o, const struct lb_personality *p)
{
	memset(o, 0, sizeof(*o));
	o->p = p;
}

static void on_attach(void *ctx, struct lb_vm *control, struct lb_vm *reporter)
{
	struct lb_run_output *o = ctx;
	o->control = control;
	o->reporter = reporter;
}

void lb_run_output_fini(struct lb_run_output *o)
{
	lb_metrics_http_stop(o->metrics);
	o->metrics = NULL;
}

/* --metrics-listen: serving starts before the threads, so a scraper sees the run from its start. */
static int start_metrics(struct lb_run_output *o, const struct lb_config *c)
{
	if (!c->srv.metrics_listen || !o->p->additions || o->metrics)
		return 0;
	char err[ERRLEN];
	o->metrics = lb_metrics_http_start(c->srv.metrics_listen, err, sizeof(err));
	if (!o->metrics) {
		lb_fatal("%s", err);
		return -1;
	}
	lb_notice("Serving the interval figures for Prometheus at http://%s/metrics (no authentication)\n",
		  lb_metrics_http_address(o->metrics));
	return 0;
}

/* The text or JSON document goes to stdout; everything else to the info stream, so JSON and
 * CSV on stdout stay machine-readable. */
static FILE *report_stream(const struct lb_config *c)
{
	return c->format == LB_FORMAT_TEXT ? stdout : lb_log_info_stream();
}

static void print_options(const struct lb_config *c)
{
	FILE *out = lb_log_info_stream();
	if (lb_log_verbosity() < LB_LOG_NOTICE)
		return;
	fprintf(out, "Running the test with following options:\n");
	fprintf(out, "Number of threads: %d\n", c->threads);
	if (c->rate > 0)
		fprintf(out, "Target transaction rate: %g/sec\n", c->rate);
	if (c->report_interval_ns)
		fprintf(out, "Report intermediate results every %lld second(s)\n",
			(long long)(c->report_interval_ns / LB_NS_PER_S));
	if (c->ncheckpoints) {
		fprintf(out, "Report checkpoint(s) at ");
		for (int i = 0; i < c->ncheckpoints; i++)
			fprintf(out, "%s%g", i ? ", " : "", (double)c->checkpoints_ns[i] / 1e9);
		fprintf(out, " seconds\n");
	}
	if (c->debug)
		fprintf(out, "Debug mode enabled.\n\n");
	if (c->validate)
		fprintf(out, "Validation checks: on.\n\n");
	if (c->seed_from_time)
		fprintf(out, "Initializing random number generator from current time\n");
	else
		fprintf(out, "Initializing random number generator from seed (%lld).\n",
			(long long)c->rand.seed); /* as given: --rand-seed=-1 is (-1) */
	fprintf(out, "\n");
	if (c->forced_shutdown_ns >= 0)
		fprintf(out, "Forcing shutdown in %.0f seconds\n",
			(double)(c->time_ns + c->warmup_ns + c->forced_shutdown_ns) / 1e9);
	fprintf(out, "\n");
	fflush(out);
}

static void print_hook_text(struct lb_run_output *o, const char *hook, FILE *out)
{
	char *text = lb_vm_report_text(o->control, hook, NULL);
	if (text && *text)
		fprintf(out, "%s%s", text, text[strlen(text) - 1] == '\n' ? "" : "\n");
	free(text);
}

static int on_header(void *ctx, const struct lb_config *c)
{
	struct lb_run_output *o = ctx;
	print_options(c);
	if (start_metrics(o, c) < 0)
		return -1;
	FILE *out = lb_log_info_stream();
	/* The workload's own header lines (e.g. "Prime numbers limit"). */
	if (lb_log_verbosity() >= LB_LOG_NOTICE)
		print_hook_text(o, "run_header", out);
	fflush(out);
	return 0;
}

static void on_ready(void *ctx)
{
	struct lb_run_output *o = ctx;
	FILE *out = lb_log_info_stream();
	/* The workload's notes beyond sysbench's lines (luabench's additions). */
	if (lb_log_verbosity() >= LB_LOG_NOTICE) {
		if (o->p->additions)
			print_hook_text(o, "run_notes", out);
		fprintf(out, "Initializing worker threads...\n\n");
	}
	fflush(out);
}

static int on_started(void *ctx, const struct lb_config *c, const struct lb_types *types,
		      const struct lb_metric_defs *metrics, bool server_stats, char *err, size_t errlen)
{
	struct lb_run_output *o = ctx;
	/* The types and metrics are known now (the states defined them): a misspelt one fails
	 * before the run, not after it. */
	if (o->thresholds && lb_thresholds_check_names(o->thresholds, types, metrics, err, errlen) < 0)
		return -1;
	FILE *info = lb_log_info_stream();
	if (lb_log_verbosity() >= LB_LOG_NOTICE)
		fprintf(info, "Threads started!\n\n");
	if (c->warmup_ns && lb_log_verbosity() >= LB_LOG_NOTICE)
		fprintf(info, "Warming up for %lld seconds...\n\n", (long long)(c->warmup_ns / LB_NS_PER_S));
	if (c->format == LB_FORMAT_CSV)
		o->csv_types = lb_report_csv_header(stdout, c, types, metrics, server_stats);
	fflush(NULL);
	return 0;
}

static int on_interval(void *ctx, const struct lb_result *r)
{
	struct lb_run_output *o = ctx;
	const struct lb_config *c = r->cfg;
	bool text = c->format == LB_FORMAT_TEXT && c->report_interval_ns && lb_log_verbosity() >= LB_LOG_NOTICE;
	int rc = 0;
	char err[ERRLEN];
	lb_metrics_http_update(o->metrics, r);
	if (c->format != LB_FORMAT_CSV && c->report_interval_ns && o->reporter &&
	    lb_vm_report(o->reporter, "report_intermediate", &r->st, err, sizeof(err)) < 0) {
		lb_alert("report_intermediate hook failed: %s", err);
		rc = -1;
	}
	/* The interval's lines are printed a piece at a time: holding the stream keeps a script's
	 * print() from another thread (an event, thread_done) out of the middle of a CSV row or
	 * an interval line, which programs and `grep | cut` read. */
	flockfile(stdout);
	if (c->format == LB_FORMAT_CSV) {
		lb_report_interval_csv(stdout, r, o->csv_types);
	} else if (text && !o->reporter) {
		lb_report_interval_text(stdout, r);
		if (o->p->additions)
			lb_report_stall_line(stdout, r);
	}
	if (text && c->sys.report && r->sys && o->p->additions)
		lb_sys_report_line(stdout, r->st.time_total_s, r->sys);
	if (text && c->report_metrics && o->p->additions)
		lb_metrics_report_line(stdout, r);
	fflush(stdout);
	funlockfile(stdout);
	return rc;
}

/* The text report of a window: the script's report_cumulative hook, or ours with the
 * workload's own blocks (report_text before "General statistics", report_footer after). */
static int window_text(struct lb_run_output *o, const struct lb_result *r, FILE *out)
{
	char err[ERRLEN];
	if (lb_vm_has_hook(o->control, "report_cumulative")) {
		if (lb_vm_report(o->control, "report_cumulative", &r->st, err, sizeof(err)) < 0) {
			lb_alert("report_cumulative hook failed: %s", err);
			return -1;
		}
		return 0;
	}
	/* sysbench prints its report at NOTICE level: nothing of it below --verbosity=3. */
	if (lb_log_verbosity() < LB_LOG_NOTICE)
		return 0;
	if (r->cfg->histogram)
		lb_report_histogram(out, &r->snap->lat);
	char *extra = lb_vm_report_text(o->control, "report_text", &r->st);
	char *footer = o->p->additions ? lb_vm_report_text(o->control, "report_footer", &r->st) : NULL;
	lb_report_final_text(out, r, extra, footer, o->p->additions);
	free(extra);
	free(footer);
	return 0;
}

/* --threshold on the final window: printed after the report (luabench's lines, not as
 * sysbench; on the info stream with --format=json/csv) and recorded in the result. */
static struct lb_threshold_outcome *eval_thresholds(struct lb_run_output *o, const struct lb_result *r,
						    struct lb_result *with)
{
	if (!r->st.final || !o->thresholds || !o->thresholds->n)
		return NULL;
	struct lb_threshold_outcome *v = lb_xcalloc((size_t)o->thresholds->n, sizeof(*v));
	o->thresholds_failed = lb_thresholds_eval(o->thresholds, r, v);
	*with = *r;
	with->thresholds = v;
	with->nthresholds = o->thresholds->n;
	return v;
}

static int on_window(void *ctx, const struct lb_result *window)
{
	struct lb_run_output *o = ctx;
	struct lb_result with;
	struct lb_threshold_outcome *thresholds = eval_thresholds(o, window, &with);
	const struct lb_result *r = thresholds ? &with : window;
	const struct lb_config *c = r->cfg;
	bool final = r->st.final;
	FILE *out = report_stream(c);
	int rc = 0;
	if (!final) {
		if (lb_log_verbosity() >= LB_LOG_NOTICE)
			fprintf(out, "[ %.0fs ] Checkpoint report:\n", r->end_s);
	}
	char *workload_json = final ? lb_vm_report_json(o->control, &r->st) : NULL;
	if (c->format == LB_FORMAT_TEXT || !final) {
		rc = window_text(o, r, out);
	} else if (c->format == LB_FORMAT_JSON) {
		char *doc = lb_result_json(r, workload_json);
		fputs(doc, stdout);
		fputc('\n', stdout);
		free(doc);
	}
	if (thresholds && o->p->additions && lb_log_verbosity() >= LB_LOG_NOTICE)
		lb_thresholds_print(report_stream(c), r->thresholds, r->nthresholds);
	fflush(NULL);
	if (final && c->output_path && lb_result_json_write(r, workload_json) < 0)
		rc = -1;
	free(workload_json);
	free(thresholds);
	return rc;
}

static void on_failed(void *ctx, const struct lb_result *r)
{
	lb_result_json_error(r);
}

const struct lb_run_sink lb_run_output_sink = {
	.attach = on_attach,
	.header = on_header,
	.ready = on_ready,
	.started = on_started,
	.interval = on_interval,
	.window = on_window,
	.failed = on_failed,
};
