// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What a collector must survive: an agent killed mid-run (its process is "agent lost"),
 * and clients that break the protocol or hold the wrong key (each refused with one line,
 * while a real agent goes on being served and the database stays consistent).
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
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "auth.h"
#include "cluster.h"
#include "driver.h"
#include "raw_client.h"
#include "services.h"
#include "wire.h"

TestSuite(cluster_faults, .timeout = 180);

static void write_key(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert(fd >= 0);
	cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	fchmod(fd, mode);
	close(fd);
}

/* Whether the collector's /metrics has a series of process pid. */
static bool metrics_name_pid(const struct collector_proc *c, pid_t pid)
{
	char url[128], page[256], label[32], *text;
	bool found;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", collector_metrics_port(c));
	cr_assert(eq(int, http_get(url, NULL, NULL, scratch_file("metrics.txt", page,
								   sizeof(page))), 0));
	snprintf(label, sizeof(label), "pid=\"%d\"", (int)pid);
	text = slurp(page);
	found = strstr(text, label) != NULL;
	free(text);
	return found;
}

/*
 * The collector's live view of its newest run (top --collector -b --json -n 1), every
 * process whole; NULL while it has no run.
 */
static json_object *live_view(const struct collector_proc *c)
{
	char top[256];
	char *argv[] = { (char *)heaptap_path(), "top", "--collector", (char *)c->endpoint, "-b",
			 "--json", "-n", "1", NULL };

	cr_expect(eq(int, wait_status(spawn(argv, scratch_file("top.json", top, sizeof(top)), NULL),
				      30), 0));
	return json_object_from_file(top);
}

/* Each thread busy_threads lists in its truth shows all its callocs and holds nothing. */
static void expect_busy_threads_truth(json_object *p, const char *truth)
{
	json_object *t = load_json(truth), *threads = get(p, "threads");

	for (size_t i = 0; i < json_object_array_length(get(t, "tids")); i++) {
		int tid = json_object_get_int(json_object_array_get_idx(get(t, "tids"), i));
		json_object *row = NULL;

		for (size_t j = 0; j < json_object_array_length(threads); j++) {
			json_object *r = json_object_array_get_idx(threads, j);

			if (json_object_get_int(get(r, "tid")) == tid)
				row = r;
		}
		cr_assert(row != NULL, "thread %d is not stored", tid);
		cr_expect(eq(int, json_object_get_int(get(get(row, "calls"), "calloc")),
			     json_object_get_int(get(t, "callocs"))), "thread %d's callocs", tid);
		cr_expect(eq(i64, json_object_get_int64(get(row, "current")), 0),
			  "thread %d freed every block", tid);
	}
	json_object_put(t);
}

Test(cluster_faults, an_agent_killed_leaves_its_process_agent_lost)
{
	/* Commits twice a second: the report reads the stored figures while the target runs. */
	const char *const extra[] = { "--lost-after", "1", "--metrics", "127.0.0.1:0",
				      "--commit-every", "0.5", NULL };
	char target[512], db[256], truth[256], err[256];
	struct collector_proc c;
	json_object *report = NULL, *p = NULL;
	pid_t agent, traced = 0;

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, extra);
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "-i", "0.2", "--", (char *)target_path("groundtruth", target,
									 sizeof(target)),
				 "--truth", (char *)scratch_file("truth.json", truth, sizeof(truth)), "--park",
				 NULL };

		agent = spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err)));
	}
	for (int tries = 0; tries < 3000 && access(truth, F_OK); tries++)
		sleep_ms(20);
	cr_assert(access(truth, F_OK) == 0, "the target did not run: %s", slurp(err));
	sleep_ms(1500); /* a few intervals: its figures are stored */
	report = stored_report(db, 0);
	p = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(p != NULL, "nothing stored: %s", slurp(err));
	traced = json_object_get_int(get(p, "pid"));
	cr_expect(metrics_name_pid(&c, traced), "no series of the running process %d", traced);
	kill(agent, SIGKILL);
	wait_status(agent, 10);
	for (int tries = 0; tries < 100; tries++) {
		json_object_put(report);
		report = stored_report(db, 0);
		p = json_object_array_get_idx(get(report, "processes"), 0);
		if (p && json_object_get_boolean(get(p, "agent_lost")))
			break;
		sleep_ms(200);
	}
	cr_assert(p != NULL);
	cr_expect(metrics_name_pid(&c, traced) == false,
		  "the lost agent's process %d still has series", traced);
	/* The live view says the same, through the collector. */
	{
		json_object *snapshot = live_view(&c), *q;

		cr_assert(snapshot != NULL, "the collector has no run");
		q = json_object_array_get_idx(get(snapshot, "processes"), 0);
		cr_expect(q && json_object_get_int(get(q, "pid")) == traced, "%s",
			  json_object_to_json_string(snapshot));
		cr_expect(q && json_object_get_boolean(get(q, "agent_lost")));
		cr_expect(q && json_object_get_string(get(q, "host"))[0]);
		json_object_put(snapshot);
	}
	kill(traced, SIGKILL);
	cr_expect(json_object_get_boolean(get(p, "agent_lost")), "%s",
		  json_object_to_json_string(p));
	cr_expect(eq(str, (char *)json_object_get_string(get(p, "status")), "agent lost"));
	cr_expect(json_object_get_boolean(get(p, "exited")) == 0);
	{
		json_object *t = load_json(truth);

		assert_threads(get(p, "threads"), get(t, "threads"), "before the agent died");
		json_object_put(t);
	}
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0));
	json_object_put(report);
}

