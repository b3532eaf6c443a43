// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Simulated agents for the collector's ingest figures: AGENTS connections on loopback,
 * each an agent of RANKS ranks, each sending once a second a batch in which every rank has
 * GROUPS changed groups (its total, a thread, two libraries, the rest functions out of 200).
 * After a warm-up (the first batches carry every rank's identity, names are new until each
 * of the 200 functions was sent once, and the groups are in the database once that round is
 * committed) it measures for SECONDS: the collector's CPU (/proc/PID/stat), the database's
 * growth and the collector's peak memory. The last batch says the agents are finishing.
 * Given several collectors (endpoints and pids separated by commas, in the same order), the
 * agents are dealt to them in turn, one job across them all, and their CPU is the sum; given
 * a database server's SERVER_PID, its CPU (its own and its children's, a backend per
 * connection) is measured over the same window.
 *   ingest HOST:PORT[,...] COLLECTOR_PID[,...] DB AGENTS RANKS GROUPS SECONDS [SERVER_PID]
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "arena.h"
#include "auth.h"
#include "db.h"
#include "net.h"
#include "run_wire.h"
#include "wire.h"

#define FUNCTIONS 200

struct sim {
	int fd;
	uint64_t seq, acked;
	struct wire_reader reader;
	wire_msg *got;
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A process's /proc/PID/stat after its name, and its parent; false if it is gone. */
static bool stat_of(int pid, char *buf, size_t size, const char **fields, int *ppid)
{
	char path[64];
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "r")))
		return false;
	ok = fgets(buf, size, f) && (*fields = strrchr(buf, ')')) &&
	     sscanf(*fields + 2, "%*c %d", ppid) == 1;
	fclose(f);
	return ok;
}

/* CPU seconds of the stat fields after the name. */
static double cpu_in(const char *fields)
{
	unsigned long utime = 0, stime = 0;

	sscanf(fields + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime);
	return (utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double cpu_of(int pid)
{
	const char *fields;
	char buf[1024];
	int ppid;

	if (!stat_of(pid, buf, sizeof(buf), &fields, &ppid))
		exit(1);
	return cpu_in(fields);
}

#define MAX_COLLECTORS 16

struct collectors {
	char *endpoint[MAX_COLLECTORS];
	int pid[MAX_COLLECTORS], nr;
};

/* "A,B,C" into at most MAX_COLLECTORS pieces, in place. */
static int split(char *list, char **out)
{
	int n = 0;

	for (char *save, *t = strtok_r(list, ",", &save); t && n < MAX_COLLECTORS;
	     t = strtok_r(NULL, ",", &save))
		out[n++] = t;
	return n;
}

static double collectors_cpu(const struct collectors *c)
{
	double cpu = 0;

	for (int i = 0; i < c->nr; i++)
		cpu += cpu_of(c->pid[i]);
	return cpu;
}

/* A server's CPU seconds: its own and its children's (PostgreSQL: a backend each). */
static double server_cpu(int pid)
{
	double cpu = cpu_of(pid);
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		int child = atoi(e->d_name), ppid;
		const char *fields;
		char buf[1024];

		if (child > 0 && child != pid && stat_of(child, buf, sizeof(buf), &fields, &ppid) &&
		    ppid == pid)
			cpu += cpu_in(fields);
	}
	if (d)
		closedir(d);
	return cpu;
}

/*
 * The database's logical size: SQLite's pages (the WAL's included: the WAL file itself is
 * reused, not grown, once checkpointed), or PostgreSQL's pg_database_size.
 */
static long long db_bytes(const char *db)
{
	bool pg = db__is_postgresql(db);
	long long pages = 0, page_size = 1;
	struct db_stmt *s;
	struct db *h;

	if (db__open(db, true, &h))
		exit(1);
	s = db__prepare(h, pg ? "SELECT pg_database_size(current_database())"
			      : "PRAGMA page_count", 0);
	if (s && db_step(s) == DB_ROW)
		pages = db_column_int64(s, 0);
	db_stmt__finalize(s);
	s = pg ? NULL : db__prepare(h, "PRAGMA page_size", 0);
	if (s && db_step(s) == DB_ROW)
		page_size = db_column_int64(s, 0);
	db_stmt__finalize(s);
	db__close(h);
	return pages * page_size;
}

/* The collector's peak resident memory, in MiB. */
static double peak_mib(int pid)
{
	char path[64], line[256];
	double kib = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "VmHWM: %lf", &kib);
	if (f)
		fclose(f);
	return kib / 1024;
}

static bool all_acked(const struct sim *sims, int agents, uint64_t seq)
{
	for (int i = 0; i < agents; i++) {
		if (sims[i].acked < seq)
			return false;
	}
	return true;
}

static int on_msg(void *ctx, wire_msg *msg)
{
	struct sim *s = ctx;

	if (msg->body_case == HEAPTAP__ENVELOPE__BODY_ACK) {
		s->acked = msg->ack->seq;
		wire_msg_free(msg);
		return 0;
	}
	wire_msg_free(s->got);
	s->got = msg;
	return 0;
}

