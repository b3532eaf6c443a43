// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The agent's batches: each traced process's changes since its last message. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "agent_internal.h"
#include "arena.h"
#include "heaptap_types.h"
#include "log.h"
#include "os_wire.h"
#include "owner_wire.h"
#include "run_wire.h"

/* A batch is sent once this large: well under the wire's limit, whatever its groups. */
#define BATCH_TARGET (1u << 20)
/* Seconds between two Owner messages of a process. */
#define OWNER_EVERY 1.0
/* Bytes a group takes on the wire besides its names, at most. */
#define GROUP_OVERHEAD 160u

struct builder {
	struct agent *a;
	struct arena arena;
	Heaptap__Process **procs;
	size_t nr, cap;
	size_t bytes;		  /* approximately, so far */
	Heaptap__Process *cur;	  /* the message of the process being compared */
	struct target *t;
	struct sent *sent;
	struct session *s;
	bool last;		  /* the agent's final snapshot */
	int err;
};

static double wall_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Encode and queue the batch built so far (nothing to do when empty unless forced). */
static void flush(struct builder *b, bool force)
{
	Heaptap__Batch batch = HEAPTAP__BATCH__INIT;
	Heaptap__Envelope env = HEAPTAP__ENVELOPE__INIT;
	struct agent *a = b->a;
	struct pending *p;
	size_t size;

	if (!b->nr && !force)
		return;
	batch.has_seq = batch.has_time = batch.has_dropped_messages = true;
	batch.seq = a->next_seq;
	batch.time = wall_clock();
	batch.dropped_messages = a->dropped;
	batch.has_ack_now = true;
	batch.n_processes = b->nr;
	batch.processes = b->procs;
	env.body_case = HEAPTAP__ENVELOPE__BODY_BATCH;
	env.batch = &batch;
	size = WIRE_HEADER_SIZE + heaptap__envelope__get_packed_size(&env);
	/*
	 * The round's commit frees the buffer: ask for it now rather than drop batches, once
	 * this batch brings the queue past a quarter of the buffer (a bool's size does not
	 * change). The rest holds what comes while the collector answers: at half, a small
	 * buffer filled on a loaded machine before the answer came.
	 */
	batch.ack_now = b->last || a->queued_bytes + size > a->opts.buffer_limit / 4;
	p = b->arena.failed ? NULL : malloc(sizeof(*p) + size);
	if (!p || size > WIRE_HEADER_SIZE + WIRE_MAX_MESSAGE) {
		free(p);
		b->err = -ENOMEM;
	} else {
		uint8_t *frame;
		size_t len;

		if (wire_encode(&env, &frame, &len)) {
			free(p);
			b->err = -ENOMEM;
		} else {
			p->seq = a->next_seq++;
			p->len = len;
			memcpy(p->frame, frame, len);
			free(frame);
			agent_queue(a, p);
		}
	}
	arena_reset(&b->arena);
	b->nr = b->bytes = 0;
	b->cur = NULL;
}

static Heaptap__State state_of(const struct target *t, bool detach_live)
{
	if (t->exec)
		return HEAPTAP__STATE__EXEC;
	if (t->exited)
		return HEAPTAP__STATE__EXITED;
	return detach_live ? HEAPTAP__STATE__DETACHED : HEAPTAP__STATE__RUNNING;
}

/*
 * The process's user, as the database keeps it to find a user's runs: its real uid, taken
 * when heaptap first saw it (the process may be gone by now), and that uid's name here.
 * A uid without a name here is kept alone.
 */
static void identity_user(struct arena *a, Heaptap__Identity *id, uid_t uid)
{
	char name[256] = "", buf[1024];
	struct passwd pw, *found = NULL;

	if (uid == (uid_t)-1)
		return;
	id->has_uid = true;
	id->uid = uid;
	if (!getpwuid_r(uid, &pw, buf, sizeof(buf), &found) && found)
		snprintf(name, sizeof(name), "%s", pw.pw_name);
	if (name[0])
		id->user = arena_strdup(a, name);
}

