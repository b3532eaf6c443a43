// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A target's life: first sight, its place in its consumer's table, its end (its report
 * kept, the rest forgotten), and the processes heaptap could not trace. Its program's
 * changes are programs.c's (forgetting one is here); its events' way to the accountant is
 * consumer.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "procfs.h"
#include "session_internal.h"

void free_target(struct target *t)
{
	symbolizer__free(t->symbolizer);
	held_maps__clear(&t->held_maps);
	accountant__clear(&t->stats);
	owner__clear(&t->owner);
	custom_allocs__free(t->custom);
	stack_records__clear(&t->stacks);
	calltree__clear(&t->tree);
	mapping_stats__clear(&t->mappings);
	total_series__clear(&t->samples);
	stack_ids__clear(&t->stack_ids);
	free(t);
}

void delete_dead_ids(struct session *s)
{
	size_t deleted = dead_ids__delete(&s->dead_ids);

	__atomic_sub_fetch(&s->stack_ids_used, deleted, __ATOMIC_RELAXED);
}

void own_stack_id(struct session *s, struct target *t, __u64 id, __u32 flags)
{
	bool shared = id & HT_STACK_ID_SHARED;
	uint64_t used;

	if (!id || !(flags & HT_F_STACK_NEW))
		return;
	if (!shared && !t)
		return; /* a process heaptap does not follow: nobody will delete its ids */
	used = __atomic_add_fetch(&s->stack_ids_used, 1, __ATOMIC_RELAXED);
	if (used > __atomic_load_n(&s->stack_ids_peak, __ATOMIC_RELAXED))
		__atomic_store_n(&s->stack_ids_peak, used, __ATOMIC_RELAXED);
	if (shared)
		__atomic_add_fetch(&s->shared_given, 1, __ATOMIC_RELAXED);
	else /* out of memory, the id would only stay in the map: the call still counts */
		stack_ids__own(&t->stack_ids, id);
}

int stored_stack(struct target *t, __u64 id, struct ht_stack *out)
{
	if (stack_ids__frames(&t->stack_ids, id, out) || symbolizer__place(t->symbolizer, out))
		return -ENOENT;
	return 0;
}

static bool any_target(struct session *s)
{
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		if (s->consumers[i].targets)
			return true;
	}
	return false;
}

/*
 * Under the shared lock, which every change of a consumer's targets takes: no target, no
 * consumer is naming a stack (answers are taken for a target's call). A process traced
 * already but not yet known (a new program held at its exec) may meet an id deleted here:
 * its call is counted lost, not named wrong.
 */
static void forget_shared_stacks(struct session *s)
{
	uint64_t given;
	size_t deleted;

	if (__atomic_load_n(&s->shared_given, __ATOMIC_RELAXED) <= s->shared_keep ||
	    any_target(s))
		return;
	deleted = stack_ids__delete_shared(tracer__stacks_fd(s->tracer));
	/* Those counted in: a shared id whose first event was lost never was. */
	given = __atomic_exchange_n(&s->shared_given, 0, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&s->stack_ids_used, given, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->shared_forgotten, deleted, __ATOMIC_RELAXED);
	node_stacks__forget_answers(s->node_stacks);
	tracer__stacks_changed(s->tracer); /* threads' cached stacks may hold their ids */
	log_debug("%zu shared stacks forgotten: no process was traced", deleted);
}

/* Under the shared lock, on the thread of pid's consumer or with its lock. */
struct target *new_target(struct session *s, pid_t pid)
{
	struct consumer *c = consumer_of(s, pid);
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = pid;
	t->uid = (uid_t)-1;
	t->serial = ++s->serials;
	t->stack_ids.map_fd = tracer__stacks_fd(s->tracer);
	t->stacks.detailed = s->detailed_stacks;
	/*
	 * An ended program's ids include its pid: deleted later, they could take ids from a
	 * new process that has its pid and its stacks.
	 */
	delete_dead_ids(s);
	forget_shared_stacks(s);
	mpi_identity_from_environ("", 0, &t->mpi);
	/* Without memory for its table, its blocks go unowned: the balances still count. */
	owner__init(&t->owner, s->live_blocks_limit, s->sample_interval);
	owner__set_sampling(&t->owner, s->sample_bytes);
	owner__join_node(&t->owner, &s->node, &c->node_log);
	t->owner_since = c->clock ? c->clock : s->clock;
	/* Now, while it is alive: the OOM killer's victim may be gone when its event is read. */
	cgroup_memory__find(pid, &t->oom.cgroup);
	HASH_ADD_INT(c->targets, pid, t);
	return t;
}

/* A target that never got going (a failed attach): nothing of it stays. */
void drop_target(struct session *s, struct target *t)
{
	HASH_DEL(consumer_of(s, t->pid)->targets, t);
	free_target(t);
}

struct symbolizer *new_symbolizer(struct session *s, struct target *t)
{
	return symbolizer__new(t->pid, s->cache, &t->alloc, s->rule, &t->stacks, s->node_stacks);
}

struct target *target_of(struct session *s, pid_t pid)
{
	struct target *t;

	HASH_FIND_INT(consumer_of(s, pid)->targets, &pid, t);
	return t;
}

bool session__knows(struct session *s, pid_t pid)
{
	struct consumer *c = consumer_of(s, pid);
	bool known;

	consumer_lock(c);
	known = target_of(s, pid) != NULL;
	consumer_unlock(c);
	return known;
}

