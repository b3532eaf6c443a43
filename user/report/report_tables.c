// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The text report's tables under its summary: a row per thread, per library and per
 * function within it (now, peak, and the calls that were made: a count of 0 is not
 * shown), the same for each --allocator API, and the OS view as one short table by kind
 * of mapping (its stacks with --mappings). Sizes in one style, binary units (--bytes:
 * exact counts).
 */
#include <inttypes.h>
#include <string.h>
#include "custom_allocs.h"
#include "human_bytes.h"
#include "report.h"

/* The OS view's stacks --mappings lists, the largest first; all are in the JSON. */
#define MAPPING_STACKS 10

/* "    4.3 KiB    2.7 MiB  " and, after the caller's name, ": malloc 1, free 60,003". */
static void print_sizes(FILE *out, const char *indent, int64_t now, int64_t peak,
			const struct text_opts *o)
{
	char a[32], b[32];

	fprintf(out, "%11s %11s  %s", size_text(now, o->bytes, a, sizeof(a)),
		size_text(peak, o->bytes, b, sizeof(b)), indent);
}

static void print_calls(FILE *out, const struct balance *b, const struct text_opts *o)
{
	char n[32];
	int shown = 0;

	for (int f = 0; f < HT_NR_FUNCS; f++) {
		if (b->calls[f])
			fprintf(out, "%s%s %s", shown++ ? ", " : ": ", ht_func_names[f],
				grouped_count(b->calls[f], n, sizeof(n)));
	}
	/* DMATP's flow semantics: a group that freed what others allocated goes below 0. */
	if (b->min < 0)
		fprintf(out, "%smin %s", shown ? "; " : ": ",
			size_text(b->min, o->bytes, n, sizeof(n)));
	fputc('\n', out);
}

static void print_threads(FILE *out, const struct process_stats *st, const struct text_opts *o)
{
	const struct thread_stats *th, *tmp;

	if (st->threads)
		fprintf(out, "----- Threads: now, peak, calls -----\n");
	HASH_ITER(hh, st->threads, th, tmp) {
		print_sizes(out, "", th->bal.current, th->bal.max, o);
		fprintf(out, "%s (TID %u)", th->name, th->tid);
		print_calls(out, &th->bal, o);
	}
}

static void print_libraries(FILE *out, const struct process_stats *st,
			    const struct text_opts *o)
{
	const struct library_stats *l, *ltmp;
	const struct function_stats *f, *ftmp;

	if (st->libraries)
		fprintf(out, "----- Libraries, and the functions in each: now, peak, calls "
			     "-----\n");
	HASH_ITER(hh, st->libraries, l, ltmp) {
		print_sizes(out, "", l->bal.current, l->bal.max, o);
		fputs(l->library, out);
		print_calls(out, &l->bal, o);
		HASH_ITER(hh, st->functions, f, ftmp) {
			if (strcmp(f->library, l->library))
				continue;
			print_sizes(out, "  ", f->bal.current, f->bal.max, o);
			fputs(f->function, out);
			print_calls(out, &f->bal, o);
		}
	}
}

/* An --allocator API's group: its calls by kind (malloc, free...), those it made. */
static void print_api_row(FILE *out, const char *indent, const char *name,
			  const struct balance *b, const struct text_opts *o)
{
	char n[32];
	int shown = 0;

	print_sizes(out, indent, b->current, b->max, o);
	fputs(name, out);
	for (int k = 0; k < SPEC_NR_KINDS; k++) {
		uint64_t calls = b->calls[custom_allocs__slot(k)];

		if (calls)
			fprintf(out, "%s%s %s", shown++ ? ", " : ": ", alloc_spec__kind_name(k),
				grouped_count(calls, n, sizeof(n)));
	}
	if (b->min < 0)
		fprintf(out, "%smin %s", shown ? "; " : ": ",
			size_text(b->min, o->bytes, n, sizeof(n)));
	fputc('\n', out);
}

/* Each --allocator API: its total, threads, libraries and their functions. */
static void print_apis(FILE *out, const struct target *t, const struct text_opts *o)
{
	size_t nr;
	struct custom_account *accts = custom_allocs__accounts(t->custom, &nr);

	for (size_t i = 0; i < nr; i++) {
		struct custom_account *a = &accts[i];
		const struct thread_stats *th, *tht;
		const struct library_stats *l, *lt;
		const struct function_stats *f, *ft;
		char name[64];

		accountant__sort(&a->stats);
		fprintf(out, "----- Allocator %s (%s; block sizes unknown: usable = requested",
			a->spec->name, a->library ? a->library : "not found");
		if (a->freed_unknown)
			fprintf(out, "; %" PRIu64 " frees of blocks from before tracing",
				a->freed_unknown);
		fprintf(out, "): now, peak, calls -----\n");
		print_api_row(out, "", "in all", &a->stats.total, o);
		HASH_ITER(hh, a->stats.threads, th, tht) {
			snprintf(name, sizeof(name), "%s (TID %u)", th->name, th->tid);
			print_api_row(out, "", name, &th->bal, o);
		}
		HASH_ITER(hh, a->stats.libraries, l, lt) {
			print_api_row(out, "", l->library, &l->bal, o);
			HASH_ITER(hh, a->stats.functions, f, ft) {
				if (!strcmp(f->library, l->library))
					print_api_row(out, "  ", f->function, &f->bal, o);
			}
		}
	}
}

