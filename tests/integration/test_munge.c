// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Agents that prove who runs them with MUNGE credentials (agent/collect --munge), against
 * a real munged (Debian's, started by slurm_cluster.sh as for the Slurm tests): an agent
 * with a credential is stored exactly; one without is refused in one line while the
 * collector goes on serving; a credential made for other bytes (another connection's
 * nonces), of another user, or malformed, is refused and counted.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <munge.h>
#include "auth.h"
#include "cluster.h"
#include "driver.h"
#include "raw_client.h"
#include "services.h"
#include "slurm.h"
#include "wire.h"

static char munge_socket[300];

static void start(void)
{
	munge_start(munge_socket, sizeof(munge_socket));
}

TestSuite(munge, .init = start, .fini = slurm_stop, .timeout = 180);

static const char *const every_field[] = { "current", "min", "max", "requested", NULL };

/* The stored run's one process equals the groundtruth target's own truth. */
static void expect_stored_truth(const char *db, const char *truth_path)
{
	json_object *report = stored_report(db, 0), *truth = load_json(truth_path), *p;

	cr_assert(eq(sz, json_object_array_length(get(report, "processes")), 1));
	p = json_object_array_get_idx(get(report, "processes"), 0);
	assert_threads(get(p, "threads"), get(truth, "threads"), "stored");
	assert_libgt_functions(get(p, "functions"), get(truth, "entry_functions"), "stored");
	assert_libgt_library(p, truth, every_field, "stored libgt.so");
	json_object_put(report);
	json_object_put(truth);
}

/* heaptap agent OPTIONS... -- groundtruth: its exit status. */
static int run_agent(const struct collector_proc *c, const char *const options[],
		     const char *truth, const char *err)
{
	char target[512];
	char *argv[32] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
			 "--collector", (char *)c->endpoint,
			   "-i", "0.2" };
	int argc = 8;

	for (int i = 0; options[i]; i++)
		argv[argc++] = (char *)options[i];
	argv[argc++] = "--";
	argv[argc++] = (char *)target_path("groundtruth", target, sizeof(target));
	argv[argc++] = "--truth";
	argv[argc++] = (char *)truth;
	argv[argc] = NULL;
	return wait_status(spawn(argv, NULL, err), 120);
}

Test(munge, an_agent_with_a_credential_is_stored_exactly)
{
	const char *const extra[] = { "--munge-socket", munge_socket, NULL };
	const char *const agent_opts[] = { "--munge-socket", munge_socket, NULL };
	char db[256], truth[256], err[256], *log;
	struct collector_proc c;

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, extra);
	cr_expect(eq(int, run_agent(&c, agent_opts, scratch_file("truth.json", truth,
								   sizeof(truth)),
				    scratch_file("agent.err", err, sizeof(err))),
		     0),
		  "agent: %s", slurp(err));
	expect_stored_truth(db, truth);
	/* The live view needs a credential too. */
	{
		char top[256], top_err[256];
		char *argv[] = { (char *)heaptap_path(), "top", "--collector", c.endpoint, "-b",
				 "--json", "-n", "1", "--munge-socket", munge_socket, NULL };
		json_object *snapshot;

		pid_t viewer = spawn(argv, scratch_file("top.json", top, sizeof(top)),
				     scratch_file("top.err", top_err, sizeof(top_err)));

		cr_expect(eq(int, wait_status(viewer, 30), 0), "top: %s", slurp(top_err));
		snapshot = load_json(top);
		cr_expect(eq(sz, json_object_array_length(get(snapshot, "processes")), 1));
		json_object_put(snapshot);
		argv[8] = NULL; /* without --munge-socket: refused, in one line */
		cr_expect(wait_status(spawn(argv, NULL, top_err), 30) != 0);
		log = slurp(top_err);
		cr_expect(eq(int, lines_with(log, "heaptap:", NULL), 1), "%s", log);
		cr_expect(eq(int, lines_with(log, "refused", "--munge"), 1), "%s", log);
		free(log);
	}
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0));
	log = slurp(c.err);
	cr_expect(eq(int, lines_with(log, "refused", NULL), 2), "only the viewer without: %s",
		  log);
	cr_expect(eq(int, lines_with(log, "refused 127.0.0.1:", "no MUNGE credential"), 1), "%s",
		  log);
	free(log);
}

