/* The sqlite driver's command-line options and how they fill its connection options. The
 * defaults are what a benchmark with many threads wants: WAL (readers do not wait for the one
 * writer), SQLite's own synchronous and cache size, and a busy timeout, so that a writer waits
 * for the lock instead of failing at once. */
#include <stdio.h>
#include <strings.h>

#include "sqlite_int.h"

const struct lb_opt_def lb_sqlite_options[] = {
	{ "sqlite-db", LB_OPT_STRING, "sbtest.db",
	  "database file (created if missing; a file: URI works too, e.g. 'file:sb?mode=memory&cache=shared')" },
	{ "sqlite-journal-mode", LB_OPT_STRING, "wal",
	  "PRAGMA journal_mode on every connection {delete, truncate, persist, memory, wal, off}" },
	{ "sqlite-synchronous", LB_OPT_STRING, "full",
	  "PRAGMA synchronous on every connection {off, normal, full, extra}" },
	{ "sqlite-cache-size", LB_OPT_INT, "-2000",
	  "PRAGMA cache_size on every connection: pages, or KiB when negative (SQLite's default: -2000, 2 MiB)" },
	{ "sqlite-busy-timeout", LB_OPT_INT, "60000",
	  "milliseconds a statement waits for a lock another connection holds before failing with SQLITE_BUSY (0 = fail at once)" },
	{ "sqlite-begin", LB_OPT_STRING, "deferred",
	  "transaction a bare BEGIN starts {deferred (SQLite's: the write lock at the first write), immediate (at BEGIN: writers queue instead of failing on a stale snapshot), exclusive}" },
	{ "sqlite-ignore-errors", LB_OPT_LIST, "5,6",
	  "SQLite result codes to ignore (the event is retried; 5 = SQLITE_BUSY, 6 = SQLITE_LOCKED), SQLSTATEs, or \"all\"" },
	{ NULL, 0, NULL, NULL },
};

void lb_sqlite_read_options(const struct lb_opts *o, struct lb_db_options *out)
{
	out->db = lb_opts_value(o, "sqlite-db", NULL);
	out->sqlite_journal_mode = lb_opts_value(o, "sqlite-journal-mode", NULL);
	out->sqlite_synchronous = lb_opts_value(o, "sqlite-synchronous", NULL);
	out->sqlite_cache_size = lb_opts_int(o, "sqlite-cache-size");
	out->sqlite_busy_timeout_ms = (int32_t)lb_opts_int(o, "sqlite-busy-timeout");
	out->sqlite_begin = lb_opts_value(o, "sqlite-begin", NULL);
	const struct lb_opt *ign = lb_opts_find(o, "sqlite-ignore-errors");
	out->driver_ignore_errors = ign && ign->value ? ign->value : NULL;
}

static bool one_of(const char *v, const char *const *names)
{
	for (; *names; names++)
		if (!strcasecmp(v, *names))
			return true;
	return false;
}

/* The pragma values go into SQL text, so only the words SQLite knows pass. */
int lb_sqlite_check_options(const struct lb_db_options *o, char *err, size_t errlen)
{
	static const char *const journal[] = { "delete", "truncate", "persist", "memory", "wal",
					       "off", NULL };
	static const char *const sync[] = { "off", "normal", "full", "extra", "0", "1", "2", "3",
					    NULL };

	if (o->sqlite_journal_mode && *o->sqlite_journal_mode &&
	    !one_of(o->sqlite_journal_mode, journal)) {
		snprintf(err, errlen, "invalid --sqlite-journal-mode '%.32s' (expected delete, "
			 "truncate, persist, memory, wal or off)", o->sqlite_journal_mode);
		return LB_DB_EINVAL;
	}
	if (o->sqlite_synchronous && *o->sqlite_synchronous && !one_of(o->sqlite_synchronous, sync)) {
		snprintf(err, errlen, "invalid --sqlite-synchronous '%.32s' (expected off, normal, "
			 "full or extra)", o->sqlite_synchronous);
		return LB_DB_EINVAL;
	}
	static const char *const begin[] = { "deferred", "immediate", "exclusive", NULL };
	if (o->sqlite_begin && *o->sqlite_begin && !one_of(o->sqlite_begin, begin)) {
		snprintf(err, errlen, "invalid --sqlite-begin '%.32s' (expected deferred, immediate "
			 "or exclusive)", o->sqlite_begin);
		return LB_DB_EINVAL;
	}
	if (o->sqlite_busy_timeout_ms < 0) {
		snprintf(err, errlen, "invalid --sqlite-busy-timeout %d (expected milliseconds >= 0)",
			 (int)o->sqlite_busy_timeout_ms);
		return LB_DB_EINVAL;
	}
	return lb_db_check_file_kind(o->db, "SQLite", "sqlite-db", err, errlen);
}
