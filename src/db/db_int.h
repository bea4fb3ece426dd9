/* Internals shared by the core of the database layer and its drivers. Not part of the public
 * API (the Lua binding only sees driver.h). */
#ifndef LB_DB_DB_INT_H
#define LB_DB_DB_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "util/clock.h"
#include "util/opt.h"
#include "util/util.h"

/* Internal step result: the server cannot prepare this statement (MySQL 1295), run it through
 * client-side emulation instead. Never returned to callers. */
#define LB_DB_EMULATE 2

#define LB_DB_DEFAULT_CONNECT_TIMEOUT_MS 10000
#define LB_DB_DEFAULT_BULK_PACKET_BYTES (512 * 1024)

struct lb_db_buf {
	char *data;
	size_t len;
	size_t cap;
};

/* One place to connect to: a TCP host:port or a Unix socket. */
struct lb_db_endpoint {
	const char *host;      /* NULL = driver default */
	uint32_t port;         /* 0 = driver default */
	const char *socket;    /* NULL unless a socket endpoint */
	char label[280];       /* "host:port" or the socket path, for messages */
};

struct lb_db_ignore_entry {
	char text[8];          /* the entry as written (SQLSTATEs are 5 characters) */
	int32_t number;        /* -1 when not numeric */
};

struct lb_db_ignore_list {
	bool all;
	uint32_t count;
	struct lb_db_ignore_entry *entries;
};

struct lb_db_config {
	const struct lb_db_ops *ops;
	struct lb_db_options opts;           /* strings are owned copies */
	struct lb_db_endpoint *endpoints;
	uint32_t endpoint_count;
	atomic_uint cursor;                  /* round-robin over endpoints, shared by all threads */
	struct lb_db_ignore_list driver_ignore;
	struct lb_db_ignore_list generic_ignore;
	uint32_t connect_timeout_ms;
	uint32_t read_timeout_ms;
	uint32_t bulk_packet_bytes;
};

enum lb_db_op {
	LB_DB_OP_NONE = 0,
	LB_DB_OP_CONNECT,
	LB_DB_OP_QUERY,
	LB_DB_OP_PREPARE,
	LB_DB_OP_EXECUTE,
	LB_DB_OP_PIPELINE,
	LB_DB_OP_COPY,      /* a piece or the end of a streaming COPY */
};

/* The pipeline of a connection (allocated on first use, reused). */
struct lb_db_pipe {
	bool open;                           /* between begin and run */
	bool ran;                            /* items[] describe a finished run */
	int32_t queue_rc;                    /* first failure to hand a statement to the library */
	int32_t failed;                      /* index of the failed statement, or -1 */
	uint32_t count;
	uint32_t cap;
	struct lb_db_pipe_result *items;
};

struct lb_db_conn {
	const struct lb_db_ops *ops;
	struct lb_db_config *cfg;
	const struct lb_db_endpoint *ep;
	void *priv;                          /* ops->conn_priv_size bytes */
	int state;                           /* enum lb_db_conn_state */
	int op;                              /* enum lb_db_op in flight */
	struct lb_db_stmt *op_stmt;          /* statement of the operation in flight */
	struct lb_db_wait wait;
	struct lb_db_error err;
	struct lb_db_result res;             /* filled by the driver when an operation completes */
	bool has_result;                     /* a live result set exists */
	bool on_row;                         /* fetch_row/next_row moved to a row of it */
	struct lb_db_stmt *result_stmt;      /* statement that produced it, if any */
	struct lb_db_stmt *stmts;            /* every statement of this connection */
	const char **row_values;
	uint64_t *row_lengths;
	uint32_t row_cap;
	struct lb_db_buf text;               /* SQL of emulated statements */
	struct lb_db_buf bulk;
	size_t bulk_prefix_len;
	uint64_t bulk_rows;
	size_t bulk_limit;                   /* 0 until known for this session */
	bool bulk_active;
	char *copy_sql;                      /* set: the bulk buffer holds COPY rows for this */
	bool copy_open;                      /* a streaming COPY awaits more rows or its end */
	uint64_t reconnects;
	uint32_t next_stmt_id;
	struct lb_db_pipe pipe;
	bool offload;                        /* lb_db_conn_set_offload() */
	bool publish_off;                    /* lb_db_conn_publish_stats(): nothing to run here */
	uint64_t poll_tag;                   /* lb_db_conn_set_poll_tag(); 0 once the socket may close */
	/* Why the last connect failed, as sysbench 1.0.20's driver logs it (lines without the
	 * FATAL prefix); "" when it did not fail or the failure is not the client's */
	char connect_report[2 * LB_DB_ERRMSG_BYTES];
};

