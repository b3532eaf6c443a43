// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * GET /metrics over HTTP with libmicrohttpd, from its own thread. Scrapers are few and
 * trusted no more than anyone on the network: a bounded number of connections, each with
 * a timeout, and nothing but GET or HEAD of /metrics answered.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <microhttpd.h>
#include "log.h"
#include "net.h"
#include "metrics.h"

#define MAX_CONNECTIONS 16
#define CONNECTION_TIMEOUT_S 10

struct metrics_server {
	struct MHD_Daemon *daemon;
	struct metrics *metrics;
	int port;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status, char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *response =
		MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!response) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, response);
	MHD_destroy_response(response);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned int status,
				  const char *text)
{
	char *body = strdup(text);

	if (!body)
		return MHD_NO;
	return reply(conn, status, body, strlen(body), "text/plain; charset=utf-8");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	struct metrics_server *srv = cls;
	size_t len;
	char *text;

	(void)version;
	(void)upload;
	(void)state;
	/* Nothing is uploaded to us: a request with a body is refused once it has come. */
	if (*upload_size)
		return MHD_NO;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /metrics\n");
	if (strcmp(url, "/metrics"))
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "heaptap serves /metrics only\n");
	text = metrics__render(srv->metrics, &len);
	if (!text)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(conn, MHD_HTTP_OK, text, len, "text/plain; version=0.0.4; charset=utf-8");
}

/* ADDR:PORT, [IPv6]:PORT or NAME:PORT into its first address. 0 or -errno, with *why. */
static int resolve(const char *listen, struct sockaddr_storage *addr, const char **why)
{
	const char *colon = strrchr(listen, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *res;
	char host[256], *end;
	size_t host_len;
	long port;
	int err;

	*why = "expected ADDR:PORT, e.g. 127.0.0.1:7401";
	if (!colon || colon == listen)
		return -EINVAL;
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535)
		return -EINVAL;
	host_len = colon - listen;
	if (listen[0] == '[' && colon[-1] == ']') {
		listen++;
		host_len -= 2;
	}
	if (!host_len || host_len >= sizeof(host))
		return -EINVAL;
	memcpy(host, listen, host_len);
	host[host_len] = '\0';
	err = getaddrinfo(host, colon + 1, &hints, &res);
	if (err) {
		*why = gai_strerror(err);
		return -EINVAL;
	}
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

struct metrics_server *metrics_server__start(struct metrics *m, const char *listen)
{
	struct metrics_server *srv;
	struct sockaddr_storage addr = {};
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	char host[256], port[8];
	const char *why;
	int err;

	err = resolve(listen, &addr, &why);
	if (err) {
		log_error("--metrics %s: %s", listen, why);
		errno = -err;
		return NULL;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return NULL;
	srv->metrics = m;
	if (addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The port is in addr: MHD's own port argument is then ignored. */
	errno = 0;
	srv->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR,
				       (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT,
				       (unsigned int)MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
				       (unsigned int)CONNECTION_TIMEOUT_S, MHD_OPTION_END);
	if (!srv->daemon) {
		err = errno ? errno : EADDRNOTAVAIL;
		log_error("cannot serve metrics on %s: %s", listen, strerror(err));
		free(srv);
		errno = err;
		return NULL;
	}
	info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	srv->port = info ? info->port : 0;
	/* Where, with the port chosen: scrape configurations and tests read this line. */
	if (net_split(listen, host, sizeof(host), port, sizeof(port)))
		snprintf(host, sizeof(host), "?");
	log_info("metrics on %s%s%s:%d", strchr(host, ':') ? "[" : "", host,
		 strchr(host, ':') ? "]" : "", srv->port);
	return srv;
}

int metrics_server__port(const struct metrics_server *srv)
{
	return srv->port;
}

void metrics_server__stop(struct metrics_server *srv)
{
	if (!srv)
		return;
	MHD_stop_daemon(srv->daemon);
	free(srv);
}
