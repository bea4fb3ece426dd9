/* The engine's part of the FFI surface for emulated users (--users), apart from ffi_engine.h
 * (which includes it for C) so that only the Lua states that run users parse it: the cdef
 * module luabench.cdef_users, loaded by luabench.users. */
#ifndef LB_ENGINE_FFI_USERS_H
#define LB_ENGINE_FFI_USERS_H

#ifndef LB_CDEF
#include "engine/ffi_engine.h"
#else
#define LB_FFI
#endif

struct lb_worker;
struct lb_db_conn;

/* ---- emulated users (user_sched.c, worker.c) ---------------------------------------------------
 * With --users, each worker runs its users as Lua coroutines. A user parks itself here before
 * yielding (on a timer, on a database socket, or on nothing until lb_user_sched_ready), and the
 * worker's loop asks lb_user_sched_next() whom to resume; that call blocks in epoll until a timer
 * is due or a socket is ready. One scheduler per worker, used by that worker's thread only. */
struct lb_user_sched;

LB_FFI struct lb_user_sched *lb_user_sched_new(struct lb_worker *w, int nusers);
LB_FFI void lb_user_sched_free(struct lb_user_sched *s);
/* Wakes `user` (0..nusers-1 on this worker) at wake_ns (ns since the run started). */
LB_FFI void lb_user_sched_sleep(struct lb_user_sched *s, int user, double wake_ns);
/* The same inside an event (luabench.pause: client-side work): after the time limit it still
 * wakes, as a statement in flight completes, so the event can end (within --end-grace). */
LB_FFI void lb_user_sched_pause(struct lb_user_sched *s, int user, double wake_ns);
/* Wakes `user` when connection c's operation in flight can progress, or at its deadline
 * (then with LB_DB_WAIT_TIMEOUT). Returns 0, or -1 if the connection has nothing in flight. */
LB_FFI int lb_user_sched_wait_db(struct lb_user_sched *s, int user, struct lb_db_conn *c);
/* Wakes `user` when socket fd is ready for `events` (1 read, 2 write; LB_DB_WAIT_* bits), or at
 * deadline_ns (ns since the run started; <= 0: none), then with LB_DB_WAIT_TIMEOUT. poll_tag:
 * NULL, or the socket's word (0 at first) naming its registration, which is then kept from one
 * wait to the next (no epoll_ctl per wait) until the socket is closed. */
LB_FFI int lb_user_sched_wait_fd(struct lb_user_sched *s, int user, int fd, uint32_t events, double deadline_ns,
				 uint64_t *poll_tag);
/* Parks `user` without a wake-up of its own (lb_user_sched_ready will wake it). */
LB_FFI void lb_user_sched_park(struct lb_user_sched *s, int user);
LB_FFI void lb_user_sched_ready(struct lb_user_sched *s, int user);
/* Whether `user` is parked on something (a yield without a wait would lose the user). */
LB_FFI int lb_user_sched_waiting(struct lb_user_sched *s, int user);
/* The next user to resume; *bits = database readiness (LB_DB_WAIT_*), 0 for other wake-ups.
 * Returns -1 when the run is over (time or event limit, shutdown): nobody is resumed again. */
LB_FFI int lb_user_sched_next(struct lb_user_sched *s, uint32_t *bits);

/* All users, and the global id of this worker's i-th user (lb_users_here: ffi_engine.h). */
LB_FFI int lb_users_total(struct lb_worker *w);
LB_FFI int lb_users_global_id(struct lb_worker *w, int i);
/* When global user `uid` starts, in ns since the run started (--ramp-up). */
LB_FFI double lb_users_start_ns(struct lb_worker *w, int uid);
/* Physical connections this worker's pool may open (--connections split over the workers). */
LB_FFI int lb_users_pool_size(struct lb_worker *w);
/* lb_event_next for users: the previous event's latency excludes excluded_ns (think time spent
 * inside it); the worker's concurrency counts users inside an event. */
LB_FFI double lb_user_event_next(struct lb_worker *w, double prev_start_ns, double excluded_ns);

#endif
