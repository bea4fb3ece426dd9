/* Scheduler of a worker's emulated users: a timer heap, a FIFO of runnable users, and one
 * epoll instance for the database sockets users wait on (contract in engine/ffi_engine.h).
 *
 * Every park bumps the user's sequence number; heap entries carry it, so a stale timer (the user
 * was woken by its socket first) is recognised and dropped when it reaches the top of the heap.
 *
 * Registrations belong to descriptors, not users (pooled connections pass from user to user);
 * each descriptor remembers which user waits on it. A statement's socket stays registered
 * (level-triggered) from one statement to the next, so the usual wait costs no system call: the
 * connection carries the registration's tag (lb_db_conn_poll_tag), which the database layer
 * clears whenever the socket may close. Other descriptors (sockets of luabench.socket, helper
 * threads' eventfds, connects, where the library may change sockets) are armed one-shot for
 * each wait. An event nobody waits for drops the descriptor's kept registration, so an idle
 * socket the server closed does not wake the worker again. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "engine/ffi_engine.h"
#include "db/driver.h"
#include "util/clock.h"
#include "engine/engine.h"
#include "util/util.h"
#include "engine/worker.h"

#define MAX_EVENTS 64
#define SLICE_NS (100 * LB_NS_PER_MS) /* re-check the stop flag at least this often */

enum wait_kind { WAIT_NONE, WAIT_TIMER, WAIT_DB, WAIT_PARK, WAIT_READY, WAIT_PAUSE, WAIT_KINDS };

struct timer {
	int64_t wake_ns; /* ns since the run started */
	uint32_t seq;
	int32_t user;
};

struct user_slot {
	uint32_t seq;
	uint8_t kind;      /* enum wait_kind */
	int32_t fd;        /* the socket of the current (or last) WAIT_DB, -1 if none */
	uint32_t bits;     /* WAIT_READY: what to tell the user when it resumes */
	int64_t wake_ns;   /* WAIT_READY after a timer: when it was due (for the lateness) */
};

struct fd_slot {
	int32_t user;    /* the user waiting on it, -1 if none */
	uint32_t events; /* EPOLLIN/EPOLLOUT of the kept registration */
	uint64_t tag;    /* the kept registration (also on the connection); 0 = none kept */
	bool known;      /* registered with epoll, kept or one-shot (as far as we know) */
};

struct lb_user_sched {
	struct lb_worker *w;
	int epfd;
	int nusers;
	struct user_slot *users;
	struct timer *heap;
	int nheap, capheap;
	int32_t *ready; /* ring of nusers entries, FIFO: users are resumed in the order they became runnable */
	int rhead, rcount;
	int nkind[WAIT_KINDS]; /* users in each state */
	struct fd_slot *fds; /* indexed by descriptor */
	int nfd;
	uint64_t last_tag;   /* of kept registrations; starts at the creation time: unique per worker */
	struct epoll_event evs[MAX_EVENTS];
	int nev, iev;
	bool no_pwait2; /* the kernel (or valgrind) lacks epoll_pwait2: millisecond epoll_wait */
};

LB_FFI struct lb_user_sched *lb_user_sched_new(struct lb_worker *w, int nusers)
{
	struct lb_user_sched *s = lb_xzalloc(sizeof(*s));
	s->w = w;
	s->nusers = nusers;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->users = lb_xcalloc((size_t)nusers, sizeof(*s->users));
	for (int i = 0; i < nusers; i++)
		s->users[i].fd = -1;
	s->ready = lb_xcalloc((size_t)nusers, sizeof(int32_t));
	s->nkind[WAIT_NONE] = nusers;
	s->capheap = nusers + 16;
	s->heap = lb_xcalloc((size_t)s->capheap, sizeof(struct timer));
	s->last_tag = (uint64_t)lb_now_ns();
	if (s->epfd < 0) {
		lb_user_sched_free(s);
		return NULL;
	}
	return s;
}

LB_FFI void lb_user_sched_free(struct lb_user_sched *s)
{
	if (!s)
		return;
	if (s->epfd >= 0)
		close(s->epfd);
	free(s->users);
	free(s->ready);
	free(s->heap);
	free(s->fds);
	free(s);
}

/* ---- the timer heap (min-heap on wake_ns) ---------------------------------------------------- */