/* The collector's heaptap_collector_auth_failures_total. */
static long auth_failures(const struct collector_proc *c)
{
	static const char name[] = "heaptap_collector_auth_failures_total ";
	char url[128], page[256], *text, *line;
	long n = -1;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", collector_metrics_port(c));
	cr_assert(eq(int, http_get(url, NULL, NULL, scratch_file("metrics.txt", page,
								   sizeof(page))), 0));
	text = slurp(page);
	line = strstr(text, "\n" "heaptap_collector_auth_failures_total ");
	if (line)
		n = atol(line + 1 + strlen(name));
	free(text);
	return n;
}

/* An agent with options, tracing a sleeping process, until its log has text. */
static char *agent_until(const struct collector_proc *c, const char *const options[],
			 const char *text, const char *err_name)
{
	char *sleep_argv[] = { "sleep", "100", NULL }, pid_text[16], err[256];
	char *argv[16] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
			 "--collector", (char *)c->endpoint,
			   "-p", pid_text };
	int argc = 8;
	pid_t sleeper = spawn(sleep_argv, NULL, NULL), agent;
	bool said;

	snprintf(pid_text, sizeof(pid_text), "%d", (int)sleeper);
	for (int i = 0; options[i]; i++)
		argv[argc++] = (char *)options[i];
	argv[argc] = NULL;
	agent = spawn(argv, NULL, scratch_file(err_name, err, sizeof(err)));
	said = wait_for_text_while(err, text, agent, 30);
	kill(agent, SIGTERM);
	wait_status(agent, 30);
	kill(sleeper, SIGKILL);
	wait_status(sleeper, 10);
	cr_expect(said, "the agent never said '%s': %s", text, slurp(err));
	return slurp(err);
}

Test(munge, with_key_and_munge_an_agent_needs_both_and_the_collector_goes_on)
{
	char key[256], db[256], truth[256], err[256], *log;
	const char *const extra[] = { "--key", key, "--munge-socket", munge_socket,
				      "--metrics", "127.0.0.1:0", NULL };
	const char *const key_only[] = { "--key", key, NULL };
	const char *const munge_only[] = { "--munge-socket", munge_socket, NULL };
	const char *const both[] = { "--key", key, "--munge-socket", munge_socket, NULL };
	struct collector_proc c;
	long refusals;
	int fd;

	require_bpf();
	fd = open(scratch_file("key", key, sizeof(key)), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert(fd >= 0 && write(fd, "a shared secret of the cluster\n", 31) == 31);
	close(fd);
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, extra);

	/* The key alone: the collector refuses it, the agent says so once and why. */
	log = agent_until(&c, key_only, "refused this agent", "key_only.err");
	cr_expect(eq(int, lines_with(log, "refused", NULL), 1), "said once: %s", log);
	cr_expect(eq(int, lines_with(log, "refused this agent", "--munge"), 1), "%s", log);
	free(log);
	/* MUNGE alone: the agent does not go on without the key the collector asks for. */
	log = agent_until(&c, munge_only, "requires a key", "munge_only.err");
	cr_expect(eq(int, lines_with(log, "requires a key", "--key FILE"), 1), "once: %s", log);
	free(log);

	/* Both: served, and stored exactly. */
	cr_expect(eq(int, run_agent(&c, both, scratch_file("truth.json", truth, sizeof(truth)),
				    scratch_file("agent.err", err, sizeof(err))),
		     0),
		  "agent: %s", slurp(err));
	expect_stored_truth(db, truth);
	/* Each refusal of the agent without MUNGE: logged in one line, counted. */
	refusals = (long)count_text(c.err, "no MUNGE credential");
	cr_expect(refusals >= 1, "%s", slurp(c.err));
	cr_expect(eq(i64, auth_failures(&c), refusals), "%s", slurp(c.err));
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0));
	log = slurp(c.err);
	cr_expect(eq(int, lines_with(log, "refused 127.0.0.1:", "no MUNGE credential"),
		     (int)refusals), "%s", log);
	cr_expect(strstr(log, "with a wrong key or MUNGE credential") != NULL, "%s", log);
	cr_expect(db_intact(db));
	free(log);
}