struct lb_db_stmt {
	const struct lb_db_ops *ops;
	struct lb_db_conn *conn;             /* NULL once the connection is freed */
	struct lb_db_stmt *prev, *next;
	char *sql;                           /* NUL-terminated copy */
	size_t sql_len;
	uint32_t nparams;
	uint32_t *ph_offsets;                /* byte offset of each `?` in sql */
	const struct lb_db_param *params;    /* borrowed from the caller, NULL until bound */
	bool emulated;
	uint32_t id;                         /* unique within the connection */
	void *priv;                          /* ops->stmt_priv_size bytes */
};

/* ---- allocation (util/util.h: failure aborts, so callers need no NULL checks) ---- */
void lb_db_buf_reserve(struct lb_db_buf *b, size_t extra);
void lb_db_buf_append(struct lb_db_buf *b, const char *s, size_t len);
void lb_db_buf_free(struct lb_db_buf *b);

/* now + ms, or 0 (no deadline) when ms is 0. */
static inline int64_t lb_db_deadline_ms(uint32_t ms)
{
	return ms ? lb_now_ns() + (int64_t)ms * 1000000 : 0;
}

static inline void lb_db_set_wait(struct lb_db_conn *c, int fd, uint32_t events,
				  int64_t deadline_ns)
{
	c->wait.fd = fd;
	c->wait.events = events;
	c->wait.deadline_ns = deadline_ns;
}

/* ---- errors ---- */
/* Fills the error descriptor (class decided later by the core). The message is formatted,
 * cut at the first newline and trimmed. sqlstate may be NULL. */
