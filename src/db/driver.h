/* Database driver layer: the public API (for the engine and the Lua binding) and the plug-in
 * contract (struct lb_db_ops) that each driver implements.
 *
 * Objects
 *   struct lb_db_ops     a driver: one const table per driver, found by name (lb_db_find_driver).
 *   struct lb_db_config  parsed, validated connection options for one driver. Immutable after
 *                        creation, so one config is shared by every connection of every thread.
 *   struct lb_db_conn    one connection. Used by one thread at a time (no internal locking), but
 *                        a thread may own any number of connections: there is no thread-local
 *                        state in this layer.
 *   struct lb_db_stmt    a prepared statement, owned by the caller, bound to one connection. It
 *                        stays valid across lb_db_reconnect(), which re-prepares it.
 * All four are opaque to callers; the structs declared in full below (options, param, result,
 * row, error, wait) are plain data with fixed-width fields, so the header can be given to the
 * LuaJIT FFI as is. No function here calls back, takes varargs, raises or exits: failures are
 * negative enum lb_db_rc codes, with details in the connection's error descriptor.
 *
 * Two ways to run a statement
 *   Blocking: lb_db_query(), lb_db_execute(), lb_db_connect() submit and then wait with poll()
 *   until the statement is done or its timeout expires. This is what sysbench.sql uses.
 *   Non-blocking: lb_db_query_start(), lb_db_execute_start(), lb_db_connect_start() submit and
 *   return LB_DB_PENDING when the server has not answered yet. The caller then waits on the
 *   descriptor from lb_db_conn_wait_info() (epoll, poll, ...) and calls lb_db_step() with what
 *   happened, until it returns something other than LB_DB_PENDING. A scheduler can park many
 *   connections on one thread this way. lb_db_wait() is the blocking loop over lb_db_step().
 *
 * One result set per connection (as sysbench): every query, execute, prepare or bulk flush on a
 * connection frees the previous result set of that connection, and invalidates the pointers
 * returned by lb_db_fetch_row(). Use a second connection to hold two result sets at once.
 *
 * Timeouts and clocks: durations are milliseconds (*_ms), points in time are absolute
 * CLOCK_MONOTONIC nanoseconds (*_ns).
 */
#ifndef LB_DB_DRIVER_H
#define LB_DB_DRIVER_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct lb_opts;
struct lb_opt_def;

struct lb_db_ops;
struct lb_db_monitor;
struct lb_db_config;
struct lb_db_conn;
struct lb_db_stmt;

/* Return codes. Everything negative leaves details in lb_db_conn_error() when a connection is
 * involved. */
enum lb_db_rc {
	LB_DB_OK = 0,
	LB_DB_PENDING = 1,     /* non-blocking call: waiting for the server; see lb_db_step() */
	LB_DB_ESQL = -1,       /* the server rejected the statement; the connection is still usable */
	LB_DB_ELOST = -2,      /* connection lost or timed out; lb_db_reconnect() it */
	LB_DB_ECONNECT = -3,   /* (re)connecting failed */
	LB_DB_EINVAL = -4,     /* API misuse or a bad argument (message in the error descriptor) */
	LB_DB_EBUSY = -5,      /* another operation is in flight on this connection */
	LB_DB_ENOTFOUND = -6,  /* no such driver */
	LB_DB_ENOTSUP = -7,    /* the driver or its client library cannot do this */
};

/* How a completed statement is counted (sysbench's read/write/other, §3.4). */
enum lb_db_kind {
	LB_DB_KIND_NONE = 0,   /* nothing was sent (a bulk insert row that only got buffered) */
	LB_DB_KIND_READ = 1,   /* produced a result set, even an empty one */
	LB_DB_KIND_WRITE = 2,  /* no result set, affected rows > 0 */
	LB_DB_KIND_OTHER = 3,  /* no result set, no affected rows (DDL, BEGIN, 0-row UPDATE, ...) */
	LB_DB_KIND_ERROR = 4,  /* the statement failed */
};

/* Error classes; the numbers match sysbench.sql.error. */
enum lb_db_error_class {
	LB_DB_ERROR_NONE = 0,
	LB_DB_ERROR_IGNORABLE = 1, /* listed in an ignore list: the event may be retried */
	LB_DB_ERROR_FATAL = 2,
};

/* Parameter types; the numbers match sysbench.sql.type. TIME..TIMESTAMP are not supported. */
enum lb_db_type {
	LB_DB_TYPE_NONE = 0,   /* only valid for a NULL parameter */
	LB_DB_TYPE_TINYINT = 1,
	LB_DB_TYPE_SMALLINT = 2,
	LB_DB_TYPE_INT = 3,
	LB_DB_TYPE_BIGINT = 4,
	LB_DB_TYPE_FLOAT = 5,
	LB_DB_TYPE_DOUBLE = 6,
	LB_DB_TYPE_TIME = 7,
	LB_DB_TYPE_DATE = 8,
	LB_DB_TYPE_DATETIME = 9,
	LB_DB_TYPE_TIMESTAMP = 10,
	LB_DB_TYPE_CHAR = 11,
	LB_DB_TYPE_VARCHAR = 12,
};

