// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The collector's loop: sockets, rounds of batches, timeouts, lost agents. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>
#include "clock.h"
#include "collector_internal.h"
#include "exit_status.h"
#include "log.h"

/* Bytes read from one connection per turn: no agent starves the others. */
#define READ_CHUNK (256u << 10)
/* A round's changed groups held in memory: past this, it commits early. */
#define PENDING_LIMIT (512u << 20)

static void free_dead(struct collector *c)
{
	struct conn *conn = c->conns, *next;

	for (; conn; conn = next) {
		next = conn->next;
		if (!conn->dead)
			continue;
		if (conn->prev)
			conn->prev->next = conn->next;
		else
			c->conns = conn->next;
		if (conn->next)
			conn->next->prev = conn->prev;
		wire_reader__release(&conn->reader);
		free(conn->out);
		free(conn);
	}
}

static void accept_all(struct collector *c)
{
	for (;;) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
		struct conn *conn;
		int fd;

		fd = accept4(c->listen_fd, (struct sockaddr *)&ss, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_error("cannot accept a connection: %m");
			return;
		}
		conn = calloc(1, sizeof(*conn));
		if (!conn) {
			close(fd);
			continue;
		}
		conn->fd = fd;
		conn->opened = conn->last_message = now();
		net_name((struct sockaddr *)&ss, len, conn->peer, sizeof(conn->peer));
		wire_reader__init(&conn->reader, WIRE_MAX_GREETING);
		ev.data.ptr = conn;
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			free(conn);
			continue;
		}
		conn->next = c->conns;
		if (c->conns)
			c->conns->prev = conn;
		c->conns = conn;
	}
}

struct feed_ctx {
	struct collector *c;
	struct conn *conn;
	unsigned int messages;
};

static int on_msg(void *ctx, wire_msg *msg)
{
	struct feed_ctx *f = ctx;

	f->conn->last_message = now();
	f->messages++;
	if (f->conn->dead || f->conn->closing) {
		wire_msg_free(msg);
		return -EPIPE;
	}
	return collector_handle(f->c, f->conn, msg);
}

static void read_conn(struct collector *c, struct conn *conn)
{
	static uint8_t buf[READ_CHUNK];
	struct feed_ctx f = { c, conn, 0 };
	bool was_partial;
	ssize_t n;
	int err;

	n = recv(conn->fd, buf, sizeof(buf), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (n < 0)
			collector_close(c, conn, "%s", strerror(errno));
		else if (wire_reader__partial(&conn->reader))
			collector_close(c, conn, "truncated: the connection ended inside a frame");
		else if (conn->state != CONN_READY)
			collector_close(c, conn, "the connection ended during the handshake");
		else if (!conn->viewer && !conn->goodbye)
			collector_close(c, conn, "the connection ended without a goodbye");
		else
			collector_close(c, conn, NULL);
		return;
	}
	c->bytes += n;
	if (c->metrics)
		metrics__add(c->metrics, METRICS_BYTES, n);
	was_partial = wire_reader__partial(&conn->reader);
	err = wire_reader__feed(&conn->reader, buf, n, on_msg, &f);
	if (err == -EPROTO && !conn->dead) {
		c->decode_errors++;
		if (c->metrics)
			metrics__add(c->metrics, METRICS_DECODE_ERRORS, 1);
		collector_close(c, conn, "%s", conn->reader.error);
	}
	/* A frame that stays incomplete for long is a slow client's: from when it began. */
	if (!wire_reader__partial(&conn->reader))
		conn->frame_started = 0;
	else if (!was_partial || f.messages)
		conn->frame_started = now();
}

/* Slow or silent peers: a handshake, a frame, or silence past the timeout. */
static void check_timeouts(struct collector *c)
{
	double t = now(), limit = c->opts->client_timeout;

	for (struct conn *conn = c->conns; conn; conn = conn->next) {
		if (conn->dead)
			continue;
		if (conn->state != CONN_READY && t - conn->opened > limit)
			collector_close(c, conn, "slow client: no handshake within %g s", limit);
		else if (conn->frame_started && t - conn->frame_started > limit)
			collector_close(c, conn, "slow client: a frame begun %.0f s ago is not "
				       "complete", t - conn->frame_started);
		else if (!conn->viewer && t - conn->last_message > limit)
			collector_close(c, conn, "silent for %.0f s (a half-open connection?)",
					t - conn->last_message);
	}
}

