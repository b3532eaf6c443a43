// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "heaptap_types.h"
#include "run_wire.h"

Heaptap__Balance *wire_balance(struct arena *a, const struct balance *b)
{
	Heaptap__Balance *w = arena_alloc(a, sizeof(*w));
	uint64_t *calls = arena_alloc(a, sizeof(b->calls));

	if (!w || !calls)
		return NULL;
	heaptap__balance__init(w);
	w->has_current = w->has_min = w->has_max = w->has_requested = true;
	w->current = b->current;
	w->min = b->min;
	w->max = b->max;
	w->requested = b->requested;
	memcpy(calls, b->calls, sizeof(b->calls));
	w->n_calls = HT_NR_FUNCS;
	w->calls = calls;
	return w;
}

void balance_from_wire(const Heaptap__Balance *w, struct balance *b)
{
	memset(b, 0, sizeof(*b));
	if (!w)
		return;
	b->current = w->current;
	b->min = w->min;
	b->max = w->max;
	b->requested = w->requested;
	for (size_t f = 0; f < w->n_calls && f < HT_NR_FUNCS; f++)
		b->calls[f] = w->calls[f];
}

int wire_groups(struct arena *a, const struct process_stats *ps, Heaptap__Process *p)
{
	const struct thread_stats *t, *tt;
	const struct library_stats *l, *lt;
	const struct function_stats *f, *ft;
	size_t i;

	p->total = wire_balance(a, &ps->total);
	p->threads = arena_alloc(a, (HASH_COUNT(ps->threads) + 1) * sizeof(*p->threads));
	p->libraries = arena_alloc(a, (HASH_COUNT(ps->libraries) + 1) * sizeof(*p->libraries));
	p->functions = arena_alloc(a, (HASH_COUNT(ps->functions) + 1) * sizeof(*p->functions));
	if (!p->total || !p->threads || !p->libraries || !p->functions)
		return -ENOMEM;
	i = 0;
	HASH_ITER(hh, ps->threads, t, tt) {
		Heaptap__Thread *w = arena_alloc(a, sizeof(*w));

		if (!w)
			return -ENOMEM;
		heaptap__thread__init(w);
		w->has_tid = true;
		w->tid = t->tid;
		w->name = arena_strdup(a, t->name);
		w->balance = wire_balance(a, &t->bal);
		p->threads[i++] = w;
	}
	p->n_threads = i;
	i = 0;
	HASH_ITER(hh, ps->libraries, l, lt) {
		Heaptap__Library *w = arena_alloc(a, sizeof(*w));

		if (!w)
			return -ENOMEM;
		heaptap__library__init(w);
		w->library = arena_strdup(a, l->library);
		w->balance = wire_balance(a, &l->bal);
		p->libraries[i++] = w;
	}
	p->n_libraries = i;
	i = 0;
	HASH_ITER(hh, ps->functions, f, ft) {
		Heaptap__Function *w = arena_alloc(a, sizeof(*w));

		if (!w)
			return -ENOMEM;
		heaptap__function__init(w);
		w->library = arena_strdup(a, f->library);
		w->function = arena_strdup(a, f->function);
		w->balance = wire_balance(a, &f->bal);
		p->functions[i++] = w;
	}
	p->n_functions = i;
	return a->failed ? -ENOMEM : 0;
}

static Heaptap__State state_of(const struct run_process *rp)
{
	if (!strcmp(rp->state, "agent lost"))
		return HEAPTAP__STATE__AGENT_LOST;
	if (!strcmp(rp->state, "detached"))
		return HEAPTAP__STATE__DETACHED;
	if (rp->t.exec)
		return HEAPTAP__STATE__EXEC;
	return rp->t.exited ? HEAPTAP__STATE__EXITED : HEAPTAP__STATE__RUNNING;
}

