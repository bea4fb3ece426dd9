/* The --metrics-listen endpoint (metrics_http.h). */
#include "output/metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "output/prom_text.h"
#include "util/util.h"

/* A scraper that connects and says nothing must not hold the endpoint. */
#define REQUEST_TIMEOUT_MS 2000

struct lb_metrics_http {
	int fd;
	int stop_pipe[2];
	pthread_t thread;
	pthread_mutex_t lock;
	char *text;                  /* what a scrape gets (under lock) */
	struct lb_prom_totals totals;
	char address[128];
};

/* Splits "[ADDR:]PORT" into host and port; a bare port listens on loopback only. */
static int parse_listen(const char *listen, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon = strrchr(listen, ':');
	const char *p = colon ? colon + 1 : listen;
	if (!*p || strspn(p, "0123456789") != strlen(p) || atol(p) > 65535)
		return -1;
	snprintf(port, portlen, "%s", p);
	if (!colon) {
		snprintf(host, hostlen, "127.0.0.1");
		return 0;
	}
	size_t n = (size_t)(colon - listen);
	if (n >= 2 && listen[0] == '[' && listen[n - 1] == ']') {
		listen++;
		n -= 2;
	}
	if (!n || n >= hostlen)
		return -1;
	memcpy(host, listen, n);
	host[n] = '\0';
	return 0;
}

static int open_socket(struct lb_metrics_http *h, const char *host, const char *port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai;
	int rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "--metrics-listen: cannot use address '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0), one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 16) < 0) {
		snprintf(err, errlen, "--metrics-listen: cannot listen at %s:%s: %s", host, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char num[64] = "?";
	int bound = 0;
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0) {
		if (sa.ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, num, sizeof(num));
			bound = ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
		} else {
			inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, num, sizeof(num));
			bound = ntohs(((struct sockaddr_in *)&sa)->sin_port);
		}
	}
	snprintf(h->address, sizeof(h->address), sa.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", num, bound);
	h->fd = fd;
	return 0;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* Reads the request head (up to the blank line) and answers it. */
static void serve(struct lb_metrics_http *h, int fd)
{
	char req[2048];
	size_t got = 0;
	while (got < sizeof(req) - 1 && !strstr(req, "\r\n\r\n")) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, REQUEST_TIMEOUT_MS) <= 0)
			return;
		ssize_t n = recv(fd, req + got, sizeof(req) - 1 - got, 0);
		if (n <= 0)
			return;
		got += (size_t)n;
		req[got] = '\0';
	}
	bool head = !strncmp(req, "HEAD ", 5);
	if (strncmp(req, "GET ", 4) && !head) {
		static const char bad[] = "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
		write_all(fd, bad, sizeof(bad) - 1);
		return;
	}
	const char *path = req + (head ? 5 : 4);
	if (strncmp(path, "/metrics ", 9) && strncmp(path, "/metrics?", 9) && strncmp(path, "/ ", 2)) {
		static const char nf[] = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 25\r\nConnection: close\r\n\r\nluabench serves /metrics\n";
		write_all(fd, nf, sizeof(nf) - 1);
		return;
	}
	pthread_mutex_lock(&h->lock);
	char *body = lb_xstrdup(h->text);
	pthread_mutex_unlock(&h->lock);
	char *hdr = lb_xasprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
				 "Content-Length: %zu\r\nConnection: close\r\n\r\n", strlen(body));
	write_all(fd, hdr, strlen(hdr));
	if (!head)
		write_all(fd, body, strlen(body));
	free(hdr);
	free(body);
}

static void *accept_loop(void *arg)
{
	struct lb_metrics_http *h = arg;
	for (;;) {
		struct pollfd p[2] = { { .fd = h->fd, .events = POLLIN }, { .fd = h->stop_pipe[0], .events = POLLIN } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		int fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve(h, fd);
		close(fd);
	}
	return NULL;
}

static void set_text(struct lb_metrics_http *h, const struct lb_result *r)
{
	struct lb_buf b = { 0 };
	lb_prom_render(&b, r, &h->totals);
	lb_buf_append(&b, "", 1);
	pthread_mutex_lock(&h->lock);
	free(h->text);
	h->text = b.data;
	pthread_mutex_unlock(&h->lock);
}

/* Everything but the thread, which has ended or never started. */
static void free_endpoint(struct lb_metrics_http *h)
{
	close(h->fd);
	close(h->stop_pipe[0]);
	close(h->stop_pipe[1]);
	free(h->text);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

struct lb_metrics_http *lb_metrics_http_start(const char *listen, char *err, size_t errlen)
{
	char host[96], port[16];
	if (parse_listen(listen, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, errlen, "invalid --metrics-listen value '%s': give [ADDR:]PORT, e.g. 9100 or 0.0.0.0:9100", listen);
		return NULL;
	}
	struct lb_metrics_http *h = lb_xzalloc(sizeof(*h));
	h->fd = -1;
	pthread_mutex_init(&h->lock, NULL);
	if (open_socket(h, host, port, err, errlen) < 0 || pipe2(h->stop_pipe, O_CLOEXEC) < 0) {
		if (h->fd >= 0) {
			snprintf(err, errlen, "--metrics-listen: %s", strerror(errno));
			close(h->fd);
		}
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	set_text(h, NULL);
	if (pthread_create(&h->thread, NULL, accept_loop, h) != 0) {
		snprintf(err, errlen, "--metrics-listen: cannot start its thread");
		free_endpoint(h);
		return NULL;
	}
	return h;
}

const char *lb_metrics_http_address(const struct lb_metrics_http *h)
{
	return h->address;
}

void lb_metrics_http_update(struct lb_metrics_http *h, const struct lb_result *r)
{
	if (h)
		set_text(h, r);
}

void lb_metrics_http_stop(struct lb_metrics_http *h)
{
	if (!h)
		return;
	(void)!write(h->stop_pipe[1], "x", 1);
	pthread_join(h->thread, NULL);
	free_endpoint(h);
}
