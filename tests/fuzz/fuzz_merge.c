/* The result-file reader of `luabench merge`: the input is a result document (the bytes after a
 * first NUL, if any, are a second one, merged with it), read from a file as the command does,
 * merged and reported. A workload named in the document runs its report_merge hook on the
 * documents' workload_stats. The report goes to /dev/null. */
#include <fcntl.h>
#include <string.h>

#include "output/merge.h"
#include "util/log.h"

#include "fuzz.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	lb_log_set_problem_stream(devnull);
	lb_log_set_info_stream(devnull);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t first = nul ? (size_t)(nul - data) : size;
	char out[300];
	const char *a = lb_fuzz_file("merge-a.json", data, first);
	const char *b = nul ? lb_fuzz_file("merge-b.json", nul + 1, size - first - 1) : NULL;
	if (!a || (nul && !b))
		return 0;
	snprintf(out, sizeof(out), "%s.out", a);
	const char *files[] = { a, b };
	struct lb_merge_request req = { .files = files, .nfiles = b ? 2 : 1, .output = out };

	/* The report is printed on stdout, which the replay driver's TAP lines use. */
	fflush(stdout);
	int saved = dup(1);
	dup2(fileno(devnull), 1);
	lb_merge_run(&req);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	return 0;
}
