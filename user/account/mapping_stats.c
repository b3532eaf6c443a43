// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "mapping_stats.h"

const char *const ht_os_call_names[HT_NR_OS_CALLS] = {
	[HT_OS_MMAP] = "mmap",	   [HT_OS_MUNMAP] = "munmap",	[HT_OS_MREMAP] = "mremap",
	[HT_OS_BRK] = "brk",	   [HT_OS_MADVISE] = "madvise",
};

const char *const map_kind_names[NR_MAP_KINDS] = {
	[MAP_KIND_ANON] = "anonymous",
	[MAP_KIND_FILE] = "file",
	[MAP_KIND_BRK] = "brk",
};

void map_balance__apply(struct map_balance *b, const struct os_move *m)
{
	const struct range_change *c = &m->change;

	b->current += range_change_total(c);
	if (b->current < b->min)
		b->min = b->current;
	if (b->current > b->max)
		b->max = b->current;
	for (int k = 0; k < NR_MAP_KINDS; k++)
		b->kinds[k] += c->bytes[k];
	b->heap += c->heap;
	b->calls[m->call]++;
	if (m->released) {
		b->released_calls++;
		b->released_bytes += m->released;
	}
	if (c->before_tracing) {
		b->before_tracing_calls++;
		b->before_tracing_bytes += c->before_tracing;
	}
}

static struct map_group *group_of(struct mapping_stats *ms, enum map_group_kind kind,
				  uint32_t tid, const char *library, const char *function)
{
	size_t lib_len = library ? strlen(library) : 0, fn_len = function ? strlen(function) : 0;
	size_t key_len = 1 + (kind == MAP_GROUP_THREAD ? sizeof(tid) : lib_len + 1 + fn_len);
	char key[key_len + 1];
	struct map_group *g;

	key[0] = (char)kind;
	if (kind == MAP_GROUP_THREAD) {
		memcpy(key + 1, &tid, sizeof(tid));
	} else {
		memcpy(key + 1, library, lib_len + 1);
		if (function)
			memcpy(key + 2 + lib_len, function, fn_len + 1);
	}
	HASH_FIND(hh, ms->groups, key, key_len, g);
	if (g)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->key = malloc(key_len + 1))) {
		free(g);
		return NULL;
	}
	memcpy(g->key, key, key_len);
	g->key[key_len] = '\0';
	g->key_len = key_len;
	g->kind = kind;
	g->tid = tid;
	if (kind != MAP_GROUP_THREAD) {
		g->library = g->key + 1;
		g->function = kind == MAP_GROUP_FUNCTION ? g->key + 2 + lib_len : NULL;
	}
	HASH_ADD_KEYPTR(hh, ms->groups, g->key, key_len, g);
	return g;
}

/*
 * A stack's key: its call and completeness, then its frames' interned names (so equal
 * names are equal pointers). Frames differing only in offset or source line are one stack,
 * as in the call tree.
 */
struct stack_key {
	uint32_t call;
	uint32_t complete;
	struct map_frame frames[];
};

static struct map_group *stack_group_of(struct mapping_stats *ms, const struct os_charge *c)
{
	size_t key_len = sizeof(struct stack_key) + c->nr_frames * sizeof(struct map_frame);
	struct stack_key *key = calloc(1, key_len);
	struct map_group *g = NULL;

	if (!key)
		return NULL;
	key->call = c->move->call;
	key->complete = c->complete;
	for (size_t i = 0; i < c->nr_frames; i++) {
		key->frames[i].library = strpool__intern(&ms->names, c->frames[i].library);
		key->frames[i].function = strpool__intern(&ms->names, c->frames[i].function);
		if (!key->frames[i].library || !key->frames[i].function)
			goto fail;
	}
	HASH_FIND(hh, ms->groups, key, key_len, g);
	if (g) {
		free(key);
		return g;
	}
	if (!(g = calloc(1, sizeof(*g))))
		goto fail;
	g->key = (char *)key;
	g->key_len = key_len;
	g->kind = MAP_GROUP_STACK;
	g->call = c->move->call;
	g->complete = c->complete;
	g->frames = key->frames;
	g->nr_frames = c->nr_frames;
	HASH_ADD_KEYPTR(hh, ms->groups, g->key, key_len, g);
	ms->nr_stacks++;
	return g;
fail:
	free(key);
	return NULL;
}