void forget_program(struct session *s, struct target *t)
{
	if (s->unwind)
		unwind_maps__forget(s->unwind, t->pid);
	held_maps__clear(&t->held_maps);
	stack_ids__bury(&t->stack_ids, &s->dead_ids);
	tracer__stacks_changed(s->tracer);
	symbolizer__free(t->symbolizer);
	t->symbolizer = NULL;
	stack_records__forget_models(&t->stacks); /* the node may drop them once none runs */
	/*
	 * Its stacks only told which path each charges; the tree keeps the figures. With
	 * --stacks they are the report, and stay.
	 */
	if (!t->stacks.detailed) {
		stack_records__keep_sites(&t->stacks); /* they name the owner's figures */
		calltree__drop_paths(&t->tree);
	}
}

void sample_final_total(struct session *s, struct target *t)
{
	/* Not the session's clock: the main thread writes it as it polls. */
	sample_total_now(t, consumer_of(s, t->pid)->clock - s->started);
}

/*
 * What an ended process keeps for the report: its call tree, its allocation sites, its
 * mapping calls' stacks, its samples.
 */
static size_t ended_bytes(const struct target *t)
{
	/* With --stacks the records are the report, kept whatever the budget. */
	size_t records = t->stacks.detailed ? 0 : t->stacks.bytes;

	return t->tree.bytes + records + owner__sites_bytes(&t->owner) +
	       mapping_stats__stacks_bytes(&t->mappings) +
	       (size_t)t->samples.cap * sizeof(*t->samples.items);
}

/*
 * Ended processes' trees and allocation sites stay for the report, within the budget:
 * beyond it, the oldest ended ones go (a service attached for weeks sees thousands of
 * jobs), and say so.
 */
static void keep_ended_trees_within_budget(struct session *s)
{
	while (s->ended_tree_bytes > s->tree_budget) {
		struct target *oldest = NULL;

		for (struct target *e = s->ended; e; e = e->next_ended) {
			if (!e->tree_dropped)
				oldest = e;
		}
		if (!oldest)
			return;
		s->ended_tree_bytes -= ended_bytes(oldest);
		calltree__clear(&oldest->tree);
		owner__drop_sites(&oldest->owner);
		mapping_stats__drop_stacks(&oldest->mappings);
		total_series__clear(&oldest->samples);
		if (!oldest->stacks.detailed) /* with --stacks they are the report */
			stack_records__clear(&oldest->stacks);
		oldest->tree_dropped = true;
	}
}

struct addresses {
	uint64_t *addrs;
	size_t nr, cap;
};

static void add_address(void *ctx, uint64_t addr)
{
	struct addresses *a = ctx;

	if (a->nr < a->cap)
		a->addrs[a->nr++] = addr;
}

/*
 * Sampled: the BPF side keeps the process's sampled blocks until their release, which an
 * ended process never makes. Its blocks still allocated are the live ones here. (At an
 * exec, a block the new program sampled at the very address of an old one would go too:
 * its release is then counted as a block allocated before tracing.)
 */
static void forget_sampled_blocks(struct session *s, struct target *t)
{
	struct addresses a = { .cap = t->owner.live ? live_blocks__count(t->owner.live) : 0 };
	size_t forgotten;

	if (!s->sample_bytes || !a.cap || !(a.addrs = malloc(a.cap * sizeof(*a.addrs))))
		return;
	live_blocks__each(t->owner.live, add_address, &a);
	forgotten = tracer__forget_sampled(s->tracer, t->pid, a.addrs, a.nr);
	log_debug("process %d: %zu sampled blocks still allocated, forgotten", t->pid, forgotten);
	free(a.addrs);
}

/* Under the shared lock, on the thread of t's consumer or with its lock. */
void end_target(struct session *s, struct target *t)
{
	forget_program(s, t);
	sample_final_total(s, t);
	forget_sampled_blocks(s, t);
	owner__end(&t->owner);
	mapping_stats__end(&t->mappings);
	tracer__take_losses(s->tracer, t->pid, &t->kernel_losses);
	HASH_DEL(consumer_of(s, t->pid)->targets, t);
	pthread_mutex_lock(&s->ended_lock);
	t->next_ended = s->ended;
	s->ended = t;
	s->ended_tree_bytes += ended_bytes(t);
	keep_ended_trees_within_budget(s);
	pthread_mutex_unlock(&s->ended_lock);
}

/*
 * The process is gone, and its events are read (they come before its end): keep its
 * report and forget the rest, so that a later process with its pid is a stranger.
 */
void target_exited(struct session *s, struct target *t, int status, bool known)
{
	t->exited = true;
	t->exit_code = status;
	t->exit_known = known;
	tracer__detach(s->tracer, t->pid);
	end_target(s, t);
}

const struct untraced *session__untraced(const struct session *s)
{
	return s->untraced;
}

void session__note_untraced(struct session *s, pid_t pid, const char *reason)
{
	struct untraced *u = calloc(1, sizeof(*u));
	struct target *t;

	shared_lock(s);
	t = target_of(s, pid);
	log_error("PID %d%s%s%s: not traced: %s", pid, t ? " (" : "", t ? t->command : "",
		  t ? ")" : "", reason);
	if (!u)
		goto out;
	u->pid = pid;
	if (t) {
		snprintf(u->command, sizeof(u->command), "%s", t->command);
	} else {
		char *comm;
		size_t len;

		if (procfs_read(pid, "comm", &comm, &len) == 0) {
			comm[strcspn(comm, "\n")] = '\0';
			snprintf(u->command, sizeof(u->command), "%s", comm);
			free(comm);
		}
	}
	snprintf(u->reason, sizeof(u->reason), "%s", reason);
	u->next = s->untraced;
	s->untraced = u;
out:
	shared_unlock(s);
}
