// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "auth.h"
#include "munge_cred.h"
#include "run_wire.h"
#include "store.h"
#include "store_read.h"
#include "wire.h"

TestSuite(wire);

struct got {
	int n;
	Heaptap__Envelope__BodyCase kinds[8];
	uint64_t seq;
};

static int collect(void *ctx, wire_msg *msg)
{
	struct got *g = ctx;

	if (g->n < 8)
		g->kinds[g->n++] = msg->body_case;
	if (msg->body_case == HEAPTAP__ENVELOPE__BODY_ACK)
		g->seq = msg->ack->seq;
	wire_msg_free(msg);
	return 0;
}

static uint8_t *ack_frame(uint64_t seq, size_t *len)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Ack ack = HEAPTAP__ACK__INIT;
	uint8_t *frame;

	ack.has_seq = true;
	ack.seq = seq;
	env.body_case = HEAPTAP__ENVELOPE__BODY_ACK;
	env.ack = &ack;
	cr_assert(eq(int, wire_encode(&env, &frame, len), 0));
	return frame;
}

Test(wire, frames_arrive_whole_whatever_the_reads)
{
	size_t len;
	uint8_t *frame = ack_frame(123456789, &len), stream[256];
	struct wire_reader r;
	struct got g = {};

	cr_assert(len * 2 <= sizeof(stream));
	memcpy(stream, frame, len);
	memcpy(stream + len, frame, len);
	wire_reader__init(&r, WIRE_MAX_GREETING);
	/* A byte at a time, then the rest at once. */
	for (size_t i = 0; i < len + 3; i++)
		cr_assert(eq(int, wire_reader__feed(&r, stream + i, 1, collect, &g), 0));
	cr_assert(eq(int, wire_reader__feed(&r, stream + len + 3, len - 3, collect, &g), 0));
	cr_assert(eq(int, g.n, 2));
	cr_assert(eq(u64, g.seq, 123456789));
	cr_assert(eq(int, wire_reader__partial(&r), 0));
	wire_reader__release(&r);
	free(frame);
}

static const char *refusal(const uint8_t *bytes, size_t n, uint32_t limit)
{
	static struct wire_reader r;
	struct got g = {};

	wire_reader__init(&r, limit);
	cr_assert(eq(int, wire_reader__feed(&r, bytes, n, collect, &g), -EPROTO));
	cr_assert(eq(int, g.n, 0));
	wire_reader__release(&r);
	return r.error;
}

static void expect_refusal(const uint8_t *bytes, size_t n, uint32_t limit, const char *why)
{
	const char *got = refusal(bytes, n, limit);

	cr_expect(strstr(got, why) != NULL, "'%s' not in '%s'", why, got);
}

