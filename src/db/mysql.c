/* MySQL/MariaDB driver on MariaDB Connector/C's non-blocking interface (MYSQL_OPT_NONBLOCK and
 * the mysql_*_start/_cont calls). Each call that may wait is started in one phase and
 * continued from step() with the events that occurred until the library reports it finished.
 *
 * Prepared statements use mysql_stmt_* with the binary protocol. Results are stored on the
 * client and every column is bound as a string into buffers owned by the statement and reused
 * across executions, so the rows of a prepared SELECT read like those of a text query. */
#include <errno.h>
#include <stdio.h>
#include <strings.h>
#include <sys/socket.h>

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>

#include "db_int.h"

#ifdef LIBMARIADB
#define MY_HAVE_NONBLOCK 1
#else
/* Oracle's libmysqlclient has no _start/_cont interface. These shims run the blocking call and
 * report "finished" (status 0), so the code below works unchanged and simply never returns
 * LB_DB_PENDING. This is the whole #ifdef surface besides TLS set-up; it is not tested here. */
#define MY_HAVE_NONBLOCK 0
#define MYSQL_WAIT_READ 1
#define MYSQL_WAIT_WRITE 2
#define MYSQL_WAIT_EXCEPT 4
#define MYSQL_WAIT_TIMEOUT 8
#if MYSQL_VERSION_ID >= 80000
typedef bool my_bool;
#endif
static int mysql_real_connect_start(MYSQL **ret, MYSQL *m, const char *host, const char *user,
				    const char *pw, const char *db, unsigned int port,
				    const char *sock, unsigned long flags)
{
	*ret = mysql_real_connect(m, host, user, pw, db, port, sock, flags);
	return 0;
}
static int mysql_real_query_start(int *ret, MYSQL *m, const char *q, unsigned long len)
{
	*ret = mysql_real_query(m, q, len);
	return 0;
}
static int mysql_store_result_start(MYSQL_RES **ret, MYSQL *m)
{
	*ret = mysql_store_result(m);
	return 0;
}
static int mysql_next_result_start(int *ret, MYSQL *m)
{
	*ret = mysql_next_result(m);
	return 0;
}
static int mysql_stmt_prepare_start(int *ret, MYSQL_STMT *s, const char *q, unsigned long len)
{
	*ret = mysql_stmt_prepare(s, q, len);
	return 0;
}
static int mysql_stmt_execute_start(int *ret, MYSQL_STMT *s)
{
	*ret = mysql_stmt_execute(s);
	return 0;
}
static int mysql_stmt_store_result_start(int *ret, MYSQL_STMT *s)
{
	*ret = mysql_stmt_store_result(s);
	return 0;
}
/* Never reached: nothing above asks to wait. */
#define mysql_real_connect_cont(ret, m, st) 0
#define mysql_real_query_cont(ret, m, st) 0
#define mysql_store_result_cont(ret, m, st) 0
#define mysql_next_result_cont(ret, m, st) 0
#define mysql_stmt_prepare_cont(ret, s, st) 0
#define mysql_stmt_execute_cont(ret, s, st) 0
#define mysql_stmt_store_result_cont(ret, s, st) 0
#define mysql_get_timeout_value_ms(m) 0u
#define mysql_get_socket(m) (-1)
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
	/* Where the _start/_cont calls put their results. */
	MYSQL *ret_conn;
	MYSQL_RES *ret_res;
	int ret_int;
};

struct my_stmt {
	MYSQL_STMT *h;
	MYSQL_STMT *stale;           /* handle of a lost session, freed once that session closes */
	MYSQL_BIND *params;
	unsigned long *param_lens;
	uint32_t ncols_cap;
	MYSQL_BIND *cols;
	char **bufs;
	unsigned long *caps;
	unsigned long *lens;
	my_bool *nulls;
	my_bool *errs;
};

static struct my_conn *M(struct lb_db_conn *c)
{
	return c->priv;
}

static int my_library_init(void)
{
	return mysql_library_init(0, NULL, NULL);
}

