/* Loading DuckDB's library on first use (duckdb_api.h says why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LB_DUCKDB_API_LOADER
#include "duckdb_api.h"
#include "lb_config.h"

/* The loaded library is the process's, as a linked one would be: loaded once, never unloaded
 * (DuckDB's threads and instance cache live as long as the process), read-only afterwards. */
static struct lb_duckdb_api loaded;
static char load_error[512];
static int load_result = -1;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
const struct lb_duckdb_api *lb_duckdb_api = &loaded;

static void load(void)
{
	const char *path = getenv("LUABENCH_DUCKDB_LIB");
	if (!path || !*path)
		path = LB_DUCKDB_LIBRARY;
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(load_error, sizeof(load_error), "cannot load DuckDB's library (%s): run tools/install-duckdb, "
			 "or name it with LUABENCH_DUCKDB_LIB", dlerror());
		return;
	}
#define LB_DUCKDB_RESOLVE(f)                                                                         \
	if (!(*(void **)&loaded.f = dlsym(lib, #f))) {                                              \
		snprintf(load_error, sizeof(load_error), "DuckDB's library %s has no %s: DuckDB %d.%d.%d or " \
			 "later is needed (tools/install-duckdb)", path, #f, DUCKDB_API_VERSION_MAJOR, \
			 DUCKDB_API_VERSION_MINOR, DUCKDB_API_VERSION_PATCH);                     \
		return;                                                                              \
	}
	LB_DUCKDB_FUNCTIONS(LB_DUCKDB_RESOLVE)
#undef LB_DUCKDB_RESOLVE
	load_result = 0;
}

int lb_duckdb_load(char *err, size_t errlen)
{
	pthread_once(&load_once, load);
	if (load_result < 0 && err && errlen)
		snprintf(err, errlen, "%s", load_error);
	return load_result;
}
