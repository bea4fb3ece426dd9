/* `luabench merge a.json b.json … [--format=text|json] [--output=FILE] [--percentile=LIST]`
 * (its command line: cli/merge_cmd.c) combines the results of processes that ran one benchmark together (on one or many machines)
 * exactly — counters add, histograms add, percentiles come from the merged histogram, rates are
 * taken over the union of the measured windows — and prints the usual final report. A merged
 * result is itself a valid input, and merging is associative. */
#ifndef LB_OUTPUT_MERGE_H
#define LB_OUTPUT_MERGE_H

#include <stdbool.h>

#include "engine/config.h"

/* What to merge and how to report it. */
struct lb_merge_request {
	const char *const *files; /* the result documents, in order (at least one) */
	int nfiles;
	bool json;                /* report the merged document on stdout instead of the text */
	const char *output;       /* also write the merged document there; NULL: nowhere */
	double percentiles[LB_MAX_PERCENTILES]; /* to report (0 < p <= 100) */
	int npercentiles;         /* 0 with percentiles_given: none; not given: the first input's */
	bool percentiles_given;
	bool allow_gaps;          /* merge runs whose windows do not overlap, with a warning */
};

/* Merges and reports; a failure is reported on stderr ("FATAL: merge: ..."). Returns the process
 * exit code. */
int lb_merge_run(const struct lb_merge_request *req);

#endif