Heaptap__Identity *wire_identity(struct arena *a, const struct target *t)
{
	Heaptap__Identity *id = arena_alloc(a, sizeof(*id));

	if (!id)
		return NULL;
	heaptap__identity__init(id);
	id->has_pid = id->has_rank = id->has_world_size = id->has_local_rank = true;
	id->pid = t->pid;
	id->rank = t->mpi.rank;
	id->world_size = t->mpi.world_size;
	id->local_rank = t->mpi.local_rank;
	id->job = arena_strdup(a, t->mpi.job);
	id->command = arena_strdup(a, t->command);
	if (t->probed)
		id->allocator = arena_strdup(a, t->alloc.path);
	id->has_usable_known = true;
	id->usable_known = t->alloc.glibc;
	id->has_sample_bytes = t->owner.sample_bytes != 0;
	id->sample_bytes = t->owner.sample_bytes;
	return id;
}

static Heaptap__Process *encode_process(struct arena *a, const struct run_process *rp)
{
	Heaptap__Process *p = arena_alloc(a, sizeof(*p));
	const struct target *t = &rp->t;
	Heaptap__Identity *id = wire_identity(a, t);

	if (!p || !id)
		return NULL;
	heaptap__process__init(p);
	id->host = arena_strdup(a, rp->host);
	p->identity = id;
	p->has_id = p->has_key = p->has_state = true;
	p->id = p->key = rp->id;
	p->state = state_of(rp);
	p->has_exit_status = p->has_signal = t->exit_known;
	p->exit_status = WIFEXITED(t->exit_code) ? WEXITSTATUS(t->exit_code) : -1;
	p->signal = WIFSIGNALED(t->exit_code) ? WTERMSIG(t->exit_code) : -1;
	p->has_lost_events = p->has_incomplete_stacks = p->has_holds_skipped = true;
	p->has_unsupported_unwinds = p->has_dropped_messages = true;
	p->lost_events = rp->facts.lost_events;
	p->incomplete_stacks = t->incomplete_stacks;
	p->holds_skipped = rp->facts.holds_skipped;
	p->unsupported_unwinds = t->unsupported_unwinds;
	p->dropped_messages = rp->facts.dropped_messages;
	if (wire_groups(a, &t->stats, p))
		return NULL;
	/* The owner's totals only: every rank's sites would not fit one answer. */
	if (rp->owner && (p->owner = arena_alloc(a, sizeof(*p->owner)))) {
		heaptap__owner__init(p->owner);
		p->owner->has_blocks = p->owner->has_bytes = true;
		p->owner->has_peak_blocks = p->owner->has_peak_bytes = true;
		p->owner->blocks = rp->owner->blocks;
		p->owner->bytes = rp->owner->bytes;
		p->owner->peak_blocks = rp->owner->peak_blocks;
		p->owner->peak_bytes = rp->owner->peak_bytes;
		/* Chosen by the OOM killer: when and what it held, without the sites. */
		if (rp->owner->oom_killed &&
		    (p->owner->oom = arena_alloc(a, sizeof(*p->owner->oom)))) {
			heaptap__oom_kill__init(p->owner->oom);
			p->owner->oom->has_time = p->owner->oom->has_bytes = true;
			p->owner->oom->has_blocks = true;
			p->owner->oom->time = rp->owner->oom_time;
			p->owner->oom->bytes = rp->owner->oom_bytes;
			p->owner->oom->blocks = rp->owner->oom_blocks;
		}
	}
	return a->failed ? NULL : p;
}

Heaptap__RunView *run_wire__encode(struct arena *a, const struct run_view *v)
{
	Heaptap__RunView *rv = arena_alloc(a, sizeof(*rv));

	if (!rv)
		return NULL;
	heaptap__run_view__init(rv);
	rv->has_run = true;
	rv->run = v->id;
	rv->job = arena_strdup(a, v->job);
	rv->attribution = arena_strdup(a, attribution_rule_name(v->rule));
	rv->processes = arena_alloc(a, (v->nr + 1) * sizeof(*rv->processes));
	if (!rv->processes)
		return NULL;
	for (size_t i = 0; i < v->nr; i++) {
		rv->processes[i] = encode_process(a, v->processes[i]);
		if (!rv->processes[i])
			return NULL;
	}
	rv->n_processes = v->nr;
	return a->failed ? NULL : rv;
}