/* ---- errors -------------------------------------------------------------------------------- */

static bool errno_means_lost(unsigned int e)
{
	switch (e) {
	case 0:                      /* a failure without a code: trust nothing (sysbench #213) */
	case CR_SERVER_GONE_ERROR:   /* 2006 */
	case CR_SERVER_LOST:         /* 2013 */
	case CR_SERVER_LOST_EXTENDED:/* 2055 */
	case 2011:                   /* CR_TCP_CONNECTION, in sysbench's reconnect list */
	case ER_SERVER_SHUTDOWN:     /* 1053 */
	case 1927:                   /* ER_CONNECTION_KILLED (MariaDB) */
	case 4031:                   /* ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8) */
		return true;
	}
	return false;
}

static int report(struct lb_db_conn *c, unsigned int e, const char *state, const char *msg)
{
	bool lost = errno_means_lost(e);
	lb_db_set_error(c, (int32_t)e, state, lost, "%s", msg && *msg ? msg : "unknown error");
	return lost ? LB_DB_ELOST : LB_DB_ESQL;
}

static int conn_error(struct lb_db_conn *c)
{
	MYSQL *m = M(c)->m;
	return report(c, mysql_errno(m), mysql_sqlstate(m), mysql_error(m));
}

static int stmt_error(struct lb_db_conn *c, MYSQL_STMT *h)
{
	return report(c, mysql_stmt_errno(h), mysql_stmt_sqlstate(h), mysql_stmt_error(h));
}

/* Client-side failures (2000+) name the endpoint, and "(111)" becomes "Connection refused";
 * server refusals (access denied, unknown database) are clear as they are. */
static int connect_error(struct lb_db_conn *c)
{
	MYSQL *m = M(c)->m;
	unsigned int e = mysql_errno(m);
	const char *msg = mysql_error(m);
	const char *paren = strrchr(msg, '(');
	int sys = 0;

	if (e < CR_MIN_ERROR) {
		lb_db_set_error(c, (int32_t)e, mysql_sqlstate(m), false, "mysql: %s", msg);
		return LB_DB_ECONNECT;
	}
	if (paren && sscanf(paren, "(%d)", &sys) == 1 && sys > 0)
		lb_db_set_error(c, (int32_t)e, mysql_sqlstate(m), false,
				"mysql: connection to %s failed: %s", c->ep->label, strerror(sys));
	else
		lb_db_set_error(c, (int32_t)e, mysql_sqlstate(m), false,
				"mysql: connection to %s failed: %s", c->ep->label, msg);
	return LB_DB_ECONNECT;
}

/* ---- waiting ------------------------------------------------------------------------------- */

/* The library says what it waits for; it may also want a timeout of its own (connect and read
 * timeouts), which is merged with the operation's deadline. */
static int wait_for(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	uint32_t ev = 0;
	int64_t deadline = p->deadline_ns;

	if (status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT))
		ev |= LB_DB_WAIT_READ;
	if (status & MYSQL_WAIT_WRITE)
		ev |= LB_DB_WAIT_WRITE;
	if (status & MYSQL_WAIT_TIMEOUT) {
		int64_t lib = lb_db_now_ns() + (int64_t)mysql_get_timeout_value_ms(p->m) * 1000000;
		if (!deadline || lib < deadline)
			deadline = lib;
	}
	lb_db_set_wait(c, (int)mysql_get_socket(p->m), ev, deadline);
	return LB_DB_PENDING;
}

static int ready_status(uint32_t ready)
{
	int st = 0;
	if (ready & LB_DB_WAIT_READ)
		st |= MYSQL_WAIT_READ;
	if (ready & LB_DB_WAIT_WRITE)
		st |= MYSQL_WAIT_WRITE;
	if (ready & LB_DB_WAIT_TIMEOUT)
		st |= MYSQL_WAIT_TIMEOUT;
	return st;
}

/* ---- connect ------------------------------------------------------------------------------- */

