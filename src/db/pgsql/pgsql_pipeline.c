/* libpq's pipeline mode: statements are queued with PQsendQueryParams/PQsendQueryPrepared
 * (extended protocol, one statement each) while the connection is in pipeline mode, then one
 * PQpipelineSync closes the batch. Results come back in order, each ended by a NULL from
 * PQgetResult; after a failure the server skips everything up to the sync, which libpq reports
 * as PGRES_PIPELINE_ABORTED; the sync itself is PGRES_PIPELINE_SYNC. A statement not yet
 * prepared on the server is prepared inside the pipeline: its Parse is a slot of its own whose
 * failure is reported as the statement's. */
#include <stdio.h>

#include "pgsql_int.h"

enum pg_format_code { FORMAT_TEXT = 0 };

static void add_slot(struct pg_pipe *pp, uint32_t item, bool prepare, struct lb_db_stmt *s)
{
	if (pp->nslots == pp->slots_cap) {
		pp->slots_cap = pp->slots_cap ? pp->slots_cap * 2 : 16;
		pp->slots = lb_xrealloc(pp->slots, pp->slots_cap * sizeof(*pp->slots));
	}
	pp->slots[pp->nslots++] = (struct pg_slot){ .item = item, .prepare = prepare, .stmt = s };
}

/* A refused send means libpq could not take the message: the session is not usable. */
static int queued(struct lb_db_conn *c, int ok)
{
	if (ok)
		return LB_DB_OK;
	return pg_lost_error(c, "pgsql: queueing a pipelined statement: ");
}

int pg_pipeline_begin(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);

	if (p->broken || !p->pg)
		return pg_lost_error(c, "pgsql: connection unusable: ");
	pg_pipeline_results_free(c);
	if (!PQenterPipelineMode(p->pg)) {
		lb_db_set_error(c, 0, "HY000", false, "pgsql: cannot enter pipeline mode: %s",
				PQerrorMessage(p->pg));
		return LB_DB_ESQL;
	}
	p->pipe.nslots = 0;
	p->pipe.next = 0;
	p->pipe.next_has_result = false;
	return LB_DB_OK;
}

int pg_pipeline_query(struct lb_db_conn *c, const char *sql, size_t len)
{
	struct pg_conn *p = P(c);

	(void)len; /* libpq reads up to the terminator, which the caller guarantees */
	add_slot(&p->pipe, c->pipe.count, false, NULL);
	return queued(c, PQsendQueryParams(p->pg, sql, 0, NULL, NULL, NULL, NULL, FORMAT_TEXT));
}

int pg_pipeline_execute(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct pg_conn *p = P(c);
	struct pg_stmt *ps = s->priv;

	if (!ps->sql)
		ps->sql = pg_rewrite_placeholders(s);
	/* Encode first: a bad value refuses the statement before anything of it is queued. */
	for (uint32_t i = 0; i < s->nparams; i++) {
		int rc = pg_encode_param(c, ps, i, &s->params[i]);
		if (rc < 0)
			return rc;
	}
	if (!ps->prepared) {
		snprintf(ps->name, sizeof(ps->name), "lb%u_%u", s->id, ++ps->generation);
		add_slot(&p->pipe, c->pipe.count, true, s);
		if (!PQsendPrepare(p->pg, ps->name, ps->sql, (int)s->nparams, ps->types))
			return queued(c, 0);
		ps->prepared = true; /* later executions in this pipeline use it; undone if it fails */
	}
	add_slot(&p->pipe, c->pipe.count, false, NULL);
	return queued(c, PQsendQueryPrepared(p->pg, ps->name, (int)s->nparams, ps->values,
					     ps->lengths, ps->formats, FORMAT_TEXT));
}

int pg_pipeline_sync_start(struct lb_db_conn *c)
{
	int rc = pg_start_request(c, REQ_PIPELINE, NULL);
	return rc < 0 ? rc : pg_sent(c, PQpipelineSync(P(c)->pg));
}

static void keep_rows(struct lb_db_conn *c, uint32_t item, PGresult *r)
{
	struct pg_pipe *pp = &P(c)->pipe;

	if (item >= pp->results_cap) {
		uint32_t cap = pp->results_cap ? pp->results_cap : 16;
		while (cap <= item)
			cap *= 2;
		pp->results = lb_xrealloc(pp->results, cap * sizeof(*pp->results));
		memset(pp->results + pp->results_cap, 0, (cap - pp->results_cap) * sizeof(*pp->results));
		pp->results_cap = cap;
	}
	pp->results[item] = r;
}

/* The first failure of the pipeline fills the descriptor (later ones are aborted anyway). */
static void item_failed(struct lb_db_conn *c, uint32_t item, const PGresult *r)
{
	struct lb_db_pipe_result *it = &c->pipe.items[item];
	const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	bool lost = PQstatus(P(c)->pg) == CONNECTION_BAD || pg_sqlstate_means_lost(st);

	it->status = LB_DB_PIPE_FAILED;
	it->r.kind = LB_DB_KIND_ERROR;
	if (c->pipe.failed >= 0)
		return;
	c->pipe.failed = (int32_t)item;
	if (!msg || !*msg)
		msg = pg_skip_severity(*PQresultErrorMessage(r) ? PQresultErrorMessage(r)
							       : PQerrorMessage(P(c)->pg));
	lb_db_set_error(c, 0, st ? st : lost ? "08006" : "HY000", lost, "%s", msg);
}