static void heap_push(struct lb_user_sched *s, int64_t wake_ns, int user)
{
	if (s->nheap == s->capheap) {
		s->capheap *= 2;
		s->heap = lb_xrealloc(s->heap, (size_t)s->capheap * sizeof(struct timer));
	}
	int i = s->nheap++;
	struct timer t = { .wake_ns = wake_ns, .seq = s->users[user].seq, .user = user };
	while (i > 0 && s->heap[(i - 1) / 2].wake_ns > wake_ns) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = t;
}

static struct timer heap_pop(struct lb_user_sched *s)
{
	struct timer top = s->heap[0], last = s->heap[--s->nheap];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && s->heap[c + 1].wake_ns < s->heap[c].wake_ns)
			c++;
		if (s->heap[c].wake_ns >= last.wake_ns)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* ---- parking ---------------------------------------------------------------------------------- */

static void set_kind(struct lb_user_sched *s, struct user_slot *u, enum wait_kind kind)
{
	s->nkind[u->kind]--;
	s->nkind[kind]++;
	u->kind = (uint8_t)kind;
}

static struct user_slot *begin_wait(struct lb_user_sched *s, int user, enum wait_kind kind)
{
	struct user_slot *u = &s->users[user];
	u->seq++;
	set_kind(s, u, kind);
	return u;
}

/* Queues a user to be resumed with `bits`; wake_ns > 0 when it was a timer due then. */
static void make_ready(struct lb_user_sched *s, int user, uint32_t bits, int64_t wake_ns)
{
	struct user_slot *u = &s->users[user];
	set_kind(s, u, WAIT_READY);
	u->bits = bits;
	u->wake_ns = wake_ns;
	s->ready[(s->rhead + s->rcount++) % s->nusers] = user;
}

LB_FFI void lb_user_sched_sleep(struct lb_user_sched *s, int user, double wake_ns)
{
	begin_wait(s, user, WAIT_TIMER);
	heap_push(s, (int64_t)wake_ns, user);
}

LB_FFI void lb_user_sched_pause(struct lb_user_sched *s, int user, double wake_ns)
{
	begin_wait(s, user, WAIT_PAUSE);
	heap_push(s, (int64_t)wake_ns, user);
}

LB_FFI void lb_user_sched_park(struct lb_user_sched *s, int user)
{
	begin_wait(s, user, WAIT_PARK);
}

LB_FFI void lb_user_sched_ready(struct lb_user_sched *s, int user)
{
	s->users[user].seq++;
	make_ready(s, user, 0, 0);
}

LB_FFI int lb_user_sched_waiting(struct lb_user_sched *s, int user)
{
	return s->users[user].kind != WAIT_NONE;
}

static struct fd_slot *fd_slot(struct lb_user_sched *s, int fd)
{
	if (fd >= s->nfd) {
		int n = fd + 64;
		s->fds = lb_xrealloc(s->fds, (size_t)n * sizeof(*s->fds));
		for (int i = s->nfd; i < n; i++)
			s->fds[i] = (struct fd_slot){ .user = -1 };
		s->nfd = n;
	}
	return &s->fds[fd];
}

static uint32_t epoll_events(uint32_t wait_bits)
{
	return ((wait_bits & LB_DB_WAIT_READ) ? EPOLLIN : 0u) | ((wait_bits & LB_DB_WAIT_WRITE) ? EPOLLOUT : 0u);
}

/* Registers fd for `events` (one-shot or kept), adding it if epoll doesn't know it (a socket
 * that was closed and reopened under the same number left epoll silently). */
