/* Internals of the duckdb driver (duckdb.c, duckdb_stmt.c, duckdb_copy.c, duckdb_options.c,
 * duckdb_timeout.c, duckdb_errors.c). */
#ifndef LB_DB_DUCKDB_INT_H
#define LB_DB_DUCKDB_INT_H

#include <duckdb.h>

#include "db_int.h"

/* --duckdb-db's default: a file in the working directory. */
#define LB_DUCKDB_DEFAULT_PATH "luabench.duckdb"

struct duckdb_conn {
	duckdb_database db;          /* this connection's handle on the shared instance */
	duckdb_connection con;
	duckdb_result result;
	bool has_result;
	bool in_trans;
	uint64_t next_row;
	char **row_values;           /* the current row's values (duckdb_value_varchar's) */
	uint32_t row_values_n;
	duckdb_appender appender;    /* COPY FROM STDIN: the table's appender, per COPY */
	struct lb_duckdb_watchdog *watchdog; /* the statement timeout's thread, once one is set */
	int32_t timeout_ms;          /* the session's statement timeout; 0 = none */
	bool timed_out;              /* the last statement was interrupted at its timeout */
	char version[256];           /* "DuckDB 1.5.6 (threads=2, memory_limit=...)": describe() */
	char settings[512];          /* the same settings, "name=value" lines: describe() */
};

struct duckdb_stmt {
	duckdb_prepared_statement ps;
};

static inline struct duckdb_conn *D(struct lb_db_conn *c)
{
	return c->priv;
}

int lb_duckdb_error(struct lb_db_conn *c, duckdb_error_type type, const char *msg);
/* The SQLSTATE of a DuckDB error (duckdb_errors.c): PostgreSQL's code of the same meaning, or
 * HY000. */
const char *lb_duckdb_sqlstate(duckdb_error_type type, const char *msg);
int lb_duckdb_finish(struct lb_db_conn *c, duckdb_state st, const char *sql, size_t len);

int lb_duckdb_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s);
int lb_duckdb_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s);
void lb_duckdb_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive);

int lb_duckdb_copy_start(struct lb_db_conn *c, const char *sql, const char *data, size_t len);
void lb_duckdb_appender_drop(struct lb_db_conn *c);

bool lb_duckdb_timeout_statement(struct lb_db_conn *c, const char *sql, size_t len, int *rc);
int lb_duckdb_timeout_set(struct lb_db_conn *c, int32_t ms);
void lb_duckdb_timeout_arm(struct lb_db_conn *c);
void lb_duckdb_timeout_disarm(struct lb_db_conn *c);
void lb_duckdb_timeout_stop(struct lb_db_conn *c);

extern const struct lb_opt_def lb_duckdb_options[];
void lb_duckdb_read_options(const struct lb_opts *o, struct lb_db_options *out);

#endif
