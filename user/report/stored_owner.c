// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "attribution.h"
#include "human_bytes.h"
#include "stored_owner.h"

/* Sites in each text section, and frames of each short stack (as run's report). */
#define TEXT_SITES 10
#define STACK_DEPTH 6

static void free_sites(struct stored_site *sites, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		json_object_put(sites[i].frames);
	free(sites);
}

void stored_owner__free(struct stored_owner *o)
{
	if (!o)
		return;
	free_sites(o->outstanding, o->nr_outstanding);
	free_sites(o->peak, o->nr_peak);
	free_sites(o->allocated, o->nr_allocated);
	free(o);
}

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

/* From the innermost frame outside the allocator outwards, to main or a thread's start. */
static void print_stack(FILE *out, json_object *frames, const char *allocator)
{
	size_t nr = json_object_array_length(frames), i = 1, shown = 0;

	while (i < nr && allocator &&
	       !strcmp(frame_text(json_object_array_get_idx(frames, i), "library"), allocator))
		i++;
	for (; i < nr && shown < STACK_DEPTH; i++, shown++) {
		json_object *f = json_object_array_get_idx(frames, i);
		const char *function = frame_text(f, "function"), *lib = frame_text(f, "library");
		const char *file = frame_text(f, "file"), *line = frame_text(f, "line");
		const char *base = strrchr(lib, '/');

		fprintf(out, "        %s (%s)", function, base ? base + 1 : lib);
		if (file)
			fprintf(out, " %s:%s", file, line ? line : "?");
		fputc('\n', out);
		if (!strcmp(function, "main") || is_startup_symbol(function))
			break;
	}
	if (!nr)
		fprintf(out, "        (stack not recorded: out of memory)\n");
}

static void print_site(FILE *out, const struct stored_site *s)
{
	char text[16];

	fprintf(out, "  %s in %" PRIu64 " block%s", human_bytes((int64_t)s->bytes, text,
							     sizeof(text)),
		s->blocks, s->blocks == 1 ? "" : "s");
}

void stored_owner__text(FILE *out, const struct stored_owner *o, const char *allocator)
{
	char text[16];

	fprintf(out, "----- Still allocated at the end, by allocation site -----\n");
	fprintf(out, "%s in %" PRIu64 " blocks\n", human_bytes((int64_t)o->bytes, text,
								sizeof(text)), o->blocks);
	for (uint32_t i = 0; i < o->nr_outstanding && i < TEXT_SITES; i++) {
		const struct stored_site *s = &o->outstanding[i];

		print_site(out, s);
		fprintf(out, " (%" PRIu64 " requested)", s->requested);
		if (s->likely_leak)
			fprintf(out, ", likely leak: growing %s/s",
				human_bytes((int64_t)s->growth_bytes_per_second, text,
					    sizeof(text)));
		fputc('\n', out);
		print_stack(out, s->frames, allocator);
	}
	fprintf(out, "----- At the peak, by allocation site -----\n");
	fprintf(out, "%s in %" PRIu64 " blocks\n", human_bytes((int64_t)o->peak_bytes, text,
								sizeof(text)), o->peak_blocks);
	for (uint32_t i = 0; i < o->nr_peak && i < TEXT_SITES; i++) {
		print_site(out, &o->peak[i]);
		fputc('\n', out);
		print_stack(out, o->peak[i].frames, allocator);
	}
	if (o->freed_known && o->freed_calls) {
		fprintf(out, "Freed, allocated before tracing: %" PRIu64 " calls", o->freed_calls);
		if (o->freed_bytes_known)
			fprintf(out, ", %" PRIu64 " bytes", o->freed_bytes);
		fputc('\n', out);
	}
}
