/* Core of the database layer: the driver registry, connection lifecycle, the operation state
 * every driver call goes through (busy/lost checks, error classification, result accounting),
 * and the blocking wait loop on top of the non-blocking step API. Reconnecting, which also
 * re-prepares statements, is in reconnect.c. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>

#include "db_int.h"
#include "lb_db_drivers.h"

/* The registry: the drivers the build includes (each driver folder's meson.build adds its name
 * to LB_DB_DRIVERS, in the order --help lists their options: sysbench's, mysql then pgsql),
 * then the null driver, which is always there. The core knows a driver only by its ops table. */
#define DECLARE_OPS(name) extern const struct lb_db_ops lb_db_##name##_ops;
#define LIST_OPS(name) &lb_db_##name##_ops,
LB_DB_DRIVERS(DECLARE_OPS)
extern const struct lb_db_ops lb_db_null_ops;

static const struct lb_db_ops *const registry[] = {
	LB_DB_DRIVERS(LIST_OPS)
	&lb_db_null_ops,
};

#define REGISTRY_SIZE (sizeof(registry) / sizeof(registry[0]))

static const struct lb_db_ops *checked[REGISTRY_SIZE];
static uint32_t checked_count;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

/* Mandatory members; prepare_start/execute_start/stmt_release come as a set or not at all, and
 * so do the pipeline members and copy_put/copy_end (which need copy_start). */
static bool ops_valid(const struct lb_db_ops *o)
{
	bool ps = o->prepare_start && o->execute_start && o->stmt_release;
	bool no_ps = !o->prepare_start && !o->execute_start;
	int pipe = !!o->pipeline_begin + !!o->pipeline_query + !!o->pipeline_execute +
		   !!o->pipeline_sync_start + !!o->pipeline_fetch_row + !!o->pipeline_abort;

	return o->version == LB_DB_OPS_VERSION && o->name && o->name[0] && o->connect_start &&
	       o->close && o->query_start && o->step && o->fetch_row && o->result_free &&
	       (ps || no_ps) && (pipe == 0 || pipe == 6) && (!o->next_row == !o->row_value) &&
	       (!o->copy_put == !o->copy_end) && (!o->copy_put || o->copy_start) && (o->quoting == LB_DB_QUOTING_PGSQL || o->quoting == LB_DB_QUOTING_MYSQL);
}

static void registry_check(void)
{
	for (size_t i = 0; i < REGISTRY_SIZE; i++) {
		if (ops_valid(registry[i]))
			checked[checked_count++] = registry[i];
		else
			fprintf(stderr, "luabench: database driver '%s' has an invalid ops table; "
				"left out\n", registry[i]->name ? registry[i]->name : "?");
	}
}

const struct lb_db_ops *lb_db_find_driver(const char *name)
{
	pthread_once(&registry_once, registry_check);
	for (uint32_t i = 0; name && i < checked_count; i++)
		if (strcmp(checked[i]->name, name) == 0)
			return checked[i];
	return NULL;
}

uint32_t lb_db_driver_count(void)
{
	pthread_once(&registry_once, registry_check);
	return checked_count;
}

const struct lb_db_ops *lb_db_driver_at(uint32_t idx)
{
	pthread_once(&registry_once, registry_check);
	return idx < checked_count ? checked[idx] : NULL;
}

const char *lb_db_driver_name(const struct lb_db_ops *drv)
{
	return drv ? drv->name : "";
}

const char *lb_db_driver_description(const struct lb_db_ops *drv)
{
	return drv && drv->description ? drv->description : "";
}

int32_t lb_db_driver_supports(const struct lb_db_ops *drv, const char *feature)
{
	static const char *const names[] = { "prepare", "copy", "copy_stream", "pipeline" };
	const bool has[] = {
		drv && drv->prepare_start, drv && drv->copy_start, drv && drv->copy_put,
		drv && drv->pipeline_begin,
	};
	for (size_t i = 0; feature && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(feature, names[i]))
			return has[i];
	return -1;
}

