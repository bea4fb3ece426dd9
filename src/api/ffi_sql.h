/* Part of the FFI surface (see ffi.h): the SQL layer. Parsed only by the Lua states that load sysbench.sql. */
#ifndef LB_API_FFI_SQL_H
#define LB_API_FFI_SQL_H

#ifndef LB_CDEF
#include "api/ffi.h"
#else
#define LB_FFI
struct lb_worker;
#endif

#include "db/driver.h"

/* ---- SQL (bind/sql.c): the driver layer plus accounting, waiting and --db-* options --------- */

/* The result object of a connection (one live result set per connection, as in sysbench). The
 * first fields are what sysbench scripts read: rs.nrows (rows of a result set, affected rows of
 * DML, 0 for other statements), rs.nfields. sql.lua gives every connection two: one for
 * statements that return rows, and one (no_rows = 1) standing for sysbench's NULL result, which
 * compares equal to nil but whose fields answer like the other's. */
struct lb_sql_result {
	uint32_t nrows;
	uint32_t nfields;
	int32_t counter;             /* how the statement was counted (sb_counter_type) */
	int32_t freed;               /* rs:free() was called for this result set */
	double affected_rows;        /* rows the statement changed, 0 for reads (a double: a Lua
					number to scripts, exact to 2^53) */
	int32_t no_rows;             /* 1: the NULL result of a statement that returned no rows */
	struct lb_db_result r;
	struct lb_db_row row;
	struct lb_db_conn *conn;
};

/* The process-wide configuration of driver `name` (NULL = --db-driver) built from the --db-*,
 * --mysql-* and --pgsql-* options; created once and kept until exit. NULL with a message in err
 * when the driver is unknown or the options are invalid. */
LB_FFI struct lb_db_config *lb_sql_config(struct lb_worker *w, const char *name, char *err,
					  uint32_t errlen);
LB_FFI const char *lb_sql_driver_name(struct lb_db_config *cfg);
/* lb_db_driver_supports() of the configuration's driver: 1, 0, or -1 for an unknown feature. */
LB_FFI int32_t lb_sql_driver_supports(struct lb_db_config *cfg, const char *feature);
/* Notes the server's product and version from connection c for the run's result (the first
 * connection of the run that tells it). */
LB_FFI void lb_sql_connected(struct lb_worker *w, struct lb_db_conn *c);
/* 1 when sql.driver(name) would succeed (NULL or "": --db-driver's), quietly: the driver
 * exists and its options make a configuration. */
LB_FFI int lb_sql_driver_known(struct lb_worker *w, const char *name);
/* In the sysbench personality, logs why connection c could not be made as sysbench's driver
 * does (its FATAL lines) and answers 1: the caller then fails with the bare reason. Else 0. */
LB_FFI int lb_sql_connect_failure_logged(struct lb_worker *w, struct lb_db_conn *c);
/* Blocking calls that count the statement in the worker's read/write/other/error counters
 * (lost connections are not errors: the reconnect is counted) and fill rs. Waiting is bounded
 * by the statement's read timeout and by the end of the run. */
LB_FFI int32_t lb_sql_connect(struct lb_worker *w, struct lb_db_conn *c);
LB_FFI int32_t lb_sql_query(struct lb_worker *w, struct lb_sql_result *rs, const char *sql, uint64_t len);
LB_FFI int32_t lb_sql_execute(struct lb_worker *w, struct lb_sql_result *rs, struct lb_db_stmt *s);
LB_FFI int32_t lb_sql_bulk_next(struct lb_worker *w, struct lb_sql_result *rs, const char *row, uint64_t len);
LB_FFI int32_t lb_sql_bulk_done(struct lb_worker *w, struct lb_sql_result *rs);
/* Non-blocking twins for emulated users: start returns LB_DB_PENDING or the final code (then
 * counted like the blocking calls); after PENDING, park on the connection (lb_user_sched_wait_db)
 * and call lb_sql_step with the readiness bits until it returns something else. */
LB_FFI int32_t lb_sql_query_start(struct lb_worker *w, struct lb_sql_result *rs, const char *sql, uint64_t len);
LB_FFI int32_t lb_sql_execute_start(struct lb_worker *w, struct lb_sql_result *rs, struct lb_db_stmt *s);
LB_FFI int32_t lb_sql_step(struct lb_worker *w, struct lb_sql_result *rs, uint32_t ready);
/* Pipelines (lb_db_pipeline_*): runs the queued statements and counts each one in the worker's
 * counters (READ/WRITE/OTHER as for single statements; FAILED and ABORTED ones as errors, LOST
 * ones not at all: the reconnect is counted). Blocking, or start + step for emulated users as
 * above. */
LB_FFI int32_t lb_sql_pipeline_run(struct lb_worker *w, struct lb_sql_result *rs);
LB_FFI int32_t lb_sql_pipeline_start(struct lb_worker *w, struct lb_sql_result *rs);
LB_FFI int32_t lb_sql_pipeline_step(struct lb_worker *w, struct lb_sql_result *rs, uint32_t ready);
/* Reconnects with backoff until --db-reconnect-timeout or the end of the run; counts a
 * reconnect on success. A connection lost after the end of the run is not reconnected unless
 * the script asks (asked = 1: con:reconnect()). */
LB_FFI int32_t lb_sql_reconnect(struct lb_worker *w, struct lb_db_conn *c, int asked);
/* A lost connection that the caller connected again without blocking (an emulated user parked
 * on lb_db_connect_start): its statements prepared again (lb_db_reconnect_finish) and the
 * reconnect counted, as lb_sql_reconnect does. */
LB_FFI int32_t lb_sql_reconnected(struct lb_worker *w, struct lb_db_conn *c);
/* Has idle session c of worker w publish its counters to the server's statistics now (the
 * server monitor's request, ffi_engine.h): 1 done, 0 nothing to do. Not counted as a query;
 * the monitor leaves it out of the server's counts, as its own statements. */
LB_FFI int32_t lb_sql_publish_stats(struct lb_worker *w, struct lb_db_conn *c);

#endif