enum my_ssl { MY_SSL_DEFAULT, MY_SSL_DISABLED, MY_SSL_PREFERRED, MY_SSL_REQUIRED,
	      MY_SSL_VERIFY_CA, MY_SSL_VERIFY_IDENTITY, MY_SSL_INVALID };

static int parse_ssl_mode(const char *s)
{
	static const struct { const char *name; int mode; } modes[] = {
		{ "disabled", MY_SSL_DISABLED }, { "off", MY_SSL_DISABLED },
		{ "preferred", MY_SSL_PREFERRED }, { "required", MY_SSL_REQUIRED },
		{ "on", MY_SSL_REQUIRED }, { "verify_ca", MY_SSL_VERIFY_CA },
		{ "verify_identity", MY_SSL_VERIFY_IDENTITY },
	};
	if (!s || !*s)
		return MY_SSL_DEFAULT;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcasecmp(s, modes[i].name) == 0)
			return modes[i].mode;
	return MY_SSL_INVALID;
}

static int my_check_options(const struct lb_db_options *o, char *err, size_t errlen)
{
	if (parse_ssl_mode(o->ssl_mode) != MY_SSL_INVALID)
		return 0;
	snprintf(err, errlen, "invalid ssl mode '%.40s' (want disabled, preferred, required, "
		 "verify_ca or verify_identity)", o->ssl_mode);
	return LB_DB_EINVAL;
}

static void set_tls(MYSQL *m, const struct lb_db_options *o)
{
	int mode = parse_ssl_mode(o->ssl_mode);
	bool files = o->ssl_ca || o->ssl_cert || o->ssl_key || o->ssl_cipher;

	if (mode == MY_SSL_DISABLED || (mode == MY_SSL_DEFAULT && !files))
		return; /* leave the library default */
#ifdef LIBMARIADB
	my_bool enforce = mode >= MY_SSL_REQUIRED, verify = mode >= MY_SSL_VERIFY_CA;
	mysql_ssl_set(m, o->ssl_key, o->ssl_cert, o->ssl_ca, NULL, o->ssl_cipher);
	mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &enforce);
	mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
#else
	unsigned int ssl_mode = mode == MY_SSL_DEFAULT ? SSL_MODE_PREFERRED
			      : (unsigned int)(SSL_MODE_DISABLED + (mode - MY_SSL_DISABLED));
	mysql_options(m, MYSQL_OPT_SSL_MODE, &ssl_mode);
	if (o->ssl_ca)
		mysql_options(m, MYSQL_OPT_SSL_CA, o->ssl_ca);
	if (o->ssl_cert)
		mysql_options(m, MYSQL_OPT_SSL_CERT, o->ssl_cert);
	if (o->ssl_key)
		mysql_options(m, MYSQL_OPT_SSL_KEY, o->ssl_key);
	if (o->ssl_cipher)
		mysql_options(m, MYSQL_OPT_SSL_CIPHER, o->ssl_cipher);
#endif
}

static void set_options(struct lb_db_conn *c)
{
	MYSQL *m = M(c)->m;
	const struct lb_db_config *cfg = c->cfg;
	/* The library counts whole seconds; our own deadlines keep the millisecond precision. */
	unsigned int connect_s = (cfg->connect_timeout_ms + 999) / 1000;
	unsigned int read_s = (cfg->read_timeout_ms + 999) / 1000;

#if MY_HAVE_NONBLOCK
	mysql_options(m, MYSQL_OPT_NONBLOCK, 0);
#endif
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &connect_s);
	if (read_s) {
		mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &read_s);
		mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &read_s);
	}
	if (cfg->opts.compression)
		mysql_options(m, MYSQL_OPT_COMPRESS, NULL);
	set_tls(m, &cfg->opts);
}

static int connect_progress(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);

	if (status)
		return wait_for(c, status);
	p->phase = MY_IDLE;
	return p->ret_conn ? LB_DB_OK : connect_error(c);
}