enum lb_db_ps_mode {
	LB_DB_PS_AUTO = 0,     /* server-side prepared statements where the server supports them */
	LB_DB_PS_DISABLE = 1,  /* client-side: values are escaped into the SQL text */
};

/* Bits of struct lb_db_wait.events and of the `ready` argument of lb_db_step(). */
enum lb_db_wait_bits {
	LB_DB_WAIT_READ = 1,
	LB_DB_WAIT_WRITE = 2,
	LB_DB_WAIT_TIMEOUT = 4, /* step(): the deadline passed, or the caller gives up on the call */
};

enum lb_db_conn_state {
	LB_DB_STATE_DISCONNECTED = 0,
	LB_DB_STATE_CONNECTING = 1,
	LB_DB_STATE_IDLE = 2,  /* connected, nothing in flight */
	LB_DB_STATE_BUSY = 3,  /* a statement is in flight */
	LB_DB_STATE_LOST = 4,  /* the connection broke; only reconnect/disconnect/free are useful */
};

/* Connection options, filled by the caller and copied by lb_db_config_new() (so every pointer
 * is borrowed only for the duration of that call). Zero / NULL means "not given":
 *  - pgsql: libpq's PG* environment variables and built-in defaults apply (PGHOST, PGPORT,
 *    PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, ...).
 *  - mysql: the client library's defaults apply (localhost through the default socket, 3306,
 *    the OS user name, no password, no default database).
 * Command-line defaults such as sysbench's user "sbtest" belong to the option layer. */
struct lb_db_options {
	/* comma-separated; pgsql: a name starting with '/' is a socket dir. NULL: the default;
	 * "": none given (mysql refuses it, as sysbench does) */
	const char *hosts;
	const char *ports;      /* comma-separated (0: the client's default); every host x port
				 * pair is an endpoint. NULL and "" as for hosts */
	const char *sockets;    /* comma-separated Unix socket paths; when set, hosts/ports are unused */
	const char *user;
	const char *password;   /* never appears in any message */
	const char *db;
	/* TLS. ssl_mode for pgsql is a libpq sslmode (disable, allow, prefer, require, verify-ca,
	 * verify-full); for mysql one of disabled, preferred, required, verify_ca,
	 * verify_identity (any case), plus sysbench's on (= required) and off (= disabled). */
	const char *ssl_mode;
	const char *ssl_ca;     /* file names; pgsql: sslrootcert, sslcert, sslkey */
	const char *ssl_cert;
	const char *ssl_key;
	const char *ssl_cipher; /* mysql only */
	/* Ignore lists: comma-separated, "all", or "" for none (see lb_db_conn_error()).
	 * driver_ignore_errors: mysql error numbers (NULL = "1213,1020,1205", as sysbench) or pgsql
	 * SQLSTATEs (NULL = "40P01,23505,40001"). ignore_errors (--db-ignore-errors) adds to it for
	 * any driver: each entry matches a SQLSTATE exactly or, if numeric, a MySQL error number. */
	const char *driver_ignore_errors;
	const char *ignore_errors;
	int32_t connect_timeout_ms;  /* per connection attempt; 0 = 10000 */
	int32_t read_timeout_ms;     /* per statement; 0 = no limit */
	int32_t statement_timeout_ms; /* server-side statement timeout, set at connect; 0 = none */
	int32_t tcp_timeout_ms;      /* keepalive + TCP_USER_TIMEOUT on the socket; 0 = the kernel's */
	int32_t compression;         /* mysql: nonzero = compressed protocol; pgsql: unused */
	int32_t dry_run;             /* nonzero: no server; every call succeeds and counts as OTHER
	                              * (sysbench's --mysql-dry-run, available to any driver) */
	int32_t ps_mode;             /* enum lb_db_ps_mode */
	int32_t bulk_packet_bytes;   /* bulk insert flush size; 0 = 512 KiB (mysql: capped by the
	                              * server's max_allowed_packet) */
	/* odbc: a data source name, or a whole connection string ("DRIVER=...;SERVER=...", may
	 * hold PWD=, never shown); user and password are added to either as UID= and PWD=. */
	const char *odbc_dsn;
	const char *odbc_connection_string;
	/* The SQL dialect to use whatever the server says ("pgsql", "mysql", ...); NULL = the
	 * server family the connection reports (lb_db_config_dialect()). */
	const char *dialect;
	/* sqlite: the database file is `db`; these pragmas are set on every connection (NULL / 0 =
	 * leave the library's own; the command line's defaults are in
	 * db/sqlite/sqlite_options.c). */
	const char *sqlite_journal_mode;   /* PRAGMA journal_mode: delete, truncate, persist, memory,
					    * wal, off */
	const char *sqlite_synchronous;    /* PRAGMA synchronous: off, normal, full, extra */
	int64_t sqlite_cache_size;         /* PRAGMA cache_size: pages, or KiB when negative */
	int32_t sqlite_busy_timeout_ms;    /* how long a statement waits for a lock; 0 = not */
	int32_t sqlite_pad;
	const char *sqlite_begin;          /* what a bare BEGIN starts: deferred, immediate,
					    * exclusive (NULL = deferred, SQLite's) */
	/* duckdb: the database file is `db` (or ":memory:"); DuckDB's threads setting (0 = its
	 * default) and memory_limit (NULL = its default). */
	int32_t duckdb_threads;
	const char *duckdb_memory_limit;
};

