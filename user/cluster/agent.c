// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The agent's queue of batches and its connection to the collector. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "agent_internal.h"
#include "client_auth.h"
#include "log.h"

#define BACKOFF_FIRST 0.1 /* s */
#define BACKOFF_MAX 5.0

double agent_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int agent__new(const struct agent_opts *opts, struct agent **out)
{
	struct agent *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->opts = *opts;
	a->fd = -1;
	a->next_seq = 1;
	a->backoff = BACKOFF_FIRST;
	snprintf(a->description, sizeof(a->description), "%s", opts->description);
	a->opts.description = a->description;
	if (gethostname(a->host, sizeof(a->host) - 1))
		snprintf(a->host, sizeof(a->host), "?");
	/* An agent is one id for its whole life: its batches' numbers go with it. */
	if (auth_random(&a->id, sizeof(a->id))) {
		free(a);
		return -EIO;
	}
	*out = a;
	return 0;
}

const char *agent__host(const struct agent *a)
{
	return a->host;
}

void agent_forget_sent(struct agent *a)
{
	struct sent *s, *tmp;

	HASH_ITER(hh, a->sent, s, tmp) {
		HASH_DEL(a->sent, s);
		accountant__clear(&s->stats);
		free(s);
	}
}

static void drop_head(struct agent *a)
{
	struct pending *p = a->head;

	if (a->cursor == p) {
		a->cursor = p->next;
		a->cursor_off = 0;
	}
	a->head = p->next;
	if (!a->head)
		a->tail = NULL;
	a->queued_bytes -= p->len;
	a->queued--;
	free(p);
}

void agent_queue(struct agent *a, struct pending *p)
{
	/* Full: the oldest go. Their groups go out again whole in the next batch. */
	while (a->head && a->queued_bytes + p->len > a->opts.buffer_limit) {
		/* The one on the wire right now cannot be taken back. */
		if (a->cursor == a->head && a->cursor_off)
			break;
		drop_head(a);
		a->dropped++;
		agent_forget_sent(a);
	}
	p->next = NULL;
	if (a->tail)
		a->tail->next = p;
	else
		a->head = p;
	a->tail = p;
	if (!a->cursor)
		a->cursor = p, a->cursor_off = 0;
	a->queued_bytes += p->len;
	a->queued++;
}

static void link_down(struct agent *a, const char *why)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	if (why && (a->state == LINK_READY || !a->said_unreachable)) {
		log_error("collector %s: %s; tracing goes on, %zu batches kept for it",
			  a->opts.collector, why, a->queued);
		a->said_unreachable = true;
	}
	a->state = LINK_DOWN;
	wire_reader__release(&a->reader);
	free(a->out);
	a->out = NULL;
	a->out_len = a->out_sent = 0;
	a->next_attempt = agent_mono() + a->backoff;
	a->backoff = a->backoff * 2 < BACKOFF_MAX ? a->backoff * 2 : BACKOFF_MAX;
}

void agent__free(struct agent *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	while (a->head)
		drop_head(a);
	agent_forget_sent(a);
	wire_reader__release(&a->reader);
	free(a->out);
	free(a);
}

/* Queue a handshake message (sent before any batch). 0 or -errno. */
static int send_msg(struct agent *a, const wire_msg *msg)
{
	uint8_t *frame, *grown;
	size_t len;
	int err = wire_encode(msg, &frame, &len);

	if (err)
		return err;
	grown = realloc(a->out, a->out_len + len);
	if (!grown) {
		free(frame);
		return -ENOMEM;
	}
	a->out = grown;
	memcpy(a->out + a->out_len, frame, len);
	a->out_len += len;
	free(frame);
	return 0;
}

static void send_hello(struct agent *a)
{
	Heaptap__Hello h = HEAPTAP__HELLO__INIT;
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;

	if (auth_random(a->nonce, sizeof(a->nonce))) {
		link_down(a, "no random bytes for the handshake");
		return;
	}
	h.has_role = h.has_agent_id = h.has_pid = h.has_nonce = true;
	h.role = HEAPTAP__ROLE__AGENT;
	h.agent_id = a->id;
	h.host = a->host;
	h.command = a->description;
	h.pid = getpid();
	h.nonce.data = a->nonce;
	h.nonce.len = sizeof(a->nonce);
	h.attribution = (char *)attribution_rule_name(a->opts.rule);
	env.body_case = HEAPTAP__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	if (send_msg(a, &env))
		link_down(a, "cannot encode a hello");
	a->state = LINK_HANDSHAKE;
	wire_reader__init(&a->reader, WIRE_MAX_MESSAGE);
}

static int on_challenge(struct agent *a, const Heaptap__Challenge *ch)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	struct client_answer answer;
	char why[256];
	int err;

	err = client_answer(a->opts.key, &a->opts.munge, a->nonce, ch, &answer, why,
			    sizeof(why));
	if (err == -EACCES) {
		/* Said once: trying again every few seconds would repeat it. */
		if (!a->said_refused)
			log_error("collector %s %s", a->opts.collector, why);
		a->said_refused = true;
		link_down(a, NULL);
	} else if (err) {
		link_down(a, why);
	} else {
		env.body_case = HEAPTAP__ENVELOPE__BODY_AUTH;
		env.auth = &answer.auth;
		err = send_msg(a, &env);
	}
	client_answer__free(&answer);
	return err;
}