static int my_connect_start(struct lb_db_conn *c, int64_t deadline_ns)
{
	struct my_conn *p = M(c);
	const struct lb_db_options *o = &c->cfg->opts;

	p->m = mysql_init(NULL);
	if (!p->m) {
		lb_db_set_error(c, 0, "HY000", false, "mysql: out of memory");
		return LB_DB_ECONNECT;
	}
	set_options(c);
	p->phase = MY_CONNECT;
	p->deadline_ns = deadline_ns;
	return connect_progress(c, mysql_real_connect_start(&p->ret_conn, p->m, c->ep->host,
		o->user, o->password, o->db, c->ep->port, c->ep->socket, CLIENT_MULTI_STATEMENTS));
}

static void my_close(struct lb_db_conn *c)
{
	struct my_conn *p = M(c);

	if (p->res)
		mysql_free_result(p->res);
	if (p->m)
		mysql_close(p->m); /* detaches the session's statement handles */
	for (struct lb_db_stmt *s = c->stmts; s; s = s->next) {
		struct my_stmt *ms = s->priv;
		if (ms->stale)
			mysql_stmt_close(ms->stale); /* detached: frees memory, no I/O */
		ms->stale = NULL;
	}
	memset(p, 0, sizeof(*p));
}

/* ---- text queries -------------------------------------------------------------------------- */

static int next_result(struct lb_db_conn *c);

/* Statements after the first of a multi-statement query are run and discarded, so that the
 * session is ready for the next command. */
static int drain_or_done(struct lb_db_conn *c)
{
	struct my_conn *p = M(c);

	if (!mysql_more_results(p->m)) {
		p->phase = MY_IDLE;
		return LB_DB_OK;
	}
	p->phase = MY_NEXT;
	return next_result(c);
}

static int stored(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);

	if (status)
		return wait_for(c, status);
	if (p->phase == MY_STORE_MORE) {
		if (p->ret_res)
			mysql_free_result(p->ret_res);
		else if (mysql_errno(p->m))
			return conn_error(c);
		return drain_or_done(c);
	}
	if (!p->ret_res)
		return conn_error(c);
	p->res = p->ret_res;
	c->res.kind = LB_DB_KIND_READ;
	c->res.nrows = mysql_num_rows(p->res);
	c->res.nfields = mysql_num_fields(p->res);
	return drain_or_done(c);
}

static int store(struct lb_db_conn *c, int phase)
{
	struct my_conn *p = M(c);
	p->phase = phase;
	return stored(c, mysql_store_result_start(&p->ret_res, p->m));
}

static int affected(struct lb_db_conn *c, my_ulonglong n)
{
	c->res.affected_rows = n == (my_ulonglong)-1 ? 0 : (uint64_t)n;
	c->res.kind = c->res.affected_rows > 0 ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
	return drain_or_done(c);
}

static int queried(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);

	if (status)
		return wait_for(c, status);
	if (p->ret_int)
		return conn_error(c);
	if (mysql_field_count(p->m) > 0)
		return store(c, MY_STORE);
	return affected(c, mysql_affected_rows(p->m));
}

static int next_done(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);

	if (status)
		return wait_for(c, status);
	if (p->ret_int > 0)
		return conn_error(c);
	if (p->ret_int < 0) {
		p->phase = MY_IDLE;
		return LB_DB_OK;
	}
	return mysql_field_count(p->m) > 0 ? store(c, MY_STORE_MORE) : drain_or_done(c);
}

static int next_result(struct lb_db_conn *c)
{
	struct my_conn *p = M(c);
	return next_done(c, mysql_next_result_start(&p->ret_int, p->m));
}

static void begin(struct lb_db_conn *c, int phase, struct lb_db_stmt *s)
{
	struct my_conn *p = M(c);
	p->phase = phase;
	p->stmt = s;
	p->deadline_ns = lb_db_deadline_ms(c->cfg->read_timeout_ms);
}

static int my_query_start(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct my_conn *p = M(c);

	begin(c, MY_QUERY, NULL);
	return queried(c, mysql_real_query_start(&p->ret_int, p->m, sql, (unsigned long)len));
}