const char *lb_db_strerror(int32_t rc)
{
	switch (rc) {
	case LB_DB_OK: return "success";
	case LB_DB_PENDING: return "operation in progress";
	case LB_DB_ESQL: return "SQL error";
	case LB_DB_ELOST: return "connection lost";
	case LB_DB_ECONNECT: return "connection failed";
	case LB_DB_EINVAL: return "invalid argument";
	case LB_DB_EBUSY: return "connection busy";
	case LB_DB_ENOTFOUND: return "no such driver";
	case LB_DB_ENOTSUP: return "not supported";
	}
	return "unknown error";
}

/* ---- connection objects -------------------------------------------------------------------- */

struct lb_db_conn *lb_db_conn_new(struct lb_db_config *cfg)
{
	struct lb_db_conn *c = lb_xzalloc(sizeof(*c));

	c->cfg = cfg;
	c->ops = cfg->ops;
	c->priv = lb_xzalloc(cfg->ops->conn_priv_size);
	c->state = LB_DB_STATE_DISCONNECTED;
	lb_db_set_wait(c, -1, 0, 0);
	return c;
}

static bool dry_run(const struct lb_db_conn *c)
{
	return c->cfg->opts.dry_run != 0;
}

static void drop_result(struct lb_db_conn *c)
{
	if (c->has_result && !dry_run(c))
		c->ops->result_free(c);
	c->has_result = false;
	c->on_row = false;
	c->result_stmt = NULL;
}

/* Forgets every server-side statement of a session that is going away. */
static void release_stmts(struct lb_db_conn *c, bool alive)
{
	if (dry_run(c))
		return;
	for (struct lb_db_stmt *s = c->stmts; s; s = s->next)
		if (!s->emulated)
			c->ops->stmt_release(c, s, alive);
}

/* Closes the session and forgets server-side state; the connection object stays usable. The
 * server drops prepared statements with the session, so there is nothing to send first. */
void lb_db_close_session(struct lb_db_conn *c)
{
	c->poll_tag = 0;
	drop_result(c);
	release_stmts(c, false);
	if (c->state != LB_DB_STATE_DISCONNECTED && !dry_run(c))
		c->ops->close(c);
	c->state = LB_DB_STATE_DISCONNECTED;
	c->op = LB_DB_OP_NONE;
	c->op_stmt = NULL;
	c->bulk_limit = 0;
	c->copy_open = false;
	lb_db_pipe_reset(c);
	lb_db_set_wait(c, -1, 0, 0);
}

/* Ends an operation in flight the way a caller that gives up would (a timeout step), so the
 * client library is never closed in the middle of one of its calls. */
void lb_db_abandon_op(struct lb_db_conn *c)
{
	if (c->state == LB_DB_STATE_BUSY || c->state == LB_DB_STATE_CONNECTING)
		lb_db_step(c, LB_DB_WAIT_TIMEOUT, NULL);
}

void lb_db_conn_free(struct lb_db_conn *c)
{
	if (!c)
		return;
	lb_db_abandon_op(c);
	lb_db_close_session(c);
	for (struct lb_db_stmt *s = c->stmts; s; s = s->next)
		s->conn = NULL;
	if (c->ops->conn_fini)
		c->ops->conn_fini(c);
	free(c->priv);
	free(c->row_values);
	free(c->row_lengths);
	lb_db_buf_free(&c->text);
	lb_db_buf_free(&c->bulk);
	free(c->copy_sql);
	free(c->pipe.items);
	free(c);
}

/* The entry points take a NULL connection (a script's connection after disconnect() reaching
 * C) as a closed one: refused with LB_DB_EINVAL, described by this error, never dereferenced. */
static const struct lb_db_error closed_error = {
	.error_class = LB_DB_ERROR_FATAL,
	.message = "attempt to use an already closed connection",
};

const struct lb_db_error *lb_db_conn_error(const struct lb_db_conn *c)
{
	return c ? &c->err : &closed_error;
}

int32_t lb_db_conn_state(const struct lb_db_conn *c)
{
	return c ? c->state : LB_DB_STATE_DISCONNECTED;
}

int32_t lb_db_conn_in_transaction(const struct lb_db_conn *c)
{
	if (!c || c->state != LB_DB_STATE_IDLE || !c->ops->in_transaction)
		return 0;
	return c->ops->in_transaction((struct lb_db_conn *)c) ? 1 : 0;
}

