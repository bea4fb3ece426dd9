/* `luabench merge`: its help, its options and the checks of what was given; the merging itself
 * is output/merge.c's. */
#include "cli/merge_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/merge.h"
#include "util/log.h"
#include "util/util.h"

#define MERGE_ERRLEN 1024 /* output/merge.c's, so that a long value is cut where it cut it */

static void usage(FILE *out)
{
	fprintf(out, "Usage:\n  luabench merge RESULT.json... [--format=text|json] [--output=FILE] [--percentile=LIST]\n\n"
		     "Combines the JSON results of processes that ran together (see --start-at, --instance):\n"
		     "counters and histograms add, percentiles come from the merged histogram, rates are over\n"
		     "the union of the measured windows; named metrics add (a gauge keeps the value set last and\n"
		     "the extremes of all). A merged result can be merged again. Workloads with\n"
		     "figures of their own (tpcc's tpmC, bookstore's BT/s) compute them for the merged run.\n\n"
		     "  --format=text|json   report on stdout: sysbench's text layout (default) or the JSON document\n"
		     "  --output=FILE        also write the merged JSON document to FILE (atomically)\n"
		     "  --percentile=LIST    percentiles to report (default: those of the first result)\n"
		     "  --allow-gaps         merge results whose measured windows do not overlap (refused otherwise:\n"
		     "                       runs one after another are repeats, for luabench compare)\n");
}

/* --percentile=LIST: percentages in (0, 100], 0 for none, at most LB_MAX_PERCENTILES. */
static int parse_percentiles(struct lb_merge_request *r, const char *list, char *err)
{
	r->percentiles_given = true;
	r->npercentiles = 0;
	char *copy = lb_xstrdup(list), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		double p = strtod(t, &end);
		if (end == t || *end || p < 0 || p > 100 || r->npercentiles == LB_MAX_PERCENTILES) {
			snprintf(err, MERGE_ERRLEN, "Invalid value for the 'percentile' option: '%s'", list);
			free(copy);
			return -1;
		}
		if (p > 0)
			r->percentiles[r->npercentiles++] = p;
	}
	free(copy);
	return 0;
}

static int parse_args(const char *const *args, int nargs, struct lb_merge_request *r, const char **files,
		      char *err)
{
	const char *percentiles = NULL; /* the last one given counts */
	for (int i = 0; i < nargs; i++) {
		const char *s = args[i];
		if (strncmp(s, "--", 2)) {
			files[r->nfiles++] = s;
		} else if (!strcmp(s, "--format=json") || !strcmp(s, "--format=text")) {
			r->json = !strcmp(s, "--format=json");
		} else if (!strncmp(s, "--output=", 9) && s[9]) {
			r->output = s + 9;
		} else if (!strncmp(s, "--percentile=", 13)) {
			percentiles = s + 13;
		} else if (!strcmp(s, "--allow-gaps")) {
			r->allow_gaps = true;
		} else if (!strncmp(s, "--format=", 9)) {
			snprintf(err, MERGE_ERRLEN, "Invalid value for the 'format' option: '%s' (expected text or json)",
				 s + 9);
			return -1;
		} else {
			snprintf(err, MERGE_ERRLEN, "invalid option: %s (see 'luabench merge --help')", s);
			return -1;
		}
	}
	if (!r->nfiles) {
		snprintf(err, MERGE_ERRLEN, "no result files given (usage: luabench merge a.json b.json …)");
		return -1;
	}
	return percentiles ? parse_percentiles(r, percentiles, err) : 0;
}

int lb_cli_merge(const char *const *args, int nargs)
{
	for (int i = 0; i < nargs; i++)
		if (!strcmp(args[i], "--help") || !strcmp(args[i], "help")) {
			usage(stdout);
			return 0;
		}
	struct lb_merge_request r = { 0 };
	const char **files = lb_xcalloc((size_t)nargs + 1, sizeof(*files));
	char err[MERGE_ERRLEN];
	int rc;
	if (parse_args(args, nargs, &r, files, err) < 0) {
		char b[MERGE_ERRLEN * 4];
		lb_fatal("merge: %s", lb_escape_to(b, sizeof(b), err));
		rc = 1;
	} else {
		r.files = files;
		rc = lb_merge_run(&r);
	}
	free((void *)files);
	return rc;
}