/* One statement parameter. lb_db_stmt_bind() borrows an array of these; execute reads the
 * values (is_null, i64, f64, str, len) at each execution, so the caller updates them in place
 * between executions. `type` is read at bind time only: rebind to change it. */
struct lb_db_param {
	int64_t i64;          /* TINYINT, SMALLINT, INT, BIGINT */
	double f64;           /* FLOAT, DOUBLE */
	const char *str;      /* CHAR, VARCHAR: borrowed bytes, any length, need no terminator */
	uint64_t len;         /* bytes at str */
	int32_t type;         /* enum lb_db_type */
	int32_t is_null;      /* nonzero: SQL NULL whatever the type */
};

/* What a completed statement did. Caller-owned; filled by the call that completes it. */
struct lb_db_result {
	int32_t kind;           /* enum lb_db_kind */
	uint32_t nfields;       /* columns of the result set (READ only) */
	uint64_t nrows;         /* rows of the result set (READ only) */
	uint64_t affected_rows; /* rows changed (WRITE/OTHER) */
};

/* One fetched row. Both arrays belong to the connection and stay valid until the next fetch or
 * the next statement on that connection. values[i] points into the client library's result
 * buffer (no copy), is NUL-terminated, and is NULL for an SQL NULL. */
struct lb_db_row {
	uint32_t nfields;
	const char *const *values;
	const uint64_t *lengths;  /* bytes, without the terminator; 0 for NULL */
};

#define LB_DB_ERRMSG_BYTES 512

/* The error descriptor of a connection: the last failure, or class NONE after a success. */
struct lb_db_error {
	int32_t error_class;   /* enum lb_db_error_class */
	int32_t sql_errno;     /* MySQL error number; 0 for pgsql and for API errors */
	int32_t lost;          /* nonzero: the connection is gone (reconnect needed) */
	char sqlstate[6];      /* five characters and NUL; "" for API errors */
	/* One line, never the password. Connect failures and our own errors name the driver
	 * ("mysql: Unknown database 'x'"); statement failures carry the server's text as is
	 * (what sysbench prints after "SQL error, errno = N, state = 'S': "). */
	char message[LB_DB_ERRMSG_BYTES];
};

/* What a connection with an operation in flight is waiting for. */
struct lb_db_wait {
	int32_t fd;            /* -1 when nothing is in flight */
	uint32_t events;       /* LB_DB_WAIT_READ / LB_DB_WAIT_WRITE */
	int64_t deadline_ns;   /* absolute CLOCK_MONOTONIC; 0 = none */
};

/* ---- drivers ------------------------------------------------------------------------------
 * Thread-safe; the registry is a static array checked once on first use. */

/* The driver called `name` ("null", "pgsql", "mysql"), or NULL when unknown or not built. */
const struct lb_db_ops *lb_db_find_driver(const char *name);
/* Registered drivers, for help output: index 0 .. lb_db_driver_count()-1; NULL past the end. */
uint32_t lb_db_driver_count(void);
const struct lb_db_ops *lb_db_driver_at(uint32_t idx);
/* Static strings. */
const char *lb_db_driver_name(const struct lb_db_ops *drv);
const char *lb_db_driver_description(const struct lb_db_ops *drv);
/* Whether the driver can do `feature`: "prepare" (server-side prepared statements), "copy"
 * (bulk load from memory), "copy_stream" (one streaming COPY over many pieces), "pipeline"
 * (several statements per round trip). 1 or 0; -1 for a feature name this list lacks.
 * Workloads ask this instead of testing a driver's name. */
int32_t lb_db_driver_supports(const struct lb_db_ops *drv, const char *feature);
/* A static, human-readable name for an lb_db_rc value. */
const char *lb_db_strerror(int32_t rc);

/* ---- configuration -------------------------------------------------------------------------- */

/* Validate and copy `opts` for driver `drv`. On success *out is owned by the caller (free with
 * lb_db_config_free() after every connection using it is freed). On failure returns
 * LB_DB_EINVAL and writes one line into errbuf (may be NULL). Also runs the driver's
 * process-wide library initialisation (once per process, thread-safe). */
int32_t lb_db_config_new(const struct lb_db_ops *drv, const struct lb_db_options *opts,
			 struct lb_db_config **out, char *errbuf, uint32_t errbuf_bytes);
void lb_db_config_free(struct lb_db_config *cfg);
/* The driver of a configuration. */
const struct lb_db_ops *lb_db_config_driver(const struct lb_db_config *cfg);
/* The dialect forced by the options (--odbc-dialect), or "" to go by the server's own name. */
const char *lb_db_config_dialect(const struct lb_db_config *cfg);

