/* Sockets for scripts (luabench.socket, lua/luabench/socket.lua): TCP and connected UDP.
 * An emulated user's socket is non-blocking: the user parks on the scheduler
 * (lb_user_sched_wait_fd) and yields. A thread's socket is blocking, with the script's timeout as
 * SO_SNDTIMEO/SO_RCVTIMEO (set only when it changes): a round trip is then one send and one recv
 * that waits in the kernel, as sockperf or netperf do it, instead of a recv that finds nothing, a
 * poll and a recv again. Every call can still be made without waiting (MSG_DONTWAIT), and the
 * thread polls (lb_sock_wait) when a call needs more than one wait. Received bytes go through a buffer here,
 * so "exactly N bytes" and "until a delimiter" need no Lua string per read, and a response that
 * is only counted (the net workload) is never copied into Lua at all.
 *
 * Bytes sent and received are added to the worker's bytes_written/bytes_read counters, and the
 * run keeps connection counts (lb_engine_ext), so the report says what went over the wire. */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "api/ffi_socket.h"
#include "engine/engine.h"
#include "engine/stats.h"
#include "engine/worker.h"
#include "util/clock.h"
#include "util/util.h"

#define BUF_MIN_BYTES (64 * 1024)
#define BUF_MAX_BYTES (64 * 1024 * 1024) /* one message a script may buffer, at most */

struct lb_sock {
	struct lb_worker *w;
	int fd;
	bool udp;
	bool connecting;
	bool blocking;
	bool reply_pending; /* non-blocking, it sent since it last read: the reply is not there yet */
	uint64_t poll_tag;  /* a user's wait: its kept epoll registration (lb_user_sched_wait_fd) */
	double sndtimeo_ns, rcvtimeo_ns; /* as set on the socket (blocking ones) */
	char *buf;
	size_t cap, head, tail; /* buffered bytes are buf[head..tail) */
};

/* The run's connection counts (every worker's sockets). */
struct sock_run {
	uint64_t opened, connected, failed, closed;
};

static void *sock_run_create(struct lb_engine *e)
{
	(void)e;
	return lb_xzalloc(sizeof(struct sock_run));
}

static const struct lb_ext_kind sock_run_kind = { "sockets", sock_run_create, free };

static struct sock_run *run_of(struct lb_worker *w)
{
	return lb_engine_ext(w->eng, &sock_run_kind);
}

LB_FFI void lb_sock_counts(struct lb_worker *w, uint64_t *out4)
{
	struct sock_run *r = run_of(w);
	out4[0] = __atomic_load_n(&r->opened, __ATOMIC_RELAXED);
	out4[1] = __atomic_load_n(&r->connected, __ATOMIC_RELAXED);
	out4[2] = __atomic_load_n(&r->failed, __ATOMIC_RELAXED);
	out4[3] = __atomic_load_n(&r->closed, __ATOMIC_RELAXED);
}

LB_FFI const char *lb_sock_strerror(int err)
{
	return strerror(err < 0 ? -err : err);
}

/* Thousands of emulated users hold as many sockets: the soft limit on open files (often 1024)
 * goes up to the hard one, once per process. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Sets SO_SNDTIMEO or SO_RCVTIMEO to ns (at least 1 us: 0 would mean no limit). */
static int set_timeout(int fd, int opt, double ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / 1e9), .tv_usec = (suseconds_t)(fmod(ns, 1e9) / 1e3) };
	if (!tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1;
	return setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv));
}

/* A blocking socket waits up to ns in its next call (opt: SO_SNDTIMEO or SO_RCVTIMEO); false
 * if it cannot (non-blocking, or ns too short to say: the caller polls). */
static bool will_wait(struct lb_sock *s, int opt, double ns)
{
	if (!s->blocking || ns < 1e3)
		return false;
	double *now = opt == SO_SNDTIMEO ? &s->sndtimeo_ns : &s->rcvtimeo_ns;
	if (*now != ns) {
		if (set_timeout(s->fd, opt, ns) < 0)
			return false;
		*now = ns;
	}
	return true;
}

/* A blocking connect with SO_SNDTIMEO (which Linux applies to connect too): -errno, -ETIMEDOUT
 * when the timeout passed, -EINPROGRESS when a signal cut the wait short (the handshake goes
 * on: the caller polls). */