static void take_prepare(struct lb_db_conn *c, const struct pg_slot *sl, PGresult *r)
{
	ExecStatusType st = PQresultStatus(r);

	if (st != PGRES_COMMAND_OK && sl->stmt)
		((struct pg_stmt *)sl->stmt->priv)->prepared = false;
	if (pg_is_error(r) && c->pipe.items[sl->item].status == LB_DB_PIPE_QUEUED)
		item_failed(c, sl->item, r);
	PQclear(r);
}

static void take_result(struct lb_db_conn *c, const struct pg_slot *sl, PGresult *r)
{
	struct lb_db_pipe_result *it = &c->pipe.items[sl->item];
	ExecStatusType st = PQresultStatus(r);

	if (sl->prepare) {
		take_prepare(c, sl, r);
		return;
	}
	if (it->status != LB_DB_PIPE_QUEUED) {
		PQclear(r); /* already failed by its own Parse */
		return;
	}
	if (st == PGRES_TUPLES_OK) {
		it->status = LB_DB_PIPE_DONE;
		it->r.kind = LB_DB_KIND_READ;
		it->r.nrows = (uint64_t)PQntuples(r);
		it->r.nfields = (uint32_t)PQnfields(r);
		keep_rows(c, sl->item, r);
		return;
	}
	if (st == PGRES_COMMAND_OK || st == PGRES_EMPTY_QUERY) {
		it->status = LB_DB_PIPE_DONE;
		it->r.affected_rows = strtoull(PQcmdTuples(r), NULL, 10);
		it->r.kind = it->r.affected_rows > 0 ? LB_DB_KIND_WRITE : LB_DB_KIND_OTHER;
	} else if (st == PGRES_PIPELINE_ABORTED) {
		it->status = LB_DB_PIPE_ABORTED;
		it->r.kind = LB_DB_KIND_ERROR;
	} else {
		item_failed(c, sl->item, r);
	}
	PQclear(r);
}

/* The sync point arrived: every result is in. A failure inside an explicit transaction left
 * it aborted; roll it back as an ordinary failed statement would. */
static int sync_done(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);

	if (!PQexitPipelineMode(p->pg)) {
		p->broken = true;
		return pg_lost_error(c, "pgsql: leaving pipeline mode: ");
	}
	p->phase = PH_IDLE;
	if (c->pipe.failed < 0)
		return LB_DB_OK;
	if (c->err.lost)
		return LB_DB_ELOST;
	if (PQtransactionStatus(p->pg) == PQTRANS_INERROR) {
		int rc = pg_send_rollback(c);
		return rc == LB_DB_OK ? LB_DB_ESQL : rc;
	}
	return LB_DB_ESQL;
}

int pg_pipeline_collect(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);
	struct pg_pipe *pp = &p->pipe;

	while (!PQisBusy(p->pg)) {
		PGresult *r = PQgetResult(p->pg);
		if (!r) {
			if (pp->next_has_result) {
				pp->next++;
				pp->next_has_result = false;
				continue;
			}
			if (PQstatus(p->pg) == CONNECTION_BAD)
				return pg_lost_error(c, "");
			break;
		}
		if (PQresultStatus(r) == PGRES_PIPELINE_SYNC) {
			PQclear(r);
			return sync_done(c);
		}
		if (pp->next < pp->nslots)
			take_result(c, &pp->slots[pp->next], r);
		else
			PQclear(r);
		pp->next_has_result = true;
	}
	if (PQstatus(p->pg) == CONNECTION_BAD)
		return pg_lost_error(c, "");
	lb_db_set_wait(c, PQsocket(p->pg), LB_DB_WAIT_READ, p->deadline_ns);
	return LB_DB_PENDING;
}

int pg_pipeline_fetch_row(struct lb_db_conn *c, uint32_t i, uint64_t rowno, const char **values,
			  uint64_t *lengths)
{
	struct pg_pipe *pp = &P(c)->pipe;
	PGresult *r = i < pp->results_cap ? pp->results[i] : NULL;
	int row = (int)rowno;

	if (!r || rowno >= (uint64_t)PQntuples(r))
		return 0;
	for (int f = 0, nf = PQnfields(r); f < nf; f++) {
		bool null = PQgetisnull(r, row, f);
		values[f] = null ? NULL : PQgetvalue(r, row, f);
		lengths[f] = null ? 0 : (uint64_t)PQgetlength(r, row, f);
	}
	return 1;
}

/* Sync, read and drop every answer, leave pipeline mode (blocking; cold path). */
void pg_pipeline_abort(struct lb_db_conn *c)
{
	struct pg_conn *p = P(c);

	if (!p->pg || !PQpipelineSync(p->pg)) {
		p->broken = true;
		return;
	}
	pg_drain(c, true);
}

void pg_pipeline_results_free(struct lb_db_conn *c)
{
	struct pg_pipe *pp = &P(c)->pipe;

	for (uint32_t i = 0; i < pp->results_cap; i++) {
		PQclear(pp->results[i]);
		pp->results[i] = NULL;
	}
}

void pg_pipeline_forget_stmt(struct lb_db_conn *c, struct lb_db_stmt *s)
{
	struct pg_pipe *pp = &P(c)->pipe;

	for (uint32_t i = 0; i < pp->nslots; i++)
		if (pp->slots[i].stmt == s)
			pp->slots[i].stmt = NULL;
}

void pg_pipeline_fini(struct lb_db_conn *c)
{
	struct pg_pipe *pp = &P(c)->pipe;

	pg_pipeline_results_free(c);
	free(pp->results);
	free(pp->slots);
	memset(pp, 0, sizeof(*pp));
}