static int my_fetch_text_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	struct my_conn *p = M(c);
	MYSQL_ROW row = mysql_fetch_row(p->res);   /* stored result: no I/O */
	unsigned long *lens;

	if (!row)
		return 0;
	lens = mysql_fetch_lengths(p->res);
	for (uint32_t i = 0; i < c->res.nfields; i++) {
		values[i] = row[i];
		lengths[i] = row[i] ? lens[i] : 0;
	}
	return 1;
}

static int64_t my_escape(struct lb_db_conn *c, char *dst, const char *src, size_t len)
{
	unsigned long n = mysql_real_escape_string(M(c)->m, dst, src, (unsigned long)len);
	if (n == (unsigned long)-1) {
		lb_db_set_error(c, 0, "HY000", false, "mysql: cannot escape a string parameter");
		return LB_DB_ESQL;
	}
	return (int64_t)n;
}

/* ---- prepared statements ------------------------------------------------------------------ */

static int prepared(struct lb_db_conn *c, int status);
static int executed(struct lb_db_conn *c, int status);
static int stmt_stored(struct lb_db_conn *c, int status);

static MYSQL_STMT *cur_handle(struct lb_db_conn *c)
{
	return ((struct my_stmt *)M(c)->stmt->priv)->h;
}

static int begin_prepare(struct lb_db_conn *c, struct lb_db_stmt *s, bool then_execute)
{
	struct my_conn *p = M(c);
	struct my_stmt *ms = s->priv;
	my_bool on = 1;

	ms->h = mysql_stmt_init(p->m);
	if (!ms->h)
		return conn_error(c);
	/* Lets store_result record each column's longest value, which sizes our buffers. */
	mysql_stmt_attr_set(ms->h, STMT_ATTR_UPDATE_MAX_LENGTH, &on);
	begin(c, MY_PREPARE, s);
	p->then_execute = then_execute;
	return prepared(c, mysql_stmt_prepare_start(&p->ret_int, ms->h, s->sql,
						    (unsigned long)s->sql_len));
}

static int my_prepare_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	return begin_prepare(c, s, false);
}

static int start_execute(struct lb_db_conn *c, struct lb_db_stmt *s);

static int prepare_failed(struct lb_db_conn *c, struct my_stmt *ms, int rc)
{
	mysql_stmt_close(ms->h); /* never prepared on the server: nothing to send */
	ms->h = NULL;
	return rc;
}

static int prepared(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	struct lb_db_stmt *s = p->stmt;
	struct my_stmt *ms = s->priv;

	if (status)
		return wait_for(c, status);
	p->phase = MY_IDLE;
	if (p->ret_int) {
		bool unsupported = mysql_stmt_errno(ms->h) == ER_UNSUPPORTED_PS;
		return prepare_failed(c, ms, unsupported ? LB_DB_EMULATE : stmt_error(c, ms->h));
	}
	if (mysql_stmt_param_count(ms->h) != s->nparams) {
		char msg[96];
		snprintf(msg, sizeof(msg), "server counts %lu placeholders, luabench %u",
			 (unsigned long)mysql_stmt_param_count(ms->h), s->nparams);
		return prepare_failed(c, ms, lb_db_misuse(c, msg));
	}
	if (!ms->params && s->nparams) {
		ms->params = lb_db_xzalloc(s->nparams * sizeof(*ms->params));
		ms->param_lens = lb_db_xzalloc(s->nparams * sizeof(*ms->param_lens));
	}
	return p->then_execute ? start_execute(c, s) : LB_DB_OK;
}

/* The MYSQL_BIND points straight at the caller's value; the library reads it during execute.
 * (MYSQL_BIND.buffer is not const, but parameters are only read.) */