/* A lost agent's processes leave /metrics: their figures stopped being true. */
static void forget_lost(void *ctx, const struct store_who *who)
{
	struct metrics_who w = { who->job, who->host, who->rank, who->pid };

	metrics__forget_process(ctx, &w);
}

static void serve(struct collector *c, volatile sig_atomic_t *stop)
{
	struct epoll_event events[256];
	double next_check = 0;

	while (!*stop) {
		int n = epoll_wait(c->epfd, events, 256, 250 /* ms */);

		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %m");
			break;
		}
		for (int i = 0; i < n; i++) {
			struct conn *conn = events[i].data.ptr;

			if (!conn) {
				accept_all(c);
				continue;
			}
			if (conn->dead)
				continue;
			if (events[i].events & EPOLLOUT)
				collector_flush_output(c, conn);
			if (!conn->dead && (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP |
								EPOLLERR)))
				read_conn(c, conn);
		}
		/*
		 * One transaction for the round: every batch of --commit-every seconds, each
		 * changed group written once at its commit. Sooner for an agent that is finishing
		 * and waits for its acknowledgement, or past the memory the round may hold.
		 */
		if (c->in_round && (c->round_urgent ||
				    now() - c->round_started >= c->opts->commit_every ||
				    store__pending_bytes(c->store) > PENDING_LIMIT))
			collector_end_round(c);
		if (now() >= next_check) {
			int lost;

			check_timeouts(c);
			lost = store__mark_lost(c->store, collector_now() - c->opts->lost_after, 0,
						c->metrics ? forget_lost : NULL, c->metrics);
			if (lost < 0)
				collector_abort_round(c);
			else if (lost > 0)
				log_info("agents silent for %g s: their processes are \"agent lost\"",
					 c->opts->lost_after);
			next_check = now() + 0.5;
		}
		free_dead(c);
	}
}

static int start_metrics(struct collector *c, struct metrics_server **srv)
{
	c->metrics = metrics__new();
	if (!c->metrics) {
		log_error("cannot start the metrics: out of memory");
		return EXIT_FAILURE_INTERNAL;
	}
	*srv = metrics_server__start(c->metrics, c->opts->metrics_listen);
	return *srv ? EXIT_OK : EXIT_USAGE; /* the server said why */
}

int collector__run(const struct collector_opts *opts, volatile sig_atomic_t *stop)
{
	struct collector c = { .opts = opts, .epfd = -1, .listen_fd = -1 };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	char name[NET_NAME_SIZE];
	int status = EXIT_FAILURE_INTERNAL;
	struct rlimit lim;
	bool loopback;
	struct metrics_server *srv = NULL;

	/* A connection per agent: take every descriptor the kernel allows. */
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
	if (store__open(opts->db_path, false, &c.store))
		return EXIT_USAGE;
	/* Agents connected when a previous collector stopped: lost unless they come back. */
	if (store__mark_lost(c.store, collector_now() - opts->lost_after, collector_now(), NULL,
			     NULL) < 0)
		goto cleanup;
	c.listen_fd = net_listen(opts->listen, name, sizeof(name), &loopback);
	if (c.listen_fd < 0) {
		status = EXIT_USAGE;
		goto cleanup;
	}
	c.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (c.epfd < 0 || epoll_ctl(c.epfd, EPOLL_CTL_ADD, c.listen_fd, &ev)) {
		log_error("epoll: %m");
		goto cleanup;
	}
	if (!loopback && !opts->key->len && !opts->munge.on)
		log_error("warning: listening on %s without --key or --munge: anyone who reaches it may write "
			  "to %s", name, opts->db_path);
	if (opts->metrics_listen && (status = start_metrics(&c, &srv)) != EXIT_OK)
		goto cleanup;
	status = EXIT_FAILURE_INTERNAL;
	log_info("collecting on %s", name);
	serve(&c, stop);
	status = EXIT_OK;
	collector_end_round(&c);
	for (struct conn *conn = c.conns; conn; conn = conn->next)
		collector_close(&c, conn, NULL);
	free_dead(&c);
	if (c.refused)
		log_info("refused %" PRIu64 " connections (%" PRIu64 " with a wrong key or MUNGE credential, %" PRIu64
			 " that broke the protocol)", c.refused, c.auth_failures, c.decode_errors);
cleanup:
	if (srv)
		metrics_server__stop(srv);
	metrics__free(c.metrics);
	if (c.epfd >= 0)
		close(c.epfd);
	if (c.listen_fd >= 0)
		close(c.listen_fd);
	store__close(c.store);
	return status;
}
