#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
	bool must_exit_now = false;
	/* One write per line: reports and progress show up live in a pipe (tee), and lines from
	 * different threads stay whole. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	int rc = lb_cli_main(argc, argv, &must_exit_now);
	if (must_exit_now) {
		fflush(NULL);
		_exit(rc);
	}
	return rc;
}
