/* MySQL/MariaDB driver on MariaDB Connector/C's non-blocking interface (MYSQL_OPT_NONBLOCK and
 * the mysql_*_start/_cont calls). Each call that may wait is started in one phase and
 * continued from step() with the events that occurred until the library reports it finished.
 * Prepared statements are in mysql_stmt.c; what both use (errors, waiting, starting a phase) in
 * mysql_async.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mysql_int.h"

static int my_library_init(void)
{
	return mysql_library_init(0, NULL, NULL);
}

/* ---- errors -------------------------------------------------------------------------------- */

/* Client-side failures (2000+) name the endpoint, and "(111)" becomes "Connection refused";
 * server refusals (access denied, unknown database) are clear as they are. */
static int connect_error(struct lb_db_conn *c)
{
	MYSQL *m = M(c)->m;
	unsigned int e = mysql_errno(m);
	const char *msg = mysql_error(m);
	const char *paren = strrchr(msg, '(');
	int sys = 0;

	if (c->ep->socket)
		snprintf(c->connect_report, sizeof(c->connect_report), "unable to connect to MySQL server "
			 "on socket '%s', aborting...\nFATAL: error %u: %s", c->ep->socket, e, msg);
	else
		snprintf(c->connect_report, sizeof(c->connect_report), "unable to connect to MySQL server "
			 "on host '%s', port %u, aborting...\nFATAL: error %u: %s",
			 c->ep->host ? c->ep->host : "localhost", c->ep->port, e, msg);
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

/* A TLS file the library would only report as "No such file or directory" once connecting. */
static int check_file(const char *opt, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	int e = fd < 0 ? errno : fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;

	if (fd >= 0)
		close(fd);
	if (!path || !e)
		return 0;
	snprintf(err, errlen, "--%s: cannot read '%.200s': %s", opt, path, strerror(e));
	return LB_DB_EINVAL;
}

/* An empty list given ("--mysql-host="): only separators and blanks */
static bool given_empty(const char *list)
{
	return list && !list[strspn(list, ", \t")];
}

static int my_check_options(const struct lb_db_options *o, char *err, size_t errlen)
{
	int mode = parse_ssl_mode(o->ssl_mode);

	/* sysbench's driver checks these first (even for a dry run), in this order */
	if (given_empty(o->hosts) || given_empty(o->ports)) {
		snprintf(err, errlen, "No MySQL %s specified, aborting", given_empty(o->hosts) ? "hosts" : "ports");
		return LB_DB_EINVAL;
	}

	if (mode == MY_SSL_INVALID) {
		snprintf(err, errlen, "invalid ssl mode '%.40s' (want disabled, preferred, required, "
			 "verify_ca or verify_identity)", o->ssl_mode);
		return LB_DB_EINVAL;
	}
	if (mode == MY_SSL_DISABLED)
		return 0; /* the files are not used */
	if (check_file("mysql-ssl-ca", o->ssl_ca, err, errlen) ||
	    check_file("mysql-ssl-cert", o->ssl_cert, err, errlen) ||
	    check_file("mysql-ssl-key", o->ssl_key, err, errlen))
		return LB_DB_EINVAL;
	return 0;
}

static void set_tls(MYSQL *m, const struct lb_db_options *o)
{
	int mode = parse_ssl_mode(o->ssl_mode);
	bool files = o->ssl_ca || o->ssl_cert || o->ssl_key || o->ssl_cipher;

#ifdef LIBMARIADB
	/* Connector/C has no SSL mode. MYSQL_OPT_SSL_ENFORCE turns TLS on (mysql_ssl_set() alone
	 * may or may not, depending on the version); without certificate verification the library
	 * continues in plain text when the server offers no TLS, which is "preferred" ("required"
	 * is checked after connecting: tls_missing()). With verification it refuses such a server. */
	my_bool use = mode != MY_SSL_DISABLED, verify = mode >= MY_SSL_VERIFY_CA;

	if (mode == MY_SSL_DEFAULT && !files)
		return; /* leave the library default */
	if (use)
		mysql_ssl_set(m, o->ssl_key, o->ssl_cert, o->ssl_ca, NULL, o->ssl_cipher);
	mysql_optionsv(m, MYSQL_OPT_SSL_ENFORCE, &use);
	/* also for "disabled": Connector/C 3.4 verifies, and so turns TLS on, by default */
	mysql_optionsv(m, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
#else
	if (mode == MY_SSL_DISABLED || (mode == MY_SSL_DEFAULT && !files))
		return; /* leave the library default */
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

/* --mysql-ssl=required, yet Connector/C went on in plain text over TCP because the server
 * offers no TLS (see set_tls). Oracle's library refuses such a server itself. */
static bool tls_missing(struct lb_db_conn *c)
{
#ifdef LIBMARIADB
	MYSQL *m = M(c)->m;
	int mode = parse_ssl_mode(c->cfg->opts.ssl_mode);
	unsigned int pvio = PVIO_TYPE_SOCKET;

	if (mode < MY_SSL_REQUIRED || mode == MY_SSL_INVALID || mysql_get_ssl_cipher(m))
		return false;
	/* A Unix socket is a secure transport: newer libraries never use TLS on it. */
	mariadb_get_infov(m, MARIADB_CONNECTION_PVIO_TYPE, &pvio);
	return pvio == PVIO_TYPE_SOCKET;
#else
	(void)c;
	return false;
#endif
}

/* ---- LOAD DATA LOCAL INFILE from memory ------------------------------------------------------ */
/* copy_start sends its rows as the "file" of a LOAD DATA LOCAL INFILE statement. The handler
 * below replaces the library's file reading for the whole session: whatever file name the
 * server asks for, it gets the rows of the copy in flight, and outside one it gets an error, so
 * enabling LOCAL INFILE never lets a server read the client's files. */
static int infile_init(void **ptr, const char *filename, void *userdata)
{
	struct my_conn *p = M(userdata);

	(void)filename;
	*ptr = userdata;
	if (!p->infile_data)
		return 1;
	p->infile_pos = 0;
	return 0;
}

static int infile_read(void *ptr, char *buf, unsigned int len)
{
	struct my_conn *p = M(ptr);
	size_t left = p->infile_len - p->infile_pos;
	size_t n = left < len ? left : len;

	memcpy(buf, p->infile_data + p->infile_pos, n);
	p->infile_pos += n;
	return (int)n;
}

static void infile_end(void *ptr)
{
	M(ptr)->infile_data = NULL;
}

static int infile_error(void *ptr, char *msg, unsigned int len)
{
	(void)ptr;
	snprintf(msg, len, "mysql: LOAD DATA LOCAL INFILE outside copy_init()/copy_done(): no file is sent");
	return CR_UNKNOWN_ERROR;
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
	unsigned int local_infile = 1;
	mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &local_infile);
	mysql_set_local_infile_handler(m, infile_init, infile_read, infile_end, infile_error, c);
	/* --db-statement-timeout: MariaDB's own limit, run by the library at every (re)connect. */
	if (cfg->opts.statement_timeout_ms > 0) {
		char init[80];
		snprintf(init, sizeof(init), "SET SESSION max_statement_time=%.3f",
			 cfg->opts.statement_timeout_ms / 1000.0);
		mysql_options(m, MYSQL_INIT_COMMAND, init);
	}
	set_tls(m, &cfg->opts);
}

static int connect_progress(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);

	if (status)
		return lb_mysql_wait_for(c, status);
	p->phase = MY_IDLE;
	if (!p->ret_conn)
		return connect_error(c);
	if (tls_missing(c)) {
		lb_db_set_error(c, CR_SSL_CONNECTION_ERROR, "HY000", false,
				"mysql: connection to %s failed: TLS is required (--mysql-ssl=%s) but "
				"the server does not support it", c->ep->label, c->cfg->opts.ssl_mode);
		return LB_DB_ECONNECT;
	}
	return LB_DB_OK;
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
	for (uint32_t i = 0; i < p->norphans; i++)
		mysql_stmt_close(p->orphans[i]); /* detached: frees memory, no I/O */
	free(p->orphans);
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
		return lb_mysql_wait_for(c, status);
	if (p->phase == MY_STORE_MORE) {
		if (p->ret_res)
			mysql_free_result(p->ret_res);
		else if (mysql_errno(p->m))
			return lb_mysql_conn_error(c);
		return drain_or_done(c);
	}
	if (!p->ret_res)
		return lb_mysql_conn_error(c);
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
		return lb_mysql_wait_for(c, status);
	if (p->ret_int)
		return lb_mysql_conn_error(c);
	if (mysql_field_count(p->m) > 0)
		return store(c, MY_STORE);
	return affected(c, mysql_affected_rows(p->m));
}

static int next_done(struct lb_db_conn *c, int status)
{
	struct my_conn *p = M(c);

	if (status)
		return lb_mysql_wait_for(c, status);
	if (p->ret_int > 0)
		return lb_mysql_conn_error(c);
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

static int my_query_start(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct my_conn *p = M(c);

	p->infile_data = NULL;
	lb_mysql_begin(c, MY_QUERY, NULL);
	return queried(c, mysql_real_query_start(&p->ret_int, p->m, sql, (unsigned long)len));
}

/* `sql` is a LOAD DATA LOCAL INFILE statement (any file name); `data` is sent as the file. */
static int my_copy_start(struct lb_db_conn *c, const char *sql, const char *data, size_t len)
{
	struct my_conn *p = M(c);

	lb_mysql_begin(c, MY_QUERY, NULL);
	p->infile_data = data;
	p->infile_len = len;
	p->infile_pos = 0;
	return queried(c, mysql_real_query_start(&p->ret_int, p->m, sql, (unsigned long)strlen(sql)));
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

static int my_fetch_row(struct lb_db_conn *c, const char **values, uint64_t *lengths)
{
	struct my_conn *p = M(c);

	if (p->res_stmt)
		return lb_mysql_fetch_stmt_row(c, values, lengths);
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


/* The status flags of the server's last OK packet (text queries and prepared statements both
 * update them). An error packet carries none, so after a lock wait timeout the flag still says
 * what the statements before it left: the transaction is open. */
static int my_in_transaction(struct lb_db_conn *c)
{
	MYSQL *m = M(c)->m;
	return m && (m->server_status & SERVER_STATUS_IN_TRANS);
}

/* The handshake's version string: MariaDB says so in it ("10.11.6-MariaDB-0+deb12u1"). */
static void my_server_version(struct lb_db_conn *c, char *buf, size_t len)
{
	MYSQL *m = M(c)->m;
	const char *v = m ? mysql_get_server_info(m) : NULL;
	if (v)
		snprintf(buf, len, "%s %s", strstr(v, "MariaDB") ? "MariaDB" : "MySQL", v);
}

/* ---- stepping ------------------------------------------------------------------------------ */

static int continue_phase(struct lb_db_conn *c, int st)
{
	struct my_conn *p = M(c);
	MYSQL_STMT *h;

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
		h = lb_mysql_cur_handle(c);
		return lb_mysql_prepared(c, mysql_stmt_prepare_cont(&p->ret_int, h, st));
	case MY_EXECUTE:
		h = lb_mysql_cur_handle(c);
		return lb_mysql_executed(c, mysql_stmt_execute_cont(&p->ret_int, h, st));
	case MY_STMT_STORE:
		h = lb_mysql_cur_handle(c);
		return lb_mysql_stmt_stored(c, mysql_stmt_store_result_cont(&p->ret_int, h, st));
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
	.wait_on_socket = 1,
	.version = LB_DB_OPS_VERSION,
	.monitor = &lb_mysql_monitor,
	.name = "mysql",
#if MY_HAVE_NONBLOCK
	.description = "MySQL/MariaDB driver (MariaDB Connector/C, non-blocking)",
#else
	.description = "MySQL driver (libmysqlclient, blocking)",
#endif
	.quoting = LB_DB_QUOTING_MYSQL,
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
	.prepare_start = lb_mysql_prepare_start,
	.execute_start = lb_mysql_execute_start,
	.stmt_release = lb_mysql_stmt_release,
	.stmt_fini = lb_mysql_stmt_fini,
	.escape = my_escape,
	.copy_start = my_copy_start,
	.options = lb_mysql_options,
	.read_options = lb_mysql_read_options,
	.in_transaction = my_in_transaction,
	.server_version = my_server_version,
};
