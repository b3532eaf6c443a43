// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "custom_allocs.h"
#include "probe_site.h"
#include "session.h"
#include "symcache.h"
#include "tracer.h"

/* Where one entry point is probed in a process. */
struct probed_entry {
	bool probed;
	uint64_t offset;	  /* of the function in its file */
	struct allocator *object; /* its file, for the symbolizer */
};

struct custom_allocs {
	struct custom_account accounts[CUSTOM_ALLOCS_MAX];
	size_t nr;
	struct probed_entry entries[CUSTOM_ALLOCS_MAX][ALLOC_SPEC_MAX_ENTRIES];
	struct allocator *objects[TRACER_MAX_CUSTOM_FILES]; /* files with probes */
	size_t nr_objects;
	bool looked; /* its objects were looked through once */
	/* Accounts read back from a store: their specs (a name only) and libraries, owned */
	struct alloc_spec *stored_specs[CUSTOM_ALLOCS_MAX];
	char *stored_libraries[CUSTOM_ALLOCS_MAX];
};

enum ht_func custom_allocs__slot(enum spec_kind kind)
{
	static const enum ht_func slots[SPEC_NR_KINDS] = {
		[SPEC_MALLOC] = HT_MALLOC,     [SPEC_CALLOC] = HT_CALLOC,
		[SPEC_REALLOC] = HT_REALLOC,   [SPEC_FREE] = HT_FREE,
		[SPEC_MEMALIGN] = HT_MEMALIGN, [SPEC_POSIX_MEMALIGN] = HT_POSIX_MEMALIGN,
		[SPEC_BRK] = HT_REALLOCARRAY, /* no API has both: brk's own column */
	};

	return kind < SPEC_NR_KINDS ? slots[kind] : HT_MALLOC;
}

/* An entry point's index in events: its API's, then its own. */
static uint32_t entry_index(size_t api, size_t entry)
{
	return api * ALLOC_SPEC_MAX_ENTRIES + entry;
}

/*
 * A block's key in the live-block table: user addresses are below 2^47, so the API's
 * number above them keeps its blocks apart from the malloc family's (tag 0).
 */
static uint64_t block_key(size_t api, uint64_t addr)
{
	return addr | (uint64_t)(api + 1) << 56;
}

static struct custom_allocs *custom_of(const struct custom_apis *s, struct target *t)
{
	if (!t->custom && s->nr) {
		t->custom = calloc(1, sizeof(*t->custom));
		if (!t->custom)
			return NULL;
		t->custom->nr = s->nr;
		for (size_t i = 0; i < s->nr; i++)
			t->custom->accounts[i].spec = &s->specs[i];
	}
	return t->custom;
}

/* Probe, in the object at m, the entry points it defines that are not probed yet. */
static int probe_object(const struct custom_apis *s, struct target *t, struct custom_allocs *c,
			const struct mapping *m, struct object_file *obj)
{
	uint64_t offsets[CUSTOM_ALLOCS_MAX * ALLOC_SPEC_MAX_ENTRIES];
	uint64_t cookies[CUSTOM_ALLOCS_MAX * ALLOC_SPEC_MAX_ENTRIES];
	struct probed_entry *found[CUSTOM_ALLOCS_MAX * ALLOC_SPEC_MAX_ENTRIES];
	size_t api_of[CUSTOM_ALLOCS_MAX * ALLOC_SPEC_MAX_ENTRIES];
	struct allocator *object;
	size_t nr = 0;
	int err;

	for (size_t a = 0; a < c->nr; a++) {
		const struct alloc_spec *spec = c->accounts[a].spec;

		for (size_t e = 0; e < spec->nr; e++) {
			const struct spec_entry *se = &spec->entries[e];
			uint64_t offset, site;

			if (c->entries[a][e].probed ||
			    !(offset = elfsyms__offset_of(obj->syms, se->function)))
				continue;
			site = probe_site__place(obj, offset);
			offsets[nr] = site;
			cookies[nr] = HT_CUSTOM_COOKIE(entry_index(a, e),
						       alloc_spec__arg(se, ROLE_OUT),
						       se->kind == SPEC_FREE, site - offset);
			c->entries[a][e].offset = offset;
			api_of[nr] = a;
			found[nr++] = &c->entries[a][e];
		}
	}
	if (!nr)
		return 0;
	if (c->nr_objects >= TRACER_MAX_CUSTOM_FILES)
		return -E2BIG;
	object = calloc(1, sizeof(*object));
	if (!object)
		return -ENOMEM;
	/* What the symbolizer needs of the file: its name and identity. */
	snprintf(object->path, sizeof(object->path), "%s", m->path);
	snprintf(object->open_path, sizeof(object->open_path), "%s", obj->read_path);
	object->dev = m->dev;
	object->inode = m->inode;
	err = tracer__attach_custom(s->tracer, t->pid, obj->read_path, m->dev, m->inode, offsets,
				    cookies, nr);
	if (err) {
		free(object);
		return err;
	}
	c->objects[c->nr_objects++] = object;
	for (size_t i = 0; i < nr; i++) {
		found[i]->probed = true;
		found[i]->object = object;
		if (!c->accounts[api_of[i]].library)
			c->accounts[api_of[i]].library = object->path;
	}
	return 0;
}

