/* Part of the FFI surface (see ffi.h): sockets for scripts. Parsed only by the Lua states that load luabench.socket. */
#ifndef LB_API_FFI_SOCKET_H
#define LB_API_FFI_SOCKET_H

#ifndef LB_CDEF
#include "api/ffi.h"
#else
#define LB_FFI
#endif

struct lb_worker;

/* ---- sockets for scripts: luabench.socket (socket.c) --------------------------------------
 * TCP or connected UDP. Functions return >= 0, or -errno (lb_sock_strerror says it in words).
 * A call given wait_ns >= 1000 on a thread's (blocking) socket waits in the kernel up to that
 * long (-ETIMEDOUT when nothing came); otherwise, and on a user's (non-blocking) socket, it does
 * what it can now: -EAGAIN/-EINPROGRESS mean: wait for the socket (lb_sock_wait in a thread,
 * lb_user_sched_wait_fd for a user), then call again. Byte counts are doubles (FFI numbers). */
struct lb_sock;
enum { LB_SOCK_READ = 1, LB_SOCK_WRITE = 2 };
/* Resolves host and connects: with timeout_ns >= 1000 a blocking socket, connected or failed
 * within timeout_ns (for a thread); else a non-blocking one, connecting (for a user). NULL with
 * the reason in err. */
LB_FFI struct lb_sock *lb_sock_open(struct lb_worker *w, const char *host, int port, int udp, double timeout_ns,
				    char *err, int errlen);
/* 0 once connected, -EINPROGRESS while the handshake goes on, -errno when it failed. */
LB_FFI int lb_sock_connected(struct lb_sock *s);
LB_FFI int lb_sock_fd(struct lb_sock *s);
/* The word a user's waits on the socket keep their epoll registration in (lb_user_sched_wait_fd). */
LB_FFI uint64_t *lb_sock_poll_tag(struct lb_sock *s);
/* Sends what the socket takes (bytes sent; counted in bytes_written). */
LB_FFI double lb_sock_send(struct lb_sock *s, const char *data, size_t len, double wait_ns);
/* Sends up to len (at most 64 KiB) zero bytes. */
LB_FFI double lb_sock_send_zeros(struct lb_sock *s, size_t len, double wait_ns);
/* One piece of a send in several pieces: len bytes at data, or (data NULL) the whole number num
 * written in decimal. */
struct lb_sock_piece {
	const char *data;
	size_t len;
	int64_t num;
};
enum { LB_SOCK_MAX_PIECES = 64 };
/* Sends n pieces (1..LB_SOCK_MAX_PIECES) but their first skip_bytes bytes (sent by earlier
 * calls) in one sendmsg: bytes sent, as lb_sock_send; *total_bytes gets the pieces' length. */
LB_FFI double lb_sock_sendv(struct lb_sock *s, const struct lb_sock_piece *pieces, int n, double skip_bytes,
			    double wait_ns, double *total_bytes);
/* Reads what is there into the socket's buffer: bytes read (counted in bytes_read), 0 at the
 * end of the stream. A non-blocking socket's first call after a send says -EAGAIN without
 * reading (the reply cannot be there yet: wait for the socket). */
LB_FFI double lb_sock_fill(struct lb_sock *s, double wait_ns);
/* The buffered bytes: how many, where, the length up to and including the first delim (-1:
 * not there yet), and taking n of them (returns how many were taken). */
LB_FFI double lb_sock_buffered(struct lb_sock *s);
LB_FFI const char *lb_sock_peek(struct lb_sock *s);
LB_FFI double lb_sock_find(struct lb_sock *s, const char *delim, size_t dlen);
LB_FFI double lb_sock_consume(struct lb_sock *s, double n);
/* Takes the len bytes at p if they are the next ones buffered: 1; -1 if the buffered bytes
 * differ from them (nothing taken); 0 if those buffered so far are fewer and agree (fill more). */
LB_FFI int lb_sock_skip_if(struct lb_sock *s, const char *p, size_t len);
/* Waits (blocking the thread) until the socket is ready for `events` (LB_SOCK_*) or timeout_ns
 * passed (< 0: no limit): the events ready, 0 on timeout. */
LB_FFI int lb_sock_wait(struct lb_sock *s, uint32_t events, double timeout_ns);
LB_FFI void lb_sock_close(struct lb_sock *s);
LB_FFI const char *lb_sock_strerror(int err);
/* The run's sockets: opened, connected, failed to connect, closed. */
LB_FFI void lb_sock_counts(struct lb_worker *w, uint64_t *out4);

#endif