/* Does the collector close fd within timeout_s (whatever it sent first)? */
static bool closed_by_collector(int fd, int timeout_s)
{
	char buf[4096];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, timeout_s * 1000) <= 0)
			return false;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return true;
	}
}

/* An agent that knows the protocol but proves a key it does not share. */
static bool wrong_key_refused(int port)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Hello h = HEAPTAP__HELLO__INIT;
	Heaptap__Auth a = HEAPTAP__AUTH__INIT;
	struct auth_key wrong = { .len = 20 };
	uint8_t nonce[WIRE_NONCE_SIZE] = { 1, 2, 3 }, proof[AUTH_PROOF_SIZE];
	int fd = raw_connect(port);
	wire_msg *msg;
	bool refused;

	memcpy(wrong.bytes, "not-the-right-key-at-all", 20);
	h.has_role = h.has_agent_id = h.has_nonce = true;
	h.agent_id = 42;
	h.host = "intruder";
	h.nonce.data = nonce;
	h.nonce.len = sizeof(nonce);
	env.body_case = HEAPTAP__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	raw_send(fd, &env);
	msg = raw_read(fd);
	cr_assert(msg && msg->body_case == HEAPTAP__ENVELOPE__BODY_CHALLENGE);
	cr_expect(msg->challenge->key_required);
	auth_proof(&wrong, AUTH_CLIENT, nonce, msg->challenge->nonce.data, WIRE_NONCE_SIZE, proof);
	wire_msg_free(msg);
	a.has_proof = true;
	a.proof.data = proof;
	a.proof.len = sizeof(proof);
	env.body_case = HEAPTAP__ENVELOPE__BODY_AUTH;
	env.auth = &a;
	raw_send(fd, &env);
	msg = raw_read(fd);
	refused = msg && msg->body_case == HEAPTAP__ENVELOPE__BODY_REFUSED;
	wire_msg_free(msg);
	refused = refused && closed_by_collector(fd, 10);
	close(fd);
	return refused;
}