int custom_allocs__probe(const struct custom_apis *s, struct target *t,
			 const struct procmaps *maps, char *problem, size_t problem_len)
{
	struct custom_allocs *c = custom_of(s, t);
	bool first;
	int err;

	if (!s->nr)
		return 0;
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < maps->nr; i++) {
		const struct mapping *m = &maps->maps[i];
		struct object_file *obj;

		if (!m->executable || m->path[0] != '/')
			continue;
		obj = symcache__get_mapped(s->cache, t->pid, m);
		if (!obj || !obj->syms)
			continue;
		err = probe_object(s, t, c, m, obj);
		if (err)
			return err;
	}
	first = !c->looked;
	c->looked = true;
	for (size_t a = 0; first && a < c->nr; a++) {
		const struct alloc_spec *spec = c->accounts[a].spec;

		for (size_t e = 0; e < spec->nr; e++) {
			if (c->entries[a][e].probed)
				continue;
			if (spec->entries[e].line)
				snprintf(problem, problem_len,
					 "%s:%u: %s: no object of process %d defines it",
					 spec->source, spec->entries[e].line,
					 spec->entries[e].function, t->pid);
			else
				snprintf(problem, problem_len,
					 "--allocator %s: %s: no object of process %d defines it",
					 spec->source, spec->entries[e].function, t->pid);
			return -ENOENT;
		}
	}
	return 0;
}

static uint64_t arg_of(const struct ht_custom_event *ev, const struct spec_entry *se,
		       enum spec_role role)
{
	unsigned n = alloc_spec__arg(se, role);

	return n ? ev->args[n - 1] : 0;
}

struct custom_movement {
	int64_t delta;
	uint64_t requested;
};

static void allocated(struct target *t, size_t api, uint64_t addr, uint64_t size,
		      const struct ht_custom_event *ev, struct custom_movement *mv)
{
	struct live_block b = { .usable = size, .requested = size, .tid = ev->tid }, replaced;

	if (!addr)
		return; /* it failed */
	mv->delta += (int64_t)size;
	mv->requested += size;
	if (t->owner.live)
		live_blocks__add(t->owner.live, block_key(api, addr), &b, &replaced);
}

static void released(struct target *t, struct custom_account *acct, size_t api, uint64_t addr,
		     struct custom_movement *mv)
{
	struct live_block b;

	if (!addr)
		return;
	if (t->owner.live && live_blocks__take(t->owner.live, block_key(api, addr), &b))
		mv->delta -= (int64_t)b.requested;
	else
		acct->freed_unknown++;
}