static void bind_param(MYSQL_BIND *b, unsigned long *len, const struct lb_db_param *pp)
{
	memset(b, 0, sizeof(*b));
	if (pp->is_null || pp->type == LB_DB_TYPE_NONE) {
		b->buffer_type = MYSQL_TYPE_NULL;
		return;
	}
	switch (pp->type) {
	case LB_DB_TYPE_FLOAT:
	case LB_DB_TYPE_DOUBLE:
		b->buffer_type = MYSQL_TYPE_DOUBLE;
		b->buffer = (void *)(uintptr_t)&pp->f64;
		break;
	case LB_DB_TYPE_CHAR:
	case LB_DB_TYPE_VARCHAR:
		*len = (unsigned long)pp->len;
		b->buffer_type = MYSQL_TYPE_STRING;
		b->buffer = (void *)(uintptr_t)(pp->str ? pp->str : "");
		b->buffer_length = *len;
		b->length = len;
		break;
	default:
		b->buffer_type = MYSQL_TYPE_LONGLONG;
		b->buffer = (void *)(uintptr_t)&pp->i64;
	}
}

static int start_execute(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct my_conn *p = M(c);
	struct my_stmt *ms = s->priv;

	for (uint32_t i = 0; i < s->nparams; i++)
		bind_param(&ms->params[i], &ms->param_lens[i], &s->params[i]);
	if (s->nparams && mysql_stmt_bind_param(ms->h, ms->params))
		return stmt_error(c, ms->h);
	p->phase = MY_EXECUTE;
	return executed(c, mysql_stmt_execute_start(&p->ret_int, ms->h));
}

static int my_execute_start(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct my_stmt *ms = s->priv;

	if (!ms->h)
		return begin_prepare(c, s, true); /* first use after a reconnect or a failure */
	begin(c, MY_EXECUTE, s);
	return start_execute(c, s);
}

static int executed(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	MYSQL_STMT *h = cur_handle(c);

	if (status)
		return wait_for(c, status);
	p->phase = MY_IDLE;
	if (p->ret_int)
		return stmt_error(c, h);
	if (mysql_stmt_field_count(h) == 0) {
		my_ulonglong n = mysql_stmt_affected_rows(h);
		c->res.affected_rows = n == (my_ulonglong)-1 ? 0 : (uint64_t)n;
		c->res.kind = c->res.affected_rows > 0 ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
		return LB_DB_OK;
	}
	p->phase = MY_STMT_STORE;
	return stmt_stored(c, mysql_stmt_store_result_start(&p->ret_int, h));
}

static void size_column(struct my_stmt *ms, uint32_t i, unsigned long need)
{
	if (need <= ms->caps[i])
		return;
	ms->bufs[i] = lb_db_xrealloc(ms->bufs[i], need);
	ms->caps[i] = need;
}

static void grow_columns(struct my_stmt *ms, uint32_t n)
{
	uint32_t old = ms->ncols_cap;

	if (n <= old)
		return;
	ms->cols = lb_db_xrealloc(ms->cols, n * sizeof(*ms->cols));
	ms->bufs = lb_db_xrealloc(ms->bufs, n * sizeof(*ms->bufs));
	ms->caps = lb_db_xrealloc(ms->caps, n * sizeof(*ms->caps));
	ms->lens = lb_db_xrealloc(ms->lens, n * sizeof(*ms->lens));
	ms->nulls = lb_db_xrealloc(ms->nulls, n * sizeof(*ms->nulls));
	ms->errs = lb_db_xrealloc(ms->errs, n * sizeof(*ms->errs));
	for (uint32_t i = old; i < n; i++) {
		ms->bufs[i] = NULL;
		ms->caps[i] = 0;
	}
	ms->ncols_cap = n;
}

/* Every column is fetched as a string (the library formats numbers and dates), into buffers
 * that only grow. The handle's own field array carries max_length after store_result; the
 * allocating mysql_stmt_result_metadata() is avoided on this per-execute path. */
static void bind_columns(struct my_stmt *ms, uint32_t n)
{
	MYSQL_FIELD *f = ms->h->fields;

	grow_columns(ms, n);
	for (uint32_t i = 0; i < n; i++) {
		unsigned long want = f && f[i].max_length > 64 ? f[i].max_length : 64;
		MYSQL_BIND *b = &ms->cols[i];
		size_column(ms, i, want + 1);
		memset(b, 0, sizeof(*b));
		b->buffer_type = MYSQL_TYPE_STRING;
		b->buffer = ms->bufs[i];
		b->buffer_length = ms->caps[i];
		b->length = &ms->lens[i];
		b->is_null = &ms->nulls[i];
		b->error = &ms->errs[i];
	}
}