void lb_db_conn_server_version(const struct lb_db_conn *c, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (c && c->state == LB_DB_STATE_IDLE && c->ops->server_version && len)
		c->ops->server_version((struct lb_db_conn *)c, buf, len);
}

void lb_db_conn_settings(const struct lb_db_conn *c, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (c && c->state == LB_DB_STATE_IDLE && c->ops->settings && len)
		c->ops->settings((struct lb_db_conn *)c, buf, len);
}

const char *lb_db_conn_endpoint(const struct lb_db_conn *c)
{
	return c && c->ep ? c->ep->label : "";
}

void lb_db_conn_set_offload(struct lb_db_conn *c, int32_t on)
{
	if (c)
		c->offload = on != 0;
}

uint64_t lb_db_conn_reconnects(const struct lb_db_conn *c)
{
	return c ? c->reconnects : 0;
}

void lb_db_conn_wait_info(const struct lb_db_conn *c, struct lb_db_wait *w)
{
	if (c) {
		*w = c->wait;
	} else {
		memset(w, 0, sizeof(*w));
		w->fd = -1;
	}
}

/* A statement in flight waits on the session's socket (not a helper's eventfd or a timer). */
static bool waits_on_socket(const struct lb_db_conn *c)
{
	return c && c->ops->wait_on_socket && c->state == LB_DB_STATE_BUSY && c->wait.fd >= 0;
}

uint64_t lb_db_conn_poll_tag(const struct lb_db_conn *c)
{
	return waits_on_socket(c) ? c->poll_tag : 0;
}

int32_t lb_db_conn_set_poll_tag(struct lb_db_conn *c, uint64_t tag)
{
	if (!waits_on_socket(c))
		return -1;
	c->poll_tag = tag;
	return 0;
}

/* ---- operation state ----------------------------------------------------------------------- */

int lb_db_begin_op(struct lb_db_conn *c, int op, struct lb_db_stmt *s)
{
	if (!c)
		return LB_DB_EINVAL;
	if (c->state == LB_DB_STATE_BUSY || c->state == LB_DB_STATE_CONNECTING) {
		lb_db_set_error(c, 0, NULL, false, "%s: another operation is in progress on this "
				"connection", c->ops->name);
		return LB_DB_EBUSY;
	}
	if (c->state == LB_DB_STATE_LOST)
		return LB_DB_ELOST; /* keep the descriptor of the failure that lost it */
	if (c->state != LB_DB_STATE_IDLE)
		return lb_db_misuse(c, "not connected");
	if (c->copy_open && op != LB_DB_OP_COPY) {
		lb_db_set_error(c, 0, NULL, false, "%s: a COPY is streaming on this connection "
				"(call copy_done() before other statements)", c->ops->name);
		c->err.error_class = LB_DB_ERROR_FATAL;
		return LB_DB_EBUSY;
	}
	if (c->pipe.open && op != LB_DB_OP_PIPELINE) {
		lb_db_set_error(c, 0, NULL, false, "%s: a pipeline is open on this connection (run "
				"it before other statements)", c->ops->name);
		c->err.error_class = LB_DB_ERROR_FATAL;
		return LB_DB_EBUSY;
	}
	drop_result(c);
	memset(&c->res, 0, sizeof(c->res));
	c->op = op;
	c->op_stmt = s;
	c->state = LB_DB_STATE_BUSY;
	return LB_DB_OK;
}

static void grow_row(struct lb_db_conn *c, uint32_t nfields)
{
	if (nfields <= c->row_cap)
		return;
	c->row_values = lb_xrealloc(c->row_values, nfields * sizeof(*c->row_values));
	c->row_lengths = lb_xrealloc(c->row_lengths, nfields * sizeof(*c->row_lengths));
	c->row_cap = nfields;
}

static void fill_out(struct lb_db_result *out, const struct lb_db_result *res)
{
	if (out)
		*out = *res;
}