static void print_map_calls(FILE *out, const struct map_balance *b, const struct text_opts *o)
{
	char n[32], size[32];
	int shown = 0;

	for (int c = 0; c < HT_NR_OS_CALLS; c++) {
		if (b->calls[c])
			fprintf(out, "%s%s %s", shown++ ? ", " : "", ht_os_call_names[c],
				grouped_count(b->calls[c], n, sizeof(n)));
	}
	if (b->released_calls)
		fprintf(out, "; given back by madvise: %s in %s call%s",
			size_text((int64_t)b->released_bytes, o->bytes, size, sizeof(size)),
			grouped_count(b->released_calls, n, sizeof(n)),
			b->released_calls == 1 ? "" : "s");
	if (b->before_tracing_calls)
		fprintf(out, "; unmapped from before tracing: %s in %s call%s",
			size_text((int64_t)b->before_tracing_bytes, o->bytes, size, sizeof(size)),
			grouped_count(b->before_tracing_calls, n, sizeof(n)),
			b->before_tracing_calls == 1 ? "" : "s");
}

/* --mappings: the calls' stacks, outermost frame first, by the most they held. */
static void print_map_stacks(FILE *out, const struct mapping_stats *ms, const struct text_opts *o)
{
	const struct map_group *g, *tmp;
	size_t shown = 0;
	char a[32], b[32];

	if (!ms->nr_stacks)
		return;
	fprintf(out, "Stacks: %zu, now and peak, the largest first; outermost frame first\n",
		ms->nr_stacks);
	HASH_ITER(hh, ms->groups, g, tmp) {
		if (g->kind != MAP_GROUP_STACK)
			continue;
		if (shown++ == MAPPING_STACKS) {
			fprintf(out, "  ... %zu more in the JSON report (mappings.stacks)\n",
				ms->nr_stacks - MAPPING_STACKS);
			break;
		}
		fprintf(out, "%11s %11s  %s%s:", size_text(g->bal.current, o->bytes, a, sizeof(a)),
			size_text(g->bal.max, o->bytes, b, sizeof(b)), ht_os_call_names[g->call],
			g->complete ? "" : " (incomplete stack)");
		for (size_t i = g->nr_frames; i-- > 0;)
			fprintf(out, " %s%s", g->frames[i].function, i ? " >" : "");
		fputc('\n', out);
	}
}

static void print_mappings(FILE *out, const struct mapping_stats *ms, const struct text_opts *o)
{
	const struct map_balance *b = &ms->total;
	char a[32], c[32], h[32];

	if (!mapping_stats__any(ms))
		return;
	fprintf(out, "----- Mappings by kind, now (mmap, munmap, mremap, brk, madvise) -----\n");
	for (int k = 0; k < NR_MAP_KINDS; k++) {
		if (b->kinds[k])
			fprintf(out, "%11s  %s\n", size_text(b->kinds[k], o->bytes, a, sizeof(a)),
				map_kind_names[k]);
	}
	fprintf(out, "%11s  in all, at most %s; the allocator's own: %s\n",
		size_text(b->current, o->bytes, a, sizeof(a)),
		size_text(b->max, o->bytes, c, sizeof(c)),
		size_text(b->heap, o->bytes, h, sizeof(h)));
	fprintf(out, "OS calls: ");
	print_map_calls(out, b, o);
	if (ms->nr_rss) {
		uint64_t max = mapping_stats__rss_max(ms);

		fprintf(out, "; RSS %s at %.1f s, at most %s",
			size_text((int64_t)ms->rss[ms->nr_rss - 1].bytes, o->bytes, a, sizeof(a)),
			ms->rss[ms->nr_rss - 1].t, size_text((int64_t)max, o->bytes, c, sizeof(c)));
	}
	fputc('\n', out);
	if (o->mappings)
		print_map_stacks(out, ms, o);
}

void report_tables_text(FILE *out, const struct target *t, const struct process_facts *pf,
			const struct text_opts *o)
{
	report_tracing_notes(out, pf);
	report_allocator_note(out, t);
	print_threads(out, &t->stats, o);
	print_libraries(out, &t->stats, o);
	print_apis(out, t, o);
	print_mappings(out, &t->mappings, o);
}