/* A raw client of the protocol, to send credentials heaptap would never make. */
struct raw {
	int fd;
	uint8_t nonce[WIRE_NONCE_SIZE], collector_nonce[WIRE_NONCE_SIZE];
};

/* Connect, say hello as an agent, read the challenge: it asks for MUNGE. */
static void raw_hello(struct raw *r, int port)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Hello h = HEAPTAP__HELLO__INIT;
	wire_msg *msg;

	r->fd = raw_connect(port);
	cr_assert(auth_random(r->nonce, sizeof(r->nonce)) == 0);
	h.has_role = h.has_agent_id = h.has_nonce = true;
	cr_assert(auth_random(&h.agent_id, sizeof(h.agent_id)) == 0);
	h.host = "raw";
	h.nonce.data = r->nonce;
	h.nonce.len = sizeof(r->nonce);
	env.body_case = HEAPTAP__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	raw_send(r->fd, &env);
	msg = raw_read(r->fd);
	cr_assert(msg && msg->body_case == HEAPTAP__ENVELOPE__BODY_CHALLENGE);
	cr_assert(msg->challenge->munge_required, "the challenge does not ask for MUNGE");
	cr_assert(msg->challenge->key_required == false);
	cr_assert(msg->challenge->nonce.len == WIRE_NONCE_SIZE);
	memcpy(r->collector_nonce, msg->challenge->nonce.data, WIRE_NONCE_SIZE);
	wire_msg_free(msg);
}

/* Send Auth with this credential: what the collector answers (its body case, 0 at EOF). */
static int raw_auth(struct raw *r, const void *cred, size_t len)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Auth a = HEAPTAP__AUTH__INIT;
	wire_msg *msg;
	int got;

	a.has_munge = true;
	a.munge.data = (uint8_t *)cred;
	a.munge.len = len;
	env.body_case = HEAPTAP__ENVELOPE__BODY_AUTH;
	env.auth = &a;
	raw_send(r->fd, &env);
	msg = raw_read(r->fd);
	got = msg ? (int)msg->body_case : 0;
	wire_msg_free(msg);
	close(r->fd);
	return got;
}

/* The payload heaptap's credentials carry: "heaptap agent" || collector nonce || client's. */
static size_t payload(uint8_t *buf, const struct raw *r)
{
	memcpy(buf, "heaptap agent", 13);
	memcpy(buf + 13, r->collector_nonce, WIRE_NONCE_SIZE);
	memcpy(buf + 13 + WIRE_NONCE_SIZE, r->nonce, WIRE_NONCE_SIZE);
	return 13 + 2 * WIRE_NONCE_SIZE;
}

/* munged's credential over these bytes, made by this process (free it). */
static char *encode(const void *buf, size_t len)
{
	munge_ctx_t ctx = munge_ctx_create();
	munge_err_t err;
	char *cred = NULL;

	cr_assert(ctx && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket) == EMUNGE_SUCCESS);
	err = munge_encode(&cred, ctx, buf, (int)len);
	cr_assert(err == EMUNGE_SUCCESS, "munge_encode: %s", munge_strerror(err));
	munge_ctx_destroy(ctx);
	return cred;
}

/* The same, made by user nobody (65534) in a child process. */
static char *encode_as_nobody(const void *buf, size_t len)
{
	char cred[2048] = "";
	int pipefd[2];
	ssize_t n;
	pid_t pid;

	cr_assert(pipe(pipefd) == 0);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		munge_ctx_t ctx = munge_ctx_create();
		char *c = NULL;

		close(pipefd[0]);
		if (setgid(65534) || setuid(65534) || !ctx ||
		    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket) != EMUNGE_SUCCESS ||
		    munge_encode(&c, ctx, buf, (int)len) != EMUNGE_SUCCESS)
			_exit(1);
		n = write(pipefd[1], c, strlen(c));
		_exit(n == (ssize_t)strlen(c) ? 0 : 1);
	}
	close(pipefd[1]);
	n = read(pipefd[0], cred, sizeof(cred) - 1);
	close(pipefd[0]);
	cr_assert(eq(int, wait_status(pid, 30), 0), "no credential made as user nobody");
	cr_assert(n > 0);
	cred[n] = '\0';
	return strdup(cred);
}

