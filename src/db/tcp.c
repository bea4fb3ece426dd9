/* Liveness of a server connection over TCP. Without it a server that vanished without closing
 * the connection (a network partition, a host that lost power) holds a statement for as long
 * as the kernel retransmits: many minutes. Keepalive probes find a silent idle peer, and
 * TCP_USER_TIMEOUT bounds how long sent data may stay unacknowledged; a long statement on a
 * live server is not affected (its kernel acknowledges our data and answers the probes). */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "db_int.h"

void lb_db_tcp_liveness(int fd, int32_t timeout_ms)
{
	if (fd < 0 || timeout_ms <= 0)
		return;
	/* The probes: the first after a third of the time, then up to 4 over the rest. */
	int total_s = timeout_ms / 1000 > 1 ? timeout_ms / 1000 : 1;
	int idle_s = total_s / 3 > 0 ? total_s / 3 : 1;
	int rest_s = total_s - idle_s > 0 ? total_s - idle_s : 1;
	int count = rest_s < 4 ? rest_s : 4;
	int interval_s = rest_s / count;
	int on = 1;
	unsigned int user_timeout = (unsigned int)timeout_ms;
	/* Unix sockets refuse these (EOPNOTSUPP): nothing to detect there. */
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)) < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof(interval_s));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof(user_timeout));
}
