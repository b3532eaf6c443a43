// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The OS view's part of a process's report: text section "Mappings", JSON "mappings". */
#include <inttypes.h>
#include <string.h>
#include "report.h"

static void print_map_balance(FILE *out, const char *indent, const struct map_balance *b)
{
	fprintf(out, "%smap_size = %" PRId64 ", map_min = %" PRId64 ", map_max = %" PRId64
		     "; anonymous = %" PRId64 ", file = %" PRId64 ", brk = %" PRId64
		     "; malloc's own = %" PRId64 "\n",
		indent, b->current, b->min, b->max, b->kinds[MAP_KIND_ANON],
		b->kinds[MAP_KIND_FILE], b->kinds[MAP_KIND_BRK], b->heap);
	fputs(indent, out);
	for (int c = 0; c < HT_NR_OS_CALLS; c++)
		fprintf(out, "%s%s: %" PRIu64, c ? ", " : "", ht_os_call_names[c], b->calls[c]);
	if (b->released_calls)
		fprintf(out, "; released (madvise): %" PRIu64 " calls, %" PRIu64 " bytes",
			b->released_calls, b->released_bytes);
	if (b->before_tracing_calls)
		fprintf(out, "; unmapped from before tracing: %" PRIu64 " calls, %" PRIu64
			     " bytes", b->before_tracing_calls, b->before_tracing_bytes);
	fputc('\n', out);
}

static void print_rss(FILE *out, const struct mapping_stats *ms)
{
	uint64_t max = mapping_stats__rss_max(ms);

	if (!ms->nr_rss)
		return;
	fprintf(out, "RSS: %" PRIu64 " bytes at %.1f s (the last of %zu samples), at most %"
		     PRIu64 "\n",
		ms->rss[ms->nr_rss - 1].bytes, ms->rss[ms->nr_rss - 1].t, ms->nr_rss, max);
}

/* The text report's stacks: the largest, outermost frame first; all are in the JSON. */
#define TEXT_STACKS 10

static void print_stacks(FILE *out, const struct mapping_stats *ms)
{
	const struct map_group *g, *tmp;
	size_t shown = 0;

	if (!ms->nr_stacks)
		return;
	fprintf(out, "Stacks: %zu (the largest first, by map_max; outermost frame first)\n",
		ms->nr_stacks);
	HASH_ITER(hh, ms->groups, g, tmp) {
		if (g->kind != MAP_GROUP_STACK)
			continue;
		if (shown++ == TEXT_STACKS) {
			fprintf(out, "  ... %zu more in the JSON report (mappings.stacks)\n",
				ms->nr_stacks - TEXT_STACKS);
			break;
		}
		fprintf(out, "  %s%s:", ht_os_call_names[g->call],
			g->complete ? "" : " (incomplete stack)");
		for (size_t i = g->nr_frames; i-- > 0;)
			fprintf(out, " %s%s", g->frames[i].function, i ? " >" : "");
		fputc('\n', out);
		print_map_balance(out, "    ", &g->bal);
	}
}

void report_mappings_text(FILE *out, const struct mapping_stats *ms)
{
	const struct map_group *g, *tmp, *f, *ftmp;

	if (!mapping_stats__any(ms))
		return;
	fprintf(out, "----- Mappings: mmap, munmap, mremap, brk; madvise(DONTNEED, FREE) -----\n");
	print_map_balance(out, "", &ms->total);
	print_rss(out, ms);
	HASH_ITER(hh, ms->groups, g, tmp) {
		if (g->kind == MAP_GROUP_THREAD) {
			fprintf(out, "Thread ID: %u (%s)\n", g->tid, g->name);
			print_map_balance(out, "", &g->bal);
		} else if (g->kind == MAP_GROUP_LIBRARY) {
			fprintf(out, "Library: %s\n", g->library);
			print_map_balance(out, "", &g->bal);
			HASH_ITER(hh, ms->groups, f, ftmp) {
				if (f->kind != MAP_GROUP_FUNCTION || strcmp(f->library, g->library))
					continue;
				fprintf(out, "  Function: %s\n", f->function);
				print_map_balance(out, "  ", &f->bal);
			}
		}
	}
	print_stacks(out, ms);
}