Test(cluster_faults, bad_clients_are_refused_and_a_real_agent_is_served)
{
	const char *const extra_template[] = { "--key", NULL, "--client-timeout", "2", NULL };
	const char *extra[5];
	char key[256], open_key[256], db[256], target[512], truth[256], err[256], *log;
	static const uint8_t truncated[] = { 'H', 'T', 1, 0, 0, 0, 0, 100, 1, 2, 3, 4 };
	static const uint8_t huge[] = { 'H', 'T', 1, 0, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t future[] = { 'H', 'T', 9, 0, 0, 0, 0, 4, 1, 2, 3, 4 };
	struct collector_proc c;
	int fd, slow, status;
	json_object *report, *t;

	require_bpf();
	write_key(scratch_file("key", key, sizeof(key)), "a shared secret of the cluster\n", 0600);
	memcpy(extra, extra_template, sizeof(extra));
	extra[1] = key;
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, extra);

	fd = raw_connect(c.port);
	raw_send_bytes(fd, "GET / HTTP/1.0\r\n\r\n", 18);
	cr_expect(closed_by_collector(fd, 10), "garbage was not refused");
	close(fd);
	fd = raw_connect(c.port);
	raw_send_bytes(fd, truncated, sizeof(truncated));
	shutdown(fd, SHUT_WR);
	cr_expect(closed_by_collector(fd, 10), "a truncated frame was not refused");
	close(fd);
	fd = raw_connect(c.port);
	raw_send_bytes(fd, huge, sizeof(huge));
	cr_expect(closed_by_collector(fd, 10), "a 4 GiB length was not refused");
	close(fd);
	fd = raw_connect(c.port);
	raw_send_bytes(fd, future, sizeof(future));
	cr_expect(closed_by_collector(fd, 10), "an unknown version was not refused");
	close(fd);
	cr_expect(wrong_key_refused(c.port), "a wrong key was not refused");
	/* A slow client holds its connection while the real agent works. */
	slow = raw_connect(c.port);
	raw_send_bytes(slow, "HT", 2);
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "--key", key, "-i", "0.2", "--",
				 (char *)target_path("groundtruth", target, sizeof(target)),
				 "--truth", (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };

		status = wait_status(spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err))),
				     120);
	}
	cr_expect(eq(int, status, 0), "agent: %s", slurp(err));
	cr_expect(closed_by_collector(slow, 10), "a slow client was not cut");
	close(slow);
	report = stored_report(db, 0);
	t = load_json(truth);
	assert_threads(get(json_object_array_get_idx(get(report, "processes"), 0), "threads"),
		       get(t, "threads"), "the real agent");
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0));
	log = slurp(c.err);
	cr_expect(strstr(log, "garbage") && strstr(log, "truncated") &&
			  strstr(log, "bad length") && strstr(log, "protocol version") &&
			  strstr(log, "wrong key") && strstr(log, "slow client"),
		  "a refusal was not logged: %s", log);
	cr_expect(strstr(log, "1 with a wrong key") != NULL, "%s", log);
	cr_expect(db_intact(db));
	free(log);
	json_object_put(report);
	json_object_put(t);

	/* A key others can read is refused before anything starts. */
	write_key(scratch_file("open.key", open_key, sizeof(open_key)), "a shared secret again\n",
		  0644);
	{
		char *argv[] = { (char *)heaptap_path(), "collect", "--listen", "127.0.0.1:0",
				 "--db", db, "--key", open_key, NULL };

		status = wait_status(spawn(argv, NULL, err), 20);
	}
	cr_expect(eq(int, status, 2));
	log = slurp(err);
	cr_expect(strstr(log, "chmod 600") && lines_with(log, "heaptap:", NULL) == 1, "%s", log);
	free(log);
}

Test(cluster_faults, a_collector_never_reached_is_said_in_one_line)
{
	char target[512], err[256], *log;
	int status, port;

	require_bpf();
	port = free_local_port(); /* nobody listens on it */
	{
		char endpoint[64];
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", endpoint, "-i", "0.2",
				 "--", (char *)target_path("groundtruth", target, sizeof(target)),
				 NULL };

		snprintf(endpoint, sizeof(endpoint), "127.0.0.1:%d", port);
		status = wait_status(spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err))),
				     60);
	}
	cr_expect(eq(int, status, 0), "the command's status");
	log = slurp(err);
	cr_expect(eq(int, lines_with(log, "not delivered", NULL), 1), "%s", log);
	cr_expect(eq(int, lines_with(log, "Connection refused", NULL), 1), "said once: %s", log);
	free(log);
}

/*
 * The collector is down while the agent traces threads that never stop calling malloc:
 * beyond --buffer the oldest batches go, counted; once it is up, the agent reconnects and
 * what it sends next carries every group again, so the stored figures are still exact.
 */
Test(cluster_faults, a_collector_down_then_up_costs_counted_batches_not_figures)
{
	char target[512], db[256], truth[256], err[256];
	struct collector_proc c;
	json_object *report = NULL, *p = NULL;
	pid_t agent, traced;
	int port, status;

	require_bpf();
	port = free_local_port(); /* nobody listens on it yet */
	{
		char endpoint[64];
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", endpoint, "-i", "0.1",
				 "--buffer", "4K", "--",
				 (char *)target_path("busy_threads", target, sizeof(target)), "--truth",
				 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };

		snprintf(endpoint, sizeof(endpoint), "127.0.0.1:%d", port);
		agent = spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err)));
	}
	sleep_ms(3000); /* thirty intervals of changed groups into a 4K buffer */
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), port,
			(const char *const[]){ "--commit-every", "0.5", NULL });
	for (int tries = 0; tries < 150 && db_integer(db, "SELECT count(*) FROM processes") < 1;
	     tries++)
		sleep_ms(200);
	report = stored_report(db, 0);
	p = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(p != NULL, "nothing stored after the collector came up: %s", slurp(err));
	traced = json_object_get_int(get(p, "pid"));
	json_object_put(report);
	kill(traced, SIGUSR1); /* the counted callocs, then the truth, then exit */
	status = wait_status(agent, 60);
	cr_expect(eq(int, status, 0), "the agent: %s", slurp(err));
	report = stored_report(db, 0);
	p = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(p != NULL);
	cr_expect(json_object_get_int64(get(p, "dropped_messages")) > 0,
		  "no batch dropped into a 4K buffer: %s", json_object_to_json_string(p));
	expect_busy_threads_truth(p, truth);
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0));
	json_object_put(report);
}

