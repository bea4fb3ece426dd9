/* luabench merge (see merge.h). The inputs are read into a run result (engine/result.h) — a
 * snapshot with histograms, per-thread figures, intervals, and the configuration of the merged
 * run — so the report and the JSON document come from the same code as a run's. */
#include "output/merge.h"
#include "output/merge_int.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bind/standalone.h"
#include "bind/vm.h"
#include "engine/latency_hist.h"
#include "engine/session.h"
#include "output/result_json.h"
#include "output/text_report.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/util.h"

/* ---- the merged run -------------------------------------------------------------------------- */

static void set_percentiles(struct merge *m, const struct lb_merge_request *req)
{
	struct lb_config *c = &m->cfg;
	if (req->percentiles_given) {
		for (int i = 0; i < req->npercentiles && i < LB_MAX_PERCENTILES; i++)
			c->percentiles[c->npercentiles++] = req->percentiles[i];
		return;
	}
	const cJSON *pcts = get(get(m->first, "latency_ms"), "percentiles");
	for (const cJSON *p = pcts ? pcts->child : NULL; p; p = p->next)
		if (c->npercentiles < LB_MAX_PERCENTILES)
			c->percentiles[c->npercentiles++] = strtod(p->string, NULL);
}

static void build_result(struct merge *m, struct lb_result *r)
{
	memset(r, 0, sizeof(*r));
	m->cfg.threads = m->nthreads;
	m->cfg.instances = cJSON_GetArraySize(m->from);
	r->cfg = &m->cfg;
	r->workload = str(m->first, "workload");
	r->types = &m->types;
	r->metrics = &m->metrics;
	r->stmt_names = &m->stmt_names;
	r->sql = m->sql;
	r->rate_mode = m->rate_mode;
	r->start_wall_ns = llround(m->start_unix_s * 1e9);
	r->end_wall_ns = m->end_wall_ns;
	r->status = lb_merge_statuses[m->status];
	r->error = m->failed;
	r->window_start_wall_ns = m->start_us * LB_NS_PER_US;
	r->snap = &m->snap;
	uint64_t n = lb_hist_total(&m->snap.lat);
	lb_result_fill_stat(r, (double)(m->end_us - m->start_us) / 1e6, n ? m->snap.lat_min_ns : 0,
			    n ? m->snap.lat_max_ns : 0);
	r->end_s = r->st.time_total_s;
	r->nthreads = m->nthreads;
	r->threads = m->threads;
	r->unfinished = m->unfinished;
	r->cut_off = m->cut_off;
	r->cut_off_age_max_ns = m->cut_off_age_max_ns;
	r->max_lag_ns = m->max_lag_ns;
	r->unserved_arrivals = m->unserved_arrivals;
	r->intervals = m->intervals;
	r->nintervals = m->nintervals;
}

/* Puts `item` under `key` right after `after` (keeps the usual order of a result's fields);
 * rebuilds the object, since this cJSON cannot insert keyed items in the middle. */
static cJSON *insert_after(cJSON *doc, const char *after, const char *key, cJSON *item)
{
	cJSON *out = cJSON_CreateObject(), *x;
	bool done = false;
	while ((x = doc->child)) {
		cJSON_DetachItemViaPointer(doc, x);
		cJSON_AddItemToArray(out, x); /* keeps its key */
		if (!done && !strcmp(x->string, after)) {
			cJSON_AddItemToObject(out, key, item);
			done = true;
		}
	}
	if (!done)
		cJSON_AddItemToObject(out, key, item);
	cJSON_Delete(doc);
	return out;
}

/* The workload's own merged figures (tpcc's tpmC, bookstore's BT/s) from its script's
 * luabench.hooks.report_merge, given every original result's workload_stats and the merged
 * statistics. A script that is not on this machine (a user's, merged elsewhere) has none: the
 * inputs' figures stay in merged_from. */
