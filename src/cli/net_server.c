/* `luabench net-server`: answers the net workload's four modes (doc/workloads/net.md), the way
 * netperf's netserver answers netperf, on --threads threads.
 *
 * Each thread has its own epoll, TCP listener and UDP socket on the same port (SO_REUSEPORT:
 * the kernel spreads connections and datagrams over the threads), so nothing is shared but the
 * totals. A TCP connection starts with a 12-byte hello: "LBN", the mode ('r' request/response,
 * 's' stream, 'c' one exchange), the request size and the response size (big-endian 32-bit).
 * In 'r' mode the server then reads a request of that size and answers with a response of that
 * size, again and again until the client closes (tcp_rr); in 'c' mode it does it once and closes
 * first (tcp_crr: the TIME_WAIT stays here, where it holds no port, as netserver and a web
 * server do; a client closing first keeps one ephemeral port per connection for 60 s, and a
 * few hundred connections/s exhaust them); in 's' mode it reads and discards until the end.
 * A UDP request's first 4 bytes say the response's size. Bounded: --max-connections at once
 * (more are closed at once and counted), a response of at most 64 MiB, --time; stops on
 * SIGINT/SIGTERM. Its command line: cli/net_server_cmd.c. */
#include "cli/net_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/util.h"

#define HELLO_BYTES 12
#define MAX_RESPONSE_BYTES (64u << 20)
#define IO_BYTES (64 * 1024)

enum phase { P_HELLO, P_REQUEST, P_RESPONSE, P_DISCARD };

struct conn {
	int fd;
	enum phase phase;
	unsigned char hello[HELLO_BYTES];
	uint32_t have;                  /* hello bytes so far */
	uint32_t req_bytes, resp_bytes;
	bool once;                      /* 'c': close after the first response */
	uint64_t left;                  /* of the current request or response */
};

struct totals {
	uint64_t accepted, rejected, closed, bytes_in, bytes_out, datagrams_in, datagrams_out, errors;
};

struct server {
	const char *host;
	int port;
	int threads;
	int max_conns;
	int64_t deadline_ns;            /* 0: none */
	volatile sig_atomic_t *stop;
	int live;                       /* connections open now (atomic) */
	struct totals t;                /* atomic adds */
};

struct srv_thread {
	struct server *srv;
	pthread_t th;
	int epfd, lfd, ufd;
	char err[256];
	char buf[IO_BYTES]; /* what is read and dropped, UDP datagrams (not TLS: every thread of the
			     * process would carry it, and workers have small stacks) */
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void add(uint64_t *p, uint64_t n)
{
	__atomic_add_fetch(p, n, __ATOMIC_RELAXED);
}

/* A TCP listener (or UDP socket) on the port; with `share` other sockets of this server may bind
 * it too (SO_REUSEPORT). */
static int bind_socket(const struct server *s, int type, bool share, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = type, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai = NULL;
	char port[16];
	snprintf(port, sizeof(port), "%d", s->port);
	int rc = getaddrinfo(*s->host ? s->host : NULL, port, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "--host=%s: %s", s->host, gai_strerror(rc));
		return -1;
	}
	int fd = socket(ai->ai_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (share)
			setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	}
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 4096) < 0)) {
		snprintf(err, errlen, "cannot listen on %s port %d (%s): %s", *s->host ? s->host : "*", s->port,
			 type == SOCK_STREAM ? "TCP" : "UDP", strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static void close_conn(struct srv_thread *t, struct conn *c)
{
	close(c->fd);
	free(c);
	__atomic_sub_fetch(&t->srv->live, 1, __ATOMIC_RELAXED);
	add(&t->srv->t.closed, 1);
}

static void set_events(struct srv_thread *t, struct conn *c, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = c };
	epoll_ctl(t->epfd, EPOLL_CTL_MOD, c->fd, &e);
}

static void accept_all(struct srv_thread *t)
{
	struct server *s = t->srv;
	for (;;) {
		int fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if (__atomic_add_fetch(&s->live, 1, __ATOMIC_RELAXED) > s->max_conns) {
			__atomic_sub_fetch(&s->live, 1, __ATOMIC_RELAXED);
			add(&s->t.rejected, 1);
			close(fd);
			continue;
		}
		add(&s->t.accepted, 1);
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		struct conn *c = lb_xzalloc(sizeof(*c));
		c->fd = fd;
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = c };
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &e) < 0)
			close_conn(t, c);
	}
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The hello is complete: 0, or -1 (not a client of ours: closed). */
static int start_conn(struct conn *c)
{
	char kind = (char)c->hello[3];
	if (memcmp(c->hello, "LBN", 3) || (kind != 'r' && kind != 's' && kind != 'c'))
		return -1;
	c->req_bytes = be32(c->hello + 4);
	c->resp_bytes = be32(c->hello + 8);
	if (c->resp_bytes > MAX_RESPONSE_BYTES || (kind != 's' && !c->req_bytes))
		return -1;
	c->once = kind == 'c';
	c->phase = c->hello[3] == 's' ? P_DISCARD : P_REQUEST;
	c->left = c->req_bytes;
	return 0;
}