/* ---- connections ---------------------------------------------------------------------------- */

/* A new, disconnected connection using `cfg` (borrowed; must outlive the connection). Never
 * NULL (allocation failure aborts). No I/O. */
struct lb_db_conn *lb_db_conn_new(struct lb_db_config *cfg);
/* Disconnects if needed and frees. Statements of this connection survive as detached handles:
 * executing them fails with LB_DB_EINVAL; lb_db_stmt_free() still frees them. NULL is a no-op. */
void lb_db_conn_free(struct lb_db_conn *c);

/* A NULL connection (one a script already closed) is never dereferenced by lb_db_connect*,
 * lb_db_reconnect, lb_db_query*, lb_db_copy, lb_db_step and lb_db_wait (LB_DB_EINVAL),
 * lb_db_fetch_row (0), lb_db_disconnect and lb_db_free_result (no-ops), or the accessors:
 * lb_db_conn_error() describes it ("attempt to use an already closed connection"),
 * lb_db_conn_state() says DISCONNECTED, lb_db_conn_wait_info() gives fd -1. lb_db_prepare and
 * the bulk/COPY calls need a connection. */

/* Connects, blocking up to the connect timeout. The first connect picks the next endpoint
 * (host x port pair or socket) round-robin over the config (an atomic cursor shared by all
 * threads); later (re)connects of the same connection keep that endpoint. Returns LB_DB_OK or
 * LB_DB_ECONNECT (message like `pgsql: connection to 127.0.0.1:5433 failed: Connection
 * refused`). */
int32_t lb_db_connect(struct lb_db_conn *c);
/* Closes the server connection (statements become unprepared, see lb_db_reconnect()). */
int32_t lb_db_disconnect(struct lb_db_conn *c);
/* Closes and connects again, retrying with exponential backoff (1 ms doubling up to 1 s)
 * until it succeeds or `deadline_ns` (absolute CLOCK_MONOTONIC) passes; deadline_ns <= now
 * means a single attempt. Abandons any operation in flight. Every statement of the connection
 * is prepared again on the new session; the caller's lb_db_stmt pointers stay valid (a
 * statement that fails to re-prepare reports its error at its next execution). Returns LB_DB_OK
 * or LB_DB_ECONNECT. Blocking. */
int32_t lb_db_reconnect(struct lb_db_conn *c, int64_t deadline_ns);
/* The end of a reconnect whose connect the caller made itself (lb_db_disconnect, then
 * lb_db_connect_start stepped without blocking, as an emulated user does): every statement
 * prepared again on the new session, the reconnect counted. LB_DB_OK or the error of a
 * statement that could not be sent. */
int32_t lb_db_reconnect_finish(struct lb_db_conn *c);
/* The caller runs other work while an operation of this connection is pending (emulated
 * users): a driver whose client library only blocks (odbc) then runs each call on a helper
 * thread of the connection and gives an eventfd to wait on. Off by default (calls block). */
void lb_db_conn_set_offload(struct lb_db_conn *c, int32_t on);
/* Successful lb_db_reconnect() (and lb_db_reconnect_finish()) calls so far on this connection. */
uint64_t lb_db_conn_reconnects(const struct lb_db_conn *c);
/* Borrowed; valid as long as the connection, updated by every call on it. */
const struct lb_db_error *lb_db_conn_error(const struct lb_db_conn *c);
/* Why the last connect failed in sysbench 1.0.20's words (its FATAL lines, without the prefix,
 * the client library's message as it is); "" when that is not known. */
const char *lb_db_conn_connect_report(const struct lb_db_conn *c);
int32_t lb_db_conn_state(const struct lb_db_conn *c);   /* enum lb_db_conn_state */
/* "host:port" or the socket path this connection uses (static until the next connect). */
const char *lb_db_conn_endpoint(const struct lb_db_conn *c);
/* 1 when the idle session is inside a transaction (BEGIN without COMMIT/ROLLBACK yet), as the
 * server said after the last statement; 0 otherwise, also for a closed, lost or busy connection
 * and for a driver that cannot tell. Never does I/O: the SQL layer asks after every event to
 * roll back a failed attempt's transaction before a retry, and to warn about an event that ended
 * inside one. mysql may still say 1 after a deadlock the server already rolled back (a ROLLBACK
 * then does no harm). */
int32_t lb_db_conn_in_transaction(const struct lb_db_conn *c);
/* The server's product and version ("" when not connected or the driver cannot tell). */
void lb_db_conn_server_version(const struct lb_db_conn *c, char *buf, size_t len);
/* An embedded engine's settings in force, one "name=value" per line ("" when the driver has
 * none to tell: a server's are read by the server monitor). */
void lb_db_conn_settings(const struct lb_db_conn *c, char *buf, size_t len);

/* ---- statements (blocking) ------------------------------------------------------------------ */

