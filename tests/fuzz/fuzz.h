/* What every fuzz target shares. A target is one file defining LLVMFuzzerTestOneInput (and, if it
 * needs set-up, LLVMFuzzerInitialize); it is linked with libFuzzer in a fuzz build (meson
 * -Dfuzz=true, clang) and with replay.c in the normal test suite, which runs it over its seed
 * corpus and its past crashers (tests/fuzz/corpus/<target>, tests/fuzz/crashers/<target>). */
#ifndef LB_FUZZ_H
#define LB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A private file holding data (rewritten on each call; in memory when /dev/shm exists), for the
 * code under test that reads files. Returns its path, or NULL if it cannot be written. */
static inline const char *lb_fuzz_file(const char *tag, const uint8_t *data, size_t size)
{
	static char path[4][256];
	static int next;
	char *p = path[next++ % 4];
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(p, sizeof(path[0]), "%s/lb-fuzz-%d-%s", dir, (int)getpid(), tag);
	FILE *f = fopen(p, "wb");
	if (!f)
		return NULL;
	size_t n = size ? fwrite(data, 1, size, f) : 0;
	if (fclose(f) != 0 || n != size)
		return NULL;
	return p;
}

#endif
