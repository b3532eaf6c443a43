// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "log.h"
#include "net.h"

int net_split(const char *endpoint, char *host, size_t host_size, char *port, size_t port_size)
{
	const char *colon, *h = endpoint;
	size_t len;

	if (endpoint[0] == '[') {
		const char *close = strchr(endpoint, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		h = endpoint + 1;
		len = close - h;
		colon = close + 1;
	} else {
		colon = strrchr(endpoint, ':');
		if (!colon || strchr(endpoint, ':') != colon)
			return -EINVAL;
		len = colon - endpoint;
	}
	if (!len || len >= host_size || !colon[1] || strlen(colon + 1) >= port_size ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || atoi(colon + 1) > 65535)
		return -EINVAL;
	memcpy(host, h, len);
	host[len] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

void net_name(const struct sockaddr *sa, socklen_t len, char *name, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";

	getnameinfo(sa, len, host, sizeof(host), port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(name, size, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
	return false;
}

static int resolve(const char *endpoint, bool passive, struct addrinfo **out)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = passive ? AI_PASSIVE : AI_ADDRCONFIG };
	char host[256], port[8];
	int rc;

	if (net_split(endpoint, host, sizeof(host), port, sizeof(port)))
		return -EINVAL;
	rc = getaddrinfo(host, port, &hints, out);
	if (rc) {
		log_error("cannot resolve %s: %s", endpoint, gai_strerror(rc));
		return -ENOENT;
	}
	return 0;
}

int net_listen(const char *endpoint, char *name, size_t name_size, bool *loopback)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct addrinfo *ai;
	int fd, one = 1, err;

	if ((err = resolve(endpoint, true, &ai)))
		return err;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 4096) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		err = -errno;
		log_error("cannot listen on %s: %s", endpoint, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return err;
	}
	freeaddrinfo(ai);
	net_name((struct sockaddr *)&ss, len, name, name_size);
	*loopback = is_loopback((struct sockaddr *)&ss);
	return fd;
}

int net_connect(const char *endpoint)
{
	struct addrinfo *ai;
	int fd, err, one = 1;

	if ((err = resolve(endpoint, false, &ai)))
		return err;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		freeaddrinfo(ai);
		return err;
	}
	/* Small messages, each waited for: no Nagle delay. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		err = -errno;
		close(fd);
		freeaddrinfo(ai);
		return err;
	}
	freeaddrinfo(ai);
	return fd;
}

int net_connected(int fd)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		return -errno;
	return -err;
}

long net_send(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, (const char *)buf + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0)
			return -errno;
		done += n;
	}
	return (long)done;
}