/* Runs SQL text. `sql` must be NUL-terminated at sql[len] (Lua strings are); `len` is its
 * length in bytes. Fills *out (may be NULL). Returns LB_DB_OK, LB_DB_ESQL or LB_DB_ELOST
 * (descriptor classified against the ignore lists), LB_DB_EBUSY or LB_DB_EINVAL.
 * pgsql: when a statement fails inside a transaction, the driver sends ROLLBACK before
 * returning, so the session is usable again (no 25P02 on every later statement). */
int32_t lb_db_query(struct lb_db_conn *c, const char *sql, uint64_t len, struct lb_db_result *out);

/* Fetches the next row of the connection's live result set into *row. Returns 1 with a row,
 * 0 at the end (or when there is no result set), negative on error. Never blocks. */
int32_t lb_db_fetch_row(struct lb_db_conn *c, struct lb_db_row *row);
/* Frees the live result set early (optional; the next statement does it anyway). */
void lb_db_free_result(struct lb_db_conn *c);

/* Typed access to the live result set, without making text of what is not asked for.
 * lb_db_next_row() moves to the next row and converts nothing: 1 with a row, 0 at the end (or
 * when there is no result set), negative on error. lb_db_fetch_row() moves too (the row it
 * returns is the current one). lb_db_row_value() reads column `col` (0-based) of the current
 * row into *out: LB_DB_OK, or LB_DB_EINVAL when there is no current row or no such column.
 * A driver that knows its columns' types (duckdb) gives numbers as numbers; the others give
 * every value as TEXT, the text lb_db_fetch_row() gives. Pointers in *out stay valid until the
 * next move or statement on the connection. */
enum lb_db_value_type {
	LB_DB_VALUE_NULL = 0,
	LB_DB_VALUE_INT = 1,     /* i64: integers that fit 64 bits, decimals of scale 0 */
	LB_DB_VALUE_DOUBLE = 2,  /* f64: floating point, decimals, integers past 64 bits */
	LB_DB_VALUE_BOOL = 3,    /* i64: 0 or 1 */
	LB_DB_VALUE_TEXT = 4,    /* str, len: the bytes of a string or blob; other types as text */
};

struct lb_db_value {
	int32_t type;            /* enum lb_db_value_type */
	int32_t pad;
	int64_t i64;
	double f64;
	const char *str;         /* not NUL-terminated */
	uint64_t len;
};

int32_t lb_db_next_row(struct lb_db_conn *c);
int32_t lb_db_row_value(struct lb_db_conn *c, uint32_t col, struct lb_db_value *out);

/* Prepares SQL with `?` placeholders (not inside string literals, quoted identifiers or
 * comments). On LB_DB_OK *out is a statement owned by the caller. With ps_mode DISABLE, or when
 * the server cannot prepare it (MySQL error 1295), the statement is emulated on the client.
 * pgsql prepares on the server once the parameter types are known (first execute after bind).
 * Same NUL-termination rule as lb_db_query(). */
int32_t lb_db_prepare(struct lb_db_conn *c, const char *sql, uint64_t len,
		      struct lb_db_stmt **out);
uint32_t lb_db_stmt_nparams(const struct lb_db_stmt *s);
/* Binds `params` (borrowed: must stay valid and in place until the next bind or the free):
 * exactly lb_db_stmt_nparams() entries. Types are checked here (LB_DB_ENOTSUP for TIME..
 * TIMESTAMP), values are read by every execute. A value that does not fit its type (pgsql:
 * 70000 as SMALLINT) fails that execute with LB_DB_EINVAL. Rebinding with other types makes
 * pgsql prepare the statement again. Not while the connection is busy (LB_DB_EBUSY). */
int32_t lb_db_stmt_bind(struct lb_db_stmt *s, const struct lb_db_param *params, uint32_t nparams);
/* Executes with the current parameter values. Rows of a prepared SELECT are readable with
 * lb_db_fetch_row() as text, like those of lb_db_query(). Returns as lb_db_query(). */
int32_t lb_db_execute(struct lb_db_stmt *s, struct lb_db_result *out);
/* Frees the statement. On an idle session it is deallocated on the server now; on a busy one
 * an execution of this statement in flight is abandoned (the session is then lost), otherwise
 * mysql closes it at the next statement and pgsql leaves it to the end of the session. NULL is
 * a no-op. */
void lb_db_stmt_free(struct lb_db_stmt *s);

/* Bulk insert: init with a prefix such as "INSERT INTO t(a,b) VALUES", then next() with row
 * texts such as "(1,'x')", then done(). Rows are appended, comma-separated, to a reusable
 * buffer that is sent as one multi-row INSERT whenever the next row would make it exceed the
 * packet size. next() and done() fill *out with the flushed statement, or kind NONE when they
 * only buffered. Returns as lb_db_query(); misuse (next before init) is LB_DB_EINVAL. */
int32_t lb_db_bulk_insert_init(struct lb_db_conn *c, const char *prefix, uint64_t len);
int32_t lb_db_bulk_insert_next(struct lb_db_conn *c, const char *row, uint64_t len,
			       struct lb_db_result *out);