Test(wire, every_bad_stream_is_refused_with_its_reason)
{
	static const uint8_t garbage[] = "GET / HTTP/1.1\r\n";
	static const uint8_t version[] = { 'H', 'T', 2, 0, 0, 0, 0, 1, 0 };
	static const uint8_t huge[] = { 'H', 'T', 1, 0, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t empty[] = { 'H', 'T', 1, 0, 0, 0, 0, 0 };
	static const uint8_t over[] = { 'H', 'T', 1, 0, 0, 0, 0x10, 0x01 }; /* 4097 */
	static const uint8_t undecodable[] = { 'H', 'T', 1, 0, 0, 0, 0, 2, 0xff, 0xff };
	static const uint8_t no_body[] = { 'H', 'T', 1, 0, 0, 0, 0, 2, 0x78, 0x01 };

	expect_refusal(garbage, sizeof(garbage), 4096, "garbage");
	expect_refusal(version, sizeof(version), 4096, "protocol version 2");
	expect_refusal(huge, sizeof(huge), WIRE_MAX_MESSAGE, "bad length");
	expect_refusal(empty, sizeof(empty), 4096, "bad length");
	expect_refusal(over, sizeof(over), WIRE_MAX_GREETING, "bad length");
	expect_refusal(undecodable, sizeof(undecodable), 4096, "undecodable");
	expect_refusal(no_body, sizeof(no_body), 4096, "no known kind");
}

Test(wire, each_side_proves_the_key_and_only_its_own_role)
{
	struct auth_key key = { .len = 16 }, other = { .len = 16 };
	uint8_t client[WIRE_NONCE_SIZE] = { 1 }, collector[WIRE_NONCE_SIZE] = { 2 };
	uint8_t proof[AUTH_PROOF_SIZE];

	memcpy(key.bytes, "0123456789abcdef", 16);
	memcpy(other.bytes, "0123456789abcdeF", 16);
	auth_proof(&key, AUTH_CLIENT, client, collector, WIRE_NONCE_SIZE, proof);
	cr_expect(auth_check(&key, AUTH_CLIENT, client, collector, WIRE_NONCE_SIZE, proof,
			     sizeof(proof)));
	cr_expect(not(auth_check(&other, AUTH_CLIENT, client, collector, WIRE_NONCE_SIZE, proof,
				 sizeof(proof))));
	/* Replayed as the collector's proof, or to another challenge: refused. */
	cr_expect(not(auth_check(&key, AUTH_COLLECTOR, client, collector, WIRE_NONCE_SIZE, proof,
				 sizeof(proof))));
	collector[0] = 3;
	cr_expect(not(auth_check(&key, AUTH_CLIENT, client, collector, WIRE_NONCE_SIZE, proof,
				 sizeof(proof))));
}

/* What no munged should see: refused before libmunge is asked (no munged runs here). */
Test(wire, a_malformed_munge_credential_is_refused_undecoded)
{
	struct munge_opts m = { true, "/nonexistent/munge.socket" };
	uint8_t nonce[WIRE_NONCE_SIZE] = { 1 }, cred[MUNGE_CRED_MAX + 1];
	uid_t uid = 0;

	memset(cred, 'A', sizeof(cred));
	cr_expect(eq(str, (char *)munge_cred_verify(&m, NULL, 0, nonce, nonce, WIRE_NONCE_SIZE,
						    &uid), "no MUNGE credential"));
	cr_expect(uid == (uid_t)-1);
	cr_expect(eq(str, (char *)munge_cred_verify(&m, cred, sizeof(cred), nonce, nonce,
						    WIRE_NONCE_SIZE, &uid),
		     "a malformed MUNGE credential"));
	cred[5] = '\0';
	cr_expect(eq(str, (char *)munge_cred_verify(&m, cred, 10, nonce, nonce, WIRE_NONCE_SIZE,
						    &uid),
		     "a malformed MUNGE credential"));
}

/* One process, its total and one function, at seq: a batch as an agent sends it. */
static void apply(struct store *st, int64_t agent, uint64_t seq, int64_t current, bool *applied)
{
	struct balance b = { current, 0, current, 10, { 1, 0, 0, 0, 2 } };
	struct run_view v = {};
	struct run_process *rp = run_view__add(&v);
	Heaptap__Batch batch = HEAPTAP__BATCH__INIT;
	Heaptap__RunView *rv;
	struct arena a = {};

	rp->id = 7;
	rp->t.pid = 99;
	rp->t.mpi.rank = 1;
	snprintf(rp->t.mpi.job, sizeof(rp->t.mpi.job), "job-1");
	rp->t.stats.total = b;
	accountant__set_function(&rp->t.stats, "/lib/libx.so", "f", &b);
	rv = run_wire__encode(&a, &v);
	cr_assert(rv != NULL);
	batch.has_seq = batch.has_time = true;
	batch.seq = seq;
	batch.time = 1000 + seq;
	batch.n_processes = 1;
	batch.processes = rv->processes;
	rv->processes[0]->has_state = false; /* running */
	cr_assert(wire_check_batch(&batch) == NULL);
	cr_assert(eq(int, store__begin(st), 0));
	cr_assert(eq(int, store__apply_batch(st, agent, "node", &batch, applied, NULL, NULL), 0));
	cr_assert(eq(int, store__commit(st), 0));
	arena_reset(&a);
	run_view__clear(&v);
}

Test(wire, a_batch_sent_again_is_stored_once)
{
	char path[] = "/tmp/heaptap-store-XXXXXX";
	int fd = mkstemp(path);
	struct store_agent agent;
	struct store *st;
	struct run_view v;
	bool applied;

	cr_assert(fd >= 0);
	close(fd);
	unlink(path);
	cr_assert(eq(int, store__open(path, false, &st), 0));
	cr_assert(eq(int, store__agent_hello(st, 0xabc, "node", "app", 1, "entry", 1, &agent), 0));
	cr_assert(eq(u64, agent.last_seq, 0));
	apply(st, agent.id, 1, 100, &applied);
	cr_assert(applied);
	apply(st, agent.id, 2, 300, &applied);
	cr_assert(applied);
	apply(st, agent.id, 2, 300, &applied); /* its ack was lost */
	cr_assert(not(applied));
	apply(st, agent.id, 1, 100, &applied); /* older still */
	cr_assert(not(applied));
	cr_assert(eq(int, store__agent_hello(st, 0xabc, "node", "app", 1, "entry", 2, &agent), 0));
	cr_assert(eq(u64, agent.last_seq, 2));
	cr_assert(eq(int, store__load_run(st, 0, 0, false, &v), 0));
	cr_assert(eq(sz, v.nr, 1));
	cr_assert(eq(i64, v.processes[0]->t.stats.total.current, 300));
	cr_assert(eq(str, v.job, "job-1"));
	cr_assert(eq(int, v.processes[0]->t.mpi.rank, 1));
	cr_assert(v.processes[0]->t.stats.functions != NULL);
	cr_assert(eq(u64, v.processes[0]->t.stats.functions->bal.calls[4], 2));
	run_view__clear(&v);
	store__close(st);
	unlink(path);
}