static int end_error(struct lb_db_conn *c, int rc, struct lb_db_result *out)
{
	bool connecting = c->op == LB_DB_OP_CONNECT;

	/* Ignore lists apply to what the server or the network did, never to API misuse. */
	if (!connecting && rc != LB_DB_EINVAL && rc != LB_DB_ENOTSUP)
		lb_db_classify_error(c->cfg, &c->err);
	memset(&c->res, 0, sizeof(c->res));
	c->res.kind = LB_DB_KIND_ERROR;
	fill_out(out, &c->res);
	c->op = LB_DB_OP_NONE;
	c->op_stmt = NULL;
	if (connecting) {
		lb_db_close_session(c);
		return LB_DB_ECONNECT;
	}
	if (c->err.lost || rc == LB_DB_ELOST) {
		c->err.lost = 1;
		c->copy_open = false;
		release_stmts(c, false);
		c->ops->close(c);
		c->poll_tag = 0;
		c->state = LB_DB_STATE_LOST;
		lb_db_set_wait(c, -1, 0, 0);
		return LB_DB_ELOST;
	}
	c->state = LB_DB_STATE_IDLE;
	lb_db_set_wait(c, -1, 0, 0);
	return rc == LB_DB_EINVAL || rc == LB_DB_ENOTSUP ? rc : LB_DB_ESQL;
}

static int end_ok(struct lb_db_conn *c, struct lb_db_result *out);

int lb_db_end_op(struct lb_db_conn *c, int rc, struct lb_db_result *out)
{
	bool pipeline = c->op == LB_DB_OP_PIPELINE;

	if (rc == LB_DB_PENDING)
		return rc;
	rc = rc < 0 ? end_error(c, rc, out) : end_ok(c, out);
	if (pipeline)
		lb_db_pipe_end(c, rc);
	return rc;
}

static int end_ok(struct lb_db_conn *c, struct lb_db_result *out)
{
	lb_db_clear_error(c);
	if (c->op == LB_DB_OP_CONNECT) {
		c->res.kind = LB_DB_KIND_OTHER;
		lb_db_tcp_liveness(c->wait.fd, c->cfg->opts.tcp_timeout_ms);
	}
	c->has_result = c->res.kind == LB_DB_KIND_READ;
	c->result_stmt = c->has_result ? c->op_stmt : NULL;
	if (c->has_result)
		grow_row(c, c->res.nfields);
	fill_out(out, &c->res);
	c->state = LB_DB_STATE_IDLE;
	c->op = LB_DB_OP_NONE;
	c->op_stmt = NULL;
	lb_db_set_wait(c, -1, 0, 0);
	return LB_DB_OK;
}

int32_t lb_db_step(struct lb_db_conn *c, uint32_t ready, struct lb_db_result *out)
{
	int rc;

	if (!c)
		return LB_DB_EINVAL;
	if (c->state != LB_DB_STATE_BUSY && c->state != LB_DB_STATE_CONNECTING)
		return lb_db_misuse(c, "no operation in progress");
	rc = c->ops->step(c, ready);
	if (rc == LB_DB_EMULATE) {
		/* The server refused to prepare it: from now on this statement is emulated. */
		c->op_stmt->emulated = true;
		rc = LB_DB_OK;
		if (c->op == LB_DB_OP_EXECUTE)
			rc = lb_db_emulate_text(c, c->op_stmt);
		if (c->op == LB_DB_OP_EXECUTE && rc == LB_DB_OK)
			rc = c->ops->query_start(c, c->text.data, c->text.len);
	}
	return lb_db_end_op(c, rc, out);
}

/* poll() timeout for an absolute deadline: rounded up, so we never wake just before it. */
static int poll_timeout_ms(int64_t deadline_ns)
{
	if (!deadline_ns)
		return -1;
	int64_t left = deadline_ns - lb_now_ns();
	if (left <= 0)
		return 0;
	int64_t ms = (left + 999999) / 1000000;
	return ms > 3600000 ? 3600000 : (int)ms;
}