int32_t lb_db_bulk_insert_done(struct lb_db_conn *c, struct lb_db_result *out);

/* Bulk loading through COPY ... FROM STDIN, where the driver has it (pgsql; mysql serves LOAD
 * DATA LOCAL INFILE the same way): init with the COPY statement, then next() with one row each
 * in that statement's format (text format: fields separated by tabs, \N for NULL, no newline),
 * then done(). Rows go to the same buffer as a bulk insert's. A driver with copy_put (pgsql)
 * keeps ONE COPY open from the first full buffer to done(): next() sends pieces without
 * waiting for the server (kind NONE; only a lost connection fails there), done() ends the COPY
 * and returns its result (all its rows, or the error of any row, with the COPY undone); until
 * then other statements on the connection fail (LB_DB_EBUSY). Otherwise (mysql) each full
 * buffer is one statement. LB_DB_ENOTSUP without COPY. */
int32_t lb_db_copy_init(struct lb_db_conn *c, const char *sql, uint64_t len);

/* ---- statements (non-blocking) ---------------------------------------------------------------
 * Each *_start() returns LB_DB_OK (done, *out filled), LB_DB_PENDING, or an error as its
 * blocking twin. After LB_DB_PENDING: read lb_db_conn_wait_info(), wait for those events or
 * the deadline, then call lb_db_step() with the events that occurred (LB_DB_WAIT_TIMEOUT when
 * the deadline passed, or to give up: the connection is then lost). Repeat until lb_db_step()
 * returns something other than LB_DB_PENDING; *out is filled then. The descriptor and events
 * may change between steps: read them again after every step. */
/* Note: both client libraries resolve host names synchronously inside connect_start; use
 * addresses (or a local resolver cache) when many connections start on one thread. */
int32_t lb_db_connect_start(struct lb_db_conn *c);
int32_t lb_db_query_start(struct lb_db_conn *c, const char *sql, uint64_t len,
			  struct lb_db_result *out);
int32_t lb_db_execute_start(struct lb_db_stmt *s, struct lb_db_result *out);
int32_t lb_db_step(struct lb_db_conn *c, uint32_t ready, struct lb_db_result *out);
void lb_db_conn_wait_info(const struct lb_db_conn *c, struct lb_db_wait *w);
/* For a poller that keeps a statement's descriptor registered from one statement to the next
 * instead of arming it for every wait: set_poll_tag() marks the connection with the poller's
 * registration (-1 and nothing kept when the statement in flight does not wait on the session's
 * own socket, see lb_db_ops.wait_on_socket), poll_tag() reads it back (0 = none). The tag goes
 * back to 0 whenever the socket may close (connect, disconnect, a lost connection), so a
 * registration is never taken for a new socket that got the same number. */
int32_t lb_db_conn_set_poll_tag(struct lb_db_conn *c, uint64_t tag);
uint64_t lb_db_conn_poll_tag(const struct lb_db_conn *c);
/* Blocks with poll() until the operation in flight completes or its deadline passes; returns
 * what the last lb_db_step() returned. LB_DB_OK at once when nothing is in flight. */
int32_t lb_db_wait(struct lb_db_conn *c, struct lb_db_result *out);

/* ---- pipelines ------------------------------------------------------------------------------
 * Several statements in flight on one connection (PostgreSQL's pipeline mode): queue them, then
 * run them all with one synchronisation point and read each one's outcome in order. Semantics
 * are the server's: statements run in order; when one fails, the server skips the rest up to
 * the sync point (they are reported ABORTED, never run), and without an explicit BEGIN the
 * statements form one implicit transaction, so those that ran before the failure are rolled
 * back too. If the session was inside a transaction (BEGIN earlier) and a statement fails, the
 * driver rolls it back, as lb_db_query() does.
 *
 *   lb_db_pipeline_begin(c)                  opens a pipeline (LB_DB_ENOTSUP: driver cannot)
 *   lb_db_pipeline_query(c, sql, len)        queues one statement (one statement per text)
 *   lb_db_pipeline_execute(s)                queues a prepared statement with the values its
 *                                            parameters have now (copied at once)
 *   lb_db_pipeline_run_start(c, out)         sends the sync point; then lb_db_step() as for any
 *   / lb_db_pipeline_run(c, out)             operation, or the blocking twin
 *
 * Queued statements may already be travelling to the server (the library sends whenever its
 * buffer fills). Between begin and run, any other statement on the connection is refused
 * (LB_DB_EBUSY). The run answers LB_DB_OK when every statement succeeded, LB_DB_ESQL when one
 * failed (the descriptor holds its error, classified against the ignore lists;
 * lb_db_pipeline_failed() says which), LB_DB_ELOST when the connection broke (statements not
 * answered by then are LOST). Outcomes and rows stay readable until the next operation on the
 * connection. With dry_run every statement is OTHER. */