static int decode_process(const Heaptap__Process *p, struct run_process *rp)
{
	const Heaptap__Identity *id = p->identity;
	struct target *t = &rp->t;
	struct balance b;
	int err = 0;
	static const char *const states[] = {
		[HEAPTAP__STATE__RUNNING] = "running", [HEAPTAP__STATE__EXITED] = "exited",
		[HEAPTAP__STATE__EXEC] = "exec", [HEAPTAP__STATE__DETACHED] = "detached",
		[HEAPTAP__STATE__AGENT_LOST] = "agent lost",
	};

	rp->id = p->id;
	if (id) {
		t->pid = id->pid;
		t->mpi.rank = id->rank;
		t->mpi.world_size = id->world_size;
		t->mpi.local_rank = id->local_rank;
		snprintf(t->mpi.job, sizeof(t->mpi.job), "%s", id->job ? id->job : "");
		snprintf(t->command, sizeof(t->command), "%s", id->command ? id->command : "?");
		snprintf(rp->host, sizeof(rp->host), "%s", id->host ? id->host : "?");
		t->probed = id->allocator != NULL;
		snprintf(t->alloc.path, sizeof(t->alloc.path), "%s",
			 id->allocator ? id->allocator : "");
		t->alloc.glibc = id->usable_known;
		t->owner.sample_bytes = id->sample_bytes;
	}
	run_process__set_state(rp, p->state <= HEAPTAP__STATE__AGENT_LOST ? states[p->state]
									 : "running",
			       p->exit_status, p->signal);
	rp->facts.lost_events = p->lost_events;
	rp->facts.holds_skipped = p->holds_skipped;
	rp->facts.dropped_messages = p->dropped_messages;
	t->incomplete_stacks = p->incomplete_stacks;
	t->unsupported_unwinds = p->unsupported_unwinds;
	if (p->owner) {
		rp->facts.held_known = true;
		rp->facts.held_blocks = p->owner->blocks;
		rp->facts.held_bytes = p->owner->bytes;
		rp->facts.held_peak_bytes = p->owner->peak_bytes;
		if (p->owner->oom) {
			t->oom.killed = true;
			t->oom.seconds = p->owner->oom->time;
			t->oom.bytes = p->owner->oom->bytes;
			t->oom.blocks = p->owner->oom->blocks;
		}
	}
	balance_from_wire(p->total, &t->stats.total);
	for (size_t i = 0; i < p->n_threads && !err; i++) {
		balance_from_wire(p->threads[i]->balance, &b);
		err = accountant__set_thread(&t->stats, p->threads[i]->tid, p->threads[i]->name, &b);
	}
	for (size_t i = 0; i < p->n_libraries && !err; i++) {
		balance_from_wire(p->libraries[i]->balance, &b);
		err = accountant__set_library(&t->stats, p->libraries[i]->library ?
							 p->libraries[i]->library : "?", &b);
	}
	for (size_t i = 0; i < p->n_functions && !err; i++) {
		const Heaptap__Function *f = p->functions[i];

		balance_from_wire(f->balance, &b);
		err = accountant__set_function(&t->stats, f->library ? f->library : "?",
					       f->function ? f->function : "?", &b);
	}
	return err;
}

int run_wire__decode(const Heaptap__RunView *rv, struct run_view *v)
{
	run_view__clear(v);
	v->id = rv->run;
	snprintf(v->job, sizeof(v->job), "%s", rv->job ? rv->job : "");
	if (!rv->attribution || attribution_rule_parse(rv->attribution, &v->rule))
		v->rule = ATTRIBUTE_ENTRY;
	for (size_t i = 0; i < rv->n_processes; i++) {
		struct run_process *rp = run_view__add(v);

		if (!rp || decode_process(rv->processes[i], rp)) {
			run_view__clear(v);
			return -ENOMEM;
		}
	}
	return 0;
}
