// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The collector's side of the protocol: handshake, batches, goodbyes, queries. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "collector_internal.h"
#include "heaptap_types.h"
#include "log.h"
#include "run_wire.h"
#include "store_read.h"

static int on_hello(struct collector *c, struct conn *conn, const Heaptap__Hello *h)
{
	Heaptap__Challenge ch = HEAPTAP__CHALLENGE__INIT;
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	uint8_t proof[AUTH_PROOF_SIZE];

	if (!h->has_nonce || h->nonce.len != WIRE_NONCE_SIZE) {
		collector_close(c, conn, "a hello without its %u-byte nonce", WIRE_NONCE_SIZE);
		return -EPROTO;
	}
	memcpy(conn->client_nonce, h->nonce.data, WIRE_NONCE_SIZE);
	conn->viewer = h->role == HEAPTAP__ROLE__VIEWER;
	conn->uid = h->agent_id;
	conn->pid = h->pid;
	snprintf(conn->host, sizeof(conn->host), "%s", h->host ? h->host : "?");
	snprintf(conn->command, sizeof(conn->command), "%s", h->command ? h->command : "");
	snprintf(conn->attribution, sizeof(conn->attribution), "%s",
		 h->attribution ? h->attribution : "entry");
	if (!conn->viewer && (!h->has_agent_id || !h->host || strnlen(h->host, 256) == 256 ||
			      (h->command && strnlen(h->command, WIRE_MAX_STRING + 1) >
						     WIRE_MAX_STRING))) {
		collector_close(c, conn, "an agent's hello without its id and host");
		return -EPROTO;
	}
	if (auth_random(conn->nonce, sizeof(conn->nonce))) {
		collector_close(c, conn, "no random bytes for a challenge");
		return -EIO;
	}
	ch.has_nonce = true;
	ch.nonce.data = conn->nonce;
	ch.nonce.len = sizeof(conn->nonce);
	ch.has_key_required = true;
	ch.key_required = c->opts->key->len > 0;
	if (ch.key_required) {
		auth_proof(c->opts->key, AUTH_COLLECTOR, conn->client_nonce, conn->nonce,
			   WIRE_NONCE_SIZE, proof);
		ch.has_proof = true;
		ch.proof.data = proof;
		ch.proof.len = sizeof(proof);
	}
	if (c->opts->munge.on)
		ch.has_munge_required = ch.munge_required = true;
	env.body_case = HEAPTAP__ENVELOPE__BODY_CHALLENGE;
	env.challenge = &ch;
	conn->state = CONN_AUTH;
	return collector_send(c, conn, &env) ? -EIO : 0;
}

static void refuse(struct collector *c, struct conn *conn, const char *reason)
{
	Heaptap__Refused r = HEAPTAP__REFUSED__INIT;
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;

	r.reason = (char *)reason;
	env.body_case = HEAPTAP__ENVELOPE__BODY_REFUSED;
	env.refused = &r;
	/* Before sending: once sent, it closes without another line or count of its own. */
	conn->closing = true;
	collector_send(c, conn, &env);
}

/* Another connection of the same agent: the older is dead, whatever its socket says. */
static void replace_older(struct collector *c, struct conn *conn)
{
	for (struct conn *o = c->conns; o; o = o->next) {
		if (o != conn && !o->viewer && o->state == CONN_READY && o->uid == conn->uid) {
			collector_close(c, o, "replaced by a new connection of the same agent");
			return;
		}
	}
}

/* A client that failed to authenticate: one line, counted, refused. */
static void refuse_auth(struct collector *c, struct conn *conn, const char *what,
			const char *reason)
{
	c->auth_failures++;
	c->refused++;
	if (c->metrics) {
		metrics__add(c->metrics, METRICS_AUTH_FAILURES, 1);
		metrics__add(c->metrics, METRICS_REJECTED_CONNECTIONS, 1);
	}
	log_error("refused %s (%s): %s", conn->peer, conn->host, what);
	refuse(c, conn, reason);
}

static const char munge_missing[] = "a MUNGE credential is required: add --munge (and "
				    "--munge-socket PATH if munged's socket is elsewhere)";
static const char munge_bad[] = "MUNGE credential not accepted: it must be root's or the "
				"collector's user's, from a munged with the collector's MUNGE key";

static int on_auth(struct collector *c, struct conn *conn, const Heaptap__Auth *a)
{
	Heaptap__Welcome w = HEAPTAP__WELCOME__INIT;
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	struct store_agent agent = {};

	if (c->opts->key->len &&
	    !auth_check(c->opts->key, AUTH_CLIENT, conn->client_nonce, conn->nonce,
			WIRE_NONCE_SIZE, a->has_proof ? a->proof.data : NULL,
			a->has_proof ? a->proof.len : 0)) {
		refuse_auth(c, conn, "wrong key",
			    "wrong key: give the collector's key with --key FILE");
		return 0;
	}
	if (c->opts->munge.on) {
		char what[160];
		uid_t uid;
		/* Blocks on the local munged: a round trip on a Unix socket. */
		const char *why = munge_cred_verify(&c->opts->munge,
						    a->has_munge ? a->munge.data : NULL,
						    a->has_munge ? a->munge.len : 0, conn->nonce,
						    conn->client_nonce, WIRE_NONCE_SIZE, &uid);

		if (why) {
			if (uid != (uid_t)-1)
				snprintf(what, sizeof(what), "%s (uid %u)", why, (unsigned int)uid);
			else
				snprintf(what, sizeof(what), "%s", why);
			refuse_auth(c, conn, what, a->has_munge ? munge_bad : munge_missing);
			return 0;
		}
	}
	w.has_heartbeat = true;
	w.heartbeat = c->opts->client_timeout / 3 >= 1 ? (uint32_t)(c->opts->client_timeout / 3) : 1;
	if (!conn->viewer) {
		/* What this agent stored is committed before it is told. */
		collector_end_round(c);
		replace_older(c, conn);
		if (store__agent_hello(c->store, conn->uid, conn->host, conn->command, conn->pid,
				       conn->attribution, collector_now(), &agent)) {
			collector_close(c, conn, "the database refused its hello");
			return -EIO;
		}
		conn->agent = agent.id;
		w.has_last_seq = true;
		w.last_seq = agent.last_seq;
		c->nr_agents++;
		if (c->metrics)
			metrics__set_agents_connected(c->metrics, c->nr_agents);
	}
	env.body_case = HEAPTAP__ENVELOPE__BODY_WELCOME;
	env.welcome = &w;
	conn->state = CONN_READY;
	wire_reader__set_limit(&conn->reader, WIRE_MAX_MESSAGE);
	log_debug("%s %s (%s, pid %d) connected from %s", conn->viewer ? "viewer" : "agent",
		  conn->viewer ? "" : conn->command, conn->host, conn->pid, conn->peer);
	return collector_send(c, conn, &env) ? -EIO : 0;
}