/* Outcome of one pipelined statement. */
enum lb_db_pipe_status {
	LB_DB_PIPE_QUEUED = 0,   /* not answered (yet) */
	LB_DB_PIPE_DONE = 1,     /* ran; result has kind READ, WRITE or OTHER */
	LB_DB_PIPE_FAILED = 2,   /* the server rejected it: the error is in the descriptor */
	LB_DB_PIPE_ABORTED = 3,  /* skipped: an earlier statement of the pipeline failed */
	LB_DB_PIPE_LOST = 4,     /* the connection broke before it was answered */
};

struct lb_db_pipe_result {
	struct lb_db_result r;   /* kind ERROR for FAILED, ABORTED and LOST */
	int32_t status;          /* enum lb_db_pipe_status */
	int32_t pad;
};

int32_t lb_db_pipeline_begin(struct lb_db_conn *c);
/* Returns LB_DB_OK or LB_DB_EINVAL (no pipeline open, bad argument). A failure to hand the
 * statement to the library (connection gone) is reported by the run. */
int32_t lb_db_pipeline_query(struct lb_db_conn *c, const char *sql, uint64_t len);
int32_t lb_db_pipeline_execute(struct lb_db_stmt *s);
int32_t lb_db_pipeline_run_start(struct lb_db_conn *c, struct lb_db_result *out);
int32_t lb_db_pipeline_run(struct lb_db_conn *c, struct lb_db_result *out);
/* Statements in the current (or last run) pipeline. */
uint32_t lb_db_pipeline_count(const struct lb_db_conn *c);
/* Index of the failed statement of the last run, or -1. */
int32_t lb_db_pipeline_failed(const struct lb_db_conn *c);
/* Outcome of statement `i` (0-based); NULL when out of range. Borrowed. */
const struct lb_db_pipe_result *lb_db_pipeline_result(const struct lb_db_conn *c, uint32_t i);
/* Row `rowno` of statement i's result set into *row: 1, or 0 past the end / no result set. */
int32_t lb_db_pipeline_fetch_row(struct lb_db_conn *c, uint32_t i, uint64_t rowno,
				 struct lb_db_row *row);
/* Closes an open pipeline without running it (statements already sent are still answered
 * and discarded; blocking). The connection is usable afterwards unless it was lost. */
void lb_db_pipeline_abort(struct lb_db_conn *c);

/* ---- plug-in contract ----------------------------------------------------------------------
 * Each driver defines one `const struct lb_db_ops` with designated initializers. Optional
 * members may be NULL; the registry checks the table once (version, name, mandatory members)
 * and leaves out a driver that fails the check. The core allocates conn_priv_size and
 * stmt_priv_size bytes of zeroed private state per connection and statement. Driver callbacks
 * get the connection and use the internal helpers of db_int.h; they return LB_DB_OK,
 * LB_DB_PENDING (after setting the wait descriptor) or a negative code (after setting the
 * error descriptor). */

#define LB_DB_OPS_VERSION 11 /* 2: options, read_options; 3: in_transaction; 4: server_version;
			     * 5: pipeline_*; 6: thread_stack_bytes; 7: copy_put, copy_end; 8: monitor;
			     * 9: settings; 10: check_options_at_start; 11: next_row, row_value */

enum lb_db_quoting {
	LB_DB_QUOTING_PGSQL = 1,  /* '' strings, E'' escapes, "ids", $tag$ quotes, nested comments */
	LB_DB_QUOTING_MYSQL = 2,  /* backslash escapes, "strings", `ids`, # comments */
};

struct lb_db_ops {
	uint32_t version;                 /* LB_DB_OPS_VERSION */
	const char *name;
	const char *description;
	uint32_t quoting;                 /* enum lb_db_quoting: how `?` placeholders are found */
	uint32_t conn_priv_size;
	uint32_t stmt_priv_size;
	/* a statement in flight waits on the session's socket, open for the session's life, and
	 * step() reads what made it ready: a poller may keep it registered (lb_db_conn_poll_tag) */
	uint32_t wait_on_socket;
	const char *default_ignore_errors; /* when driver_ignore_errors is NULL */
	const char *max_packet_sql;       /* optional: query whose first value caps a bulk packet */

