// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The collector's loop: sockets, rounds of batches, timeouts, lost agents. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "exit_status.h"
#include "collector_internal.h"
#include "log.h"

/* Bytes read from one connection per turn: no agent starves the others. */
#define READ_CHUNK (256u << 10)
/* Pending output a connection may hold (a viewer's answer); a peer that does not read is cut. */
#define MAX_OUTPUT (64u << 20)
/* A round's changed groups held in memory: past this, it commits early. */
#define PENDING_LIMIT (512u << 20)

double collector_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* conn leaves the round's list of connections to acknowledge. */
static void forget_ack(struct collector *c, struct conn *conn)
{
	for (struct conn **p = &c->to_ack; *p; p = &(*p)->next_ack) {
		if (*p == conn) {
			*p = conn->next_ack;
			break;
		}
	}
	conn->next_ack = NULL;
	conn->ack_seq = 0;
}

void collector_close(struct collector *c, struct conn *conn, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	if (conn->dead)
		return;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		if (conn->state == CONN_READY)
			log_error("closed the connection of %s %s (%s, pid %d): %s",
				  conn->viewer ? "viewer" : "agent", conn->peer, conn->host,
				  conn->pid, why);
		else
			log_error("refused the connection from %s: %s", conn->peer, why);
		if (conn->state != CONN_READY || !conn->goodbye) {
			c->refused += conn->state != CONN_READY;
			if (c->metrics && conn->state != CONN_READY)
				metrics__add(c->metrics, METRICS_REJECTED_CONNECTIONS, 1);
		}
	}
	if (conn->state == CONN_READY && !conn->viewer) {
		/*
		 * Without a goodbye its processes may be lost: the lost timer starts now. What it
		 * sent in this round is committed with the round; unacknowledged, it comes again
		 * from the agent and is recognised.
		 */
		forget_ack(c, conn);
		store__agent_gone(c->store, conn->agent, conn->goodbye ? "done" : "disconnected",
				  collector_now());
		c->nr_agents--;
		if (c->metrics)
			metrics__set_agents_connected(c->metrics, c->nr_agents);
	}
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, conn->fd, NULL);
	close(conn->fd);
	conn->fd = -1;
	conn->dead = true;
}

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

/* Send what conn has pending; wait for EPOLLOUT if the socket is full. */
static void flush_output(struct collector *c, struct conn *conn)
{
	struct epoll_event ev = { .data.ptr = conn };
	long n;

	if (conn->dead)
		return;
	n = net_send(conn->fd, conn->out + conn->out_sent, conn->out_len - conn->out_sent);
	if (n < 0) {
		collector_close(c, conn, "cannot send: %s", strerror(-n));
		return;
	}
	conn->out_sent += n;
	if (conn->out_sent == conn->out_len) {
		conn->out_len = conn->out_sent = 0;
		if (conn->closing) {
			collector_close(c, conn, NULL);
			return;
		}
	}
	ev.events = EPOLLIN | EPOLLRDHUP | (conn->out_len ? EPOLLOUT : 0);
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, conn->fd, &ev);
}

int collector_send(struct collector *c, struct conn *conn, const wire_msg *msg)
{
	uint8_t *frame, *grown;
	size_t len;
	int err;

	if (conn->dead)
		return -EPIPE;
	err = wire_encode(msg, &frame, &len);
	if (err) {
		collector_close(c, conn, "cannot encode an answer: %s", strerror(-err));
		return err;
	}
	if (conn->out_len - conn->out_sent + len > MAX_OUTPUT) {
		free(frame);
		collector_close(c, conn, "does not read what it is sent");
		return -ENOBUFS;
	}
	if (conn->out_sent) {
		memmove(conn->out, conn->out + conn->out_sent, conn->out_len - conn->out_sent);
		conn->out_len -= conn->out_sent;
		conn->out_sent = 0;
	}
	grown = realloc(conn->out, conn->out_len + len);
	if (!grown) {
		free(frame);
		collector_close(c, conn, "out of memory");
		return -ENOMEM;
	}
	conn->out = grown;
	memcpy(conn->out + conn->out_len, frame, len);
	conn->out_len += len;
	free(frame);
	flush_output(c, conn);
	return 0;
}

int collector_begin_round(struct collector *c)
{
	if (c->in_round)
		return 0;
	if (store__begin(c->store))
		return -EIO;
	c->in_round = true;
	c->round_started = mono();
	c->round_urgent = false;
	return 0;
}

/* Not stored: each agent of the round is cut off and sends its batches again. */
static void close_round_agents(struct collector *c, const char *why)
{
	struct conn *conn = c->to_ack, *next;

	c->to_ack = NULL;
	for (; conn; conn = next) {
		next = conn->next_ack;
		conn->next_ack = NULL;
		conn->ack_seq = 0;
		collector_close(c, conn, "%s", why);
	}
}

void collector_abort_round(struct collector *c)
{
	if (!c->in_round)
		return;
	store__rollback(c->store);
	c->in_round = false;
	close_round_agents(c, "its batches could not be stored");
}

/*
 * While a round commits, no peer is read: the time is the collector's, not the peers'. It is
 * not counted against their handshakes, frames and silence.
 */
static void excuse_deaf_time(struct collector *c, double seconds)
{
	for (struct conn *conn = c->conns; conn; conn = conn->next) {
		conn->opened += seconds;
		conn->last_message += seconds;
		if (conn->frame_started)
			conn->frame_started += seconds;
	}
}

void collector_end_round(struct collector *c)
{
	struct conn *conn, *next;
	double t0 = mono();
	int err;

	if (!c->in_round)
		return;
	c->in_round = false;
	err = store__commit(c->store);
	excuse_deaf_time(c, mono() - t0);
	if (c->metrics)
		metrics__observe_db_write(c->metrics, mono() - t0);
	if (err) {
		close_round_agents(c, "its batches could not be committed");
		return;
	}
	conn = c->to_ack;
	c->to_ack = NULL;
	for (; conn; conn = next) {
		Heaptap__Ack ack = HEAPTAP__ACK__INIT;
		Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;

		next = conn->next_ack;
		conn->next_ack = NULL;
		ack.has_seq = true;
		ack.seq = conn->ack_seq;
		conn->ack_seq = 0;
		env.body_case = HEAPTAP__ENVELOPE__BODY_ACK;
		env.ack = &ack;
		collector_send(c, conn, &env);
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
		conn->opened = conn->last_message = mono();
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

	f->conn->last_message = mono();
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
		conn->frame_started = mono();
}

/* Slow or silent peers: a handshake, a frame, or silence past the timeout. */
static void check_timeouts(struct collector *c)
{
	double t = mono(), limit = c->opts->client_timeout;

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
				flush_output(c, conn);
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
				    mono() - c->round_started >= c->opts->commit_every ||
				    store__pending_bytes(c->store) > PENDING_LIMIT))
			collector_end_round(c);
		if (mono() >= next_check) {
			int lost;

			check_timeouts(c);
			lost = store__mark_lost(c->store, collector_now() - c->opts->lost_after, 0,
						c->metrics ? forget_lost : NULL, c->metrics);
			if (lost < 0)
				collector_abort_round(c);
			else if (lost > 0)
				log_info("agents silent for %g s: their processes are \"agent lost\"",
					 c->opts->lost_after);
			next_check = mono() + 0.5;
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