int32_t lb_db_wait(struct lb_db_conn *c, struct lb_db_result *out)
{
	int rc = LB_DB_PENDING;
	bool no_fd = false;

	if (!c)
		return LB_DB_EINVAL;
	if (c->state != LB_DB_STATE_BUSY && c->state != LB_DB_STATE_CONNECTING)
		return LB_DB_OK;
	while (rc == LB_DB_PENDING) {
		struct pollfd pfd = { .fd = c->wait.fd, .events = 0 };
		uint32_t ready = 0;
		int n;

		if (c->wait.events & LB_DB_WAIT_READ)
			pfd.events |= POLLIN;
		if (c->wait.events & LB_DB_WAIT_WRITE)
			pfd.events |= POLLOUT;
		if (pfd.fd < 0) {
			/* Nothing to wait on: let the library find out what went wrong, and give
			 * up if it still has no descriptor after that. */
			rc = lb_db_step(c, no_fd ? LB_DB_WAIT_TIMEOUT
						 : LB_DB_WAIT_READ | LB_DB_WAIT_WRITE, out);
			no_fd = true;
			continue;
		}
		n = poll(&pfd, 1, poll_timeout_ms(c->wait.deadline_ns));
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			/* Errors and hang-ups are reported as readiness: the library finds out. */
			if (pfd.revents & (POLLIN | POLLERR | POLLHUP))
				ready |= LB_DB_WAIT_READ;
			if (pfd.revents & (POLLOUT | POLLERR | POLLHUP))
				ready |= LB_DB_WAIT_WRITE;
		} else if (c->wait.deadline_ns && lb_now_ns() >= c->wait.deadline_ns) {
			ready = LB_DB_WAIT_TIMEOUT;
		} else {
			continue;
		}
		rc = lb_db_step(c, ready, out);
	}
	return rc;
}

/* ---- connect ------------------------------------------------------------------------------- */

int lb_db_connect_by(struct lb_db_conn *c, int64_t deadline_ns)
{
	int rc;

	if (c->state == LB_DB_STATE_BUSY || c->state == LB_DB_STATE_CONNECTING)
		return LB_DB_EBUSY;
	if (c->state != LB_DB_STATE_DISCONNECTED)
		lb_db_close_session(c);
	if (!c->ep) {
		uint32_t i = atomic_fetch_add_explicit(&c->cfg->cursor, 1, memory_order_relaxed);
		c->ep = &c->cfg->endpoints[i % c->cfg->endpoint_count];
	}
	memset(&c->res, 0, sizeof(c->res));
	c->connect_report[0] = '\0';
	c->op = LB_DB_OP_CONNECT;
	c->state = LB_DB_STATE_CONNECTING;
	c->poll_tag = 0; /* the library may try several sockets */
	rc = dry_run(c) ? LB_DB_OK : c->ops->connect_start(c, deadline_ns);
	return lb_db_end_op(c, rc, NULL);
}

const char *lb_db_conn_connect_report(const struct lb_db_conn *c)
{
	return c ? c->connect_report : "";
}

int32_t lb_db_connect_start(struct lb_db_conn *c)
{
	if (!c)
		return LB_DB_EINVAL;
	return lb_db_connect_by(c, lb_db_deadline_ms(c->cfg->connect_timeout_ms));
}

int32_t lb_db_connect(struct lb_db_conn *c)
{
	int rc = lb_db_connect_start(c);
	return rc == LB_DB_PENDING ? lb_db_wait(c, NULL) : rc;
}

int32_t lb_db_disconnect(struct lb_db_conn *c)
{
	if (!c)
		return LB_DB_OK;
	lb_db_abandon_op(c);
	lb_db_close_session(c);
	return LB_DB_OK;
}

/* ---- text queries and rows ----------------------------------------------------------------- */

static int dry_result(struct lb_db_conn *c, struct lb_db_result *out)
{
	c->res.kind = LB_DB_KIND_OTHER;
	return lb_db_end_op(c, LB_DB_OK, out);
}

/* The start of a text request: LB_DB_PENDING = go on and send it; anything else = it is already
 * over (refused, or a dry run) with that answer. */
static int begin_text(struct lb_db_conn *c, int op, struct lb_db_result *out)
{
	int rc;

	if (!c) {
		if (out) {
			memset(out, 0, sizeof(*out));
			out->kind = LB_DB_KIND_ERROR;
		}
		return LB_DB_EINVAL;
	}
	rc = lb_db_begin_op(c, op, NULL);
	if (rc < 0) {
		memset(&c->res, 0, sizeof(c->res));
		c->res.kind = LB_DB_KIND_ERROR;
		fill_out(out, &c->res);
		return rc;
	}
	return dry_run(c) ? dry_result(c, out) : LB_DB_PENDING;
}

