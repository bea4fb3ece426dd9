/* Internals shared by the parts of the ODBC driver: odbc.c (connections, text queries, result
 * sets, errors) and odbc_stmt.c (prepared statements). ODBC calls block, so every operation
 * completes inside its *_start call and the driver never returns LB_DB_PENDING. */
#ifndef LB_DB_ODBC_ODBC_INT_H
#define LB_DB_ODBC_ODBC_INT_H

#include <sql.h>
#include <sqlext.h>

#include "db/db_int.h"

/* Server families told apart by SQL_DBMS_NAME, for what the driver itself must do differently
 * (string escapes); the workloads' SQL differences are luabench.dialect's. */
enum odbc_family {
	ODBC_FAMILY_OTHER = 0,
	ODBC_FAMILY_PGSQL,
	ODBC_FAMILY_MYSQL,
};

struct odbc_conn {
	SQLHENV env;
	SQLHDBC dbc;
	SQLHSTMT text;              /* the handle text queries run on */
	bool connected;
	bool in_trans;              /* a BEGIN was seen and no COMMIT/ROLLBACK since */
	int family;                 /* enum odbc_family */
	char dbms[96];              /* SQL_DBMS_NAME and SQL_DBMS_VER */
	struct lb_db_rows rows;         /* fetched whole (db/rows.c), as the native drivers' */
	/* Offloaded calls (odbc_io.c): the helper thread, the arguments of the call in flight,
	 * and the statement handle it runs on (for SQLCancel). */
	struct odbc_io *io;
	const char *job_sql;
	size_t job_len;
	struct lb_db_stmt *job_stmt;
	int64_t job_deadline_ns;
	SQLHSTMT busy;
};

/* Block fetches of a prepared statement (odbc_block.c). */
enum odbc_block_state { ODBC_BLOCK_NEW = 0, ODBC_BLOCK_BOUND, ODBC_BLOCK_GETDATA };

struct odbc_block {
	int state;                  /* enum odbc_block_state */
	SQLSMALLINT ncols;
	SQLULEN fetched;            /* rows of the last SQLFetch */
	SQLULEN *width;             /* bytes per value of each column, terminator included */
	char **buf;                 /* each column: ODBC_BLOCK_ROWS values of width bytes */
	SQLLEN **ind;               /* each column: ODBC_BLOCK_ROWS lengths or SQL_NULL_DATA */
};

struct odbc_stmt {
	SQLHSTMT h;
	struct odbc_block block;
	SQLLEN *ind;                /* length or SQL_NULL_DATA, one per parameter */
	const void **bound;         /* where each parameter was bound from */
	int32_t *bound_type;        /* its enum lb_db_type, -1 = not bound */
	SQLULEN *bound_size;
	/* String values are copied into buffers of the statement, bound once: a memcpy costs
	 * less than SQLBindParameter at every execution for a value that moved. */
	char **strs;
	size_t *str_caps;
};

static inline struct odbc_conn *O(struct lb_db_conn *c)
{
	return c->priv;
}

/* odbc.c */
int lb_odbc_error(struct lb_db_conn *c, SQLSMALLINT type, SQLHANDLE h, SQLRETURN ret);
/* The outcome of an SQLExecute/SQLExecDirect; `blk`: a prepared statement's block fetch
 * state (one result), NULL for a text query */
int lb_odbc_finish(struct lb_db_conn *c, SQLHSTMT h, SQLRETURN ret, struct odbc_block *blk);

/* odbc_block.c */
int lb_odbc_block_store(struct lb_db_conn *c, struct odbc_block *b, SQLHSTMT h,
			SQLSMALLINT ncols, uint64_t *nrows);
void lb_odbc_block_unbind(struct odbc_block *b, SQLHSTMT h);
void lb_odbc_block_free(struct odbc_block *b);
void lb_odbc_track_transaction(struct lb_db_conn *c, const char *sql, size_t len);

/* odbc_io.c: runs `job` on the connection's helper thread when the caller asked for that
 * (lb_db_conn_set_offload), else at once */
int lb_odbc_offload(struct lb_db_conn *c, int (*job)(struct lb_db_conn *c), int64_t deadline_ns);
int lb_odbc_step(struct lb_db_conn *c, uint32_t ready);
void lb_odbc_io_stop(struct lb_db_conn *c);

/* odbc_stmt.c */
int lb_odbc_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s);
int lb_odbc_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s);
void lb_odbc_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive);
void lb_odbc_stmt_fini(struct lb_db_stmt *s);

/* odbc_options.c */
extern const struct lb_opt_def lb_odbc_options[];
void lb_odbc_read_options(const struct lb_opts *o, struct lb_db_options *out);

#endif