static void send_env(struct sim *s, const wire_msg *env)
{
	uint8_t *frame;
	size_t len, done = 0;

	if (wire_encode(env, &frame, &len))
		exit(1);
	while (done < len) {
		long n = net_send(s->fd, frame + done, len - done);

		if (n < 0)
			exit(1);
		done += n;
		if (done < len) {
			struct pollfd pfd = { .fd = s->fd, .events = POLLOUT };

			poll(&pfd, 1, 1000);
		}
	}
	free(frame);
}

static void pump(struct sim *s, int timeout_ms)
{
	uint8_t buf[65536];
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	while (poll(&pfd, 1, timeout_ms) > 0) {
		ssize_t n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0 || wire_reader__feed(&s->reader, buf, n, on_msg, s))
			break;
		timeout_ms = 0;
	}
}

static void connect_sim(struct sim *s, const char *endpoint, uint64_t id)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Hello h = HEAPTAP__HELLO__INIT;
	Heaptap__Auth a = HEAPTAP__AUTH__INIT;
	uint8_t nonce[WIRE_NONCE_SIZE] = {};
	char host[32];
	struct pollfd pfd;

	s->fd = net_connect(endpoint);
	pfd = (struct pollfd){ .fd = s->fd, .events = POLLOUT };
	if (s->fd < 0 || poll(&pfd, 1, 5000) <= 0 || net_connected(s->fd))
		exit(1);
	wire_reader__init(&s->reader, WIRE_MAX_MESSAGE);
	snprintf(host, sizeof(host), "node%04llu", (unsigned long long)id);
	h.has_role = h.has_agent_id = h.has_nonce = true;
	h.agent_id = id + 1;
	h.host = host;
	h.command = "bench";
	h.nonce.data = nonce;
	h.nonce.len = sizeof(nonce);
	env.body_case = HEAPTAP__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	send_env(s, &env);
	while (!s->got)
		pump(s, 1000);
	env.body_case = HEAPTAP__ENVELOPE__BODY_AUTH;
	env.auth = &a;
	send_env(s, &env);
	wire_msg_free(s->got);
	s->got = NULL;
	while (!s->got)
		pump(s, 1000);
	if (s->got->body_case != HEAPTAP__ENVELOPE__BODY_WELCOME)
		exit(1);
}

static char lib_names[2][64], fn_names[FUNCTIONS][64];

/* One agent's batch: every rank with `groups` changed groups, all of them new at first. */
static void send_batch(struct sim *s, uint64_t agent, int ranks, int groups, int tick,
		       bool last)
{
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Batch b = HEAPTAP__BATCH__INIT;
	struct arena a = {};
	Heaptap__Process **procs = arena_alloc(&a, ranks * sizeof(*procs));
	int nfn = groups - 4 > 0 ? groups - 4 : 0;

	for (int r = 0; r < ranks; r++) {
		Heaptap__Process *p = arena_alloc(&a, sizeof(*p));
		struct balance bal = { 1000 * tick + r, -5, 1000 * tick + r, 77 * tick, { tick, 1 } };

		heaptap__process__init(p);
		p->has_key = true;
		p->key = r + 1;
		if (tick == 0) {
			Heaptap__Identity *id = arena_alloc(&a, sizeof(*id));

			heaptap__identity__init(id);
			id->has_pid = id->has_rank = id->has_world_size = true;
			id->pid = 1000 + r;
			id->rank = (int)agent * ranks + r;
			id->job = "bench-job";
			id->command = "./app --bench";
			p->identity = id;
		}
		p->total = wire_balance(&a, &bal);
		p->threads = arena_alloc(&a, sizeof(void *));
		p->threads[0] = arena_alloc(&a, sizeof(Heaptap__Thread));
		heaptap__thread__init(p->threads[0]);
		p->threads[0]->has_tid = true;
		p->threads[0]->tid = 1000 + r;
		p->threads[0]->name = "app";
		p->threads[0]->balance = wire_balance(&a, &bal);
		p->n_threads = 1;
		p->libraries = arena_alloc(&a, 2 * sizeof(void *));
		for (int l = 0; l < 2; l++) {
			p->libraries[l] = arena_alloc(&a, sizeof(Heaptap__Library));
			heaptap__library__init(p->libraries[l]);
			p->libraries[l]->library = lib_names[l];
			p->libraries[l]->balance = wire_balance(&a, &bal);
		}
		p->n_libraries = 2;
		p->functions = arena_alloc(&a, (nfn + 1) * sizeof(void *));
		for (int f = 0; f < nfn; f++) {
			Heaptap__Function *w = arena_alloc(&a, sizeof(*w));

			heaptap__function__init(w);
			w->library = lib_names[f % 2];
			w->function = fn_names[(tick * nfn + f) % FUNCTIONS];
			w->balance = wire_balance(&a, &bal);
			p->functions[f] = w;
		}
		p->n_functions = nfn;
		procs[r] = p;
	}
	b.has_seq = b.has_time = b.has_ack_now = true;
	b.ack_now = last;
	b.seq = ++s->seq;
	b.time = time(NULL) + tick * 1e-3;
	b.n_processes = ranks;
	b.processes = procs;
	env.body_case = HEAPTAP__ENVELOPE__BODY_BATCH;
	env.batch = &b;
	send_env(s, &env);
	arena_reset(&a);
}

