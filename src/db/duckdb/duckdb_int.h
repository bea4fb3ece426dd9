/* Internals of the duckdb driver (duckdb.c, duckdb_stmt.c, duckdb_result.c, duckdb_copy.c,
 * duckdb_options.c, duckdb_timeout.c, duckdb_errors.c). */
#ifndef LB_DB_DUCKDB_DUCKDB_INT_H
#define LB_DB_DUCKDB_DUCKDB_INT_H

#include "duckdb_api.h"

#include "db/db_int.h"

/* --duckdb-db's default: a file in the working directory. */
#define LB_DUCKDB_DEFAULT_PATH "luabench.duckdb"

/* A column of a result set read from DuckDB's data chunks (duckdb_result.c). */
struct duckdb_col {
	duckdb_type type;            /* DuckDB's type; a DECIMAL's is the integer type it is stored in */
	bool decimal;
	bool unread;                 /* a type not read: every value is NULL */
	uint8_t scale;               /* DECIMAL: digits after the point */
	const void *data;            /* the current chunk's values */
	uint64_t *validity;          /* the current chunk's NULL mask; NULL when it has none */
};

/* The live result set (duckdb_result.c): DuckDB's data chunks, all pulled when the statement
 * ran, read in place. */
struct duckdb_rows {
	bool on_row;                 /* a row is current */
	uint64_t nrows;
	uint64_t next;               /* rows moved to so far */
	uint64_t row;                /* the current row, in its chunk */
	duckdb_data_chunk *chunks;   /* [chunk, nchunks) are still held */
	uint32_t nchunks, chunks_cap;
	uint32_t chunk;              /* the current row's chunk */
	uint64_t chunk_rows;
	struct duckdb_col *cols;
	uint32_t ncols, cols_cap;
	size_t *text_off;            /* fetch_row: where each value's text starts in text */
	struct lb_db_buf text;       /* fetch_row: the current row's values as text */
	struct lb_db_buf value_text; /* row_value: the text of a date, time or interval */
};

struct duckdb_conn {
	duckdb_database db;          /* this connection's handle on the shared instance */
	duckdb_connection con;
	duckdb_result result;        /* the statement just run, until lb_duckdb_finish takes it */
	bool has_result;
	bool in_trans;
	struct duckdb_rows rows;
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
/* Runs a prepared statement into D(c)->result (duckdb_stmt.c): a SELECT is streamed and its
 * rows pulled (*pulled set), any other statement materialised. Call between arming and
 * disarming the statement timeout. */
duckdb_state lb_duckdb_run(struct lb_db_conn *c, duckdb_prepared_statement ps, bool *pulled);
/* The outcome of the statement whose result is in D(c)->result (pulled: its rows are in
 * D(c)->rows already), after the statement timeout is disarmed. */
int lb_duckdb_finish(struct lb_db_conn *c, duckdb_state st, bool pulled, const char *sql, size_t len);

/* Result sets (duckdb_result.c). lb_duckdb_rows_pull pulls every chunk of result r into rs (a
 * streaming result runs to its end), leaving r for its outcome (an error while it ran). */
void lb_duckdb_rows_pull(struct duckdb_rows *rs, duckdb_result *r);
void lb_duckdb_rows_reset(struct duckdb_rows *rs);
void lb_duckdb_rows_free(struct duckdb_rows *rs);
int lb_duckdb_next_row(struct lb_db_conn *c);
int lb_duckdb_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths);
void lb_duckdb_row_value(struct lb_db_conn *c, uint32_t col, struct lb_db_value *out);

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
