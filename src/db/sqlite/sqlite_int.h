/* Internals shared by the parts of the SQLite driver: sqlite.c (connections, pragmas, errors,
 * the ops table), sqlite_exec.c (running statements: text and prepared, result sets, waiting
 * for locks) and sqlite_options.c. SQLite runs inside the process: a statement is CPU work of
 * the calling thread, done when its start call returns, except while the database is locked by
 * another connection (see sqlite_exec.c). */
#ifndef LB_DB_SQLITE_SQLITE_INT_H
#define LB_DB_SQLITE_SQLITE_INT_H

#include <sqlite3.h>

#include "db/db_int.h"

/* The statement in flight, kept between a start call and the steps while it waits for a lock. */
struct sqlite_op {
	sqlite3_stmt *st;           /* being stepped; NULL between the statements of a text */
	bool own;                   /* a statement of a text query: finalized when done */
	bool stored;                /* the result of the text's first statement is taken */
	const char *tail;           /* the rest of a text query */
	size_t tail_len;
	int64_t lock_deadline_ns;   /* gives up waiting for a lock then */
	uint32_t retries;           /* lock waits so far, for the back-off */
};

struct sqlite_conn {
	sqlite3 *db;
	int timer_fd;               /* -1 until a statement first waits without blocking */
	bool busy_seen;             /* the busy handler ran during the last step */
	bool nonblocking;           /* lock waits return to the caller (emulated users) */
	int64_t read_deadline_ns;   /* --db-read-timeout of the statement in flight; 0 = none */
	struct sqlite_op op;
	struct lb_db_rows rows;         /* read whole (db/rows.c) */
	char version[256];          /* "SQLite 3.40.1 (journal_mode=wal, ...)" */
	char settings[512];         /* the pragmas in force, "name=value" lines */
};

struct sqlite_stmt {
	sqlite3_stmt *st;
};

static inline struct sqlite_conn *SQ(struct lb_db_conn *c)
{
	return c->priv;
}

/* sqlite.c: the connection's last error into the descriptor; returns LB_DB_ESQL */
int lb_sqlite_error(struct lb_db_conn *c, int rc);

/* sqlite_exec.c */
int lb_sqlite_query_start(struct lb_db_conn *c, const char *sql, size_t len);
int lb_sqlite_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s);
int lb_sqlite_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s);
int lb_sqlite_step(struct lb_db_conn *c, uint32_t ready);
int lb_sqlite_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths);
void lb_sqlite_result_free(struct lb_db_conn *c);
void lb_sqlite_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive);
void lb_sqlite_op_end(struct lb_db_conn *c);
int lb_sqlite_busy_handler(void *arg, int count);
int lb_sqlite_progress_handler(void *arg);

/* sqlite_options.c */
extern const struct lb_opt_def lb_sqlite_options[];
void lb_sqlite_read_options(const struct lb_opts *o, struct lb_db_options *out);
int lb_sqlite_check_options(const struct lb_db_options *o, char *err, size_t errlen);

#endif
