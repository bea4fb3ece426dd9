/* ODBC calls block. For a caller that runs other work meanwhile (emulated users, see
 * lb_db_conn_set_offload()), or that gives statements a read timeout, each call of a connection runs on a helper thread of that
 * connection, and an eventfd is the descriptor to wait on: start returns LB_DB_PENDING, the
 * eventfd becomes readable when the call is over, step collects its outcome. One thread per
 * connection: with --users the connections are few (--connections), and two calls of one
 * connection never overlap. psqlODBC and MariaDB Connector/ODBC have no working asynchronous
 * mode with notification (SQL_ATTR_ASYNC_ENABLE polls, or is refused), so this is the way. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "odbc_int.h"

struct odbc_io {
	struct lb_db_conn *conn;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int efd;
	int (*job)(struct lb_db_conn *c); /* in flight; NULL when idle */
	bool done;
	bool quit;
	int rc;
};

static void *io_thread(void *arg)
{
	struct odbc_io *io = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&io->lock);
	for (;;) {
		while (!io->quit && (!io->job || io->done))
			pthread_cond_wait(&io->cond, &io->lock);
		if (io->quit)
			break;
		int (*job)(struct lb_db_conn *) = io->job;
		pthread_mutex_unlock(&io->lock);
		int rc = job(io->conn);
		pthread_mutex_lock(&io->lock);
		io->rc = rc;
		io->done = true;
		pthread_cond_broadcast(&io->cond);
		while (write(io->efd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
	}
	pthread_mutex_unlock(&io->lock);
	return NULL;
}

static struct odbc_io *io_start(struct lb_db_conn *c)
{
	struct odbc_io *io = lb_xzalloc(sizeof(*io));
	pthread_attr_t attr;

	io->conn = c;
	io->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (io->efd < 0) {
		free(io);
		return NULL;
	}
	pthread_mutex_init(&io->lock, NULL);
	pthread_cond_init(&io->cond, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)c->ops->thread_stack_bytes);
	if (pthread_create(&io->thread, &attr, io_thread, io) != 0) {
		pthread_attr_destroy(&attr);
		close(io->efd);
		pthread_mutex_destroy(&io->lock);
		pthread_cond_destroy(&io->cond);
		free(io);
		return NULL;
	}
	pthread_attr_destroy(&attr);
	return io;
}

int lb_odbc_offload(struct lb_db_conn *c, int (*job)(struct lb_db_conn *c), int64_t deadline_ns)
{
	struct odbc_conn *p = O(c);

	/* A read timeout needs a helper too: SQL_ATTR_QUERY_TIMEOUT counts whole seconds and
	 * leaves a dead server's socket to the kernel, where the native drivers drop the session
	 * at the millisecond. */
	if (!c->offload && !c->cfg->read_timeout_ms)
		return job(c);
	if (!p->io && !(p->io = io_start(c)))
		return job(c); /* no thread or eventfd to spare: block, as without --users */
	pthread_mutex_lock(&p->io->lock);
	p->io->job = job;
	p->io->done = false;
	pthread_cond_broadcast(&p->io->cond);
	pthread_mutex_unlock(&p->io->lock);
	lb_db_set_wait(c, p->io->efd, LB_DB_WAIT_READ, deadline_ns);
	return LB_DB_PENDING;
}

/* Gives up on the call in flight: cancels a statement (SQLCancel may come from another thread),
 * then waits for the helper to return; a connect is waited for (its login timeout ends it). */
static void abandon(struct lb_db_conn *c, struct odbc_io *io)
{
	struct odbc_conn *p = O(c);

	pthread_mutex_lock(&io->lock);
	if (!io->done && p->busy)
		SQLCancel(p->busy);
	while (!io->done)
		pthread_cond_wait(&io->cond, &io->lock);
	pthread_mutex_unlock(&io->lock);
}

int lb_odbc_step(struct lb_db_conn *c, uint32_t ready)
{
	struct odbc_io *io = O(c)->io;
	uint64_t n;
	int rc;

	if (!io || !io->job)
		return lb_db_misuse(c, "no operation in progress");
	if (ready & LB_DB_WAIT_TIMEOUT) {
		bool connecting = c->op == LB_DB_OP_CONNECT;
		abandon(c, io);
	        while (read(io->efd, &n, sizeof(n)) < 0 && errno == EINTR)
			;
		io->job = NULL;
		io->done = false;
		if (connecting) {
			lb_db_set_error(c, 0, "HYT00", false, "odbc: connection failed: timed out "
					"after %u ms", c->cfg->connect_timeout_ms);
			return LB_DB_ECONNECT;
		}
		if (c->cfg->read_timeout_ms)
			lb_db_set_error(c, 0, "HYT00", true, "odbc: no answer within %u ms (read "
					"timeout); connection dropped", c->cfg->read_timeout_ms);
		else
			lb_db_set_error(c, 0, "HYT00", true, "odbc: operation abandoned; connection "
					"dropped");
		return LB_DB_ELOST;
	}
	pthread_mutex_lock(&io->lock);
	if (!io->done) {
		pthread_mutex_unlock(&io->lock);
		return LB_DB_PENDING;
	}
	while (read(io->efd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	rc = io->rc;
	io->job = NULL;
	io->done = false;
	pthread_mutex_unlock(&io->lock);
	return rc;
}

void lb_odbc_io_stop(struct lb_db_conn *c)
{
	struct odbc_io *io = O(c)->io;

	if (!io)
		return;
	pthread_mutex_lock(&io->lock);
	io->quit = true;
	pthread_cond_broadcast(&io->cond);
	pthread_mutex_unlock(&io->lock);
	pthread_join(io->thread, NULL);
	close(io->efd);
	pthread_mutex_destroy(&io->lock);
	pthread_cond_destroy(&io->cond);
	free(io);
	O(c)->io = NULL;
}
