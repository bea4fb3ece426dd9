/* Runs a fuzz target over files, without libFuzzer: the normal test suite replays every seed and
 * every past crasher this way (under ASan+UBSan in the sanitizer pass). Arguments are files or
 * folders of files; the output is TAP, one line per input. A crash ends the process, which fails
 * the test with the input's name as the last line printed. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

static int count;

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		printf("not ok %d - %s: %s\n", ++count, path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0, n;
	uint8_t *buf = malloc(cap);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return -1;
	printf("# %s (%zu bytes)\n", path, len);
	fflush(stdout);
	/* An exact-size copy, so ASan sees a read past the input as libFuzzer would. */
	uint8_t *in = malloc(len ? len : 1);
	memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	printf("ok %d - %s\n", ++count, path);
	fflush(stdout);
	return 0;
}

static int replay(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1; /* a target without crashers has no folder */
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		sprintf(names[n++], "%s/%s", path, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (replay_file(names[i]) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	char **paths = malloc((size_t)argc * sizeof(*paths));
	for (int i = 0; i < argc; i++) {
		paths[i] = realpath(argv[i], NULL);
		if (!paths[i])
			paths[i] = argv[i];
	}
	LLVMFuzzerInitialize(&argc, &argv); /* may change the working directory */
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (replay(paths[i]) < 0)
			rc = 1;
	printf("1..%d\n", count);
	return rc;
}