Test(munge, credentials_made_for_other_bytes_or_users_are_refused)
{
	const char *const extra[] = { "--munge-socket", munge_socket, NULL };
	uint8_t buf[128], garbage[2000];
	struct raw a, b, r;
	struct collector_proc c;
	char db[256], *cred, *log;
	size_t len;

	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, extra);
	raw_hello(&a, c.port);
	raw_hello(&b, c.port);
	/*
	 * A credential for connection a, sent on b: its nonces are not b's. (Another one, made
	 * alike, on a: welcome, so the payload is right. munged decodes each credential once.)
	 */
	cred = encode(buf, payload(buf, &a));
	cr_expect(eq(int, raw_auth(&b, cred, strlen(cred)), HEAPTAP__ENVELOPE__BODY_REFUSED),
		  "a credential of another connection was accepted");
	free(cred);
	cred = encode(buf, payload(buf, &a));
	cr_expect(eq(int, raw_auth(&a, cred, strlen(cred)), HEAPTAP__ENVELOPE__BODY_WELCOME),
		  "a good credential was refused: %s", slurp(c.err));
	free(cred);
	/* The right payload, but encoded by a user that is neither root nor the collector's. */
	raw_hello(&r, c.port);
	cred = encode_as_nobody(buf, payload(buf, &r));
	cr_expect(eq(int, raw_auth(&r, cred, strlen(cred)), HEAPTAP__ENVELOPE__BODY_REFUSED),
		  "a credential of user nobody was accepted");
	free(cred);
	/* Over other bytes: the payload heaptap makes, one byte changed. */
	raw_hello(&r, c.port);
	len = payload(buf, &r);
	buf[len - 1] ^= 1;
	cred = encode(buf, len);
	cr_expect(eq(int, raw_auth(&r, cred, strlen(cred)), HEAPTAP__ENVELOPE__BODY_REFUSED));
	free(cred);
	/* Not a credential: too long, then with a NUL inside, then text munged rejects. */
	memset(garbage, 'A', sizeof(garbage));
	raw_hello(&r, c.port);
	cr_expect(eq(int, raw_auth(&r, garbage, sizeof(garbage)), HEAPTAP__ENVELOPE__BODY_REFUSED));
	garbage[10] = '\0';
	raw_hello(&r, c.port);
	cr_expect(eq(int, raw_auth(&r, garbage, 100), HEAPTAP__ENVELOPE__BODY_REFUSED));
	raw_hello(&r, c.port);
	cr_expect(eq(int, raw_auth(&r, "MUNGE:AAAA:", 11), HEAPTAP__ENVELOPE__BODY_REFUSED));
	/* No credential at all. */
	raw_hello(&r, c.port);
	cr_expect(eq(int, raw_auth(&r, NULL, 0), HEAPTAP__ENVELOPE__BODY_REFUSED));

	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0), "the collector: %s", slurp(c.err));
	log = slurp(c.err);
	cr_expect(eq(int, lines_with(log, "refused 127.0.0.1:", "another connection"), 2), "%s",
		  log);
	cr_expect(eq(int, lines_with(log, "other than root or the collector's", "(uid 65534)"), 1),
		  "%s", log);
	cr_expect(eq(int, lines_with(log, "refused 127.0.0.1:", "malformed"), 2), "%s", log);
	cr_expect(eq(int, lines_with(log, "refused 127.0.0.1:", "no MUNGE credential"), 1), "%s",
		  log);
	cr_expect(eq(int, lines_with(log, "refused 127.0.0.1:", "its MUNGE credential: "), 1), "%s",
		  log);
	/* One line each: nothing more when it closes them. */
	cr_expect(eq(int, lines_with(log, "refused", NULL), 8), "%s", log);
	cr_expect(strstr(log, "refused 7 connections (7 with a wrong key or MUNGE credential")
		  != NULL, "%s", log);
	free(log);
}