int main(int argc, char **argv)
{
	struct rlimit lim;
	struct sim *sims;
	int agents, ranks, groups, seconds, server = 0;
	struct collectors col = {};
	char *pids[MAX_COLLECTORS];
	/* Until every function has its row: then only balances and samples change. */
	int warmup = FUNCTIONS / 16 + 3;
	double cpu0 = 0, server0 = 0, t0 = 0, lag = 0;
	long long bytes0 = 0;
	uint64_t unacked = 0;

	if (argc < 8 || argc > 9 || (col.nr = split(argv[1], col.endpoint)) !=
					    split(argv[2], pids)) {
		fprintf(stderr, "usage: ingest HOST:PORT[,...] COLLECTOR_PID[,...] DB AGENTS RANKS "
				"GROUPS SECONDS [SERVER_PID]\n");
		return 2;
	}
	for (int i = 0; i < col.nr; i++)
		col.pid[i] = atoi(pids[i]);
	if (argc > 8)
		server = atoi(argv[8]);
	agents = atoi(argv[4]);
	ranks = atoi(argv[5]);
	groups = atoi(argv[6]);
	seconds = atoi(argv[7]);
	getrlimit(RLIMIT_NOFILE, &lim);
	lim.rlim_cur = lim.rlim_max;
	setrlimit(RLIMIT_NOFILE, &lim);
	for (int l = 0; l < 2; l++)
		snprintf(lib_names[l], sizeof(lib_names[l]),
			 "/usr/lib/x86_64-linux-gnu/libbench%d.so.40.30.4", l);
	for (int f = 0; f < FUNCTIONS; f++)
		snprintf(fn_names[f], sizeof(fn_names[f]), "bench_function_number_%d", f);
	sims = calloc(agents, sizeof(*sims));
	for (int i = 0; i < agents; i++)
		connect_sim(&sims[i], col.endpoint[i % col.nr], i);
	for (int tick = 0, end = -1; end < 0 || tick < end; tick++) {
		double start = mono();

		if (end < 0 && tick >= warmup && all_acked(sims, agents, warmup)) {
			cpu0 = collectors_cpu(&col);
			server0 = server ? server_cpu(server) : 0;
			bytes0 = db_bytes(argv[3]);
			t0 = mono();
			end = tick + seconds;
		}
		for (int i = 0; i < agents; i++) {
			send_batch(&sims[i], i, ranks, groups, tick, tick == end - 1);
			pump(&sims[i], 0);
		}
		/* Once a second: the rest of the second reading acks. */
		while (mono() - start < 1.0)
			for (int i = 0; i < agents; i++)
				pump(&sims[i], 0), usleep(1000 / (agents > 0 ? agents : 1));
		if (mono() - start > 1.05)
			lag += mono() - start - 1.0;
	}
	/* The last round's commit, of every rank's newest groups, may take seconds. */
	double deadline = mono() + 60;

	for (int i = 0; i < agents; i++) {
		while (sims[i].acked < sims[i].seq && mono() < deadline)
			pump(&sims[i], 100);
		unacked += sims[i].seq - sims[i].acked;
	}
	{
		double dt = mono() - t0, cpu = collectors_cpu(&col) - cpu0;
		double server_cores = server ? (server_cpu(server) - server0) / dt : 0;
		long long grown = db_bytes(argv[3]) - bytes0;
		double rank_hours = (double)agents * ranks * dt / 3600, peak = 0;

		for (int i = 0; i < col.nr; i++)
			peak = peak_mib(col.pid[i]) > peak ? peak_mib(col.pid[i]) : peak;
		printf("ingest: %d agents x %d ranks = %d ranks at 1 Hz, %d changed groups each, "
		       "%d collector%s, %.0f s: collector CPU %.2f cores, peak memory %.0f MiB; "
		       "database +%.1f MiB = %.0f KiB per rank-hour; %llu batches unacknowledged; "
		       "simulator behind by %.1f s\n",
		       agents, ranks, agents * ranks, groups, col.nr, col.nr > 1 ? "s" : "", dt,
		       cpu / dt, peak, grown / 1048576.0, grown / 1024.0 / rank_hours,
		       (unsigned long long)unacked, lag);
		if (server)
			printf("ingest: the database server's CPU over the same %.0f s: %.2f cores\n",
			       dt, server_cores);
	}
	return unacked ? 1 : 0;
}
