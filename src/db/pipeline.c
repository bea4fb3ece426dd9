/* Pipelines in the core: the per-connection list of queued statements and their outcomes, the
 * rules every driver shares (what may happen while a pipeline is open, what a lost connection
 * leaves behind, dry runs), and the entry points of driver.h. The drivers only talk to their
 * library (pgsql/pgsql_pipeline.c). */
#include <stdio.h>

#include "db_int.h"

static bool dry_run(const struct lb_db_conn *c)
{
	return c->cfg->opts.dry_run != 0;
}

static bool can_pipeline(const struct lb_db_conn *c)
{
	return c->ops->pipeline_begin || dry_run(c);
}

static int refuse(struct lb_db_conn *c, int rc, const char *fmt, const char *arg)
{
	lb_db_set_error(c, 0, NULL, false, fmt, c->ops->name, arg);
	c->err.error_class = LB_DB_ERROR_FATAL;
	return rc;
}

int32_t lb_db_pipeline_begin(struct lb_db_conn *c)
{
	struct lb_db_pipe *p;
	int rc;

	if (!c)
		return LB_DB_EINVAL;
	p = &c->pipe;
	if (!can_pipeline(c))
		return refuse(c, LB_DB_ENOTSUP, "%s: this driver cannot pipeline statements%s",
			      strcmp(c->ops->name, "mysql") == 0
				      ? " (MySQL/MariaDB have no pipeline mode; use PostgreSQL)"
				      : " (pipelines need the pgsql driver)");
	if (p->open)
		return lb_db_misuse(c, "a pipeline is already open on this connection");
	if (c->state == LB_DB_STATE_LOST)
		return LB_DB_ELOST;
	if (c->state == LB_DB_STATE_BUSY || c->state == LB_DB_STATE_CONNECTING)
		return refuse(c, LB_DB_EBUSY, "%s: another operation is in progress on this "
			      "connection%s", "");
	if (c->state != LB_DB_STATE_IDLE)
		return lb_db_misuse(c, "not connected");
	lb_db_free_result(c);
	p->count = 0;
	p->ran = false;
	p->queue_rc = LB_DB_OK;
	p->failed = -1;
	rc = dry_run(c) ? LB_DB_OK : c->ops->pipeline_begin(c);
	if (rc == LB_DB_OK)
		p->open = true;
	return rc;
}

/* Room for one more item, zeroed (QUEUED). */
static struct lb_db_pipe_result *next_item(struct lb_db_pipe *p)
{
	if (p->count == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->items = lb_xrealloc(p->items, p->cap * sizeof(*p->items));
	}
	memset(&p->items[p->count], 0, sizeof(p->items[0]));
	return &p->items[p->count];
}

/* A statement the library refused to take (connection gone) still counts: the run reports it
 * and everything after it. Misuse is refused before anything is queued. */
static int queued(struct lb_db_conn *c, int rc)
{
	if (rc == LB_DB_EINVAL || rc == LB_DB_ENOTSUP)
		return rc;
	if (rc < 0 && c->pipe.queue_rc == LB_DB_OK)
		c->pipe.queue_rc = rc;
	c->pipe.count++;
	return LB_DB_OK;
}

int32_t lb_db_pipeline_query(struct lb_db_conn *c, const char *sql, uint64_t len)
{
	if (!c)
		return LB_DB_EINVAL;
	if (!c->pipe.open)
		return lb_db_misuse(c, "no pipeline is open on this connection");
	if (!sql)
		return lb_db_misuse(c, "NULL query");
	next_item(&c->pipe);
	if (dry_run(c))
		return queued(c, LB_DB_OK);
	return queued(c, c->pipe.queue_rc ? LB_DB_OK : c->ops->pipeline_query(c, sql, (size_t)len));
}

int32_t lb_db_pipeline_execute(struct lb_db_stmt *s)
{
	struct lb_db_conn *c = s ? s->conn : NULL;
	int rc;

	if (!c)
		return LB_DB_EINVAL;
	if (!c->pipe.open)
		return lb_db_misuse(c, "no pipeline is open on this connection");
	if (s->nparams && !s->params)
		return lb_db_misuse(c, "execute before bind");
	next_item(&c->pipe);
	if (dry_run(c) || c->pipe.queue_rc)
		return queued(c, LB_DB_OK);
	if (s->emulated) {
		rc = lb_db_emulate_text(c, s);
		if (rc == LB_DB_OK)
			rc = c->ops->pipeline_query(c, c->text.data, c->text.len);
	} else {
		rc = c->ops->pipeline_execute(c, s);
	}
	return queued(c, rc);
}

