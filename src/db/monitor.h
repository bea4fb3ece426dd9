/* What a database server tells about itself: the settings it runs with and its cumulative
 * counters (transactions, buffer reads, WAL or redo written, lock waits...), read over a
 * connection of its own. Each driver that can describes its server in a struct lb_db_monitor
 * (lb_db_ops.monitor); the functions here run those queries and collect name/value rows.
 *
 * Not part of the FFI surface: the engine's server monitor (engine/srvmon.c) is the only user. */
#ifndef LB_DB_MONITOR_H
#define LB_DB_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"

/* One query of counters: rows of (name, number). */
struct lb_db_monitor_source {
	const char *name;       /* as the server names it ("pg_stat_wal"), for warnings */
	const char *sql;
	/* What reading it needs ("PROCESS"), for the warning when the query is refused. */
	const char *needs;
	/* optional: one row, true ("t" or "1") when the privilege for everything the source can see
	 * is held; false keeps the source but warns that it sees less (`limited` says what). */
	const char *check_sql;
	const char *limited;
};

struct lb_db_monitor {
	/* Rows of (name, value): the settings that differ from the server's defaults and a fixed
	 * list of those that matter for performance. The fallback runs when it fails (a server of
	 * the family that lacks what it reads). */
	const char *settings_sql;
	const char *settings_fallback_sql;
	/* optional: rows of (name, value) of settings changed but not in force (a configuration
	 * file or ALTER SYSTEM not yet reloaded, a change that waits for a restart), the value
	 * saying what it waits for; the fallback when that is refused (privileges). */
	const char *pending_sql;
	const char *pending_fallback_sql;
	const struct lb_db_monitor_source *sources; /* ends with a NULL name */
	/* Sources that may run as one statement (their texts joined with UNION ALL), so that each
	 * sample costs the server one statement. */
	bool union_sources;
	const char *const *gauges; /* name prefixes of levels (sessions, waits), NULL-terminated */
	/* Counters to which each of the monitor's own statements adds one (its commits, its
	 * questions): the monitor subtracts its statements from them. NULL-terminated. */
	const char *const *own;
	/* One row, one number: the client sessions of this database other than the monitor's. The
	 * last sample waits (briefly) for the workers' sessions to end: a server may count a
	 * session's work only when it ends. NULL = no need. */
	const char *sessions_sql;
	const char *sessions_fallback_sql; /* when sessions_sql fails (an older server) */
	/* A statement that has the session running it publish its counters at once, for a server
	 * that publishes a session's counts late (PostgreSQL 15 on: at most once a second); the
	 * workers run it on their sessions before each of the monitor's readings. NULL = the
	 * server's counters are current (MariaDB/MySQL). */
	const char *publish_sql;
	/* How the servers it describes begin their version (lb_db_conn_server_version:
	 * "PostgreSQL"), for a driver of any server (odbc), which has no monitor of its own and
	 * borrows the one of a built-in driver. NULL-terminated. */
	const char *const *servers;
};

/* A growing list of name/value pairs; values are text (settings) or numbers (counters). */
struct lb_db_kv {
	char *name;
	char *text;
	double value;
};
struct lb_db_kv_list {
	struct lb_db_kv *items;
	int n, cap;
};
void lb_db_kv_list_clear(struct lb_db_kv_list *l);
void lb_db_kv_list_free(struct lb_db_kv_list *l);

/* The driver's description of its server, or NULL when it has none. */
const struct lb_db_monitor *lb_db_monitor_of(const struct lb_db_config *cfg);
/* The description for connection c: its driver's, or for a driver of any server (odbc) the
 * one of the built-in driver whose `servers` c's server version begins with ("PostgreSQL …",
 * "MariaDB …", "MySQL …"); NULL when none fits (or that driver is not built). */
const struct lb_db_monitor *lb_db_monitor_for(struct lb_db_conn *c);
/* Whether connections of this config reach no server (--*-dry-run). */
int lb_db_config_dry_run(const struct lb_db_config *cfg);

/* The sources a monitor can read on this server, as found by lb_db_monitor_probe(). */
struct lb_db_monitor_plan {
	const struct lb_db_monitor *desc;
	char *union_sql;            /* the usable sources as one statement (union_sources) */
	const struct lb_db_monitor_source *usable[16];
	int nusable;
	int statements;             /* per sample */
	int32_t timeout_ms;         /* how long a reading may take before the monitor gives up */
};
/* Every query below gives up after its timeout_ms (the plan's for readings), and the connection
 * is then lost: a stalled server must not hold the thread that reads it. */

/* Runs each source once on c: those the server lacks (an older version) are left out
 * silently, those refused for want of a privilege are left out and named in `warn` (one line,
 * "" when nothing is missing), as are those that see less. Returns the number usable, or -1
 * when the connection broke. */
int lb_db_monitor_probe(struct lb_db_monitor_plan *p, const struct lb_db_monitor *desc,
			struct lb_db_conn *c, int32_t timeout_ms, char *warn, size_t warnlen);
void lb_db_monitor_plan_free(struct lb_db_monitor_plan *p);
/* Reads the settings into out (cleared first). 0, or -1 with the reason in err. */
int lb_db_monitor_settings(const struct lb_db_monitor *desc, struct lb_db_conn *c, int32_t timeout_ms,
			   struct lb_db_kv_list *out, char *err, size_t errlen);
/* Reads the settings changed but not in force into out (cleared first; nothing when the
 * description has no query for them). 0, or -1 with the reason in err. */
int lb_db_monitor_pending(const struct lb_db_monitor *desc, struct lb_db_conn *c, int32_t timeout_ms,
			  struct lb_db_kv_list *out, char *err, size_t errlen);
/* Reads every usable source into out (cleared first). 0, or -1 with the reason in err. */
int lb_db_monitor_read(const struct lb_db_monitor_plan *p, struct lb_db_conn *c,
		       struct lb_db_kv_list *out, char *err, size_t errlen);
/* The sessions query of the plan's monitor: the count, or -1. */
int lb_db_monitor_sessions(const struct lb_db_monitor_plan *p, struct lb_db_conn *c);
/* Has idle session c publish its counters now (desc->publish_sql): 1 when it did, 0 when there
 * is nothing to do (no such statement for its server, a statement or transaction in progress,
 * or the server refused it once: an older version). Nothing is counted, errors are not kept. */
int lb_db_conn_publish_stats(struct lb_db_conn *c);
/* Whether counter `name` is a level (desc->gauges), not a cumulative count. */
bool lb_db_monitor_is_gauge(const struct lb_db_monitor *desc, const char *name);
/* Whether each monitor statement adds one to counter `name` (desc->own). */
bool lb_db_monitor_is_own(const struct lb_db_monitor *desc, const char *name);

#endif
