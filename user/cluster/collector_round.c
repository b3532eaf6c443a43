// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The collector's rounds (a transaction each) and their acknowledgements, and what a
 * connection is sent or closed with: what the protocol (collector_conn.c) and the loop
 * (collector.c) both stand on.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include "clock.h"
#include "collector_internal.h"
#include "log.h"

/* Pending output a connection may hold (a viewer's answer); a peer that does not read is cut. */
#define MAX_OUTPUT (64u << 20)

double collector_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
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

void collector_flush_output(struct collector *c, struct conn *conn)
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
	collector_flush_output(c, conn);
	return 0;
}

int collector_begin_round(struct collector *c)
{
	if (c->in_round)
		return 0;
	if (store__begin(c->store))
		return -EIO;
	c->in_round = true;
	c->round_started = now();
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
	double t0 = now();
	int err;

	if (!c->in_round)
		return;
	c->in_round = false;
	err = store__commit(c->store);
	excuse_deaf_time(c, now() - t0);
	if (c->metrics)
		metrics__observe_db_write(c->metrics, now() - t0);
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