int32_t lb_db_query_start(struct lb_db_conn *c, const char *sql, uint64_t len,
			  struct lb_db_result *out)
{
	int rc = begin_text(c, LB_DB_OP_QUERY, out);

	if (rc != LB_DB_PENDING)
		return rc;
	if (!sql) {
		c->state = LB_DB_STATE_IDLE;
		return lb_db_misuse(c, "NULL query");
	}
	return lb_db_end_op(c, c->ops->query_start(c, sql, (size_t)len), out);
}

/* One COPY ... FROM STDIN with `data` as its input; blocking, as lb_db_query(). */
int32_t lb_db_copy(struct lb_db_conn *c, const char *sql, const char *data, size_t len,
		   struct lb_db_result *out)
{
	int rc = begin_text(c, LB_DB_OP_QUERY, out);

	if (rc != LB_DB_PENDING)
		return rc;
	rc = lb_db_end_op(c, c->ops->copy_start(c, sql, data, len), out);
	return rc == LB_DB_PENDING ? lb_db_wait(c, out) : rc;
}

int32_t lb_db_copy_put(struct lb_db_conn *c, const char *sql, const char *data, size_t len,
		       struct lb_db_result *out)
{
	int rc = begin_text(c, LB_DB_OP_COPY, out);

	if (rc != LB_DB_PENDING)
		return rc;
	rc = lb_db_end_op(c, c->ops->copy_put(c, sql, data, len), out);
	if (rc == LB_DB_PENDING)
		rc = lb_db_wait(c, out);
	/* The driver keeps the COPY open only while its pieces go through; a failure ends it (the
	 * statement was refused, or the session is gone). */
	c->copy_open = rc == LB_DB_OK;
	return rc;
}

int32_t lb_db_copy_end(struct lb_db_conn *c, struct lb_db_result *out)
{
	int rc = begin_text(c, LB_DB_OP_COPY, out);

	if (rc != LB_DB_PENDING)
		return rc;
	c->copy_open = false;
	rc = lb_db_end_op(c, c->ops->copy_end(c), out);
	return rc == LB_DB_PENDING ? lb_db_wait(c, out) : rc;
}

int32_t lb_db_query(struct lb_db_conn *c, const char *sql, uint64_t len, struct lb_db_result *out)
{
	int rc = lb_db_query_start(c, sql, len, out);
	return rc == LB_DB_PENDING ? lb_db_wait(c, out) : rc;
}

int32_t lb_db_fetch_row(struct lb_db_conn *c, struct lb_db_row *row)
{
	int rc;

	row->nfields = 0;
	row->values = NULL;
	row->lengths = NULL;
	if (!c || !c->has_result || c->state != LB_DB_STATE_IDLE)
		return 0;
	rc = c->ops->fetch_row(c, c->row_values, c->row_lengths);
	c->on_row = rc > 0;
	if (rc <= 0)
		return rc;
	row->nfields = c->res.nfields;
	row->values = c->row_values;
	row->lengths = c->row_lengths;
	return 1;
}

int32_t lb_db_next_row(struct lb_db_conn *c)
{
	int rc;

	if (!c || !c->has_result || c->state != LB_DB_STATE_IDLE)
		return 0;
	rc = c->ops->next_row ? c->ops->next_row(c) : c->ops->fetch_row(c, c->row_values, c->row_lengths);
	c->on_row = rc > 0;
	return rc;
}

int32_t lb_db_row_value(struct lb_db_conn *c, uint32_t col, struct lb_db_value *out)
{
	memset(out, 0, sizeof(*out));
	if (!c || !c->has_result || !c->on_row || c->state != LB_DB_STATE_IDLE || col >= c->res.nfields)
		return LB_DB_EINVAL;
	if (c->ops->row_value) {
		c->ops->row_value(c, col, out);
	} else if (c->row_values[col]) {
		/* what fetch_row gave for the row next_row moved to */
		out->type = LB_DB_VALUE_TEXT;
		out->str = c->row_values[col];
		out->len = c->row_lengths[col];
	}
	return LB_DB_OK;
}

void lb_db_free_result(struct lb_db_conn *c)
{
	if (c && c->state != LB_DB_STATE_BUSY)
		drop_result(c);
}