static void workload_merge(struct merge *m, const struct lb_result *r, char **json, char **text)
{
	*json = *text = NULL;
	const char *name = str(m->first, "workload");
	struct lb_script *script;
	char err[ERRLEN];
	if (!*name || !strcmp(name, "-") || lb_script_load(name, &script, err, sizeof(err)) < 0)
		return;
	/* The hook runs in a Lua state of its own. */
	struct lb_session s = { .cfg = m->cfg, .script = script, .workload = name };
	struct lb_standalone *st = lb_standalone_open(&s, err, sizeof(err));
	if (st) {
		cJSON *inputs = cJSON_CreateArray();
		const cJSON *x;
		cJSON_ArrayForEach(x, m->from)
			if (get(x, "workload_stats"))
				cJSON_AddItemReferenceToArray(inputs, (cJSON *)get(x, "workload_stats"));
		*json = lb_vm_report_merge(lb_standalone_vm(st), inputs, &r->st, text);
		cJSON_Delete(inputs);
	} else {
		char b1[256], b2[1024];
		lb_warn("merge: workload '%s' does not load here, so its own figures are left out: %s",
			lb_escape_to(b1, sizeof(b1), name), lb_escape_to(b2, sizeof(b2), err));
	}
	lb_standalone_close(st);
	lb_script_free(script);
}

static cJSON *merged_doc(struct merge *m, const struct lb_result *r, const char *workload_json)
{
	cJSON *doc = lb_result_json_doc(r, NULL);
	char *hosts = NULL;
	const cJSON *h;
	cJSON_ArrayForEach(h, m->hosts) {
		char *next = lb_xasprintf("%s%s%s", hosts ? hosts : "", hosts ? "," : "", h->valuestring);
		free(hosts);
		hosts = next;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(doc, "hostname", cJSON_CreateString(hosts ? hosts : ""));
	free(hosts);
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "seed");     /* per instance: in merged_from */
	cJSON_DeleteItemFromObjectCaseSensitive(doc, "instance"); /* "instances" counts the inputs */
	/* The machine the merge ran on is not one the benchmark ran on: the first input's stands
	 * for the run (each instance's is in merged_from). */
	if (get(m->first, "machine"))
		cJSON_ReplaceItemInObjectCaseSensitive(doc, "machine", cJSON_Duplicate(get(m->first, "machine"), true));
	else
		cJSON_DeleteItemFromObjectCaseSensitive(doc, "machine");
	if (get(m->first, "server_version"))
		doc = insert_after(doc, "machine", "server_version", cJSON_CreateString(str(m->first, "server_version")));
	if (get(m->first, "driver_settings"))
		doc = insert_after(doc, get(doc, "server_version") ? "server_version" : "machine", "driver_settings",
				   cJSON_Duplicate(get(m->first, "driver_settings"), true));
	if (get(m->first, "command_line"))
		doc = insert_after(doc, "threads", "command_line", cJSON_CreateString(str(m->first, "command_line")));
	if (get(m->first, "options"))
		doc = insert_after(doc, "threads", "options", cJSON_Duplicate(get(m->first, "options"), true));
	if (get(m->first, "start_at_unix_s"))
		doc = insert_after(doc, "instances", "start_at_unix_s",
				   cJSON_Duplicate(get(m->first, "start_at_unix_s"), true));
	cJSON *ws = workload_json ? cJSON_Parse(workload_json) : NULL;
	if (ws)
		cJSON_AddItemToObject(doc, "workload_stats", ws);
	cJSON_AddItemToObject(doc, "merged_from", cJSON_Duplicate(m->from, true));
	cJSON_AddItemToObject(doc, "systems", cJSON_Duplicate(m->systems, true));
	return doc;
}

/* Each instance's system metrics, one line each: they describe different machines. */
static char *systems_text(const struct merge *m)
{
	struct lb_buf b = { 0 };
	const cJSON *x;
	cJSON_ArrayForEach(x, m->systems) {
		const cJSON *s = get(x, "system"), *c = get(s, "cpu_pct"), *p = get(s, "process");
		if (!b.len)
			lb_buf_printf(&b, "System statistics by instance (machine CPU in %% of all CPUs, luabench CPU in %% of one CPU):\n");
		char label[128];
		snprintf(label, sizeof(label), "%s #%d:", str(x, "hostname"), i32(x, "instance"));
		lb_buf_printf(&b, "    %-37scpu usr/sys/iow/steal %.2f/%.2f/%.2f/%.2f, luabench %.2f, disk IOPS %.2f\n",
			      label, num(c, "user") + num(c, "nice"), num(c, "system") + num(c, "irq") + num(c, "softirq"),
			      num(c, "iowait"), num(c, "steal"), num(p, "user_pct") + num(p, "system_pct"),
			      num(s, "disk_iops"));
	}
	if (b.len)
		lb_buf_printf(&b, "\n");
	return b.data;
}

