/* Connection options: validation, endpoint lists, ignore lists, error descriptors, and the
 * NUL-terminated buffer the rest of the layer builds SQL text in. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "db_int.h"

/* ---- SQL text buffer ------------------------------------------------------------------------ */

void lb_db_buf_reserve(struct lb_db_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1; /* always room for a terminator */
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	b->data = lb_xrealloc(b->data, cap);
	b->cap = cap;
}

void lb_db_buf_append(struct lb_db_buf *b, const char *s, size_t len)
{
	lb_db_buf_reserve(b, len);
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void lb_db_buf_free(struct lb_db_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* ---- error descriptors -------------------------------------------------------------------- */

/* Client libraries produce multi-line messages (libpq adds hints and repeats one per attempt);
 * the descriptor keeps the first line, trimmed. */
static void one_line(char *s)
{
	char *nl = strpbrk(s, "\r\n");
	if (nl)
		*nl = '\0';
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

void lb_db_set_error(struct lb_db_conn *c, int32_t sql_errno, const char *sqlstate, bool lost,
		     const char *fmt, ...)
{
	struct lb_db_error *e = &c->err;
	va_list ap;

	e->error_class = LB_DB_ERROR_FATAL;
	e->sql_errno = sql_errno;
	e->lost = lost;
	snprintf(e->sqlstate, sizeof(e->sqlstate), "%s", sqlstate ? sqlstate : "");
	va_start(ap, fmt);
	/* fmt is never NULL; saying so keeps GCC's UBSan build from a "null format" warning. */
	vsnprintf(e->message, sizeof(e->message), fmt ? fmt : "", ap);
	va_end(ap);
	one_line(e->message);
}

int lb_db_misuse(struct lb_db_conn *c, const char *what)
{
	if (c) {
		lb_db_set_error(c, 0, NULL, false, "%s: %s", c->ops->name, what);
		c->err.error_class = LB_DB_ERROR_FATAL;
	}
	return LB_DB_EINVAL;
}

void lb_db_clear_error(struct lb_db_conn *c)
{
	c->err.error_class = LB_DB_ERROR_NONE;
	c->err.sql_errno = 0;
	c->err.lost = 0;
	c->err.sqlstate[0] = '\0';
	c->err.message[0] = '\0';
}

void lb_db_classify_error(const struct lb_db_config *cfg, struct lb_db_error *e)
{
	bool ignorable = lb_db_ignore_match(&cfg->driver_ignore, e) ||
			 lb_db_ignore_match(&cfg->generic_ignore, e);
	e->error_class = ignorable ? LB_DB_ERROR_IGNORABLE : LB_DB_ERROR_FATAL;
}

/* ---- ignore lists -------------------------------------------------------------------------- */

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

static int ignore_add(struct lb_db_ignore_list *l, const char *s, size_t n)
{
	struct lb_db_ignore_entry *e;

	if (n == 3 && strncasecmp(s, "all", 3) == 0) {
		l->all = true;
		return 0;
	}
	/* Numbers are MySQL error numbers (up to 5 digits); anything else must be a SQLSTATE. */
	bool sqlstate = n == 5;
	for (size_t i = 0; i < n; i++)
		sqlstate = sqlstate && isalnum((unsigned char)s[i]);
	if (n == 0 || n > 5 || (!all_digits(s, n) && !sqlstate))
		return LB_DB_EINVAL;
	l->entries = lb_xrealloc(l->entries, (l->count + 1) * sizeof(*l->entries));
	e = &l->entries[l->count++];
	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < n; i++)
		e->text[i] = (char)toupper((unsigned char)s[i]);
	e->number = all_digits(s, n) ? atoi(e->text) : -1;
	return 0;
}

int lb_db_ignore_parse(struct lb_db_ignore_list *l, const char *text, const char *option, char *err,
		       size_t errlen)
{
	const char *whole = text;
	memset(l, 0, sizeof(*l));
	while (text && *text) {
		const char *end = strchr(text, ',');
		size_t n = end ? (size_t)(end - text) : strlen(text);
		const char *s = text;
		while (n && isspace((unsigned char)*s))
			s++, n--;
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		/* a code sysbench would compare as a number (atoi), so never match, is refused */
		if (n && ignore_add(l, s, n) < 0) {
			snprintf(err, errlen, "Invalid value for the '%s' option: '%.64s' ('%.*s' is not a "
				 "SQLSTATE, an error number or all)", option, whole, (int)(n > 32 ? 32 : n), s);
			return LB_DB_EINVAL;
		}
		text = end ? end + 1 : NULL;
	}
	return 0;
}

void lb_db_ignore_free(struct lb_db_ignore_list *l)
{
	free(l->entries);
	memset(l, 0, sizeof(*l));
}

/* An entry matches the SQLSTATE as text, or a numeric entry the MySQL error number. */
bool lb_db_ignore_match(const struct lb_db_ignore_list *l, const struct lb_db_error *e)
{
	if (l->all)
		return true;
	for (uint32_t i = 0; i < l->count; i++) {
		const struct lb_db_ignore_entry *x = &l->entries[i];
		if (e->sqlstate[0] && strcmp(x->text, e->sqlstate) == 0)
			return true;
		if (x->number >= 0 && e->sql_errno != 0 && x->number == e->sql_errno)
			return true;
	}
	return false;
}

/* ---- endpoints ----------------------------------------------------------------------------- */

/* Splits a comma-separated list into trimmed, non-empty owned strings. */
static char **split_list(const char *text, uint32_t *count)
{
	char **items = NULL;
	uint32_t n = 0;

	while (text && *text) {
		const char *end = strchr(text, ',');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		const char *s = text;
		while (len && isspace((unsigned char)*s))
			s++, len--;
		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		if (len) {
			items = lb_xrealloc(items, (n + 1) * sizeof(*items));
			items[n++] = lb_xstrndup(s, len);
		}
		text = end ? end + 1 : NULL;
	}
	*count = n;
	return items;
}

static void free_list(char **items, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

/* Port 0 is the client library's default (as in sysbench, which hands the library 0 for it). */
static int parse_ports(const struct lb_db_config *cfg, char **items, uint32_t n, uint32_t *ports,
		       char *err, size_t errlen)
{
	for (uint32_t i = 0; i < n; i++) {
		char *end;
		errno = 0;
		long v = strtol(items[i], &end, 10);
		if (errno || *end || v < 0 || v > 65535) {
			snprintf(err, errlen, "Invalid value for the '%s-port' option: '%.64s' ('%.32s' is "
				 "not a port number)", cfg->ops->name, cfg->opts.ports, items[i]);
			return LB_DB_EINVAL;
		}
		ports[i] = (uint32_t)v;
	}
	return 0;
}

static void endpoint_label(struct lb_db_endpoint *ep)
{
	if (ep->socket)
		snprintf(ep->label, sizeof(ep->label), "%s", ep->socket);
	else if (ep->port)
		snprintf(ep->label, sizeof(ep->label), "%s:%u", ep->host ? ep->host : "localhost",
			 ep->port);
	else
		snprintf(ep->label, sizeof(ep->label), "%s", ep->host ? ep->host : "localhost");
}

/* Endpoints are the sockets when any are given, else every host x port pair (sysbench's
 * MySQL rule, applied to both drivers). Strings point into the config's owned copies. */
static int build_endpoints(struct lb_db_config *cfg, char *err, size_t errlen)
{
	uint32_t nh, np, ns;
	char **hosts = split_list(cfg->opts.hosts, &nh);
	char **ports = split_list(cfg->opts.ports, &np);
	char **socks = split_list(cfg->opts.sockets, &ns);
	uint32_t *port_nums = lb_xzalloc((np ? np : 1) * sizeof(*port_nums));
	int rc = parse_ports(cfg, ports, np, port_nums, err, errlen);
	uint32_t total = ns ? ns : (nh ? nh : 1) * (np ? np : 1);

	if (rc == 0) {
		cfg->endpoints = lb_xzalloc(total * sizeof(*cfg->endpoints));
		cfg->endpoint_count = total;
		for (uint32_t i = 0; i < total; i++) {
			struct lb_db_endpoint *ep = &cfg->endpoints[i];
			if (ns) {
				ep->socket = socks[i];
				socks[i] = NULL;
			} else {
				uint32_t h = i / (np ? np : 1), p = i % (np ? np : 1);
				ep->host = nh ? lb_xstrndup(hosts[h], strlen(hosts[h])) : NULL;
				ep->port = np ? port_nums[p] : 0;
			}
			endpoint_label(ep);
		}
	}
	free_list(hosts, nh);
	free_list(ports, np);
	free_list(socks, ns);
	free(port_nums);
	return rc;
}

/* ---- config -------------------------------------------------------------------------------- */

/* Client libraries want a process-wide init before any thread uses them (mysql_library_init
 * is not thread-safe). Config creation is a cold path, so a plain mutex is enough. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct lb_db_ops *init_done[16];
static int init_result[16];
static uint32_t init_count;

static int library_init(const struct lb_db_ops *drv)
{
	int rc = -1;

	pthread_mutex_lock(&init_lock);
	for (uint32_t i = 0; i < init_count; i++)
		if (init_done[i] == drv)
			rc = init_result[i];
	if (rc == -1 && init_count < 16) {
		rc = drv->library_init() ? 1 : 0;
		init_done[init_count] = drv;
		init_result[init_count++] = rc;
	}
	pthread_mutex_unlock(&init_lock);
	return rc;
}

static const char *dup_opt(const char *s)
{
	return s ? lb_xstrndup(s, strlen(s)) : NULL;
}

static void copy_options(struct lb_db_options *d, const struct lb_db_options *s)
{
	*d = *s;
	d->hosts = dup_opt(s->hosts);
	d->ports = dup_opt(s->ports);
	d->sockets = dup_opt(s->sockets);
	d->user = dup_opt(s->user);
	d->password = dup_opt(s->password);
	d->db = dup_opt(s->db);
	d->ssl_mode = dup_opt(s->ssl_mode);
	d->ssl_ca = dup_opt(s->ssl_ca);
	d->ssl_cert = dup_opt(s->ssl_cert);
	d->ssl_key = dup_opt(s->ssl_key);
	d->ssl_cipher = dup_opt(s->ssl_cipher);
	d->driver_ignore_errors = dup_opt(s->driver_ignore_errors);
	d->ignore_errors = dup_opt(s->ignore_errors);
	d->odbc_dsn = dup_opt(s->odbc_dsn);
	d->odbc_connection_string = dup_opt(s->odbc_connection_string);
	d->dialect = dup_opt(s->dialect);
	d->sqlite_journal_mode = dup_opt(s->sqlite_journal_mode);
	d->sqlite_synchronous = dup_opt(s->sqlite_synchronous);
	d->sqlite_begin = dup_opt(s->sqlite_begin);
	d->duckdb_memory_limit = dup_opt(s->duckdb_memory_limit);
}

static void free_options(struct lb_db_options *o)
{
	const char *all[] = { o->hosts, o->ports, o->sockets, o->user, o->password, o->db,
			      o->ssl_mode, o->ssl_ca, o->ssl_cert, o->ssl_key, o->ssl_cipher,
			      o->driver_ignore_errors, o->ignore_errors, o->odbc_dsn,
			      o->odbc_connection_string, o->dialect, o->sqlite_journal_mode,
			      o->sqlite_synchronous, o->sqlite_begin, o->duckdb_memory_limit };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free((char *)all[i]);
}

static int check_numbers(const struct lb_db_options *o, char *err, size_t errlen)
{
	if (o->connect_timeout_ms < 0 || o->read_timeout_ms < 0 || o->bulk_packet_bytes < 0) {
		snprintf(err, errlen, "timeouts and packet sizes must not be negative");
		return LB_DB_EINVAL;
	}
	if (o->ps_mode != LB_DB_PS_AUTO && o->ps_mode != LB_DB_PS_DISABLE) {
		snprintf(err, errlen, "invalid ps_mode %d", o->ps_mode);
		return LB_DB_EINVAL;
	}
	return 0;
}

static int config_parse(struct lb_db_config *cfg, char *err, size_t errlen)
{
	const struct lb_db_options *o = &cfg->opts;
	const char *drv_list = o->driver_ignore_errors ? o->driver_ignore_errors
						       : cfg->ops->default_ignore_errors;
	int rc = check_numbers(o, err, errlen);

	if (rc == 0 && cfg->ops->check_options)
		rc = cfg->ops->check_options(o, err, errlen) < 0 ? LB_DB_EINVAL : 0;
	if (rc == 0)
		rc = build_endpoints(cfg, err, errlen);
	char option[48];
	snprintf(option, sizeof(option), "%s-ignore-errors", cfg->ops->name);
	if (rc == 0)
		rc = lb_db_ignore_parse(&cfg->driver_ignore, drv_list, option, err, errlen);
	if (rc == 0)
		rc = lb_db_ignore_parse(&cfg->generic_ignore, o->ignore_errors, "db-ignore-errors", err,
					errlen);
	cfg->connect_timeout_ms = o->connect_timeout_ms ? (uint32_t)o->connect_timeout_ms
							: LB_DB_DEFAULT_CONNECT_TIMEOUT_MS;
	cfg->read_timeout_ms = (uint32_t)o->read_timeout_ms;
	cfg->bulk_packet_bytes = o->bulk_packet_bytes ? (uint32_t)o->bulk_packet_bytes
						      : LB_DB_DEFAULT_BULK_PACKET_BYTES;
	return rc;
}

int32_t lb_db_config_new(const struct lb_db_ops *drv, const struct lb_db_options *opts,
			 struct lb_db_config **out, char *errbuf, uint32_t errbuf_bytes)
{
	char local[256];
	char *err = errbuf && errbuf_bytes ? errbuf : local;
	size_t errlen = errbuf && errbuf_bytes ? errbuf_bytes : sizeof(local);
	static const struct lb_db_options defaults;
	struct lb_db_config *cfg;
	int rc;

	err[0] = '\0';
	*out = NULL;
	if (!drv) {
		snprintf(err, errlen, "no database driver given");
		return LB_DB_EINVAL;
	}
	cfg = lb_xzalloc(sizeof(*cfg));
	cfg->ops = drv;
	copy_options(&cfg->opts, opts ? opts : &defaults);
	rc = config_parse(cfg, err, errlen);
	if (rc == 0 && drv->library_init && !cfg->opts.dry_run && library_init(drv) != 0) {
		snprintf(err, errlen, "%s: client library initialisation failed", drv->name);
		rc = LB_DB_EINVAL;
	}
	if (rc < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s: %.200s", drv->name, err);
		snprintf(err, errlen, "%s", msg);
		lb_db_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return LB_DB_OK;
}

void lb_db_config_free(struct lb_db_config *cfg)
{
	if (!cfg)
		return;
	for (uint32_t i = 0; i < cfg->endpoint_count; i++) {
		free((char *)cfg->endpoints[i].host);
		free((char *)cfg->endpoints[i].socket);
	}
	free(cfg->endpoints);
	lb_db_ignore_free(&cfg->driver_ignore);
	lb_db_ignore_free(&cfg->generic_ignore);
	free_options(&cfg->opts);
	free(cfg);
}

const struct lb_db_ops *lb_db_config_driver(const struct lb_db_config *cfg)
{
	return cfg->ops;
}

const char *lb_db_config_dialect(const struct lb_db_config *cfg)
{
	return cfg && cfg->opts.dialect ? cfg->opts.dialect : "";
}
