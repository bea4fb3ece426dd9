/* `luabench merge a.json b.json … [--format=text|json] [--output=FILE] [--percentile=LIST]`:
 * combines the results of processes that ran one benchmark together (on one or many machines)
 * exactly — counters add, histograms add, percentiles come from the merged histogram, rates are
 * taken over the union of the measured windows — and prints the usual final report. A merged
 * result is itself a valid input, and merging is associative. */
#ifndef LB_OUTPUT_MERGE_H
#define LB_OUTPUT_MERGE_H

/* argv[0] is "merge". Returns the process exit code. */
int lb_merge_main(int argc, char **argv);

#endif