void lb_db_set_error(struct lb_db_conn *c, int32_t sql_errno, const char *sqlstate, bool lost,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void lb_db_clear_error(struct lb_db_conn *c);
/* Applies the config's ignore lists to the descriptor. */
void lb_db_classify_error(const struct lb_db_config *cfg, struct lb_db_error *e);

/* ---- configuration (config.c) ---- */
/* option: the option the list came from, for the message. */
int lb_db_ignore_parse(struct lb_db_ignore_list *l, const char *text, const char *option, char *err,
		       size_t errlen);
void lb_db_ignore_free(struct lb_db_ignore_list *l);
bool lb_db_ignore_match(const struct lb_db_ignore_list *l, const struct lb_db_error *e);

/* ---- SQL text (sqlscan.c) ---- */
/* Counts the `?` placeholders of sql[0..len) outside literals, quoted identifiers and
 * comments, storing up to `max` byte offsets into `offsets` (may be NULL). */
uint32_t lb_db_sql_placeholders(const char *sql, size_t len, uint32_t dialect,
				uint32_t *offsets, uint32_t max);

/* Applies an API misuse error to the descriptor and returns LB_DB_EINVAL (config.c). */
int lb_db_misuse(struct lb_db_conn *c, const char *what);

/* "SQLite" or "DuckDB" when path is a database file of that engine (dbfile.c), else NULL (no
 * such file, another kind, :memory: or a file: URI). */
const char *lb_db_file_kind(const char *path);
/* 0, or LB_DB_EINVAL with one line in err when path (the value of --option) is a database file
 * of another engine than `want` ("SQLite", "DuckDB"), naming the driver that opens it. */
int lb_db_check_file_kind(const char *path, const char *want, const char *option, char *err,
			  size_t errlen);

/* ---- statement text (stmt_text.c) ---- */
/* Builds the text of an emulated execution into c->text (NUL-terminated). */
int lb_db_emulate_text(struct lb_db_conn *c, struct lb_db_stmt *s);

/* ---- statements (stmt.c) ---- */
/* Re-prepares every statement after a reconnect (blocking). LB_DB_ELOST if the new session
 * broke meanwhile; other failures are left for the statement's next execute. */
int lb_db_stmts_reprepare(struct lb_db_conn *c);

/* ---- core helpers used by stmt.c and reconnect.c (driver.c) ---- */
/* Closes the session and forgets server-side state; the connection object stays usable. */
void lb_db_close_session(struct lb_db_conn *c);
/* Ends an operation in flight as a caller that gives up would (a timeout step). */
void lb_db_abandon_op(struct lb_db_conn *c);
/* Keepalive and TCP_USER_TIMEOUT on a connected socket so that a silent peer is found within
 * about timeout_ms (tcp.c); nothing for timeout_ms <= 0 or a Unix socket. */
void lb_db_tcp_liveness(int fd, int32_t timeout_ms);
/* Starts connecting with an absolute deadline (lb_db_connect_start uses the connect timeout). */
int lb_db_connect_by(struct lb_db_conn *c, int64_t deadline_ns);
/* Checks that an operation may start; frees the live result set. */
int lb_db_begin_op(struct lb_db_conn *c, int op, struct lb_db_stmt *s);
/* Completes an operation: classifies errors, updates state, fills *out. */
int lb_db_end_op(struct lb_db_conn *c, int rc, struct lb_db_result *out);
int32_t lb_db_copy(struct lb_db_conn *c, const char *sql, const char *data, size_t len,
		   struct lb_db_result *out);
/* Streaming COPY (drivers with copy_put/copy_end): one piece of input, opening the COPY with
 * `sql` first if none is open; then its end and result. Blocking, as lb_db_query(). */
int32_t lb_db_copy_put(struct lb_db_conn *c, const char *sql, const char *data, size_t len,
		       struct lb_db_result *out);
int32_t lb_db_copy_end(struct lb_db_conn *c, struct lb_db_result *out);

/* ---- stored result sets (rows.c) ---- */
/* Every value of a result set NUL-terminated, one after another in `data`;
 * cells[2 * (row * nfields + col)] is the offset of a value (-1 for NULL), the next its length. */
struct lb_db_rows {
	struct lb_db_buf data;
	int64_t *cells;
	size_t cells_cap;
	uint64_t next_row;
};
void lb_db_rows_reset(struct lb_db_rows *r);
/* The cell pair of value idx (row * nfields + col), grown as needed. */
int64_t *lb_db_rows_cell(struct lb_db_rows *r, uint64_t idx);
/* Appends len bytes at v (NULL: SQL NULL) with a terminator and points *cell at them. */
void lb_db_rows_append(struct lb_db_rows *r, const char *v, size_t len, int64_t *cell);
/* The next row into values/lengths: 1, or 0 past nrows (the driver's fetch_row). */
int lb_db_rows_fetch(struct lb_db_rows *r, uint64_t nrows, uint32_t nfields, const char **values,
		     uint64_t *lengths);
void lb_db_rows_free(struct lb_db_rows *r);

/* ---- pipelines (pipeline.c) ---- */
/* After an operation ends: a pipeline run leaves unanswered items LOST (rc ELOST). */
void lb_db_pipe_end(struct lb_db_conn *c, int rc);
/* Forgets the pipeline of a closed session. */
void lb_db_pipe_reset(struct lb_db_conn *c);

#endif
