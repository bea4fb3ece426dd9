/* Internals shared by the two halves of the MySQL driver: mysql.c (connections, text queries,
 * stepping) and mysql_stmt.c (prepared statements). */
#ifndef LB_DB_MYSQL_MYSQL_INT_H
#define LB_DB_MYSQL_MYSQL_INT_H

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>

#include "db/db_int.h"

#ifdef LIBMARIADB
#include <ma_pvio.h> /* PVIO_TYPE_SOCKET */
#define MY_HAVE_NONBLOCK 1
#else
/* Oracle's libmysqlclient has no _start/_cont interface. These shims run the blocking call and
 * report "finished" (status 0), so the code below works unchanged and simply never returns
 * LB_DB_PENDING. This is the whole #ifdef surface besides TLS set-up and its check; it is not
 * tested here. */
#define MY_HAVE_NONBLOCK 0
#define MYSQL_WAIT_READ 1
#define MYSQL_WAIT_WRITE 2
#define MYSQL_WAIT_EXCEPT 4
#define MYSQL_WAIT_TIMEOUT 8
#if MYSQL_VERSION_ID >= 80000
typedef bool my_bool;
#endif
static inline int mysql_real_connect_start(MYSQL **ret, MYSQL *m, const char *host,
					   const char *user, const char *pw, const char *db,
					   unsigned int port, const char *sock,
					   unsigned long flags)
{
	*ret = mysql_real_connect(m, host, user, pw, db, port, sock, flags);
	return 0;
}
static inline int mysql_real_query_start(int *ret, MYSQL *m, const char *q, unsigned long len)
{
	*ret = mysql_real_query(m, q, len);
	return 0;
}
static inline int mysql_store_result_start(MYSQL_RES **ret, MYSQL *m)
{
	*ret = mysql_store_result(m);
	return 0;
}
static inline int mysql_next_result_start(int *ret, MYSQL *m)
{
	*ret = mysql_next_result(m);
	return 0;
}
static inline int mysql_stmt_prepare_start(int *ret, MYSQL_STMT *s, const char *q,
					   unsigned long len)
{
	*ret = mysql_stmt_prepare(s, q, len);
	return 0;
}
static inline int mysql_stmt_execute_start(int *ret, MYSQL_STMT *s)
{
	*ret = mysql_stmt_execute(s);
	return 0;
}
static inline int mysql_stmt_store_result_start(int *ret, MYSQL_STMT *s)
{
	*ret = mysql_stmt_store_result(s);
	return 0;
}
/* Never reached: nothing above asks to wait. */
#define mysql_real_connect_cont(ret, m, st) ((void)(ret), (void)(m), (void)(st), 0)
#define mysql_real_query_cont(ret, m, st) ((void)(ret), (void)(m), (void)(st), 0)
#define mysql_store_result_cont(ret, m, st) ((void)(ret), (void)(m), (void)(st), 0)
#define mysql_next_result_cont(ret, m, st) ((void)(ret), (void)(m), (void)(st), 0)
#define mysql_stmt_prepare_cont(ret, s, st) ((void)(ret), (void)(s), (void)(st), 0)
#define mysql_stmt_execute_cont(ret, s, st) ((void)(ret), (void)(s), (void)(st), 0)
#define mysql_stmt_store_result_cont(ret, s, st) ((void)(ret), (void)(s), (void)(st), 0)
#define mysql_get_timeout_value_ms(m) ((void)(m), 0u)
#define mysql_get_socket(m) ((void)(m), -1)
#endif

enum my_phase {
	MY_IDLE,
	MY_CONNECT,
	MY_QUERY,
	MY_STORE,        /* storing the first result set of a text query */
	MY_NEXT,         /* moving to the next result of a multi-statement query */
	MY_STORE_MORE,   /* storing (to discard) a further result set */
	MY_PREPARE,
	MY_EXECUTE,
	MY_STMT_STORE,
};

struct my_conn {
	MYSQL *m;
	MYSQL_RES *res;              /* live result set of a text query */
	struct lb_db_stmt *res_stmt; /* or: statement whose stored result is live */
	int phase;                   /* enum my_phase */
	bool then_execute;           /* this prepare is the first half of an execute */
	struct lb_db_stmt *stmt;     /* statement of the operation in flight */
	int64_t deadline_ns;
	/* Handles of freed statements that could not be closed at the time (session busy or
	 * going away); closed at the next idle start, or freed after mysql_close(). */
	MYSQL_STMT **orphans;
	uint32_t norphans, orphans_cap;
	/* The rows of the LOAD DATA LOCAL INFILE in flight (copy_start), served from memory as the
	 * file's content; NULL otherwise, and then no file is served at all. */
	const char *infile_data;
	size_t infile_len, infile_pos;
	/* Where the _start/_cont calls put their results. */
	MYSQL *ret_conn;
	MYSQL_RES *ret_res;
	int ret_int;
};

struct my_stmt {
	MYSQL_STMT *h;
	MYSQL_BIND *params;
	unsigned long *param_lens;
	bool params_bound;      /* h holds params as they are now (see start_execute) */
	bool cols_bound;        /* the stored result's columns are bound to our buffers */
	uint32_t ncols_cap;
	MYSQL_BIND *cols;
	char **bufs;
	unsigned long *caps;
	unsigned long *lens;
	my_bool *nulls;
	my_bool *errs;
};

static inline struct my_conn *M(struct lb_db_conn *c)
{
	return c->priv;
}

/* mysql.c */
void lb_mysql_close_orphans(struct lb_db_conn *c);
int lb_mysql_wait_for(struct lb_db_conn *c, int status);
int lb_mysql_conn_error(struct lb_db_conn *c);
int lb_mysql_stmt_error(struct lb_db_conn *c, MYSQL_STMT *h);
void lb_mysql_begin(struct lb_db_conn *c, int phase, struct lb_db_stmt *s);

/* mysql_stmt.c: the ops, and the continuation of each statement phase */
int lb_mysql_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s);
int lb_mysql_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s);
int lb_mysql_prepared(struct lb_db_conn *c, int status);
int lb_mysql_executed(struct lb_db_conn *c, int status);
int lb_mysql_stmt_stored(struct lb_db_conn *c, int status);
MYSQL_STMT *lb_mysql_cur_handle(struct lb_db_conn *c);
int lb_mysql_fetch_stmt_row(struct lb_db_conn *c, const char **values, uint64_t *lengths);
void lb_mysql_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive);
void lb_mysql_stmt_fini(struct lb_db_stmt *s);

/* Its command-line options and their reading (mysql_options.c). */
extern const struct lb_opt_def lb_mysql_options[];
void lb_mysql_read_options(const struct lb_opts *o, struct lb_db_options *out);

/* What the server monitor reads on a MySQL/MariaDB server (mysql_monitor.c). */
extern const struct lb_db_monitor lb_mysql_monitor;

#endif