/*
 * Rounds of the default 30 s, longer than a small --buffer holds of an agent sending every
 * 0.1 s: the agent asks for its acknowledgement once its buffer is a quarter full, so nothing is
 * dropped. Meanwhile the live view shows the round's figures not yet committed, and in the
 * end the stored ones are exact.
 */
Test(cluster_faults, a_small_buffer_asks_for_its_acks_before_the_round_ends)
{
	char target[512], db[256], truth[256], err[256];
	struct collector_proc c;
	json_object *report, *p = NULL;
	pid_t agent, traced = 0;

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL);
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint, "-i",
				 "0.1", "--buffer", "4K", "--",
				 (char *)target_path("busy_threads", target, sizeof(target)), "--truth",
				 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };

		agent = spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err)));
	}
	for (int tries = 0; tries < 150 && !traced; tries++) {
		json_object *snapshot = live_view(&c);
		json_object *q = snapshot ? json_object_array_get_idx(get(snapshot, "processes"), 0)
					  : NULL;

		if (q)
			traced = json_object_get_int(get(q, "pid"));
		json_object_put(snapshot);
		if (!traced)
			sleep_ms(200);
	}
	cr_assert(traced > 0, "the live view never showed the traced process: %s", slurp(err));
	sleep_ms(3000); /* thirty intervals of changed groups, well over 4K */
	kill(traced, SIGUSR1); /* the counted callocs, then the truth, then exit */
	cr_expect(eq(int, wait_status(agent, 60), 0), "the agent: %s", slurp(err));
	report = stored_report(db, 0);
	p = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(p != NULL, "nothing stored: %s", slurp(err));
	cr_expect(eq(i64, json_object_get_int64(get(p, "dropped_messages")), 0),
		  "batches dropped while the collector was up: %s", json_object_to_json_string(p));
	expect_busy_threads_truth(p, truth);
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0));
	json_object_put(report);
}

/*
 * Within a round nothing is committed, yet the live view is exact: a query writes the
 * round's changed groups into its transaction and reads them back. When the traced
 * program ends, the agent's last batch asks for its acknowledgement, and the round commits
 * then rather than at its end.
 */
Test(cluster_faults, the_live_view_is_exact_before_the_round_commits)
{
	char target[512], db[256], truth[256], err[256];
	struct collector_proc c;
	json_object *snapshot, *report, *t, *q, *p;
	pid_t agent, traced;

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL); /* 30 s */
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint, "-i",
				 "0.2", "--", (char *)target_path("groundtruth", target,
								  sizeof(target)),
				 "--truth", (char *)scratch_file("truth.json", truth, sizeof(truth)),
				 "--park", NULL };

		agent = spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err)));
	}
	for (int tries = 0; tries < 3000 && access(truth, F_OK); tries++)
		sleep_ms(20);
	cr_assert(access(truth, F_OK) == 0, "the target did not run: %s", slurp(err));
	sleep_ms(1000); /* a few intervals: every group has been sent */
	t = load_json(truth);
	snapshot = live_view(&c);
	cr_assert(snapshot != NULL, "the collector has no run: %s", slurp(err));
	q = json_object_array_get_idx(get(snapshot, "processes"), 0);
	cr_assert(q != NULL, "the live view shows nothing: %s", slurp(err));
	assert_threads(get(q, "threads"), get(t, "threads"), "live, within the round");
	cr_expect(eq(i64, db_integer(db, "SELECT count(*) FROM groups"), 0),
		  "committed before the round's end: the live view read committed figures");
	traced = json_object_get_int(get(q, "pid"));
	kill(traced, SIGKILL);
	wait_status(agent, 20); /* the command's fate: killed */
	/* Well within the 30 s round: committed because the agent asked. */
	report = stored_report(db, 0);
	p = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(p != NULL, "the agent's last batch is not committed: %s", slurp(err));
	cr_expect(json_object_get_boolean(get(p, "exited")), "%s", json_object_to_json_string(p));
	assert_threads(get(p, "threads"), get(t, "threads"), "stored");
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0));
	json_object_put(report);
	json_object_put(snapshot);
	json_object_put(t);
}