	int (*library_init)(void);                      /* optional; once per process */
	/* optional: validate driver-specific options (e.g. ssl_mode) when a config is made;
	 * 0 or a negative code with one line in err */
	int (*check_options)(const struct lb_db_options *o, char *err, size_t errlen);
	/* check_options runs on the command line's values too, before anything runs, when this is
	 * the --db-driver (an embedded engine, whose options are luabench's own): a bad value is
	 * one line and exit 1, not a failure in a script's thread_init. The server drivers keep
	 * sysbench's order of messages (checked when a script makes the driver). */
	bool check_options_at_start;
	void (*conn_fini)(struct lb_db_conn *c);        /* optional; before the private state goes */
	int (*connect_start)(struct lb_db_conn *c, int64_t deadline_ns);
	void (*close)(struct lb_db_conn *c);            /* drop the session, never blocks long */
	int (*query_start)(struct lb_db_conn *c, const char *sql, size_t len);
	int (*step)(struct lb_db_conn *c, uint32_t ready);
	int (*fetch_row)(struct lb_db_conn *c, const char **values, uint64_t *lengths);
	void (*result_free)(struct lb_db_conn *c);
	/* optional, both or none: typed access (lb_db_next_row()). next_row moves to the next row
	 * as fetch_row does, converting nothing; row_value reads one column of the current row
	 * (col < res.nfields, a row is current: the core checks). Without them the core moves
	 * with fetch_row and gives its text. */
	int (*next_row)(struct lb_db_conn *c);
	void (*row_value)(struct lb_db_conn *c, uint32_t col, struct lb_db_value *out);
	/* Server-side prepared statements; NULL = always emulate on the client. */
	int (*prepare_start)(struct lb_db_conn *c, struct lb_db_stmt *s);
	int (*bind)(struct lb_db_conn *c, struct lb_db_stmt *s);          /* optional */
	int (*execute_start)(struct lb_db_conn *c, struct lb_db_stmt *s);
	/* Forget the server-side statement; `alive` = the session is idle and usable. Called on
	 * reconnect too: the statement must stay re-preparable. */
	void (*stmt_release)(struct lb_db_conn *c, struct lb_db_stmt *s, int alive);
	/* optional: free the driver's own allocations of a statement that goes away (no I/O) */
	void (*stmt_fini)(struct lb_db_stmt *s);
	/* optional: escape `len` bytes for a '...' literal into dst (room for 2*len+1); returns
	 * the bytes written or a negative code. NULL = double the single quotes. */
	int64_t (*escape)(struct lb_db_conn *c, char *dst, const char *src, size_t len);
	/* optional: run `sql` (a COPY ... FROM STDIN) with `data` as its whole input; answers like
	 * query_start. `data` stays valid until the request ends. */
	int (*copy_start)(struct lb_db_conn *c, const char *sql, const char *data, size_t len);
	/* optional, both or none (with copy_start): a streaming COPY, one statement from the first
	 * piece to the end. copy_put opens it with `sql` if c->copy_open is false (waiting until
	 * the server takes input), then queues `data` and ends (kind NONE) once the library took
	 * it, without waiting for the server to process it; it may wait (PENDING) to keep the
	 * unsent input bounded. `data` is not used after the request ends. copy_end ends the COPY
	 * and collects its result as query_start; a piece's error is reported there. Without
	 * them, the core sends each flush through copy_start. */
	int (*copy_put)(struct lb_db_conn *c, const char *sql, const char *data, size_t len);
	int (*copy_end)(struct lb_db_conn *c);
	/* optional: the driver's command-line options (--help shows them as "<name> options"),
	 * ending with an entry whose name is NULL, and how their values fill its part of
	 * lb_db_options (the general --db-* part is filled by the caller). */
	const struct lb_opt_def *options;
	void (*read_options)(const struct lb_opts *opts, struct lb_db_options *out);
	/* optional: 1 if the idle session is inside a transaction, from what the library already
	 * knows (no I/O); NULL = cannot tell (lb_db_conn_in_transaction() says 0) */
	int (*in_transaction)(struct lb_db_conn *c);
	/* optional: the server's product and version as the library learnt them when connecting
	 * (no I/O), e.g. "PostgreSQL 15.10" or "MariaDB 10.11.6-MariaDB-0+deb12u1"; NULL = unknown */
	void (*server_version)(struct lb_db_conn *c, char *buf, size_t len);
	/* optional, all or none: pipelines (see lb_db_pipeline_begin()). begin enters the mode;
	 * query/execute queue one statement each (the core has already grown c->pipe); sync_start
	 * sends the sync point and collects like query_start/step, filling c->pipe->items[] in
	 * order (status, kind, rows) and the descriptor with the first failure; fetch_row reads
	 * row `rowno` of item i; abort leaves the mode, discarding what was queued (blocking). */
	int (*pipeline_begin)(struct lb_db_conn *c);
	int (*pipeline_query)(struct lb_db_conn *c, const char *sql, size_t len);
	int (*pipeline_execute)(struct lb_db_conn *c, struct lb_db_stmt *s);
	int (*pipeline_sync_start)(struct lb_db_conn *c);
	int (*pipeline_fetch_row)(struct lb_db_conn *c, uint32_t i, uint64_t rowno,
				  const char **values, uint64_t *lengths);
	void (*pipeline_abort)(struct lb_db_conn *c);
	/* optional: the least stack a thread calling this driver needs (ODBC drivers read their
	 * ini files with large stack buffers: psqlODBC crashes on sysbench's 64K); 0 = any */
	uint64_t thread_stack_bytes;
	/* optional: how the server monitor reads this server's settings and counters (monitor.h) */
	const struct lb_db_monitor *monitor;
	/* optional: an embedded engine's settings in force that decide how fast it runs (no server
	 * monitor reads them), as read when connecting (no I/O): one "name=value" per line */
	void (*settings)(struct lb_db_conn *c, char *buf, size_t len);
};

#endif