static int register_fd(struct lb_user_sched *s, int fd, uint32_t events)
{
	struct fd_slot *f = fd_slot(s, fd);
	struct epoll_event ev = { .events = events, .data.u32 = (uint32_t)fd };
	int rc = epoll_ctl(s->epfd, f->known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
	if (rc < 0 && errno == ENOENT)
		rc = epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
	else if (rc < 0 && errno == EEXIST)
		rc = epoll_ctl(s->epfd, EPOLL_CTL_MOD, fd, &ev);
	f->known = rc == 0;
	f->tag = 0;
	f->events = 0;
	return rc;
}

/* Ready to wait on fd for `events`: its kept registration when the connection (c) or the
 * socket (its tag word, sock_tag) carries it (no system call), else a new one, kept if the
 * connection allows it (a socket's always), one-shot otherwise. A tag names one registration:
 * a socket closed and another opened under its number has a tag that no longer matches. */
static int arm_fd(struct lb_user_sched *s, int fd, uint32_t events, struct lb_db_conn *c, uint64_t *sock_tag)
{
	struct fd_slot *f = fd_slot(s, fd);
	uint64_t tag = c ? lb_db_conn_poll_tag(c) : sock_tag ? *sock_tag : 0;
	if (tag && tag == f->tag && events == f->events)
		return 0;
	bool keep = c ? lb_db_conn_set_poll_tag(c, 0) == 0 : sock_tag != NULL;
	if (sock_tag)
		*sock_tag = 0;
	if (register_fd(s, fd, keep ? events : EPOLLONESHOT | events) < 0)
		return -1;
	if (keep) {
		f->tag = ++s->last_tag;
		f->events = events;
		if (c)
			lb_db_conn_set_poll_tag(c, f->tag);
		else
			*sock_tag = f->tag;
	}
	return 0;
}

/* Parks `user` on fd; 0, or -1 when fd cannot be polled (the user is then runnable at once). */
static int wait_on(struct lb_user_sched *s, int user, int fd, uint32_t wait_bits, struct lb_db_conn *c,
		   uint64_t *sock_tag)
{
	struct user_slot *u = begin_wait(s, user, WAIT_DB);
	if (arm_fd(s, fd, epoll_events(wait_bits), c, sock_tag) < 0) {
		/* Unpollable (should not happen with sockets): let the caller step at once. */
		make_ready(s, user, LB_DB_WAIT_READ | LB_DB_WAIT_WRITE, 0);
		return -1;
	}
	u->fd = fd;
	s->fds[fd].user = user;
	return 0;
}

LB_FFI int lb_user_sched_wait_db(struct lb_user_sched *s, int user, struct lb_db_conn *c)
{
	struct lb_db_wait wi;
	lb_db_conn_wait_info(c, &wi);
	if (wi.fd < 0)
		return -1;
	if (wait_on(s, user, wi.fd, wi.events, c, NULL) == 0 && wi.deadline_ns)
		heap_push(s, wi.deadline_ns - s->w->eng->epoch_ns, user);
	return 0;
}

LB_FFI int lb_user_sched_wait_fd(struct lb_user_sched *s, int user, int fd, uint32_t events, double deadline_ns,
				  uint64_t *poll_tag)
{
	if (fd < 0)
		return -1;
	if (wait_on(s, user, fd, events, NULL, poll_tag) == 0 && deadline_ns > 0)
		heap_push(s, (int64_t)deadline_ns, user);
	return 0;
}

/* The wait on fd is over (its user woken, or gone): a one-shot registration is disarmed, so a
 * late answer wakes nobody; a kept one stays (an event nobody waits for drops it). */
static void end_wait_on(struct lb_user_sched *s, int fd)
{
	struct fd_slot *f = &s->fds[fd];
	f->user = -1;
	if (!f->tag && f->known) {
		struct epoll_event ev = { .events = EPOLLONESHOT, .data.u32 = (uint32_t)fd };
		epoll_ctl(s->epfd, EPOLL_CTL_MOD, fd, &ev);
	}
}

/* ---- choosing the next user ---------------------------------------------------------------- */

static uint32_t readiness(uint32_t ev)
{
	uint32_t bits = 0;
	if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
		bits |= LB_DB_WAIT_READ;
	if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
		bits |= LB_DB_WAIT_WRITE;
	return bits;
}

/* Makes runnable every user whose socket is ready (buffered epoll events). */
static void promote_events(struct lb_user_sched *s)
{
	for (; s->iev < s->nev; s->iev++) {
		struct epoll_event *ev = &s->evs[s->iev];
		int fd = (int)ev->data.u32;
		if (fd < 0 || fd >= s->nfd)
			continue;
		struct fd_slot *f = &s->fds[fd];
		int user = f->user;
		if (user >= 0 && s->users[user].kind == WAIT_DB && s->users[user].fd == fd) {
			f->user = -1;
			make_ready(s, user, readiness(ev->events), 0);
		} else if (f->tag) {
			/* A kept registration nobody waits on (an idle socket the server closed, a late
			 * answer to an abandoned statement): dropped; the next wait registers again. */
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, NULL);
			*f = (struct fd_slot){ .user = -1 };
		}
	}
}