static int connect_blocking(struct lb_sock *s, const struct addrinfo *ai, double timeout_ns)
{
	if (set_timeout(s->fd, SO_SNDTIMEO, timeout_ns) < 0)
		return -errno;
	s->sndtimeo_ns = timeout_ns;
	if (connect(s->fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return 0;
	return errno == EINPROGRESS || errno == EAGAIN ? -ETIMEDOUT : errno == EINTR ? -EINPROGRESS : -errno;
}

LB_FFI struct lb_sock *lb_sock_open(struct lb_worker *w, const char *host, int port, int udp, double timeout_ns,
				    char *err, int errlen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, raise_nofile);
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM };
	struct addrinfo *ai = NULL;
	char service[16];
	snprintf(service, sizeof(service), "%d", port);
	int rc = getaddrinfo(host, service, &hints, &ai);
	if (rc) {
		snprintf(err, (size_t)errlen, "%s", rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return NULL;
	}
	bool blocking = timeout_ns >= 1e3;
	int fd = socket(ai->ai_family, ai->ai_socktype | (blocking ? 0 : SOCK_NONBLOCK) | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, (size_t)errlen, "%s", strerror(errno));
		freeaddrinfo(ai);
		return NULL;
	}
	if (!udp) {
		int one = 1; /* requests and responses are whole messages: no Nagle delay */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	struct sock_run *r = run_of(w);
	__atomic_add_fetch(&r->opened, 1, __ATOMIC_RELAXED);
	struct lb_sock *s = lb_xzalloc(sizeof(*s));
	s->w = w;
	s->fd = fd;
	s->udp = udp;
	s->blocking = blocking;
	if (blocking) {
		rc = connect_blocking(s, ai, timeout_ns);
	} else {
		rc = connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 ? -errno : 0;
	}
	freeaddrinfo(ai);
	if (rc < 0 && rc != -EINPROGRESS) {
		if (rc == -ETIMEDOUT)
			snprintf(err, (size_t)errlen, "timed out after %g s", timeout_ns / 1e9);
		else
			snprintf(err, (size_t)errlen, "%s", strerror(-rc));
		__atomic_add_fetch(&r->failed, 1, __ATOMIC_RELAXED);
		lb_sock_close(s);
		return NULL;
	}
	s->connecting = rc < 0;
	if (!s->connecting)
		__atomic_add_fetch(&r->connected, 1, __ATOMIC_RELAXED);
	return s;
}

LB_FFI int lb_sock_fd(struct lb_sock *s)
{
	return s->fd;
}

LB_FFI uint64_t *lb_sock_poll_tag(struct lb_sock *s)
{
	return &s->poll_tag;
}

LB_FFI int lb_sock_connected(struct lb_sock *s)
{
	if (!s->connecting)
		return 0;
	int soerr = 0;
	socklen_t len = sizeof(soerr);
	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		soerr = errno;
	if (soerr == 0) {
		/* SO_ERROR is 0 while the handshake is still going too: ask whether a peer exists. */
		struct sockaddr_storage peer;
		socklen_t plen = sizeof(peer);
		if (getpeername(s->fd, (struct sockaddr *)&peer, &plen) < 0)
			return errno == ENOTCONN ? -EINPROGRESS : -errno;
		s->connecting = false;
		__atomic_add_fetch(&run_of(s->w)->connected, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (soerr == EINPROGRESS || soerr == EALREADY)
		return -EINPROGRESS;
	__atomic_add_fetch(&run_of(s->w)->failed, 1, __ATOMIC_RELAXED);
	return -soerr;
}

/* A send's result n as the FFI says it (wait: the call could wait in the kernel, so EAGAIN
 * means its timeout passed); counts what went. */
static inline double sent(struct lb_sock *s, ssize_t n, bool wait)
{
	if (n < 0)
		return wait && (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : -errno;
	lb_counter_add(s->w, LB_CNT_BYTES_WRITTEN, (uint64_t)n);
	s->reply_pending = !s->blocking;
	return (double)n;
}

LB_FFI double lb_sock_send(struct lb_sock *s, const char *data, size_t len, double wait_ns)
{
	bool wait = will_wait(s, SO_SNDTIMEO, wait_ns);
	return sent(s, send(s->fd, data, len, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT)), wait);
}

/* The same bytes again and again (the net workload's requests: only their size matters). */
LB_FFI double lb_sock_send_zeros(struct lb_sock *s, size_t len, double wait_ns)
{
	static const char zeros[64 * 1024];
	return lb_sock_send(s, zeros, len < sizeof(zeros) ? len : sizeof(zeros), wait_ns);
}

/* n in decimal, ending at end (20 characters at most): where it starts. */
static char *decimal(int64_t n, char *end)
{
	uint64_t u = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
	char *p = end;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (n < 0)
		*--p = '-';
	return p;
}

/* The pieces (numbers written into digits) but their first skip bytes as iovecs: how many;
 * *total gets the length of all of them. */
static int pieces_iov(const struct lb_sock_piece *pieces, int n, size_t skip, struct iovec *iov,
		      char (*digits)[24], size_t *total)
{
	int k = 0;
	*total = 0;
	for (int i = 0; i < n; i++) {
		const char *p = pieces[i].data;
		size_t len = pieces[i].len;
		if (!p) {
			char *end = digits[i] + sizeof(digits[i]);
			p = decimal(pieces[i].num, end);
			len = (size_t)(end - p);
		}
		*total += len;
		if (skip >= len) {
			skip -= len;
			continue;
		}
		iov[k].iov_base = (void *)(p + skip);
		iov[k].iov_len = len - skip;
		k++;
		skip = 0;
	}
	return k;
}

LB_FFI double lb_sock_sendv(struct lb_sock *s, const struct lb_sock_piece *pieces, int n, double skip_bytes,
			    double wait_ns, double *total_bytes)
{
	if (n < 1 || n > LB_SOCK_MAX_PIECES)
		return -EINVAL;
	struct iovec iov[LB_SOCK_MAX_PIECES];
	char digits[LB_SOCK_MAX_PIECES][24];
	size_t total;
	int k = pieces_iov(pieces, n, skip_bytes > 0 ? (size_t)skip_bytes : 0, iov, digits, &total);
	*total_bytes = (double)total;
	if (!k)
		return 0;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)k };
	bool wait = will_wait(s, SO_SNDTIMEO, wait_ns);
	return sent(s, sendmsg(s->fd, &msg, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT)), wait);
}

