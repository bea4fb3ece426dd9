/* The hot path of the database layer does not allocate: after a warm-up, queries, prepared
 * executions (server-side and emulated), row fetches and bulk rows run without a single
 * malloc/calloc/realloc in our code. Uses the null driver, so every allocation counted here is
 * ours; linked with -Wl,--wrap so the counters see the static library's calls too. Also
 * checks that the round-robin cursor is exact when threads connect concurrently. */
#include <pthread.h>
#include <stdatomic.h>

#include "dbtest.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

static atomic_long allocations;

void *__wrap_malloc(size_t n)
{
	atomic_fetch_add(&allocations, 1);
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	atomic_fetch_add(&allocations, 1);
	return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	atomic_fetch_add(&allocations, 1);
	return __real_realloc(p, n);
}

static void one_round(struct lb_db_conn *c, struct lb_db_stmt *ps, struct lb_db_stmt *emu,
		      int i)
{
	struct lb_db_result r;
	struct lb_db_row row;
	char bulk_row[32];
	int n = snprintf(bulk_row, sizeof(bulk_row), "(%d,'x')", i);

	lb_db_query(c, "SELECT 1", 8, &r);
	while (lb_db_fetch_row(c, &row) == 1)
		;
	lb_db_execute(ps, &r);
	lb_db_execute(emu, &r);
	lb_db_bulk_insert_next(c, bulk_row, (uint64_t)n, &r);
}

static void test_no_allocations(void)
{
	struct lb_db_options o = { .bulk_packet_bytes = 4096 };
	struct lb_db_config *cfg = NULL, *ecfg = NULL;
	struct lb_db_stmt *ps, *emu;
	static char text[300];
	struct lb_db_param p[2] = {
		{ .type = LB_DB_TYPE_BIGINT, .i64 = 7 },
		{ .type = LB_DB_TYPE_VARCHAR, .str = text, .len = sizeof(text) - 1 },
	};

	memset(text, '\'', sizeof(text) - 1); /* worst case for escaping */
	lb_db_config_new(lb_db_find_driver("null"), &o, &cfg, NULL, 0);
	struct lb_db_conn *c = lb_db_conn_new(cfg);
	lb_db_connect(c);
	lb_db_prepare(c, "SELECT * FROM t WHERE a = ? AND b = ?", 37, &ps);
	lb_db_stmt_bind(ps, p, 2);
	o.ps_mode = LB_DB_PS_DISABLE;
	lb_db_config_new(lb_db_find_driver("null"), &o, &ecfg, NULL, 0);
	struct lb_db_conn *ec = lb_db_conn_new(ecfg);
	lb_db_connect(ec);
	lb_db_prepare(ec, "SELECT * FROM t WHERE a = ? AND b = ?", 37, &emu);
	lb_db_stmt_bind(emu, p, 2);
	lb_db_bulk_insert_init(c, "INSERT INTO t VALUES", 20);

	for (int i = 0; i < 100; i++) /* warm-up: buffers reach their working size */
		one_round(c, ps, emu, i);
	long before = atomic_load(&allocations);
	for (int i = 0; i < 10000; i++) {
		p[0].i64 = i;
		one_round(c, ps, emu, i);
	}
	is_int(atomic_load(&allocations) - before, 0,
	       "no allocation in 10000 rounds of query/fetch/execute/emulate/bulk row");
	lb_db_bulk_insert_done(c, NULL);
	lb_db_stmt_free(ps);
	lb_db_stmt_free(emu);
	lb_db_conn_free(c);
	lb_db_conn_free(ec);
	lb_db_config_free(cfg);
	lb_db_config_free(ecfg);
}

#define THREADS 4
#define CONNECTS 250

static struct lb_db_config *rr_cfg;
static atomic_int per_port[5];

static void *connector(void *arg)
{
	for (int i = 0; i < CONNECTS; i++) {
		struct lb_db_conn *c = lb_db_conn_new(rr_cfg);
		lb_db_connect(c);
		int port = atoi(strchr(lb_db_conn_endpoint(c), ':') + 1);
		atomic_fetch_add(&per_port[port], 1);
		lb_db_conn_free(c);
	}
	return arg;
}

static void test_round_robin_threads(void)
{
	struct lb_db_options o = { .hosts = "h", .ports = "1,2,3,4" };
	pthread_t t[THREADS];

	lb_db_config_new(lb_db_find_driver("null"), &o, &rr_cfg, NULL, 0);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, connector, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int port = 1; port <= 4; port++)
		is_int(atomic_load(&per_port[port]), THREADS * CONNECTS / 4,
		       "endpoint h:%d got an exact share", port);
	lb_db_config_free(rr_cfg);
}

int main(void)
{
	test_no_allocations();
	test_round_robin_threads();
	return done_testing();
}
