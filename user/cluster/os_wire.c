// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The agent's side of os_wire.h: a process's OS view and API accounts as messages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "os_wire.h"
#include "run_wire.h"

static Heaptap__MapBalance *wire_map_balance(struct arena *a, const struct map_balance *b)
{
	Heaptap__MapBalance *w = arena_alloc(a, sizeof(*w));
	uint64_t *calls = arena_alloc(a, HT_NR_OS_CALLS * sizeof(*calls));

	if (!w || !calls)
		return NULL;
	heaptap__map_balance__init(w);
	w->has_current = w->has_min = w->has_max = true;
	w->has_anonymous = w->has_file = w->has_brk = w->has_malloc_own = true;
	w->has_released_calls = w->has_released_bytes = true;
	w->has_before_tracing_calls = w->has_before_tracing_bytes = true;
	w->current = b->current;
	w->min = b->min;
	w->max = b->max;
	w->anonymous = b->kinds[MAP_KIND_ANON];
	w->file = b->kinds[MAP_KIND_FILE];
	w->brk = b->kinds[MAP_KIND_BRK];
	w->malloc_own = b->heap;
	memcpy(calls, b->calls, HT_NR_OS_CALLS * sizeof(*calls));
	w->calls = calls;
	w->n_calls = HT_NR_OS_CALLS;
	w->released_calls = b->released_calls;
	w->released_bytes = b->released_bytes;
	w->before_tracing_calls = b->before_tracing_calls;
	w->before_tracing_bytes = b->before_tracing_bytes;
	return w;
}

static int add_group(struct arena *a, const struct map_group *g, Heaptap__Mappings *m)
{
	Heaptap__MapGroup *w = arena_alloc(a, sizeof(*w));
	Heaptap__MapGroup **list = g->kind == MAP_GROUP_THREAD	  ? m->threads :
				   g->kind == MAP_GROUP_LIBRARY ? m->libraries :
								  m->functions;
	size_t *n = g->kind == MAP_GROUP_THREAD	 ? &m->n_threads :
		    g->kind == MAP_GROUP_LIBRARY ? &m->n_libraries :
						   &m->n_functions;

	if (*n == WIRE_MAX_MAP_GROUPS)
		return 0;
	if (!w)
		return -ENOMEM;
	heaptap__map_group__init(w);
	if (g->kind == MAP_GROUP_THREAD) {
		w->has_tid = true;
		w->tid = g->tid;
		w->name = arena_strdup(a, g->name);
	} else {
		w->library = arena_strdup(a, g->library);
		if (g->kind == MAP_GROUP_FUNCTION)
			w->function = arena_strdup(a, g->function);
	}
	if (!(w->balance = wire_map_balance(a, &g->bal)))
		return -ENOMEM;
	list[(*n)++] = w;
	return 0;
}

Heaptap__Mappings *wire_mappings(struct arena *a, const struct mapping_stats *ms)
{
	Heaptap__Mappings *m = arena_alloc(a, sizeof(*m));
	size_t groups = HASH_COUNT(ms->groups) + 1;
	const struct map_group *g, *tmp;
	uint64_t max = 0;

	if (!m)
		return NULL;
	heaptap__mappings__init(m);
	m->total = wire_map_balance(a, &ms->total);
	m->threads = arena_alloc(a, groups * sizeof(*m->threads));
	m->libraries = arena_alloc(a, groups * sizeof(*m->libraries));
	m->functions = arena_alloc(a, groups * sizeof(*m->functions));
	if (!m->total || !m->threads || !m->libraries || !m->functions)
		return NULL;
	HASH_ITER(hh, ms->groups, g, tmp) {
		/* Stacks stay in the agent's own reports: the collector keeps groups. */
		if (g->kind != MAP_GROUP_STACK && add_group(a, g, m))
			return NULL;
	}
	max = mapping_stats__rss_max(ms);
	if (ms->nr_rss) {
		m->has_rss = m->has_rss_max = true;
		m->rss = ms->rss[ms->nr_rss - 1].bytes;
		m->rss_max = max;
	}
	return m;
}

Heaptap__AllocatorApis *wire_allocators(struct arena *a, struct custom_allocs *c)
{
	Heaptap__AllocatorApis *m = arena_alloc(a, sizeof(*m));
	size_t nr;
	struct custom_account *accts = custom_allocs__accounts(c, &nr);

	if (!m)
		return NULL;
	heaptap__allocator_apis__init(m);
	m->apis = arena_alloc(a, (nr + 1) * sizeof(*m->apis));
	for (size_t i = 0; m->apis && i < nr; i++) {
		Heaptap__AllocatorApi *w = arena_alloc(a, sizeof(*w));
		Heaptap__Process groups = HEAPTAP__PROCESS__INIT;

		if (!w || wire_groups(a, &accts[i].stats, &groups))
			return NULL;
		heaptap__allocator_api__init(w);
		w->allocator = arena_strdup(a, accts[i].spec->name);
		w->library = accts[i].library ? arena_strdup(a, accts[i].library) : NULL;
		w->total = groups.total;
		w->threads = groups.threads;
		w->n_threads = groups.n_threads;
		w->libraries = groups.libraries;
		w->n_libraries = groups.n_libraries;
		w->functions = groups.functions;
		w->n_functions = groups.n_functions;
		w->has_freed_unknown = true;
		w->freed_unknown = accts[i].freed_unknown;
		m->apis[m->n_apis++] = w;
	}
	return m->apis && !a->failed ? m : NULL;
}

uint64_t wire_message_digest(const ProtobufCMessage *m)
{
	size_t size = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(size ? size : 1);
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	if (!buf)
		return 0;
	protobuf_c_message_pack(m, buf);
	for (size_t i = 0; i < size; i++)
		h = (h ^ buf[i]) * 0x100000001b3ull;
	free(buf);
	return h ? h : 1;
}