static void to_metrics(void *ctx, const struct store_who *who, const Heaptap__Process *p)
{
	struct metrics *m = ctx;
	struct metrics_who w = { who->job, who->host, who->rank, who->pid };
	uint64_t calls[HT_NR_FUNCS] = {};

	if (p->state != HEAPTAP__STATE__RUNNING) {
		metrics__forget_process(m, &w);
		return;
	}
	if (p->total) {
		for (size_t f = 0; f < p->total->n_calls && f < HT_NR_FUNCS; f++)
			calls[f] = p->total->calls[f];
		metrics__set_process(m, &w, p->total->current, p->total->max, calls);
	}
	for (size_t i = 0; i < p->n_libraries; i++)
		metrics__set_library(m, &w, p->libraries[i]->library,
				     p->libraries[i]->balance->current);
}

static int on_batch(struct collector *c, struct conn *conn, const Heaptap__Batch *b)
{
	const char *why = wire_check_batch(b);
	store_on_process on_process = NULL;
	void *ctx = NULL;
	bool applied;

	if (why) {
		c->decode_errors++;
		collector_close(c, conn, "%s", why);
		return -EPROTO;
	}
	if (collector_begin_round(c)) {
		collector_close(c, conn, "the database cannot begin a transaction");
		return -EIO;
	}
	if (c->metrics) {
		on_process = to_metrics;
		ctx = c->metrics;
	}
	if (store__apply_batch(c->store, conn->agent, conn->host, b, &applied, on_process, ctx)) {
		/* Nothing of the round is stored: its agents send it again. */
		collector_close(c, conn, "the database refused its batch %" PRIu64, b->seq);
		collector_abort_round(c);
		return -EIO;
	}
	/* The agent is finishing, or filling its buffer: it waits for this acknowledgement. */
	if (b->ack_now)
		c->round_urgent = true;
	if (!conn->ack_seq) {
		conn->next_ack = c->to_ack;
		c->to_ack = conn;
	}
	if (b->seq > conn->ack_seq)
		conn->ack_seq = b->seq;
	return 0;
}

static int on_query(struct collector *c, struct conn *conn, const Heaptap__Query *q)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__RunView none = HEAPTAP__RUN_VIEW__INIT, *rv = NULL;
	struct arena a = {};
	struct run_view v;
	int err;

	/* Live figures: the round's pending groups go into its transaction, read back here. */
	if (c->in_round && store__flush(c->store))
		collector_abort_round(c);
	err = store__load_run(c->store, q->run, q->process, q->process == 0 && !q->whole, &v);
	if (!err && !(rv = run_wire__encode(&a, &v)))
		err = -ENOMEM;
	if (err) {
		none.error = err == -ENOENT ? "no such run (yet)" : "the database cannot be read";
		rv = &none;
	}
	env.body_case = HEAPTAP__ENVELOPE__BODY_RUN_VIEW;
	env.run_view = rv;
	err = collector_send(c, conn, &env);
	arena_reset(&a);
	run_view__clear(&v);
	return err;
}

int collector_handle(struct collector *c, struct conn *conn, wire_msg *msg)
{
	int err = -EPROTO;

	c->messages++;
	if (c->metrics)
		metrics__add(c->metrics, METRICS_MESSAGES, 1);
	switch (conn->state) {
	case CONN_HELLO:
		if (msg->body_case == HEAPTAP__ENVELOPE__BODY_HELLO)
			err = on_hello(c, conn, msg->hello);
		break;
	case CONN_AUTH:
		if (msg->body_case == HEAPTAP__ENVELOPE__BODY_AUTH)
			err = on_auth(c, conn, msg->auth);
		break;
	case CONN_READY:
		if (!conn->viewer && msg->body_case == HEAPTAP__ENVELOPE__BODY_BATCH)
			err = on_batch(c, conn, msg->batch);
		else if (!conn->viewer && msg->body_case == HEAPTAP__ENVELOPE__BODY_GOODBYE)
			err = 0, conn->goodbye = true;
		else if (conn->viewer && msg->body_case == HEAPTAP__ENVELOPE__BODY_QUERY)
			err = on_query(c, conn, msg->query);
		break;
	}
	if (err == -EPROTO && !conn->dead && !conn->closing)
		collector_close(c, conn, "unexpected message (kind %d) in this state",
				(int)msg->body_case);
	wire_msg_free(msg);
	return err;
}