int32_t lb_db_pipeline_run_start(struct lb_db_conn *c, struct lb_db_result *out)
{
	int rc;

	if (out) {
		memset(out, 0, sizeof(*out));
		out->kind = LB_DB_KIND_ERROR;
	}
	if (!c)
		return LB_DB_EINVAL;
	if (!c->pipe.open)
		return lb_db_misuse(c, "no pipeline is open on this connection");
	rc = lb_db_begin_op(c, LB_DB_OP_PIPELINE, NULL);
	if (rc < 0)
		return rc;
	c->pipe.open = false;
	if (dry_run(c)) {
		for (uint32_t i = 0; i < c->pipe.count; i++) {
			c->pipe.items[i].status = LB_DB_PIPE_DONE;
			c->pipe.items[i].r.kind = LB_DB_KIND_OTHER;
		}
		rc = LB_DB_OK;
	} else {
		rc = c->pipe.queue_rc ? c->pipe.queue_rc : c->ops->pipeline_sync_start(c);
	}
	c->res.kind = LB_DB_KIND_OTHER;
	return lb_db_end_op(c, rc, out);
}

int32_t lb_db_pipeline_run(struct lb_db_conn *c, struct lb_db_result *out)
{
	int rc = lb_db_pipeline_run_start(c, out);
	return rc == LB_DB_PENDING ? lb_db_wait(c, out) : rc;
}

void lb_db_pipe_end(struct lb_db_conn *c, int rc)
{
	struct lb_db_pipe *p = &c->pipe;

	p->ran = true;
	for (uint32_t i = 0; i < p->count; i++) {
		struct lb_db_pipe_result *it = &p->items[i];
		/* A broken connection also fails and aborts statements: they were lost with it. */
		if (it->status != LB_DB_PIPE_DONE && (rc == LB_DB_ELOST || it->status == LB_DB_PIPE_QUEUED)) {
			it->status = LB_DB_PIPE_LOST;
			it->r.kind = LB_DB_KIND_ERROR;
		}
	}
	/* Rows of the items stay with the driver until the next operation frees them. */
	if ((rc == LB_DB_OK || rc == LB_DB_ESQL) && !dry_run(c))
		c->has_result = true;
}

void lb_db_pipe_reset(struct lb_db_conn *c)
{
	if (c->pipe.open)
		c->pipe.count = 0;
	c->pipe.open = false;
}

void lb_db_pipeline_abort(struct lb_db_conn *c)
{
	if (!c || !c->pipe.open)
		return;
	c->pipe.open = false;
	c->pipe.count = 0;
	if (c->state == LB_DB_STATE_IDLE && !dry_run(c))
		c->ops->pipeline_abort(c);
}

uint32_t lb_db_pipeline_count(const struct lb_db_conn *c)
{
	return c ? c->pipe.count : 0;
}

int32_t lb_db_pipeline_failed(const struct lb_db_conn *c)
{
	return c && c->pipe.ran ? c->pipe.failed : -1;
}

const struct lb_db_pipe_result *lb_db_pipeline_result(const struct lb_db_conn *c, uint32_t i)
{
	return c && i < c->pipe.count ? &c->pipe.items[i] : NULL;
}

int32_t lb_db_pipeline_fetch_row(struct lb_db_conn *c, uint32_t i, uint64_t rowno,
				 struct lb_db_row *row)
{
	const struct lb_db_pipe_result *it = lb_db_pipeline_result(c, i);

	row->nfields = 0;
	row->values = NULL;
	row->lengths = NULL;
	if (!it || !c->has_result || c->state != LB_DB_STATE_IDLE || it->r.kind != LB_DB_KIND_READ ||
	    rowno >= it->r.nrows || !c->ops->pipeline_fetch_row)
		return 0;
	if (it->r.nfields > c->row_cap) {
		c->row_values = lb_xrealloc(c->row_values, it->r.nfields * sizeof(*c->row_values));
		c->row_lengths = lb_xrealloc(c->row_lengths, it->r.nfields * sizeof(*c->row_lengths));
		c->row_cap = it->r.nfields;
	}
	if (c->ops->pipeline_fetch_row(c, i, rowno, c->row_values, c->row_lengths) <= 0)
		return 0;
	row->nfields = it->r.nfields;
	row->values = c->row_values;
	row->lengths = c->row_lengths;
	return 1;
}