/* Makes runnable every user whose timer is due: think time over, or a statement's deadline
 * passed. While draining (the run is over) think timers are left alone: those users are between
 * interactions and stop there; pauses (inside an event) still end. */
static void promote_timers(struct lb_user_sched *s, int64_t now, bool draining)
{
	while (s->nheap && s->heap[0].wake_ns <= now) {
		struct timer t = heap_pop(s);
		struct user_slot *u = &s->users[t.user];
		if (t.seq != u->seq)
			continue; /* stale: the user was woken another way since */
		if ((u->kind == WAIT_TIMER && !draining) || u->kind == WAIT_PAUSE) {
			make_ready(s, t.user, 0, t.wake_ns);
		} else if (u->kind == WAIT_DB) {
			end_wait_on(s, u->fd); /* the statement is abandoned */
			make_ready(s, t.user, LB_DB_WAIT_TIMEOUT, 0);
		}
	}
}

static int pop_ready(struct lb_user_sched *s, int64_t now, uint32_t *bits)
{
	int user = s->ready[s->rhead];
	s->rhead = (s->rhead + 1) % s->nusers;
	s->rcount--;
	struct user_slot *u = &s->users[user];
	set_kind(s, u, WAIT_NONE);
	*bits = u->bits;
	/* Lateness is measured when the user really runs, queueing behind others included. */
	if (u->wake_ns)
		lb_hist_record(&s->w->stats.wake, (uint64_t)(now > u->wake_ns ? now - u->wake_ns : 0));
	return user;
}

static void wait_events(struct lb_user_sched *s, int64_t now, int64_t until)
{
	int64_t wait = until - now;
	if (s->nheap && s->heap[0].wake_ns - now < wait)
		wait = s->heap[0].wake_ns - now;
	if (wait > SLICE_NS)
		wait = SLICE_NS;
	if (wait < 0)
		wait = 0;
	int n = -1;
	if (!s->no_pwait2) {
		/* epoll_pwait2 takes a nanosecond timeout: think-time wake-ups are not rounded to ms. */
		struct timespec ts = lb_ns_to_timespec(wait);
		n = epoll_pwait2(s->epfd, s->evs, MAX_EVENTS, &ts, NULL);
		s->no_pwait2 = n < 0 && errno == ENOSYS;
	}
	if (s->no_pwait2) /* before Linux 5.11: rounded up, so a timer is never woken early */
		n = epoll_wait(s->epfd, s->evs, MAX_EVENTS, (int)((wait + LB_NS_PER_MS - 1) / LB_NS_PER_MS));
	s->nev = n > 0 ? n : 0;
	s->iev = 0;
}

/* After the time limit the worker drains: users in the middle of a statement (or waiting for a
 * pool connection) are resumed until their event ends, so work the server committed is counted,
 * as a thread's last event is in sysbench mode; no new event starts (lb_user_event_next), and
 * nothing waits longer than --end-grace. A shutdown (signal, fatal error) stops at once. */
LB_FFI int lb_user_sched_next(struct lb_user_sched *s, uint32_t *bits)
{
	struct lb_engine *e = s->w->eng;
	for (;;) {
		int64_t now = lb_now_ns() - e->epoch_ns;
		bool draining = now >= e->deadline_ns;
		if (__atomic_load_n(&e->stop, __ATOMIC_RELAXED) ||
		    (draining && now >= e->deadline_ns + e->session.cfg.end_grace_ns)) {
			/* users still waiting for the server, or for a connection, are cut off */
			lb_worker_cut_off(s->w, (uint32_t)(s->nkind[WAIT_DB] + s->nkind[WAIT_PARK] +
							   s->nkind[WAIT_PAUSE]));
			return -1;
		}
		promote_timers(s, now, draining);
		promote_events(s);
		if (s->rcount)
			return pop_ready(s, now, bits);
		if (draining && !s->nkind[WAIT_DB] && !s->nkind[WAIT_PARK] && !s->nkind[WAIT_PAUSE])
			return -1;
		wait_events(s, now, draining ? e->deadline_ns + e->session.cfg.end_grace_ns : e->deadline_ns);
	}
}
