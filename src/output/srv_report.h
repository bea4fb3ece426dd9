/* Server statistics as output: the key figures derived from the server's counters (the same
 * for PostgreSQL and MariaDB/MySQL where both have them), the final report's block, the JSON
 * objects and the CSV columns. */
#ifndef LB_OUTPUT_SRV_REPORT_H
#define LB_OUTPUT_SRV_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "engine/srvstats.h"

struct cJSON;

/* The key figures of a sample; NAN where the server has no such counter. */
enum lb_srv_key {
	LB_SRV_COMMITS_PER_S,
	LB_SRV_ROLLBACKS_PER_S,
	LB_SRV_CACHE_HIT_PCT,          /* buffer cache / buffer pool hits over requests */
	LB_SRV_DISK_READS_PER_S,       /* blocks/pages the cache missed */
	LB_SRV_ROWS_READ_PER_S,
	LB_SRV_ROWS_INSERTED_PER_S,
	LB_SRV_ROWS_UPDATED_PER_S,
	LB_SRV_ROWS_DELETED_PER_S,
	LB_SRV_LOG_BYTES_PER_S,        /* WAL (PostgreSQL), redo (InnoDB) */
	LB_SRV_LOG_BYTES_PER_TRX,      /* per client transaction (event) */
	LB_SRV_FSYNCS_PER_S,
	LB_SRV_ROW_LOCK_WAITS_PER_S,
	LB_SRV_ROW_LOCK_WAIT_MS_PER_TRX,
	LB_SRV_LOCK_WAITING_SESSIONS,  /* sampled: sessions waiting on a lock */
	LB_SRV_ACTIVE_SESSIONS,        /* sampled: sessions running a statement */
	LB_SRV_DEADLOCKS_PER_S,
	LB_SRV_TEMP_BYTES_PER_S,
	LB_SRV_CHECKPOINTS,
	LB_SRV_NKEYS,
};
/* The JSON/CSV/metric name of each key ("cache_hit_pct"). */
extern const char *const lb_srv_key_names[LB_SRV_NKEYS];

/* transactions: the client's over the same stretch; seconds: its length as the client measured
 * it (the per-second keys are over it: the server's readings span a little more, the start and
 * the end of the run, when the workers do nothing). */
void lb_srv_keys(const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions,
		 double seconds, double keys[LB_SRV_NKEYS]);

/* The final report's block (luabench's additions only). */
void lb_srv_report_block(FILE *out, const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions,
			 double seconds);
/* The JSON object of a sample; the whole run's (`total`) also has the settings, per-second
 * rates and what could not be read. */
struct cJSON *lb_srv_json(const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions,
			    double seconds, bool total);
/* CSV: the server columns' names (each preceded by a comma), and one interval's values. */
void lb_srv_csv_header(FILE *out);
void lb_srv_csv(FILE *out, const struct lb_srvmon *m, const struct lb_srv_sample *s, uint64_t transactions,
		double seconds);

#endif