int mapping_stats__charge(struct mapping_stats *ms, const struct os_charge *c)
{
	struct map_group *t = group_of(ms, MAP_GROUP_THREAD, c->tid, NULL, NULL);
	struct map_group *l = group_of(ms, MAP_GROUP_LIBRARY, 0, c->library, NULL);
	struct map_group *f = group_of(ms, MAP_GROUP_FUNCTION, 0, c->library, c->function);
	struct map_group *st = c->frames ? stack_group_of(ms, c) : NULL;

	if (!t || !l || !f || (c->frames && !st))
		return -ENOMEM;
	if (c->thread_name)
		strncpy(t->name, c->thread_name, sizeof(t->name) - 1);
	map_balance__apply(&ms->total, c->move);
	map_balance__apply(&t->bal, c->move);
	map_balance__apply(&l->bal, c->move);
	map_balance__apply(&f->bal, c->move);
	if (st)
		map_balance__apply(&st->bal, c->move);
	return 0;
}

int mapping_stats__set(struct mapping_stats *ms, enum map_group_kind kind, uint32_t tid,
		       const char *name, const char *library, const char *function,
		       const struct map_balance *b)
{
	struct map_group *g;

	if (kind == MAP_GROUP_STACK)
		return -EINVAL;
	g = group_of(ms, kind, tid, kind == MAP_GROUP_THREAD ? NULL : library,
		     kind == MAP_GROUP_FUNCTION ? function : NULL);
	if (!g)
		return -ENOMEM;
	if (kind == MAP_GROUP_THREAD && name)
		strncpy(g->name, name, sizeof(g->name) - 1);
	g->bal = *b;
	return 0;
}

uint64_t mapping_stats__rss_max(const struct mapping_stats *ms)
{
	uint64_t max = ms->rss_peak;

	for (size_t i = 0; i < ms->nr_rss; i++) {
		if (ms->rss[i].bytes > max)
			max = ms->rss[i].bytes;
	}
	return max;
}

int mapping_stats__add_rss(struct mapping_stats *ms, double t, uint64_t bytes)
{
	if (ms->nr_rss == ms->cap_rss) {
		size_t cap = ms->cap_rss ? ms->cap_rss * 2 : 64;
		struct rss_sample *r = realloc(ms->rss, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		ms->rss = r;
		ms->cap_rss = cap;
	}
	ms->rss[ms->nr_rss++] = (struct rss_sample){ t, bytes };
	return 0;
}

static int by_group(struct map_group *a, struct map_group *b)
{
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->kind == MAP_GROUP_STACK) {
		if (a->bal.max != b->bal.max)
			return a->bal.max > b->bal.max ? -1 : 1;
		if (a->bal.current != b->bal.current)
			return a->bal.current > b->bal.current ? -1 : 1;
		/* Then by calls, for an order that does not depend on the hash. */
		return memcmp(a->bal.calls, b->bal.calls, sizeof(a->bal.calls));
	}
	if (a->kind == MAP_GROUP_THREAD)
		return a->tid < b->tid ? -1 : a->tid > b->tid;
	c = strcmp(a->library, b->library);
	return c || a->kind == MAP_GROUP_LIBRARY ? c : strcmp(a->function, b->function);
}

void mapping_stats__sort(struct mapping_stats *ms)
{
	HASH_SORT(ms->groups, by_group);
}

bool mapping_stats__any(const struct mapping_stats *ms)
{
	for (int i = 0; i < HT_NR_OS_CALLS; i++) {
		if (ms->total.calls[i])
			return true;
	}
	return false;
}

void mapping_stats__end(struct mapping_stats *ms)
{
	address_ranges__clear(&ms->ranges);
}

size_t mapping_stats__stacks_bytes(const struct mapping_stats *ms)
{
	size_t bytes = 0;

	for (const struct map_group *g = ms->groups; g; g = g->hh.next) {
		if (g->kind == MAP_GROUP_STACK)
			bytes += sizeof(*g) + g->key_len;
	}
	return bytes;
}

void mapping_stats__drop_stacks(struct mapping_stats *ms)
{
	struct map_group *g, *tmp;

	HASH_ITER(hh, ms->groups, g, tmp) {
		if (g->kind != MAP_GROUP_STACK)
			continue;
		HASH_DEL(ms->groups, g);
		free(g->key);
		free(g);
	}
	strpool__clear(&ms->names); /* only the stacks' frames are named in it */
	ms->nr_stacks = 0;
}

void mapping_stats__clear(struct mapping_stats *ms)
{
	struct map_group *g, *tmp;

	HASH_ITER(hh, ms->groups, g, tmp) {
		HASH_DEL(ms->groups, g);
		free(g->key);
		free(g);
	}
	address_ranges__clear(&ms->ranges);
	strpool__clear(&ms->names);
	free(ms->rss);
	memset(ms, 0, sizeof(*ms));
}
