// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "client_auth.h"
#include "log.h"
#include "net.h"
#include "run_wire.h"
#include "viewer.h"
#include "wire.h"

#define TIMEOUT_MS 10000

struct viewer {
	int fd;
	const char *endpoint;
	struct wire_reader reader;
	wire_msg *got;
};

static int on_msg(void *ctx, wire_msg *msg)
{
	struct viewer *v = ctx;

	wire_msg_free(v->got);
	v->got = msg;
	return 1; /* one at a time */
}

static int send_env(struct viewer *v, const wire_msg *env)
{
	uint8_t *frame;
	size_t len, done = 0;
	int err = wire_encode(env, &frame, &len);

	while (!err && done < len) {
		struct pollfd pfd = { .fd = v->fd, .events = POLLOUT };
		long n;

		if (poll(&pfd, 1, TIMEOUT_MS) <= 0)
			err = -ETIMEDOUT;
		else if ((n = net_send(v->fd, frame + done, len - done)) < 0)
			err = (int)n;
		else
			done += n;
	}
	free(frame);
	return err;
}

/* The next message of kind want. 0, or -errno. */
static int receive(struct viewer *v, int want)
{
	uint8_t buf[65536];

	wire_msg_free(v->got);
	v->got = NULL;
	while (!v->got) {
		struct pollfd pfd = { .fd = v->fd, .events = POLLIN };
		ssize_t n;
		int err;

		if (poll(&pfd, 1, TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = recv(v->fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		err = wire_reader__feed(&v->reader, buf, n, on_msg, v);
		if (err < 0)
			return err;
		/* Bytes after the message stay unread: the collector sends one per question. */
	}
	if (v->got->body_case == HEAPTAP__ENVELOPE__BODY_REFUSED) {
		log_error("collector %s refused: %s", v->endpoint,
			  v->got->refused->reason ? v->got->refused->reason : "?");
		return -EACCES;
	}
	return (int)v->got->body_case == want ? 0 : -EPROTO;
}

static int handshake(struct viewer *v, const struct auth_key *key,
		     const struct munge_opts *munge)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Hello h = HEAPTAP__HELLO__INIT;
	struct client_answer answer;
	uint8_t nonce[WIRE_NONCE_SIZE];
	char why[256];
	int err;

	if ((err = auth_random(nonce, sizeof(nonce))))
		return err;
	h.has_role = h.has_nonce = true;
	h.role = HEAPTAP__ROLE__VIEWER;
	h.host = "viewer";
	h.nonce.data = nonce;
	h.nonce.len = sizeof(nonce);
	env.body_case = HEAPTAP__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	if ((err = send_env(v, &env)) || (err = receive(v, HEAPTAP__ENVELOPE__BODY_CHALLENGE)))
		return err;
	err = client_answer(key, munge, nonce, v->got->challenge, &answer, why, sizeof(why));
	if (err) {
		log_error("collector %s%s %s", v->endpoint, err == -EACCES ? "" : ":", why);
		client_answer__free(&answer);
		return err;
	}
	env.body_case = HEAPTAP__ENVELOPE__BODY_AUTH;
	env.auth = &answer.auth;
	err = send_env(v, &env);
	client_answer__free(&answer);
	if (err)
		return err;
	return receive(v, HEAPTAP__ENVELOPE__BODY_WELCOME);
}

int viewer__connect(const char *endpoint, const struct auth_key *key,
		    const struct munge_opts *munge, struct viewer **out)
{
	struct viewer *v = calloc(1, sizeof(*v));
	struct pollfd pfd;
	int err;

	if (!v)
		return -ENOMEM;
	v->endpoint = endpoint;
	wire_reader__init(&v->reader, WIRE_MAX_MESSAGE);
	v->fd = net_connect(endpoint);
	if (v->fd < 0) {
		err = v->fd;
		goto fail;
	}
	pfd = (struct pollfd){ .fd = v->fd, .events = POLLOUT };
	if (poll(&pfd, 1, TIMEOUT_MS) <= 0)
		err = -ETIMEDOUT;
	else
		err = net_connected(v->fd);
	if (!err)
		err = handshake(v, key, munge);
	if (err)
		goto fail;
	*out = v;
	return 0;
fail:
	if (err != -EACCES)
		log_error("cannot reach collector %s: %s", endpoint, strerror(-err));
	viewer__free(v);
	return err;
}

void viewer__free(struct viewer *v)
{
	if (!v)
		return;
	if (v->fd >= 0)
		close(v->fd);
	wire_msg_free(v->got);
	wire_reader__release(&v->reader);
	free(v);
}

int viewer__query(struct viewer *v, uint64_t run, uint64_t process, bool whole,
		  struct run_view *out)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Query q = HEAPTAP__QUERY__INIT;
	const Heaptap__RunView *rv;
	int err;

	q.has_run = q.has_process = q.has_whole = true;
	q.run = run;
	q.process = process;
	q.whole = whole;
	env.body_case = HEAPTAP__ENVELOPE__BODY_QUERY;
	env.query = &q;
	if ((err = send_env(v, &env)) || (err = receive(v, HEAPTAP__ENVELOPE__BODY_RUN_VIEW))) {
		log_error("collector %s: %s", v->endpoint,
			  err == -EPROTO && v->reader.error[0] ? v->reader.error : strerror(-err));
		return err;
	}
	rv = v->got->run_view;
	if (rv->error)
		return -ENOENT;
	return run_wire__decode(rv, out);
}
