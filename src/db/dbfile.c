/* What kind of database file a path holds, from its first bytes: the embedded engines' drivers
 * name a file of the other engine as such ("'x' is a SQLite database file") instead of failing
 * deep in the engine (DuckDB asks for its sqlite_scanner extension, SQLite says "file is not a
 * database" at the first statement). */
#include <stdio.h>
#include <string.h>

#include "db_int.h"

/* SQLite: "SQLite format 3\0" at byte 0. DuckDB: "DUCK" at byte 8, after the header checksum. */
const char *lb_db_file_kind(const char *path)
{
	unsigned char head[16];
	FILE *f;
	size_t n;

	if (!path || !*path || !strcmp(path, ":memory:") || !strncmp(path, "file:", 5))
		return NULL;
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n == 16 && !memcmp(head, "SQLite format 3", 16))
		return "SQLite";
	if (n >= 12 && !memcmp(head + 8, "DUCK", 4))
		return "DuckDB";
	return NULL;
}

int lb_db_check_file_kind(const char *path, const char *want, const char *option, char *err,
			  size_t errlen)
{
	const char *kind = lb_db_file_kind(path);
	const char *driver = kind && !strcmp(kind, "SQLite") ? "sqlite" : "duckdb";

	if (!kind || !strcmp(kind, want))
		return 0;
	snprintf(err, errlen, "--%s=%.200s is a %s database file, not a %s one: open it with "
		 "--db-driver=%s --%s-db=%.200s", option, path, kind, want, driver, driver, path);
	return LB_DB_EINVAL;
}
