// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "owner_text.h"
#include "stored_owner_report.h"

static json_object *site_json(const struct stored_site *s, bool outstanding)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "frames", json_object_get(s->frames));
	json_object_object_add(o, "blocks", json_object_new_uint64(s->blocks));
	json_object_object_add(o, "bytes", json_object_new_uint64(s->bytes));
	if (!outstanding)
		return o;
	json_object_object_add(o, "requested", json_object_new_uint64(s->requested));
	json_object_object_add(o, "likely_leak", json_object_new_boolean(s->likely_leak));
	json_object_object_add(o, "growth_bytes_per_second",
			       json_object_new_double(s->growth_bytes_per_second));
	return o;
}

void stored_owner__json(json_object *p, const struct stored_owner *o)
{
	json_object *outstanding = json_object_new_array(), *peak = json_object_new_object();
	json_object *sites = json_object_new_array();

	for (uint32_t i = 0; i < o->nr_outstanding; i++)
		json_object_array_add(outstanding, site_json(&o->outstanding[i], true));
	for (uint32_t i = 0; i < o->nr_peak; i++)
		json_object_array_add(sites, site_json(&o->peak[i], false));
	json_object_object_add(peak, "bytes", json_object_new_uint64(o->peak_bytes));
	json_object_object_add(peak, "blocks", json_object_new_uint64(o->peak_blocks));
	json_object_object_add(peak, "sites", sites);
	json_object_object_add(p, "outstanding", outstanding);
	json_object_object_add(p, "peak", peak);
	if (o->nr_allocated) {
		json_object *allocated = json_object_new_array();

		for (uint32_t i = 0; i < o->nr_allocated; i++)
			json_object_array_add(allocated, site_json(&o->allocated[i], false));
		json_object_object_add(p, "allocated", allocated);
	}
	if (o->oom_killed) {
		json_object *oom = json_object_new_object(), *list = json_object_new_array();

		json_object_object_add(oom, "time", json_object_new_double(o->oom_time));
		json_object_object_add(oom, "bytes", json_object_new_uint64(o->oom_bytes));
		json_object_object_add(oom, "blocks", json_object_new_uint64(o->oom_blocks));
		for (uint32_t i = 0; i < o->nr_oom; i++)
			json_object_array_add(list, site_json(&o->oom_sites[i], false));
		json_object_object_add(oom, "sites", list);
		if (o->oom_cgroup)
			json_object_object_add(oom, "cgroup", json_object_get(o->oom_cgroup));
		json_object_object_add(p, "oom", oom);
	}
	if (o->freed_known) {
		json_object *freed = json_object_new_object();

		json_object_object_add(freed, "calls", json_object_new_uint64(o->freed_calls));
		json_object_object_add(freed, "bytes", json_object_new_uint64(o->freed_bytes));
		json_object_object_add(freed, "bytes_known",
				       json_object_new_boolean(o->freed_bytes_known));
		json_object_object_add(p, "freed_before_tracing", freed);
	}
}

static const char *frame_text(json_object *frame, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(frame, key, &v) ? json_object_get_string(v) : NULL;
}

/*
 * A stored site as the text sections show it, its frames read into *frames (to free):
 * they point into the site's JSON.
 */
static struct owner_text_site text_site(const struct stored_site *s, bool outstanding,
					struct stack_frame **frames)
{
	size_t nr = json_object_array_length(s->frames);
	struct owner_text_site site = {
		.blocks = s->blocks,
		.bytes = s->bytes,
		.outstanding = outstanding,
		.requested = s->requested,
		.likely_leak = s->likely_leak,
		.growth_bytes_per_second = s->growth_bytes_per_second,
	};

	*frames = calloc(nr ? nr : 1, sizeof(**frames));
	for (size_t i = 0; *frames && i < nr; i++) {
		json_object *f = json_object_array_get_idx(s->frames, i), *line;

		(*frames)[i] = (struct stack_frame){
			.function = frame_text(f, "function"),
			.library = frame_text(f, "library"),
			.file = frame_text(f, "file"),
			.line = json_object_object_get_ex(f, "line", &line) ?
					json_object_get_int(line) :
					0,
		};
	}
	site.frames = *frames;
	site.nr = *frames ? nr : 0;
	return site;
}

static void print_sites(FILE *out, const struct stored_site *sites, uint32_t nr,
			bool outstanding, const char *allocator)
{
	for (uint32_t i = 0; i < nr && i < OWNER_TEXT_SITES; i++) {
		struct stack_frame *frames;
		struct owner_text_site site = text_site(&sites[i], outstanding, &frames);

		owner_text_site(out, &site, allocator);
		free(frames);
	}
}

void stored_owner__text(FILE *out, const struct stored_owner *o, const char *allocator)
{
	if (o->oom_killed) {
		char heading[96];

		snprintf(heading, sizeof(heading),
			 "Killed by the OOM killer at %.2f s into tracing", o->oom_time);
		owner_text_heading(out, heading, o->oom_bytes, o->oom_blocks);
		print_sites(out, o->oom_sites, o->nr_oom, false, allocator);
	}
	owner_text_heading(out, "Still allocated at the end", o->bytes, o->blocks);
	print_sites(out, o->outstanding, o->nr_outstanding, true, allocator);
	owner_text_heading(out, "At the peak", o->peak_bytes, o->peak_blocks);
	print_sites(out, o->peak, o->nr_peak, false, allocator);
	if (o->freed_known)
		owner_text_freed_before(out, o->freed_calls, o->freed_bytes, o->freed_bytes_known);
}
