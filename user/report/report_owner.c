// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Who holds the memory, in both reports: what each allocation site still held at the end
 * (outstanding), what it held at the process's peak, what it allocated in all, and the
 * frees of blocks allocated before tracing.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "human_bytes.h"
#include "report.h"

/* Sites shown in the text report's sections, largest first. */
#define TEXT_SITES 10

static unsigned site_depth = 6;

void report_owner_set_depth(unsigned frames)
{
	site_depth = frames ? frames : 1;
}

/* detailed: frames carry offsets and raw symbols (--stacks keeps them). */
static json_object *frames_json(const struct owner_site *s, bool detailed)
{
	json_object *frames = json_object_new_array();

	for (size_t i = 0; s->record && i < s->record->nr; i++)
		json_object_array_add(frames, report_frame_json(&s->record->frames[i], detailed));
	return frames;
}

static json_object *site_json(const struct target *t, const struct owner_site *s,
			      uint64_t blocks, uint64_t bytes)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "frames", frames_json(s, t->stacks.detailed));
	json_object_object_add(o, "blocks", json_object_new_uint64(blocks));
	json_object_object_add(o, "bytes", json_object_new_uint64(bytes));
	return o;
}

static json_object *outstanding_json(const struct target *t)
{
	const struct owner *o = &t->owner;
	json_object *list = json_object_new_array();
	uint32_t nr, *order = owner__by_outstanding(o, &nr);

	for (uint32_t i = 0; i < nr; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		struct leak_verdict v = leak_series__verdict(s->series);
		json_object *site;

		if (!s->blocks)
			break;
		site = site_json(t, s, s->blocks, s->bytes);
		json_object_object_add(site, "requested", json_object_new_uint64(s->requested));
		json_object_object_add(site, "likely_leak", json_object_new_boolean(v.likely_leak));
		json_object_object_add(site, "growth_bytes_per_second",
				       json_object_new_double(v.growth_bytes_per_second));
		json_object_array_add(list, site);
	}
	free(order);
	return list;
}

static json_object *peak_json(const struct target *t)
{
	const struct owner *o = &t->owner;
	json_object *peak = json_object_new_object(), *sites = json_object_new_array();
	uint32_t nr, *order = owner__by_peak(o, &nr);

	json_object_object_add(peak, "bytes", json_object_new_uint64(o->peak_bytes));
	json_object_object_add(peak, "blocks", json_object_new_uint64(o->peak_blocks));
	for (uint32_t i = 0; i < nr; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		uint64_t blocks = owner_site__peak_blocks(o, s);

		if (!blocks)
			continue; /* sorted by bytes: a site of empty blocks may follow */
		json_object_array_add(sites, site_json(t, s, blocks, owner_site__peak_bytes(o, s)));
	}
	free(order);
	json_object_object_add(peak, "sites", sites);
	return peak;
}

static json_object *allocated_json(const struct target *t)
{
	const struct owner *o = &t->owner;
	json_object *list = json_object_new_array();

	for (uint32_t i = 0; i < o->nr_sites; i++) {
		const struct owner_site *s = &o->sites[i];

		if (s->allocated_blocks)
			json_object_array_add(list, site_json(t, s, s->allocated_blocks,
							      s->allocated_bytes));
	}
	return list;
}

void report_owner_json(json_object *p, const struct target *t)
{
	const struct owner *o = &t->owner;
	json_object *freed = json_object_new_object(), *live = json_object_new_object();
	json_object *lost = json_object_new_object();
	struct live_blocks_losses over = live_blocks__over_limit(o->live);

	/* Dropped for --tree-budget: the totals stay, the sites are gone (not empty). */
	json_object_object_add(p, "sites_dropped", json_object_new_boolean(o->sites_dropped));
	if (!o->sites_dropped) {
		json_object_object_add(p, "outstanding", outstanding_json(t));
		json_object_object_add(p, "allocated", allocated_json(t));
	}
	json_object_object_add(p, "peak", peak_json(t));
	json_object_object_add(freed, "calls", json_object_new_uint64(o->freed_before_tracing.calls));
	json_object_object_add(freed, "bytes", json_object_new_uint64(o->freed_before_tracing.bytes));
	json_object_object_add(freed, "bytes_known",
			       json_object_new_boolean(o->freed_before_tracing.bytes_known));
	json_object_object_add(p, "freed_before_tracing", freed);
	/* What the table cost, and the blocks it could not keep (not in outstanding, peak). */
	json_object_object_add(live, "limit", json_object_new_uint64(live_blocks__limit(o->live)));
	json_object_object_add(live, "kept", json_object_new_uint64(live_blocks__count(o->live)));
	json_object_object_add(live, "table_bytes",
			       json_object_new_uint64(live_blocks__bytes(o->live)));
	json_object_object_add(lost, "blocks", json_object_new_uint64(over.blocks));
	json_object_object_add(lost, "bytes", json_object_new_uint64(over.bytes));
	json_object_object_add(live, "over_limit", lost);
	json_object_object_add(p, "live_blocks", live);
}

