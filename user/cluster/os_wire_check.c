// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The collector's side of os_wire.h: received Mappings and AllocatorApis checked before
 * anything of them is stored, and read back. Apart from the builders, which need the
 * tracer's accounts: the decoder's fuzzer links only this.
 */
#include <stdint.h>
#include <string.h>
#include "os_wire.h"
#include "wire.h"

void map_balance_from_wire(const Heaptap__MapBalance *w, struct map_balance *b)
{
	memset(b, 0, sizeof(*b));
	if (!w)
		return;
	b->current = w->current;
	b->min = w->min;
	b->max = w->max;
	b->kinds[MAP_KIND_ANON] = w->anonymous;
	b->kinds[MAP_KIND_FILE] = w->file;
	b->kinds[MAP_KIND_BRK] = w->brk;
	b->heap = w->malloc_own;
	for (size_t c = 0; c < w->n_calls && c < HT_NR_OS_CALLS; c++)
		b->calls[c] = w->calls[c];
	b->released_calls = w->released_calls;
	b->released_bytes = w->released_bytes;
	b->before_tracing_calls = w->before_tracing_calls;
	b->before_tracing_bytes = w->before_tracing_bytes;
}

static bool string_ok(const char *s)
{
	return s && strnlen(s, WIRE_MAX_STRING + 1) <= WIRE_MAX_STRING;
}

/* SQLite keeps integers signed. */
static bool count_ok(uint64_t n)
{
	return n <= INT64_MAX;
}

static const char *check_map_balance(const Heaptap__MapBalance *b)
{
	if (!b)
		return "a mapping group without its figures";
	if (b->n_calls > HT_NR_OS_CALLS)
		return "mapping figures with more call counts than mapping calls";
	for (size_t i = 0; i < b->n_calls; i++) {
		if (!count_ok(b->calls[i]))
			return "a mapping call count over 2^63";
	}
	if (!count_ok(b->released_calls) || !count_ok(b->released_bytes) ||
	    !count_ok(b->before_tracing_calls) || !count_ok(b->before_tracing_bytes))
		return "a mapping count over 2^63";
	return NULL;
}

static const char *check_map_groups(Heaptap__MapGroup *const *groups, size_t n, int kind)
{
	const char *why;

	if (n > WIRE_MAX_MAP_GROUPS)
		return "more than 1024 mapping groups of a kind";
	for (size_t i = 0; i < n; i++) {
		const Heaptap__MapGroup *g = groups[i];

		if (kind == MAP_GROUP_THREAD && (!g->has_tid || (g->name && !string_ok(g->name))))
			return "a bad mapping thread";
		if (kind != MAP_GROUP_THREAD && !string_ok(g->library))
			return "a bad mapping library name";
		if (kind == MAP_GROUP_FUNCTION && !string_ok(g->function))
			return "a bad mapping function name";
		if ((why = check_map_balance(g->balance)))
			return why;
	}
	return NULL;
}

const char *wire_check_mappings(const Heaptap__Mappings *m)
{
	const char *why;

	if (!count_ok(m->rss) || !count_ok(m->rss_max))
		return "an RSS over 2^63";
	if ((why = check_map_balance(m->total)) ||
	    (why = check_map_groups(m->threads, m->n_threads, MAP_GROUP_THREAD)) ||
	    (why = check_map_groups(m->libraries, m->n_libraries, MAP_GROUP_LIBRARY)) ||
	    (why = check_map_groups(m->functions, m->n_functions, MAP_GROUP_FUNCTION)))
		return why;
	return NULL;
}

static const char *check_balance(const Heaptap__Balance *b)
{
	if (!b)
		return "an allocator group without its balance";
	if (b->n_calls > HT_NR_FUNCS)
		return "an allocator balance with more call counts than entry points";
	for (size_t i = 0; i < b->n_calls; i++) {
		if (!count_ok(b->calls[i]))
			return "an allocator call count over 2^63";
	}
	if (!count_ok(b->requested))
		return "an allocator's requested bytes over 2^63";
	return NULL;
}

static const char *check_api(const Heaptap__AllocatorApi *api)
{
	const char *why;

	if (!string_ok(api->allocator) || (api->library && !string_ok(api->library)))
		return "a bad allocator name";
	if (!count_ok(api->freed_unknown))
		return "an allocator's frees over 2^63";
	if ((why = check_balance(api->total)))
		return why;
	for (size_t i = 0; i < api->n_threads; i++) {
		if (!api->threads[i]->has_tid ||
		    (api->threads[i]->name && !string_ok(api->threads[i]->name)))
			return "a bad allocator thread";
		if ((why = check_balance(api->threads[i]->balance)))
			return why;
	}
	for (size_t i = 0; i < api->n_libraries; i++) {
		if (!string_ok(api->libraries[i]->library))
			return "a bad allocator library name";
		if ((why = check_balance(api->libraries[i]->balance)))
			return why;
	}
	for (size_t i = 0; i < api->n_functions; i++) {
		if (!string_ok(api->functions[i]->library) ||
		    !string_ok(api->functions[i]->function))
			return "a bad allocator function name";
		if ((why = check_balance(api->functions[i]->balance)))
			return why;
	}
	return NULL;
}

const char *wire_check_allocators(const Heaptap__AllocatorApis *m)
{
	const char *why;

	if (m->n_apis > CUSTOM_ALLOCS_MAX)
		return "more than 8 allocator APIs";
	for (size_t i = 0; i < m->n_apis; i++) {
		if ((why = check_api(m->apis[i])))
			return why;
		/* Stored by name: two of one name would overwrite each other. */
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(m->apis[i]->allocator, m->apis[j]->allocator))
				return "an allocator API named twice";
		}
	}
	return NULL;
}