/* Sends what the socket takes of the response: 1 done, 0 wait for EPOLLOUT, -1 closed. */
static int send_response(struct srv_thread *t, struct conn *c)
{
	static const char zeros[IO_BYTES];
	while (c->left) {
		size_t n = c->left < sizeof(zeros) ? (size_t)c->left : sizeof(zeros);
		ssize_t k = send(c->fd, zeros, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0)
			return errno == EAGAIN ? 0 : -1;
		add(&t->srv->t.bytes_out, (uint64_t)k);
		c->left -= (uint64_t)k;
	}
	return 1;
}

/* Reads and answers what arrived: -1 when the connection is over (the client closed, an error,
 * or a 'c' connection's response is sent). */
static int serve_conn(struct srv_thread *t, struct conn *c, uint32_t ev)
{
	char *sink = t->buf;
	if (c->phase == P_RESPONSE) {
		int rc = send_response(t, c);
		if (rc <= 0 || c->once)
			return rc <= 0 ? rc : -1;
		c->phase = P_REQUEST;
		c->left = c->req_bytes;
		set_events(t, c, EPOLLIN);
	}
	(void)ev;
	for (;;) {
		size_t want = c->phase == P_HELLO ? HELLO_BYTES - c->have
			: c->phase == P_REQUEST && c->left < IO_BYTES ? (size_t)c->left : IO_BYTES;
		ssize_t n = recv(c->fd, c->phase == P_HELLO ? (char *)c->hello + c->have : sink, want, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		add(&t->srv->t.bytes_in, (uint64_t)n);
		if (c->phase == P_HELLO) {
			c->have += (uint32_t)n;
			if (c->have == HELLO_BYTES && start_conn(c) < 0) {
				add(&t->srv->t.errors, 1);
				return -1;
			}
			continue;
		}
		if (c->phase == P_DISCARD)
			continue;
		c->left -= (uint64_t)n;
		if (c->left)
			continue;
		c->phase = P_RESPONSE;
		c->left = c->resp_bytes;
		int rc = send_response(t, c);
		if (rc < 0 || (rc > 0 && c->once))
			return -1;
		if (rc == 0) {
			set_events(t, c, EPOLLOUT);
			return 0;
		}
		c->phase = P_REQUEST;
		c->left = c->req_bytes;
	}
}

static void serve_udp(struct srv_thread *t)
{
	char *buf = t->buf;
	for (;;) {
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(t->ufd, buf, IO_BYTES, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
		if (n < 0)
			return;
		add(&t->srv->t.datagrams_in, 1);
		add(&t->srv->t.bytes_in, (uint64_t)n);
		if (n < 4) {
			add(&t->srv->t.errors, 1);
			continue;
		}
		uint32_t resp = be32((unsigned char *)buf);
		if (resp > 65507 || resp > IO_BYTES) {
			add(&t->srv->t.errors, 1);
			continue;
		}
		memset(buf, 0, resp);
		ssize_t k = sendto(t->ufd, buf, resp, MSG_DONTWAIT, (struct sockaddr *)&from, flen);
		if (k >= 0) {
			add(&t->srv->t.datagrams_out, 1);
			add(&t->srv->t.bytes_out, (uint64_t)k);
		}
	}
}

static bool stopping(const struct server *s)
{
	return *s->stop || (s->deadline_ns && lb_now_ns() >= s->deadline_ns);
}

static void *server_thread(void *arg)
{
	struct srv_thread *t = arg;
	struct epoll_event evs[256];
	static const int listener = 0, udp = 1;
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = (void *)&listener };
	epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->lfd, &e);
	e.data.ptr = (void *)&udp;
	epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->ufd, &e);
	while (!stopping(t->srv)) {
		int n = epoll_wait(t->epfd, evs, 256, 200);
		for (int i = 0; i < n; i++) {
			if (evs[i].data.ptr == &listener)
				accept_all(t);
			else if (evs[i].data.ptr == &udp)
				serve_udp(t);
			else if (serve_conn(t, evs[i].data.ptr, evs[i].events) < 0)
				close_conn(t, evs[i].data.ptr);
		}
	}
	return NULL;
}