static void on_welcome(struct agent *a, const Heaptap__Welcome *w)
{
	/* What it stored before is not sent again; the rest is, from the oldest. */
	while (a->head && a->head->seq <= w->last_seq)
		drop_head(a);
	a->cursor = a->head;
	a->cursor_off = 0;
	a->heartbeat = w->heartbeat;
	a->state = LINK_READY;
	a->backoff = BACKOFF_FIRST;
	a->last_sent = agent_mono();
	if (a->said_unreachable || a->said_refused)
		log_info("connected to collector %s", a->opts.collector);
	a->said_unreachable = a->said_refused = false;
	a->ever_connected = true;
}

static int on_msg(void *ctx, wire_msg *msg)
{
	struct agent *a = ctx;
	int err = 0;

	if (a->state == LINK_HANDSHAKE && msg->body_case == HEAPTAP__ENVELOPE__BODY_CHALLENGE) {
		err = on_challenge(a, msg->challenge);
	} else if (a->state == LINK_HANDSHAKE && msg->body_case == HEAPTAP__ENVELOPE__BODY_WELCOME) {
		on_welcome(a, msg->welcome);
	} else if (msg->body_case == HEAPTAP__ENVELOPE__BODY_REFUSED) {
		if (!a->said_refused)
			log_error("collector %s refused this agent: %s", a->opts.collector,
				  msg->refused->reason ? msg->refused->reason : "?");
		a->said_refused = true;
		link_down(a, NULL);
		err = -EACCES;
	} else if (a->state == LINK_READY && msg->body_case == HEAPTAP__ENVELOPE__BODY_ACK) {
		while (a->head && a->head->seq <= msg->ack->seq && a->head != a->cursor)
			drop_head(a);
	} else {
		link_down(a, "it sent an unexpected message");
		err = -EPROTO;
	}
	wire_msg_free(msg);
	return err;
}

static void try_connect(struct agent *a)
{
	int fd;

	if (agent_mono() < a->next_attempt)
		return;
	fd = net_connect(a->opts.collector);
	if (fd < 0) {
		link_down(a, strerror(-fd));
		return;
	}
	a->fd = fd;
	a->state = LINK_CONNECTING;
}

/* Send what the socket takes: the handshake's messages, then queued batches. */
static void write_some(struct agent *a)
{
	long n;

	if (a->out_sent < a->out_len) {
		n = net_send(a->fd, a->out + a->out_sent, a->out_len - a->out_sent);
		if (n < 0)
			return link_down(a, strerror(-n));
		a->out_sent += n;
		if (a->out_sent < a->out_len)
			return;
		a->out_len = a->out_sent = 0;
	}
	while (a->state == LINK_READY && a->cursor) {
		struct pending *p = a->cursor;

		n = net_send(a->fd, p->frame + a->cursor_off, p->len - a->cursor_off);
		if (n < 0)
			return link_down(a, strerror(-n));
		a->cursor_off += n;
		if (a->cursor_off < p->len)
			return;
		a->cursor = p->next;
		a->cursor_off = 0;
		a->last_sent = agent_mono();
	}
}

static void read_some(struct agent *a)
{
	uint8_t buf[16384];

	while (a->fd >= 0) {
		ssize_t n = recv(a->fd, buf, sizeof(buf), 0);
		int err;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0)
			return link_down(a, n < 0 ? strerror(errno) : "it closed the connection");
		err = wire_reader__feed(&a->reader, buf, n, on_msg, a);
		if (err == -EPROTO && a->fd >= 0)
			return link_down(a, a->reader.error);
		if (err)
			return;
	}
}

void agent__pump(struct agent *a)
{
	int err;

	switch (a->state) {
	case LINK_DOWN:
		try_connect(a);
		return;
	case LINK_CONNECTING: {
		struct pollfd pfd = { .fd = a->fd, .events = POLLOUT };

		if (poll(&pfd, 1, 0) <= 0)
			return;
		err = net_connected(a->fd);
		if (err)
			return link_down(a, strerror(-err));
		send_hello(a);
		break;
	}
	default:
		break;
	}
	if (a->fd >= 0)
		read_some(a);
	if (a->fd >= 0)
		write_some(a);
}

void agent__wait(struct agent *a, int timeout_ms)
{
	struct pollfd pfd = { .fd = a->fd, .events = POLLIN };

	if (a->fd >= 0 && (a->state == LINK_CONNECTING || a->out_len ||
			   (a->state == LINK_READY && a->cursor)))
		pfd.events |= POLLOUT;
	if (a->fd >= 0)
		poll(&pfd, 1, timeout_ms);
	else if (timeout_ms > 0)
		poll(NULL, 0, timeout_ms < 50 ? timeout_ms : 50);
	agent__pump(a);
}

bool agent__drained(const struct agent *a)
{
	return !a->head;
}

void agent__goodbye(struct agent *a)
{
	Heaptap__Goodbye g = HEAPTAP__GOODBYE__INIT;
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	double deadline = agent_mono() + 2;

	if (a->state != LINK_READY || a->head)
		return link_down(a, NULL);
	g.has_last_seq = true;
	g.last_seq = a->next_seq - 1;
	env.body_case = HEAPTAP__ENVELOPE__BODY_GOODBYE;
	env.goodbye = &g;
	if (send_msg(a, &env))
		return link_down(a, NULL);
	while (a->fd >= 0 && a->out_len && agent_mono() < deadline)
		agent__wait(a, 50);
	if (a->fd >= 0) {
		close(a->fd);
		a->fd = -1;
	}
	a->state = LINK_DOWN;
}

void agent__undelivered(const struct agent *a, size_t *batches, size_t *bytes, size_t *dropped)
{
	*batches = a->queued;
	*bytes = a->queued_bytes;
	*dropped = a->dropped;
}