/* The message of b->t in this batch, begun if need be; NULL when out of memory. */
static Heaptap__Process *current(struct builder *b)
{
	struct target *t = b->t;
	struct sent *sent = b->sent;
	Heaptap__Process *p;

	if (b->cur)
		return b->cur;
	if (b->nr == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		Heaptap__Process **grown = realloc(b->procs, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		b->procs = grown;
		b->cap = cap;
	}
	p = arena_alloc(&b->arena, sizeof(*p));
	if (!p)
		return NULL;
	heaptap__process__init(p);
	p->has_key = p->has_state = true;
	p->key = sent->serial;
	p->state = sent->state;
	p->has_exit_status = p->has_signal = t->exit_known;
	p->exit_status = t->exit_known && WIFEXITED(t->exit_code) ? WEXITSTATUS(t->exit_code) : -1;
	p->signal = t->exit_known && WIFSIGNALED(t->exit_code) ? WTERMSIG(t->exit_code) : -1;
	p->has_lost_events = p->has_incomplete_stacks = true;
	p->has_holds_skipped = p->has_unsupported_unwinds = true;
	p->lost_events = sent->lost_events;
	p->incomplete_stacks = sent->incomplete_stacks;
	p->holds_skipped = sent->holds_skipped;
	p->unsupported_unwinds = sent->unsupported_unwinds;
	/* Room for every group of the process: the counts can only be smaller. */
	p->threads = arena_alloc(&b->arena, (HASH_COUNT(t->stats.threads) + 1) * sizeof(void *));
	p->libraries = arena_alloc(&b->arena,
				   (HASH_COUNT(t->stats.libraries) + 1) * sizeof(void *));
	p->functions = arena_alloc(&b->arena,
				   (HASH_COUNT(t->stats.functions) + 1) * sizeof(void *));
	if (!p->threads || !p->libraries || !p->functions)
		return NULL;
	if (!sent->identity) {
		p->identity = wire_identity(&b->arena, t);
		if (!p->identity)
			return NULL;
		identity_user(&b->arena, p->identity, t->uid);
		sent->identity = true;
		b->bytes += strlen(t->command) + sizeof(t->mpi.job) + GROUP_OVERHEAD;
	}
	b->procs[b->nr++] = p;
	b->cur = p;
	return p;
}

/* A group goes in: the batch is sent first if it is full. NULL when out of memory. */
static Heaptap__Process *room_for(struct builder *b, size_t name_bytes)
{
	if (b->bytes + name_bytes + GROUP_OVERHEAD > BATCH_TARGET && b->nr)
		flush(b, false);
	b->bytes += name_bytes + GROUP_OVERHEAD;
	return current(b);
}

static bool same(const struct balance *x, const struct balance *y)
{
	return !memcmp(x, y, sizeof(*x));
}

static int diff_threads(struct builder *b)
{
	struct process_stats *shadow = &b->sent->stats;
	struct thread_stats *t, *tt, *old;
	Heaptap__Process *p;

	HASH_ITER(hh, b->t->stats.threads, t, tt) {
		Heaptap__Thread *w;

		HASH_FIND(hh, shadow->threads, &t->tid, sizeof(t->tid), old);
		if (old && same(&old->bal, &t->bal) && !strcmp(old->name, t->name))
			continue;
		if (!(p = room_for(b, sizeof(t->name))) || !(w = arena_alloc(&b->arena, sizeof(*w))))
			return -ENOMEM;
		heaptap__thread__init(w);
		w->has_tid = true;
		w->tid = t->tid;
		w->name = arena_strdup(&b->arena, t->name);
		w->balance = wire_balance(&b->arena, &t->bal);
		p->threads[p->n_threads++] = w;
		if (accountant__set_thread(shadow, t->tid, t->name, &t->bal))
			return -ENOMEM;
	}
	return 0;
}

static int diff_libraries(struct builder *b)
{
	struct process_stats *shadow = &b->sent->stats;
	struct library_stats *l, *lt, *old;
	Heaptap__Process *p;

	HASH_ITER(hh, b->t->stats.libraries, l, lt) {
		Heaptap__Library *w;

		HASH_FIND_STR(shadow->libraries, l->library, old);
		if (old && same(&old->bal, &l->bal))
			continue;
		if (!(p = room_for(b, strlen(l->library))) ||
		    !(w = arena_alloc(&b->arena, sizeof(*w))))
			return -ENOMEM;
		heaptap__library__init(w);
		w->library = arena_strdup(&b->arena, l->library);
		w->balance = wire_balance(&b->arena, &l->bal);
		p->libraries[p->n_libraries++] = w;
		if (accountant__set_library(shadow, l->library, &l->bal))
			return -ENOMEM;
	}
	return 0;
}

static int diff_functions(struct builder *b)
{
	struct process_stats *shadow = &b->sent->stats;
	struct function_stats *f, *ft, *old;
	Heaptap__Process *p;

	HASH_ITER(hh, b->t->stats.functions, f, ft) {
		size_t key_len = strlen(f->library) + 1 + strlen(f->function);
		Heaptap__Function *w;

		HASH_FIND(hh, shadow->functions, f->key, key_len, old);
		if (old && same(&old->bal, &f->bal))
			continue;
		if (!(p = room_for(b, key_len)) || !(w = arena_alloc(&b->arena, sizeof(*w))))
			return -ENOMEM;
		heaptap__function__init(w);
		w->library = arena_strdup(&b->arena, f->library);
		w->function = arena_strdup(&b->arena, f->function);
		w->balance = wire_balance(&b->arena, &f->bal);
		p->functions[p->n_functions++] = w;
		if (accountant__set_function(shadow, f->library, f->function, &f->bal))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Who holds the memory: the largest sites, whole, when anything of them changed, at most
 * every OWNER_EVERY seconds but in a process's last message. Its stacks make it the
 * largest part of a batch: it takes at most an eighth of --buffer (and half a batch), so
 * that a small buffer still holds the batches in flight.
 */
static int diff_owner(struct builder *b, bool last)
{
	const struct owner *o = &b->t->owner;
	size_t max_bytes = b->a->opts.buffer_limit / 8, bytes;
	struct arena scratch = {};
	double now = agent_mono();
	Heaptap__Owner *m;
	Heaptap__Process *p;
	uint64_t digest;

	if (!o->live || (!last && now - b->sent->owner_sent_at < OWNER_EVERY))
		return 0;
	max_bytes = max_bytes < BATCH_TARGET / 2 ? max_bytes : BATCH_TARGET / 2;
	m = wire_owner(&scratch, o, &b->t->oom, max_bytes, &bytes);
	digest = m ? wire_owner_digest(m) : 0;
	arena_reset(&scratch);
	if (!m)
		return -ENOMEM;
	if (digest && digest == b->sent->owner_digest)
		return 0;
	/* Built again where the batch keeps it: it changed, which is the rarer case. */
	if (!(p = room_for(b, bytes)) ||
	    !(p->owner = wire_owner(&b->arena, o, &b->t->oom, max_bytes, &bytes)))
		return -ENOMEM;
	b->sent->owner_digest = digest;
	b->sent->owner_sent_at = now;
	return 0;
}

/*
 * The OS view and the --allocator accounts: whole, when they changed, at most every
 * OWNER_EVERY seconds but in a process's last message. Built once to compare; built again
 * in the batch's memory when they go, which is the rarer case.
 */
static int diff_os_and_apis(struct builder *b, bool last)
{
	struct target *t = b->t;
	struct sent *sent = b->sent;
	struct arena scratch = {};
	uint64_t maps = 0, apis = 0;
	double now = agent_mono();
	Heaptap__Process *p;
	size_t bytes;

	if (!last && now - sent->os_sent_at < OWNER_EVERY)
		return 0;
	if (mapping_stats__any(&t->mappings)) {
		Heaptap__Mappings *m = wire_mappings(&scratch, &t->mappings);

		maps = m ? wire_message_digest(&m->base) : 0;
	}
	if (t->custom) {
		Heaptap__AllocatorApis *m = wire_allocators(&scratch, t->custom);

		apis = m ? wire_message_digest(&m->base) : 0;
	}
	arena_reset(&scratch);
	if ((mapping_stats__any(&t->mappings) && !maps) || (t->custom && !apis))
		return -ENOMEM;
	if (maps && maps != sent->mappings_digest) {
		bytes = HASH_COUNT(t->mappings.groups) * GROUP_OVERHEAD;
		if (!(p = room_for(b, bytes)) ||
		    !(p->mappings = wire_mappings(&b->arena, &t->mappings)))
			return -ENOMEM;
		sent->mappings_digest = maps;
		sent->os_sent_at = now;
	}
	if (apis && apis != sent->allocators_digest) {
		size_t nr;
		struct custom_account *accts = custom_allocs__accounts(t->custom, &nr);

		bytes = 0;
		for (size_t i = 0; i < nr; i++)
			bytes += (1 + HASH_COUNT(accts[i].stats.threads) +
				  HASH_COUNT(accts[i].stats.libraries) +
				  HASH_COUNT(accts[i].stats.functions)) * GROUP_OVERHEAD;
		if (!(p = room_for(b, bytes)) ||
		    !(p->allocators = wire_allocators(&b->arena, t->custom)))
			return -ENOMEM;
		sent->allocators_digest = apis;
		sent->os_sent_at = now;
	}
	return 0;
}

static struct sent *sent_of(struct agent *a, const struct target *t)
{
	struct sent *sent;

	HASH_FIND(hh, a->sent, &t->serial, sizeof(t->serial), sent);
	if (sent)
		return sent;
	sent = calloc(1, sizeof(*sent));
	if (!sent)
		return NULL;
	sent->serial = t->serial;
	sent->state = HEAPTAP__STATE__RUNNING;
	HASH_ADD(hh, a->sent, serial, sizeof(sent->serial), sent);
	return sent;
}

/* Compare one process with what was sent of it, and add what changed. */
static int diff_process(struct builder *b, struct target *t, bool detach_live)
{
	struct sent *sent = sent_of(b->a, t);
	Heaptap__State state = state_of(t, detach_live);
	uint64_t lost = session__lost_events(b->s, t), holds = session__holds_skipped(b->s, t);
	int err;

	if (!sent)
		return -ENOMEM;
	if (sent->final)
		return 0;
	b->t = t;
	b->sent = sent;
	b->cur = NULL;
	if (state != sent->state || lost != sent->lost_events ||
	    t->incomplete_stacks != sent->incomplete_stacks || holds != sent->holds_skipped ||
	    t->unsupported_unwinds != sent->unsupported_unwinds || !sent->identity) {
		sent->state = state;
		sent->lost_events = lost;
		sent->incomplete_stacks = t->incomplete_stacks;
		sent->holds_skipped = holds;
		sent->unsupported_unwinds = t->unsupported_unwinds;
		if (!room_for(b, 0))
			return -ENOMEM;
	}
	if (!same(&sent->stats.total, &t->stats.total)) {
		Heaptap__Process *p = room_for(b, 0);

		if (!p || !(p->total = wire_balance(&b->arena, &t->stats.total)))
			return -ENOMEM;
		sent->stats.total = t->stats.total;
	}
	if ((err = diff_threads(b)) || (err = diff_libraries(b)) || (err = diff_functions(b)) ||
	    (err = diff_owner(b, state != HEAPTAP__STATE__RUNNING)) ||
	    (err = diff_os_and_apis(b, state != HEAPTAP__STATE__RUNNING)))
		return err;
	if (state != HEAPTAP__STATE__RUNNING) {
		/* Its last word is queued: nothing of it changes any more. */
		sent->final = true;
		accountant__clear(&sent->stats);
	}
	return 0;
}

int agent__snapshot(struct agent *a, struct session *s, bool detach_live)
{
	struct builder b = { .a = a, .s = s, .last = detach_live };
	struct target **targets;
	size_t n = session__targets(s, &targets);

	for (size_t i = 0; i < n && !b.err; i++) {
		int err = diff_process(&b, targets[i], detach_live);

		if (err)
			b.err = err;
	}
	/*
	 * Silent too long: an empty batch says the agent is alive. The last snapshot always
	 * ends with a batch: it asks the collector to commit now.
	 */
	flush(&b, b.last || (a->state == LINK_READY && a->heartbeat &&
			     agent_mono() - a->last_sent >= a->heartbeat && !a->queued));
	free(b.procs);
	arena_reset(&b.arena);
	if (b.err) {
		log_error("cannot build a batch for the collector: %s", strerror(-b.err));
		/* What was compared but not queued goes out whole next time. */
		agent_forget_sent(a);
	}
	return b.err;
}