static void print_text(struct merge *m, const struct lb_result *r, const char *workload_text)
{
	printf("Merged %d results (%d threads in all) from ", cJSON_GetArraySize(m->from), m->nthreads);
	int i = 0;
	const cJSON *h;
	cJSON_ArrayForEach(h, m->hosts)
		printf("%s%s", i++ ? ", " : "", h->valuestring);
	printf("; common window %.4fs\n\n", r->st.time_total_s);
	char *systems = systems_text(m);
	char *footer = lb_xasprintf("%s%s", workload_text ? workload_text : "", systems ? systems : "");
	lb_report_final_text(stdout, r, NULL, footer, true);
	free(footer);
	free(systems);
}

/* Instances of one distributed run should each appear exactly once. */
static void check_instances(const struct merge *m)
{
	const cJSON *x;
	int n = 0, total = 0;
	cJSON_ArrayForEach(x, m->from) {
		if (!n)
			n = i32(x, "instances");
		if (i32(x, "instances") != n)
			return; /* results of different runs: nothing to check */
		total++;
	}
	if (n <= 1)
		return;
	int *seen = lb_xcalloc((size_t)n, sizeof(int));
	cJSON_ArrayForEach(x, m->from) {
		int i = i32(x, "instance");
		if (i >= 0 && i < n && seen[i]++)
			lb_warn("instance %d/%d appears more than once", i, n);
	}
	for (int i = 0; i < n; i++)
		if (!seen[i])
			lb_warn("instance %d/%d is missing: merging %d of %d instances", i, n, total, n);
	free(seen);
}

static int emit(struct merge *m, const struct lb_merge_request *a)
{
	struct lb_result r;
	build_result(m, &r);
	char *workload_json, *workload_text;
	workload_merge(m, &r, &workload_json, &workload_text);
	cJSON *doc = merged_doc(m, &r, workload_json);
	free(workload_json);
	char *json = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (a->json)
		printf("%s\n", json);
	else
		print_text(m, &r, workload_text);
	free(workload_text);
	fflush(stdout);
	int rc = 0;
	if (a->output) {
		char *text = lb_xasprintf("%s\n", json);
		int w = lb_write_file_atomic(a->output, text, strlen(text));
		if (w < 0) {
			char b[1024];
			lb_fatal("merge: cannot write '%s': %s", lb_escape_to(b, sizeof(b), a->output), strerror(-w));
			rc = 1;
		}
		free(text);
	}
	free(json);
	return rc;
}

/* ---- the command ---------------------------------------------------------------------------- */

int lb_merge_run(const struct lb_merge_request *a)
{
	struct merge *m = lb_xzalloc(sizeof(*m));
	cJSON **docs = lb_xcalloc((size_t)a->nfiles, sizeof(*docs));
	int rc = 1;
	lb_snap_init(&m->snap);
	lb_types_init(&m->types);
	lb_stmt_names_init(&m->stmt_names);
	lb_metric_defs_init(&m->metrics);
	m->hosts = cJSON_CreateArray();
	m->from = cJSON_CreateArray();
	m->systems = cJSON_CreateArray();
	m->cfg.instances = 1;
	for (int i = 0; i < a->nfiles; i++)
		if (!(docs[i] = lb_merge_read_doc(a->files[i], m->err)) || lb_merge_add_doc(m, a->files[i], docs[i]) < 0)
			goto out;
	if (lb_merge_check_windows(m) < 0) {
		if (!a->allow_gaps) {
			size_t n = strlen(m->err);
			snprintf(m->err + n, ERRLEN - n, ": merge adds processes that ran together; runs one after another are "
				 "repeats to compare (luabench compare --label=A RUN... --label=B RUN...), or give --allow-gaps "
				 "to merge them anyway");
			goto out;
		}
		lb_warn("merge: %s: the merged rates count the gap as measured time", m->err);
		m->err[0] = 0;
	}
	set_percentiles(m, a);
	check_instances(m);
	rc = emit(m, a);
out:
	if (rc && *m->err) {
		char b[ERRLEN * 4];
		lb_fatal("merge: %s", lb_escape_to(b, sizeof(b), m->err));
	}
	for (int i = 0; i < a->nfiles; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	cJSON_Delete(m->hosts);
	cJSON_Delete(m->from);
	cJSON_Delete(m->systems);
	lb_snap_fini(&m->snap);
	lb_types_fini(&m->types);
	lb_stmt_names_fini(&m->stmt_names);
	lb_metric_defs_fini(&m->metrics);
	lb_intervals_free_types(m->intervals, m->nintervals);
	free(m->intervals);
	free(m->threads);
	free(m->failed);
	free(m->windows);
	free(m);
	return rc;
}
