// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Who holds the memory, in both reports: what each allocation site still held at the end
 * (outstanding), what it held at the process's peak, what it allocated in all, and the
 * frees of blocks allocated before tracing.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "owner_text.h"
#include "report.h"

/* detailed: frames carry offsets and raw symbols (--stacks keeps them). */
static json_object *frames_json(const struct owner_site *s, bool detailed)
{
	json_object *frames = json_object_new_array();

	for (size_t i = 0; s->record && i < s->record->nr; i++)
		json_object_array_add(frames, report_frame_json(&s->record->frames[i], detailed));
	return frames;
}

/*
 * A site: its stack, as its node in names (schema 2), or its frames (names NULL: interned
 * later, or not at all).
 */
static json_object *site_json(const struct target *t, const struct owner_site *s,
			      uint64_t blocks, uint64_t bytes, struct frame_table *names)
{
	json_object *o = json_object_new_object();
	int64_t node;

	if (names && !frame_table__record(names, s->record, t->stacks.detailed, &node))
		json_object_object_add(o, "stack", json_object_new_int64(node));
	else
		json_object_object_add(o, "frames", frames_json(s, t->stacks.detailed));
	json_object_object_add(o, "blocks", json_object_new_uint64(blocks));
	json_object_object_add(o, "bytes", json_object_new_uint64(bytes));
	return o;
}

bool report_thread_calls_exact(const struct target *t, const struct process_facts *pf)
{
	const struct thread_stats *th, *tmp;

	if (!t->stats.threads || pf->lost_events)
		return false;
	HASH_ITER(hh, t->stats.threads, th, tmp) {
		if (!th->calls_exact)
			return false;
	}
	return true;
}

void report_sampled_json(json_object *p, const struct target *t,
			 const struct process_facts *pf)
{
	json_object *sampled, *estimated;
	static const char *const estimates[] = { "total", "threads", "libraries", "functions",
						 "tree", "peak", "outstanding", "allocated",
						 "calls" };

	if (!t->owner.sample_bytes) {
		json_object_object_add(p, "sampled", NULL);
		return;
	}
	sampled = json_object_new_object();
	estimated = json_object_new_array();
	json_object_object_add(sampled, "bytes", json_object_new_uint64(t->owner.sample_bytes));
	/*
	 * Each sampled block weighed by 1/p: bytes, blocks and calls (an allocation's 1/p, a
	 * free its block's) are unbiased estimates, the outstanding sites' with their samples
	 * and standard error.
	 */
	for (size_t i = 0; i < sizeof(estimates) / sizeof(estimates[0]); i++)
		json_object_array_add(estimated, json_object_new_string(estimates[i]));
	json_object_object_add(sampled, "estimated", estimated);
	/* Counted in BPF, every call: each thread's calls, and so the process's. */
	if (report_thread_calls_exact(t, pf)) {
		json_object *exact = json_object_new_array();

		json_object_array_add(exact, json_object_new_string("threads.calls"));
		json_object_array_add(exact, json_object_new_string("total.calls"));
		json_object_object_add(sampled, "exact", exact);
	}
	json_object_object_add(p, "sampled", sampled);
}

static json_object *outstanding_json(const struct target *t, struct frame_table *names)
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
		site = site_json(t, s, s->blocks, s->bytes, names);
		if (o->sample_bytes) {
			/* Estimates: the samples they stand on, and the bytes' standard error. */
			json_object_object_add(site, "samples", json_object_new_uint64(s->samples));
			json_object_object_add(site, "stderr_bytes", json_object_new_double(
				s->variance > 0 ? sqrt(s->variance) : 0));
		}
		json_object_object_add(site, "requested", json_object_new_uint64(s->requested));
		json_object_object_add(site, "likely_leak", json_object_new_boolean(v.likely_leak));
		json_object_object_add(site, "growth_bytes_per_second",
				       json_object_new_double(v.growth_bytes_per_second));
		json_object_array_add(list, site);
	}
	free(order);
	return list;
}

static json_object *peak_json(const struct target *t, struct frame_table *names)
{
	const struct owner *o = &t->owner;
	json_object *peak = json_object_new_object(), *sites = json_object_new_array();
	uint32_t nr, *order = owner__by_peak(o, &nr);

	json_object_object_add(peak, "bytes", json_object_new_uint64(o->peak_bytes));
	json_object_object_add(peak, "blocks", json_object_new_uint64(o->peak_blocks));
	/* When it last peaked, seconds into tracing, to the reading loop's clock (~0.05 s). */
	json_object_object_add(peak, "seconds", json_object_new_double(t->peak_seconds));
	for (uint32_t i = 0; i < nr; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		uint64_t blocks = owner_site__peak_blocks(o, s);

		if (!blocks)
			continue; /* sorted by bytes: a site of empty blocks may follow */
		json_object_array_add(sites, site_json(t, s, blocks, owner_site__peak_bytes(o, s),
						      names));
	}
	free(order);
	json_object_object_add(peak, "sites", sites);
	return peak;
}