/*
 * A site's short stack: from its innermost frame outside the allocator outwards, site_depth
 * frames at most, ending at main or a thread's start.
 */
static void print_stack(FILE *out, const struct stack_record *rec, const char *allocator)
{
	size_t i = 1, shown = 0;

	if (!rec) {
		fprintf(out, "        (stack not recorded: out of memory)\n");
		return;
	}
	while (i < rec->nr && allocator && !strcmp(rec->frames[i].library, allocator))
		i++;
	for (; i < rec->nr && shown < site_depth; i++, shown++) {
		const struct stack_frame *f = &rec->frames[i];
		const char *lib = strrchr(f->library, '/');

		fprintf(out, "        %s (%s)", f->function, lib ? lib + 1 : f->library);
		if (f->file)
			fprintf(out, " %s:%d", f->file, f->line);
		fputc('\n', out);
		if (!strcmp(f->function, "main") || is_startup_symbol(f->function))
			break;
	}
}

static void print_site(FILE *out, uint64_t blocks, uint64_t bytes)
{
	char text[16];

	fprintf(out, "  %s in %" PRIu64 " block%s", human_bytes((int64_t)bytes, text, sizeof(text)),
		blocks, blocks == 1 ? "" : "s");
}

void report_owner_text(FILE *out, const struct target *t)
{
	const struct owner *o = &t->owner;
	const char *allocator = t->probed ? t->alloc.path : NULL;
	struct live_blocks_losses over;
	uint32_t nr, *order;
	char text[16];

	if (!o->live)
		return;
	fprintf(out, "----- Still allocated at the end, by allocation site -----\n");
	fprintf(out, "%s in %" PRIu64 " blocks\n", human_bytes((int64_t)o->bytes, text,
								sizeof(text)), o->blocks);
	if (o->sites_dropped)
		fprintf(out, "(sites dropped to keep ended processes within --tree-budget)\n");
	order = owner__by_outstanding(o, &nr);
	for (uint32_t i = 0; order && i < nr && i < TEXT_SITES; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		struct leak_verdict v = leak_series__verdict(s->series);

		if (!s->blocks)
			break;
		print_site(out, s->blocks, s->bytes);
		fprintf(out, " (%s requested)",
			human_bytes((int64_t)s->requested, text, sizeof(text)));
		if (v.likely_leak)
			fprintf(out, ", likely leak: growing %s/s",
				human_bytes((int64_t)v.growth_bytes_per_second, text, sizeof(text)));
		fputc('\n', out);
		print_stack(out, s->record, allocator);
	}
	free(order);

	fprintf(out, "----- At the peak, by allocation site -----\n");
	fprintf(out, "%s in %" PRIu64 " blocks\n", human_bytes((int64_t)o->peak_bytes, text,
								sizeof(text)), o->peak_blocks);
	order = owner__by_peak(o, &nr);
	for (uint32_t i = 0, shown = 0; order && i < nr && shown < TEXT_SITES; i++) {
		const struct owner_site *s = &o->sites[order[i]];

		if (!owner_site__peak_blocks(o, s))
			continue;
		print_site(out, owner_site__peak_blocks(o, s), owner_site__peak_bytes(o, s));
		fputc('\n', out);
		print_stack(out, s->record, allocator);
		shown++;
	}
	free(order);

	if (o->freed_before_tracing.calls) {
		fprintf(out, "Freed, allocated before tracing: %" PRIu64 " calls",
			o->freed_before_tracing.calls);
		if (o->freed_before_tracing.bytes_known)
			fprintf(out, ", %" PRIu64 " bytes", o->freed_before_tracing.bytes);
		fputc('\n', out);
	}
	over = live_blocks__over_limit(o->live);
	if (over.blocks)
		fprintf(out, "Past the limit of %zu live blocks (--live-blocks): %" PRIu64
			     " blocks, %" PRIu64 " bytes not attributed to their sites; their frees "
			     "count as freed before tracing\n",
			live_blocks__limit(o->live), over.blocks, over.bytes);
}