/* What the call moved: usable is requested for these APIs (their classes are unknown). */
static struct custom_movement movement(struct target *t, struct custom_account *acct, size_t api,
				       const struct spec_entry *se,
				       const struct ht_custom_event *ev)
{
	uint64_t size = arg_of(ev, se, ROLE_SIZE), ptr = arg_of(ev, se, ROLE_PTR), n;
	struct custom_movement mv = {};

	switch (se->kind) {
	case SPEC_MALLOC:
	case SPEC_MEMALIGN:
		allocated(t, api, ev->ret, size, ev, &mv);
		break;
	case SPEC_CALLOC:
		if (!__builtin_mul_overflow(arg_of(ev, se, ROLE_COUNT), size, &n))
			allocated(t, api, ev->ret, n, ev, &mv);
		break;
	case SPEC_POSIX_MEMALIGN:
		if ((int)ev->ret == 0 && !(ev->flags & HT_F_READ_FAILED))
			allocated(t, api, ev->out_ptr, size, ev, &mv);
		break;
	case SPEC_REALLOC:
		/* A failed realloc keeps the old block; one to size 0 that returns none frees. */
		if (ev->ret || !size)
			released(t, acct, api, ptr, &mv);
		allocated(t, api, ev->ret, size, ev, &mv);
		break;
	case SPEC_FREE:
		released(t, acct, api, ptr, &mv);
		break;
	case SPEC_BRK:
		/* It returns the old break, or (void *)-1 when it cannot move it. */
		if (ev->ret != (uint64_t)-1) {
			mv.delta = (int64_t)arg_of(ev, se, ROLE_INCREMENT);
			if (mv.delta > 0)
				mv.requested = (uint64_t)mv.delta;
		}
		break;
	case SPEC_NR_KINDS:
		break;
	}
	return mv;
}

void custom_allocs__on_call(struct target *t, const struct ht_custom_event *ev)
{
	struct custom_allocs *c = t->custom;
	size_t api = ev->entry / ALLOC_SPEC_MAX_ENTRIES, e = ev->entry % ALLOC_SPEC_MAX_ENTRIES;
	const struct ht_stack *stack = &ev->stack;
	const struct spec_entry *se;
	struct custom_account *acct;
	struct custom_movement mv;
	struct resolved_call call;
	struct probed_entry *pe;
	struct ht_stack stored;
	char comm[HT_COMM_LEN + 1];

	if (!c || api >= c->nr || e >= c->accounts[api].spec->nr || !t->symbolizer) {
		t->lost_events++;
		return;
	}
	acct = &c->accounts[api];
	se = &acct->spec->entries[e];
	pe = &c->entries[api][e];
	if (ev->stack_id && !(ev->flags & HT_F_STACK_NEW)) {
		if (stack_ids__frames(&t->stack_ids, ev->stack_id, &stored)) {
			t->lost_events++;
			return;
		}
		stack = &stored;
	}
	if (!pe->object || symbolizer__resolve_entry(t->symbolizer, &(struct symbolizer_entry){
				.name = se->function,
				.offset = pe->offset,
				.object = pe->object,
				.key = ev->entry,
			}, ev->stack_id, stack->frames, stack->nr, &call)) {
		t->lost_events++;
		return;
	}
	mv = movement(t, acct, api, se, ev);
	memcpy(comm, ev->comm, HT_COMM_LEN);
	comm[HT_COMM_LEN] = '\0';
	if (accountant__charge(&acct->stats, &(struct charge){
						     .func = custom_allocs__slot(se->kind),
						     .tid = ev->tid,
						     .thread_name = comm,
						     .delta = mv.delta,
						     .requested = mv.requested,
						     .library = call.library,
						     .function = call.function,
					     }))
		t->lost_events++;
}

void custom_allocs__free(struct custom_allocs *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		accountant__clear(&c->accounts[i].stats);
	for (size_t i = 0; i < c->nr_objects; i++)
		free(c->objects[i]);
	for (size_t i = 0; i < CUSTOM_ALLOCS_MAX; i++) {
		free(c->stored_specs[i]);
		free(c->stored_libraries[i]);
	}
	free(c);
}

struct custom_account *custom_allocs__add_stored(struct custom_allocs **c, const char *name,
						 const char *library)
{
	struct custom_account *acct;
	struct alloc_spec *spec;
	size_t i;

	if (!*c && !(*c = calloc(1, sizeof(**c))))
		return NULL;
	i = (*c)->nr;
	if (i == CUSTOM_ALLOCS_MAX || !(spec = calloc(1, sizeof(*spec))))
		return NULL;
	snprintf(spec->name, sizeof(spec->name), "%s", name);
	snprintf(spec->source, sizeof(spec->source), "%s", name);
	(*c)->stored_specs[i] = spec;
	if (library && !((*c)->stored_libraries[i] = strdup(library)))
		return NULL;
	acct = &(*c)->accounts[i];
	acct->spec = spec;
	acct->library = (*c)->stored_libraries[i];
	(*c)->nr++;
	return acct;
}

struct custom_account *custom_allocs__accounts(struct custom_allocs *c, size_t *nr)
{
	*nr = c ? c->nr : 0;
	return c ? c->accounts : NULL;
}