static void add_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static void add_i64(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

/* MBAL in the JSON schema (tools/docs/figures.md). */
static void map_balance_json(json_object *o, const struct map_balance *b)
{
	json_object *calls = json_object_new_object(), *released = json_object_new_object();
	json_object *before = json_object_new_object();

	add_i64(o, "current", b->current);
	add_i64(o, "min", b->min);
	add_i64(o, "max", b->max);
	for (int k = 0; k < NR_MAP_KINDS; k++)
		add_i64(o, map_kind_names[k], b->kinds[k]);
	add_i64(o, "malloc_own", b->heap);
	for (int c = 0; c < HT_NR_OS_CALLS; c++)
		add_u64(calls, ht_os_call_names[c], b->calls[c]);
	json_object_object_add(o, "calls", calls);
	add_u64(released, "calls", b->released_calls);
	add_u64(released, "bytes", b->released_bytes);
	json_object_object_add(o, "released", released);
	add_u64(before, "calls", b->before_tracing_calls);
	add_u64(before, "bytes", b->before_tracing_bytes);
	json_object_object_add(o, "unmapped_before_tracing", before);
}

/* A stack's entry in JSON's mappings.stacks: its call, frames from it outwards, MBAL. */
static json_object *stack_json(const struct map_group *g)
{
	json_object *e = json_object_new_object(), *frames = json_object_new_array();

	json_object_object_add(e, "call", json_object_new_string(ht_os_call_names[g->call]));
	json_object_object_add(e, "complete", json_object_new_boolean(g->complete));
	for (size_t i = 0; i < g->nr_frames; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "function", json_object_new_string(g->frames[i].function));
		json_object_object_add(f, "library", json_object_new_string(g->frames[i].library));
		json_object_array_add(frames, f);
	}
	json_object_object_add(e, "frames", frames);
	map_balance_json(e, &g->bal);
	return e;
}

json_object *report_mappings_json(const struct mapping_stats *ms)
{
	json_object *o, *total, *threads, *libraries, *functions, *stacks, *rss;
	const struct map_group *g, *tmp;

	if (!mapping_stats__any(ms))
		return NULL;
	o = json_object_new_object();
	total = json_object_new_object();
	threads = json_object_new_array();
	libraries = json_object_new_array();
	functions = json_object_new_array();
	stacks = json_object_new_array();
	rss = json_object_new_array();
	map_balance_json(total, &ms->total);
	HASH_ITER(hh, ms->groups, g, tmp) {
		json_object *e;

		if (g->kind == MAP_GROUP_STACK) {
			json_object_array_add(stacks, stack_json(g));
			continue;
		}
		e = json_object_new_object();
		if (g->kind == MAP_GROUP_THREAD) {
			add_i64(e, "tid", g->tid);
			json_object_object_add(e, "name", json_object_new_string(g->name));
			json_object_array_add(threads, e);
		} else {
			if (g->kind == MAP_GROUP_FUNCTION)
				json_object_object_add(e, "function",
						       json_object_new_string(g->function));
			json_object_object_add(e, "library", json_object_new_string(g->library));
			json_object_array_add(g->kind == MAP_GROUP_FUNCTION ? functions : libraries,
					      e);
		}
		map_balance_json(e, &g->bal);
	}
	for (size_t i = 0; i < ms->nr_rss; i++) {
		json_object *sample = json_object_new_array();

		json_object_array_add(sample, json_object_new_double(ms->rss[i].t));
		json_object_array_add(sample, json_object_new_uint64(ms->rss[i].bytes));
		json_object_array_add(rss, sample);
	}
	json_object_object_add(o, "total", total);
	json_object_object_add(o, "threads", threads);
	json_object_object_add(o, "libraries", libraries);
	json_object_object_add(o, "functions", functions);
	json_object_object_add(o, "stacks", stacks);
	json_object_object_add(o, "rss", rss);
	if (ms->rss_peak)
		json_object_object_add(o, "rss_peak", json_object_new_uint64(ms->rss_peak));
	return o;
}