static void make_room(struct lb_sock *s)
{
	if (s->head == s->tail)
		s->head = s->tail = 0;
	if (s->cap - s->tail >= BUF_MIN_BYTES / 2)
		return;
	if (s->head) {
		memmove(s->buf, s->buf + s->head, s->tail - s->head);
		s->tail -= s->head;
		s->head = 0;
	}
	if (s->cap - s->tail < BUF_MIN_BYTES / 2 && s->cap < BUF_MAX_BYTES) {
		s->cap = s->cap ? s->cap * 2 : BUF_MIN_BYTES;
		s->buf = lb_xrealloc(s->buf, s->cap);
	}
}

LB_FFI double lb_sock_fill(struct lb_sock *s, double wait_ns)
{
	make_room(s);
	if (s->cap == s->tail)
		return -ENOBUFS; /* a message larger than the buffer's limit, never taken */
	if (s->reply_pending) {
		/* A request just went: its reply needs the server's turn first, so a recv now would
		 * almost always find nothing (one system call wasted per round trip). The caller
		 * waits for the socket instead, as an event loop client does, then calls again. */
		s->reply_pending = false;
		return -EAGAIN;
	}
	bool wait = will_wait(s, SO_RCVTIMEO, wait_ns);
	ssize_t n = recv(s->fd, s->buf + s->tail, s->cap - s->tail, wait ? 0 : MSG_DONTWAIT);
	if (n < 0)
		return wait && (errno == EAGAIN || errno == EWOULDBLOCK) ? -ETIMEDOUT : -errno;
	s->tail += (size_t)n;
	lb_counter_add(s->w, LB_CNT_BYTES_READ, (uint64_t)n);
	return (double)n;
}

LB_FFI double lb_sock_buffered(struct lb_sock *s)
{
	return (double)(s->tail - s->head);
}

LB_FFI const char *lb_sock_peek(struct lb_sock *s)
{
	return s->buf ? s->buf + s->head : "";
}

LB_FFI double lb_sock_find(struct lb_sock *s, const char *delim, size_t dlen)
{
	if (!dlen || s->tail - s->head < dlen)
		return -1;
	const char *p = memmem(s->buf + s->head, s->tail - s->head, delim, dlen);
	return p ? (double)(p - (s->buf + s->head) + (ptrdiff_t)dlen) : -1;
}

LB_FFI double lb_sock_consume(struct lb_sock *s, double n)
{
	size_t have = s->tail - s->head, take = n < (double)have ? (size_t)n : have;
	s->head += take;
	return (double)take;
}

LB_FFI int lb_sock_skip_if(struct lb_sock *s, const char *p, size_t len)
{
	size_t have = s->tail - s->head;
	if (memcmp(s->buf ? s->buf + s->head : "", p, have < len ? have : len))
		return -1;
	if (have < len)
		return 0;
	s->head += len;
	return 1;
}

LB_FFI int lb_sock_wait(struct lb_sock *s, uint32_t events, double timeout_ns)
{
	struct pollfd p = { .fd = s->fd, .events = (short)(((events & LB_SOCK_READ) ? POLLIN : 0) |
							     ((events & LB_SOCK_WRITE) ? POLLOUT : 0)) };
	int ms = timeout_ns < 0 ? -1 : timeout_ns > 1e12 ? 1000000 : (int)((timeout_ns + 999999) / 1e6);
	int rc = poll(&p, 1, ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	if (rc == 0)
		return 0;
	uint32_t bits = 0;
	if (p.revents & (POLLIN | POLLERR | POLLHUP))
		bits |= LB_SOCK_READ;
	if (p.revents & (POLLOUT | POLLERR | POLLHUP))
		bits |= LB_SOCK_WRITE;
	return (int)bits;
}

LB_FFI void lb_sock_close(struct lb_sock *s)
{
	if (!s)
		return;
	if (s->fd >= 0) {
		close(s->fd);
		__atomic_add_fetch(&run_of(s->w)->closed, 1, __ATOMIC_RELAXED);
	}
	free(s->buf);
	free(s);
}