int lb_net_server_run(const struct lb_net_server_opts *o)
{
	struct server s = { .host = o->host, .port = o->port, .threads = o->threads, .max_conns = o->max_conns,
			    .stop = &stop_flag };
	int rc = 0;
	if (o->time_s)
		s.deadline_ns = lb_now_ns() + o->time_s * LB_NS_PER_S;
	struct rlimit rl; /* --max-connections sockets: the soft limit up to the hard one */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* First without SO_REUSEPORT: a port another server (another net-server too) listens on is
	 * refused, instead of the kernel sharing the clients between the two. */
	char err[256];
	for (int type = SOCK_STREAM; type <= SOCK_DGRAM; type++) {
		int probe = bind_socket(&s, type, false, err, sizeof(err));
		if (probe < 0) {
			fprintf(stderr, "FATAL: net-server: %s\n", err);
			return 1;
		}
		close(probe);
	}
	struct srv_thread *ts = lb_xcalloc((size_t)s.threads, sizeof(*ts));
	int started = 0;
	for (int i = 0; i < s.threads; i++) {
		struct srv_thread *t = &ts[i];
		t->srv = &s;
		t->epfd = epoll_create1(EPOLL_CLOEXEC);
		t->lfd = bind_socket(&s, SOCK_STREAM, true, t->err, sizeof(t->err));
		t->ufd = t->lfd < 0 ? -1 : bind_socket(&s, SOCK_DGRAM, true, t->err, sizeof(t->err));
		if (t->ufd < 0 || pthread_create(&t->th, NULL, server_thread, t)) {
			fprintf(stderr, "FATAL: net-server: %s\n", *t->err ? t->err : "cannot start a thread");
			stop_flag = 1;
			rc = 1;
			break;
		}
		started++;
	}
	if (!rc) {
		printf("net-server: listening on %s port %d (TCP and UDP), %d threads\n", *s.host ? s.host : "*", s.port,
		       s.threads);
		fflush(stdout);
	}
	for (int i = 0; i < started; i++)
		pthread_join(ts[i].th, NULL);
	for (int i = 0; i < s.threads; i++) {
		if (ts[i].lfd > 0)
			close(ts[i].lfd);
		if (ts[i].ufd > 0)
			close(ts[i].ufd);
		if (ts[i].epfd > 0)
			close(ts[i].epfd);
	}
	free(ts);
	if (!rc)
		printf("net-server: stopped: %llu connections (%llu refused over --max-connections, %llu bad hellos), "
		       "%llu bytes received, %llu bytes sent, %llu/%llu datagrams in/out\n",
		       (unsigned long long)s.t.accepted, (unsigned long long)s.t.rejected,
		       (unsigned long long)s.t.errors, (unsigned long long)s.t.bytes_in,
		       (unsigned long long)s.t.bytes_out, (unsigned long long)s.t.datagrams_in,
		       (unsigned long long)s.t.datagrams_out);
	return rc;
}