static json_object *allocated_json(const struct target *t, struct frame_table *names)
{
	const struct owner *o = &t->owner;
	json_object *list = json_object_new_array();

	for (uint32_t i = 0; i < o->nr_sites; i++) {
		const struct owner_site *s = &o->sites[i];

		if (s->allocated_blocks)
			json_object_array_add(list, site_json(t, s, s->allocated_blocks,
							      s->allocated_bytes, names));
	}
	return list;
}

/* The OOM killer chose it: who held its memory then, and its memory cgroup's figures. */
static json_object *oom_json(const struct target *t, struct frame_table *names)
{
	const struct oom_record *r = &t->oom;
	const struct cgroup_memory *cg = &r->cgroup;
	json_object *oom = json_object_new_object(), *sites = json_object_new_array();

	/* Seconds into tracing, by the kernel's clock at the choice (not the reading loop's). */
	json_object_object_add(oom, "time", json_object_new_double(r->seconds));
	json_object_object_add(oom, "bytes", json_object_new_uint64(r->bytes));
	json_object_object_add(oom, "blocks", json_object_new_uint64(r->blocks));
	for (uint32_t i = 0; !t->owner.sites_dropped && i < r->nr_sites; i++)
		json_object_array_add(sites, site_json(t, &t->owner.sites[r->sites[i].site],
						       r->sites[i].blocks, r->sites[i].bytes, names));
	json_object_object_add(oom, "sites", sites);
	if (cg->version) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "version", json_object_new_int(cg->version));
		json_object_object_add(c, "path", json_object_new_string(cg->path));
		json_object_object_add(c, "usage_bytes", cg->usage_known ?
					json_object_new_uint64(cg->usage) : NULL);
		json_object_object_add(c, "limit_bytes", cg->limit ?
					json_object_new_uint64(cg->limit) : NULL);
		json_object_object_add(c, "max_usage_bytes", cg->max_known ?
					json_object_new_uint64(cg->max_usage) : NULL);
		json_object_object_add(oom, "cgroup", c);
	}
	return oom;
}

void report_owner_json(json_object *p, const struct target *t, bool lists,
		       struct frame_table *names)
{
	const struct owner *o = &t->owner;
	json_object *freed = json_object_new_object(), *live = json_object_new_object();
	json_object *lost = json_object_new_object();
	struct live_blocks_losses over = live_blocks__over_limit(o->live);

	/* Dropped for --tree-budget: the totals stay, the sites are gone (not empty). */
	json_object_object_add(p, "sites_dropped", json_object_new_boolean(o->sites_dropped));
	if (!o->sites_dropped && lists) {
		json_object_object_add(p, "outstanding", outstanding_json(t, names));
		json_object_object_add(p, "allocated", allocated_json(t, names));
	}
	json_object_object_add(p, "peak", peak_json(t, names));
	json_object_object_add(p, "oom", t->oom.killed ? oom_json(t, names) : NULL);
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

/* A site as the text sections show it, holding blocks and bytes. */
static struct owner_text_site text_site(const struct owner_site *s, uint64_t blocks,
					uint64_t bytes)
{
	return (struct owner_text_site){
		.frames = s->record ? s->record->frames : NULL,
		.nr = s->record ? s->record->nr : 0,
		.blocks = blocks,
		.bytes = bytes,
	};
}

void report_owner_text(FILE *out, const struct target *t)
{
	const struct owner *o = &t->owner;
	const char *allocator = t->probed ? t->alloc.path : NULL;
	struct live_blocks_losses over;
	uint32_t nr, *order;

	if (!o->live)
		return;
	owner_text_heading(out, "Still allocated at the end", o->bytes, o->blocks);
	if (o->sites_dropped)
		fprintf(out, "(sites dropped to keep ended processes within --tree-budget)\n");
	order = owner__by_outstanding(o, &nr);
	for (uint32_t i = 0; order && i < nr && i < OWNER_TEXT_SITES; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		struct leak_verdict v = leak_series__verdict(s->series);
		struct owner_text_site site = text_site(s, s->blocks, s->bytes);

		if (!s->blocks)
			break;
		site.outstanding = true;
		site.requested = s->requested;
		site.likely_leak = v.likely_leak;
		site.growth_bytes_per_second = v.growth_bytes_per_second;
		owner_text_site(out, &site, allocator);
	}
	free(order);

	owner_text_heading(out, "At the peak", o->peak_bytes, o->peak_blocks);
	order = owner__by_peak(o, &nr);
	for (uint32_t i = 0, shown = 0; order && i < nr && shown < OWNER_TEXT_SITES; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		struct owner_text_site site = text_site(s, owner_site__peak_blocks(o, s),
							owner_site__peak_bytes(o, s));

		if (!site.blocks)
			continue;
		owner_text_site(out, &site, allocator);
		shown++;
	}
	free(order);

	owner_text_freed_before(out, o->freed_before_tracing.calls, o->freed_before_tracing.bytes,
				o->freed_before_tracing.bytes_known);
	over = live_blocks__over_limit(o->live);
	if (over.blocks)
		fprintf(out, "Past the limit of %zu live blocks (--live-blocks): %" PRIu64
			     " blocks, %" PRIu64 " bytes not attributed to their sites; their frees "
			     "count as freed before tracing\n",
			live_blocks__limit(o->live), over.blocks, over.bytes);
}
