/* Internals of the PostgreSQL driver shared by pgsql.c (connections, statements, requests) and
 * pgsql_pipeline.c (pipeline mode). */
#ifndef LB_DB_PGSQL_PGSQL_INT_H
#define LB_DB_PGSQL_PGSQL_INT_H

#include <libpq-fe.h>

#include "db/db_int.h"

/* One message of a pipeline whose results are awaited, in the order the server answers. */
struct pg_slot {
	uint32_t item;             /* index in c->pipe.items */
	bool prepare;              /* the implicit Parse of a statement not yet prepared */
	struct lb_db_stmt *stmt;   /* for prepare slots; NULL once the statement is freed */
};

struct pg_pipe {
	struct pg_slot *slots;
	uint32_t nslots, slots_cap;
	uint32_t next;             /* slot whose results are being read */
	bool next_has_result;
	PGresult **results;        /* result set of each item (READ only), else NULL */
	uint32_t results_cap;
};

enum pg_type_oid {
	PG_OID_UNSPECIFIED = 0,  /* let the server infer it (NULL of type NONE) */
	PG_OID_INT8 = 20,
	PG_OID_INT2 = 21,
	PG_OID_INT4 = 23,
	PG_OID_FLOAT4 = 700,
	PG_OID_FLOAT8 = 701,
	PG_OID_BPCHAR = 1042,
	PG_OID_VARCHAR = 1043,
};

enum pg_format { PG_FORMAT_TEXT = 0, PG_FORMAT_BINARY = 1 };

enum pg_phase { PH_IDLE, PH_CONNECT, PH_FLUSH, PH_RESULTS, PH_COPY_FLUSH };

/* What the results being collected answer. */
enum pg_request { REQ_QUERY, REQ_PREPARE, REQ_PREPARE_THEN_EXEC, REQ_EXEC, REQ_ROLLBACK, REQ_COPY,
		  REQ_PIPELINE, REQ_COPY_PUT, REQ_COPY_END };

struct pg_conn {
	PGconn *pg;
	PGresult *res;          /* the live result set */
	int row;                /* next row of res */
	PGresult *collected;    /* result of the request in flight */
	int phase;              /* enum pg_phase */
	int request;            /* enum pg_request */
	struct lb_db_stmt *stmt;  /* statement of the request in flight */
	int64_t deadline_ns;
	const char *copy_data;  /* input of the COPY in flight */
	size_t copy_len;
	size_t copy_unflushed_bytes; /* queued in a streaming COPY since libpq's buffer last emptied */
	bool broken;            /* a quiet DEALLOCATE timed out: the session is unusable */
	struct pg_pipe pipe;    /* pgsql_pipeline.c */
};

struct pg_stmt {
	char *sql;              /* with $n placeholders */
	Oid *types;
	bool types_known;
	bool prepared;          /* exists on the server under `name` */
	uint32_t generation;
	char name[32];
	const char **values;
	int *lengths;
	int *formats;
	unsigned char (*scratch)[8]; /* binary encoding of numeric parameters */
};


static inline struct pg_conn *P(struct lb_db_conn *c)
{
	return c->priv;
}

/* pgsql.c */
bool pg_sqlstate_means_lost(const char *st);
const char *pg_skip_severity(const char *msg);
int pg_lost_error(struct lb_db_conn *c, const char *what);
/* After PQsend*: `ok` is its answer; flushes and starts collecting. */
int pg_sent(struct lb_db_conn *c, int ok);
int pg_flush(struct lb_db_conn *c);

/* pgsql_copy.c */
int pg_copy_send(struct lb_db_conn *c);
int pg_copy_flush(struct lb_db_conn *c);
int pg_copy_queue(struct lb_db_conn *c, const char *data, size_t len);
int pg_copy_start(struct lb_db_conn *c, const char *sql, const char *data, size_t len);
int pg_copy_put(struct lb_db_conn *c, const char *sql, const char *data, size_t len);
int pg_copy_end(struct lb_db_conn *c);
bool pg_is_error(const PGresult *r);
int pg_start_request(struct lb_db_conn *c, int request, struct lb_db_stmt *s);
int pg_send_rollback(struct lb_db_conn *c);
/* Reads and drops the answers due (until_sync: up to a pipeline's sync point, then leaves
 * pipeline mode); blocking, bounded; marks the session broken when it cannot. */
void pg_drain(struct lb_db_conn *c, bool until_sync);
char *pg_rewrite_placeholders(const struct lb_db_stmt *s);
int pg_encode_param(struct lb_db_conn *c, struct pg_stmt *ps, uint32_t i,
		    const struct lb_db_param *p);

/* pgsql_pipeline.c */
int pg_pipeline_begin(struct lb_db_conn *c);
int pg_pipeline_query(struct lb_db_conn *c, const char *sql, size_t len);
int pg_pipeline_execute(struct lb_db_conn *c, struct lb_db_stmt *s);
int pg_pipeline_sync_start(struct lb_db_conn *c);
int pg_pipeline_collect(struct lb_db_conn *c);
int pg_pipeline_fetch_row(struct lb_db_conn *c, uint32_t i, uint64_t rowno, const char **values,
			  uint64_t *lengths);
void pg_pipeline_abort(struct lb_db_conn *c);
void pg_pipeline_results_free(struct lb_db_conn *c);
void pg_pipeline_forget_stmt(struct lb_db_conn *c, struct lb_db_stmt *s);
/* Frees everything of the pipeline state (session closing). */
void pg_pipeline_fini(struct lb_db_conn *c);

/* Its command-line options and their reading (pgsql_options.c). */
extern const struct lb_opt_def lb_pgsql_options[];
void lb_pgsql_read_options(const struct lb_opts *o, struct lb_db_options *out);

/* What the server monitor reads on a PostgreSQL server (pgsql_monitor.c). */
extern const struct lb_db_monitor lb_pgsql_monitor;

#endif