static int stmt_stored(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);
	struct lb_db_stmt *s = p->stmt;
	struct my_stmt *ms = s->priv;
	uint32_t n = mysql_stmt_field_count(ms->h);

	if (status)
		return wait_for(c, status);
	p->phase = MY_IDLE;
	if (p->ret_int)
		return stmt_error(c, ms->h);
	bind_columns(ms, n);
	if (mysql_stmt_bind_result(ms->h, ms->cols)) {
		int rc = stmt_error(c, ms->h);
		mysql_stmt_free_result(ms->h);
		return rc;
	}
	p->res_stmt = s;
	c->res.kind = LB_DB_KIND_READ;
	c->res.nrows = mysql_stmt_num_rows(ms->h);
	c->res.nfields = n;
	return LB_DB_OK;
}

/* A value longer than its buffer: grow it, fetch that column again, and rebind so that the
 * following rows use the larger buffer. */
static void refetch_column(struct my_stmt *ms, uint32_t i)
{
	size_column(ms, i, ms->lens[i] + 1);
	ms->cols[i].buffer = ms->bufs[i];
	ms->cols[i].buffer_length = ms->caps[i];
	mysql_stmt_fetch_column(ms->h, &ms->cols[i], i, 0);
	mysql_stmt_bind_result(ms->h, ms->cols);
}

static int fetch_stmt_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	struct my_stmt *ms = M(c)->res_stmt->priv;
	int r = mysql_stmt_fetch(ms->h);   /* stored result: no I/O */

	if (r == MYSQL_NO_DATA)
		return 0;
	if (r == 1)
		return stmt_error(c, ms->h);
	for (uint32_t i = 0; i < c->res.nfields; i++) {
		if (ms->nulls[i]) {
			values[i] = NULL;
			lengths[i] = 0;
			continue;
		}
		if (ms->lens[i] >= ms->caps[i])
			refetch_column(ms, i);
		ms->bufs[i][ms->lens[i]] = '\0';
		values[i] = ms->bufs[i];
		lengths[i] = ms->lens[i];
	}
	return 1;
}

static int my_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	struct my_conn *p = M(c);

	if (p->res_stmt)
		return fetch_stmt_row(c, values, lengths);
	return p->res ? my_fetch_text_row(c, values, lengths) : 0;
}

static void my_result_free(struct lb_db_conn *c)
{
	struct my_conn *p = M(c);

	if (p->res)
		mysql_free_result(p->res);
	p->res = NULL;
	if (p->res_stmt) {
		struct my_stmt *ms = p->res_stmt->priv;
		if (ms->h)
			mysql_stmt_free_result(ms->h);
	}
	p->res_stmt = NULL;
}

/* On a live session the handle is closed now (COM_STMT_CLOSE needs no answer). On a session
 * that is going away it is kept until mysql_close() has detached it: closing it first would
 * write to a dead or hung socket. */
static void my_stmt_release(struct lb_db_conn *c, struct lb_db_stmt *s, int alive)
{
	struct my_stmt *ms = s->priv;

	if (M(c)->res_stmt == s)
		my_result_free(c);
	if (!ms->h)
		return;
	if (alive)
		mysql_stmt_close(ms->h);
	else
		ms->stale = ms->h;
	ms->h = NULL;
}

static void my_stmt_fini(struct lb_db_stmt *s)
{
	struct my_stmt *ms = s->priv;

	for (uint32_t i = 0; i < ms->ncols_cap; i++)
		free(ms->bufs[i]);
	free(ms->params);
	free(ms->param_lens);
	free(ms->cols);
	free(ms->bufs);
	free(ms->caps);
	free(ms->lens);
	free(ms->nulls);
	free(ms->errs);
}

/* ---- stepping ------------------------------------------------------------------------------ */

static int continue_phase(struct lb_db_conn *c, int st)
{
	struct my_conn *p = M(c);

	switch (p->phase) {
	case MY_CONNECT:
		return connect_progress(c, mysql_real_connect_cont(&p->ret_conn, p->m, st));
	case MY_QUERY:
		return queried(c, mysql_real_query_cont(&p->ret_int, p->m, st));
	case MY_STORE:
	case MY_STORE_MORE:
		return stored(c, mysql_store_result_cont(&p->ret_res, p->m, st));
	case MY_NEXT:
		return next_done(c, mysql_next_result_cont(&p->ret_int, p->m, st));
	case MY_PREPARE:
		return prepared(c, mysql_stmt_prepare_cont(&p->ret_int, cur_handle(c), st));
	case MY_EXECUTE:
		return executed(c, mysql_stmt_execute_cont(&p->ret_int, cur_handle(c), st));
	case MY_STMT_STORE:
		return stmt_stored(c, mysql_stmt_store_result_cont(&p->ret_int, cur_handle(c), st));
	}
	return lb_db_misuse(c, "no operation in progress");
}

/* The library normally turns MYSQL_WAIT_TIMEOUT into an error at once. Should it still want
 * to wait, shutting the socket down makes its next read fail, which ends the call. */
static int force_end(struct lb_db_conn *c)
{
	int rc = LB_DB_PENDING;
	int fd = (int)mysql_get_socket(M(c)->m);

	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
	for (int i = 0; i < 100 && rc == LB_DB_PENDING; i++)
		rc = continue_phase(c, MYSQL_WAIT_READ | MYSQL_WAIT_WRITE);
	return rc;
}

static int timed_out(struct lb_db_conn *c, bool connecting)
{
	if (connecting) {
		lb_db_set_error(c, CR_SERVER_LOST, "HY000", false, "mysql: connection to %s "
				"failed: timed out after %u ms", c->ep->label,
				c->cfg->connect_timeout_ms);
		return LB_DB_ECONNECT;
	}
	if (c->cfg->read_timeout_ms)
		lb_db_set_error(c, CR_SERVER_LOST, "HY000", true, "mysql: no answer within %u ms "
				"(read timeout); connection dropped", c->cfg->read_timeout_ms);
	else
		lb_db_set_error(c, CR_SERVER_LOST, "HY000", true, "mysql: operation abandoned; "
				"connection dropped");
	return LB_DB_ELOST;
}

static int my_step(struct lb_db_conn *c, uint32_t ready)
{
	bool connecting = M(c)->phase == MY_CONNECT;
	int rc = continue_phase(c, ready_status(ready));

	if (!(ready & LB_DB_WAIT_TIMEOUT) || rc == LB_DB_OK)
		return rc;
	if (rc == LB_DB_PENDING)
		force_end(c);
	M(c)->phase = MY_IDLE;
	return timed_out(c, connecting);
}

const struct lb_db_ops lb_db_mysql_ops = {
	.version = LB_DB_OPS_VERSION,
	.name = "mysql",
#if MY_HAVE_NONBLOCK
	.description = "MySQL/MariaDB driver (MariaDB Connector/C, non-blocking)",
#else
	.description = "MySQL driver (libmysqlclient, blocking)",
#endif
	.dialect = LB_DB_DIALECT_MYSQL,
	.conn_priv_size = sizeof(struct my_conn),
	.stmt_priv_size = sizeof(struct my_stmt),
	.default_ignore_errors = "1213,1020,1205",
	.max_packet_sql = "SELECT @@max_allowed_packet",
	.library_init = my_library_init,
	.check_options = my_check_options,
	.connect_start = my_connect_start,
	.close = my_close,
	.query_start = my_query_start,
	.step = my_step,
	.fetch_row = my_fetch_row,
	.result_free = my_result_free,
	.prepare_start = my_prepare_start,
	.execute_start = my_execute_start,
	.stmt_release = my_stmt_release,
	.stmt_fini = my_stmt_fini,
	.escape = my_escape,
};
