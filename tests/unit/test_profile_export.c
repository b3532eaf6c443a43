// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The exports of a heap profile: pprof's profile.proto (decoded back with protobuf-c and
 * checked field by field) and folded stacks; and the profile model they read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "heap_profile.h"
#include "profile.pb-c.h"
#include "profile_folded.h"
#include "profile_pprof.h"

TestSuite(profile_export);

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define EXE "/opt/app/bin/solver"
#define EXE_BUILD_ID "8f1e2d3c4b5a69788796a5b4c3d2e1f001122334"

/* malloc <- leaf (inlined into work) <- work <- main: the leaking site, 3 frames deep. */
static const struct stack_frame leak_stack[] = {
	{ .library = LIBC, .offset = 0x9a0f0, .function = "malloc" },
	{ .library = EXE, .offset = 0x1234, .function = "leaf", .file = "solver.c", .line = 5,
	  .inlined = true },
	{ .library = EXE, .offset = 0x1234, .function = "work", .file = "solver.c", .line = 12 },
	{ .library = EXE, .offset = 0x1400, .function = "main", .file = "main.c", .line = 30 },
};
/* calloc <- main: allocated, all of it freed. */
static const struct stack_frame freed_stack[] = {
	{ .library = LIBC, .offset = 0x9b000, .function = "calloc" },
	{ .library = EXE, .offset = 0x1410, .function = "main", .file = "main.c", .line = 31 },
};

#define ALLOCATED (PROFILE_VALUE(PROFILE_ALLOC_BLOCKS) | PROFILE_VALUE(PROFILE_ALLOC_BYTES))
#define OUTSTANDING (PROFILE_VALUE(PROFILE_INUSE_BLOCKS) | PROFILE_VALUE(PROFILE_INUSE_BYTES))
#define AT_PEAK (PROFILE_VALUE(PROFILE_PEAK_BLOCKS) | PROFILE_VALUE(PROFILE_PEAK_BYTES))

/* values[] with the figures of one of the report's lists set. */
static void add(struct heap_profile *p, const struct profile_labels *l,
		const struct stack_frame *frames, size_t nr, unsigned int which, int64_t blocks,
		int64_t bytes)
{
	int64_t v[PROFILE_NR_VALUES] = { 0 };
	enum profile_value first = which == ALLOCATED	? PROFILE_ALLOC_BLOCKS :
				   which == OUTSTANDING ? PROFILE_INUSE_BLOCKS :
							  PROFILE_PEAK_BLOCKS;

	v[first] = blocks;
	v[first + 1] = bytes;
	cr_assert(eq(int, heap_profile__add(p, l, frames, nr, v, which), 0));
}

/* Rank 2's profile: the leak allocated 3 blocks (96 B), 2 still held (64 B), 3 at the peak. */
static struct heap_profile *sample_profile(void)
{
	struct heap_profile *p = heap_profile__new();
	struct profile_labels rank2 = { .pid = 4242, .rank = 2 };

	cr_assert(not(eq(ptr, p, NULL)));
	heap_profile__set_inline_known(p);
	heap_profile__set_time(p, 1700000000.5, 2.25);
	cr_assert(eq(int, heap_profile__set_build_id(p, EXE, EXE_BUILD_ID), 0));
	/* As the report's lists come: allocated, outstanding, peak, each by its own frames. */
	add(p, &rank2, leak_stack, 4, ALLOCATED, 3, 96);
	add(p, &rank2, freed_stack, 2, ALLOCATED, 1, 48);
	add(p, &rank2, leak_stack, 4, OUTSTANDING, 2, 64);
	add(p, &rank2, leak_stack, 4, AT_PEAK, 3, 96);
	add(p, &rank2, freed_stack, 2, AT_PEAK, 1, 48);
	return p;
}

/* What profile_write_pprof wrote, gunzipped and decoded. */
static Perftools__Profiles__Profile *write_and_decode(const struct heap_profile *p)
{
	FILE *f = tmpfile();
	uint8_t *raw = malloc(1 << 20);
	gzFile gz;
	int len;
	Perftools__Profiles__Profile *prof;

	cr_assert(f && raw);
	cr_assert(eq(int, profile_write_pprof(f, p), 0));
	rewind(f);
	gz = gzdopen(dup(fileno(f)), "rb");
	cr_assert(not(eq(ptr, gz, NULL)));
	len = gzread(gz, raw, 1 << 20);
	cr_assert(gt(int, len, 0));
	cr_assert(eq(int, gzclose(gz), Z_OK), "the file is not one whole gzip stream");
	fclose(f);
	prof = perftools__profiles__profile__unpack(NULL, len, raw);
	free(raw);
	cr_assert(not(eq(ptr, prof, NULL)), "protobuf-c cannot decode the profile");
	return prof;
}

static const char *str(const Perftools__Profiles__Profile *prof, int64_t index)
{
	cr_assert(ge(i64, index, 0));
	cr_assert(lt(u64, (uint64_t)index, prof->n_string_table));
	return prof->string_table[index];
}

static const Perftools__Profiles__Location *location(const Perftools__Profiles__Profile *prof,
						     uint64_t id)
{
	for (size_t i = 0; i < prof->n_location; i++) {
		if (prof->location[i]->id == id)
			return prof->location[i];
	}
	cr_fatal("no location %lu", (unsigned long)id);
	return NULL;
}

static const Perftools__Profiles__Function *function(const Perftools__Profiles__Profile *prof,
						     uint64_t id)
{
	for (size_t i = 0; i < prof->n_function; i++) {
		if (prof->function[i]->id == id)
			return prof->function[i];
	}
	cr_fatal("no function %lu", (unsigned long)id);
	return NULL;
}

static const Perftools__Profiles__Mapping *mapping(const Perftools__Profiles__Profile *prof,
						   uint64_t id)
{
	for (size_t i = 0; i < prof->n_mapping; i++) {
		if (prof->mapping[i]->id == id)
			return prof->mapping[i];
	}
	cr_fatal("no mapping %lu", (unsigned long)id);
	return NULL;
}

/* The line of a location: its function's name, file and line number. */
static void assert_line(const Perftools__Profiles__Profile *prof,
			const Perftools__Profiles__Line *line, const struct stack_frame *want)
{
	const Perftools__Profiles__Function *fn = function(prof, line->function_id);

	cr_assert(eq(str, (char *)str(prof, fn->name), (char *)want->function));
	cr_assert(eq(str, (char *)str(prof, fn->filename), (char *)(want->file ? want->file : "")));
	cr_assert(eq(i64, line->line, want->line));
}

/* The location a sample names at depth: its address, mapping and lines. */
static void assert_location(const Perftools__Profiles__Profile *prof, uint64_t id,
			    const struct stack_frame *frames, size_t nr_lines)
{
	const Perftools__Profiles__Location *loc = location(prof, id);
	const Perftools__Profiles__Mapping *m = mapping(prof, loc->mapping_id);
	const char *lib = frames[nr_lines - 1].library;

	cr_assert(eq(u64, loc->address, frames[nr_lines - 1].offset));
	cr_assert(eq(str, (char *)str(prof, m->filename), (char *)lib));
	cr_assert(eq(str, (char *)str(prof, m->build_id),
		     (char *)(strcmp(lib, EXE) ? "" : EXE_BUILD_ID)));
	cr_assert(m->has_functions && m->has_inline_frames);
	cr_assert(eq(int, m->has_filenames, !strcmp(lib, EXE)));
	cr_assert(eq(int, m->has_line_numbers, !strcmp(lib, EXE)));
	cr_assert(le(u64, m->memory_start, loc->address));
	cr_assert(gt(u64, m->memory_limit, loc->address));
	cr_assert(eq(u64, m->file_offset, 0));
	cr_assert(eq(sz, loc->n_line, nr_lines));
	for (size_t i = 0; i < nr_lines; i++)
		assert_line(prof, loc->line[i], &frames[i]);
}

static int64_t label(const Perftools__Profiles__Profile *prof,
		     const Perftools__Profiles__Sample *s, const char *key)
{
	for (size_t i = 0; i < s->n_label; i++) {
		if (!strcmp(str(prof, s->label[i]->key), key)) {
			cr_assert(eq(i64, s->label[i]->str, 0), "a number label has no string");
			return s->label[i]->num;
		}
	}
	return -1;
}

Test(profile_export, pprof_every_field)
{
	struct heap_profile *p = sample_profile();
	Perftools__Profiles__Profile *prof = write_and_decode(p);
	static const char *const types[][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
		{ "peak_objects", "count" },  { "peak_space", "bytes" },
	};
	const Perftools__Profiles__Sample *leak, *freed;

	cr_assert(eq(str, prof->string_table[0], ""));
	cr_assert(eq(sz, prof->n_sample_type, 6));
	for (size_t t = 0; t < 6; t++) {
		cr_assert(eq(str, (char *)str(prof, prof->sample_type[t]->type), (char *)types[t][0]));
		cr_assert(eq(str, (char *)str(prof, prof->sample_type[t]->unit), (char *)types[t][1]));
	}
	cr_assert(eq(str, (char *)str(prof, prof->default_sample_type), "inuse_space"));
	cr_assert(eq(i64, prof->time_nanos, 1700000000500000000));
	cr_assert(eq(i64, prof->duration_nanos, 2250000000));
	cr_assert(eq(i64, prof->period, 1));
	cr_assert(eq(sz, prof->n_mapping, 2));
	/* pprof's "File:" is the first mapping's: the program, not the C library. */
	cr_assert(eq(str, (char *)str(prof, prof->mapping[0]->filename), EXE));
	/* malloc; leaf inlined in work (one return address); main; calloc; main elsewhere. */
	cr_assert(eq(sz, prof->n_location, 5));
	cr_assert(eq(sz, prof->n_function, 5)); /* malloc leaf work main calloc */

	cr_assert(eq(sz, prof->n_sample, 2));
	leak = prof->sample[0];
	freed = prof->sample[1];
	cr_assert(eq(sz, leak->n_value, 6));
	cr_assert(eq(i64, leak->value[0], 3));
	cr_assert(eq(i64, leak->value[1], 96));
	cr_assert(eq(i64, leak->value[2], 2));
	cr_assert(eq(i64, leak->value[3], 64));
	cr_assert(eq(i64, leak->value[4], 3));
	cr_assert(eq(i64, leak->value[5], 96));
	cr_assert(eq(sz, leak->n_location_id, 3));
	assert_location(prof, leak->location_id[0], &leak_stack[0], 1);
	assert_location(prof, leak->location_id[1], &leak_stack[1], 2);
	assert_location(prof, leak->location_id[2], &leak_stack[3], 1);
	cr_assert(eq(i64, label(prof, leak, "pid"), 4242));
	cr_assert(eq(i64, label(prof, leak, "rank"), 2));
	cr_assert(eq(i64, label(prof, leak, "thread"), -1), "no thread label: not per thread");

	cr_assert(eq(sz, freed->n_value, 6));
	cr_assert(eq(i64, freed->value[0], 1));
	cr_assert(eq(i64, freed->value[1], 48));
	cr_assert(eq(i64, freed->value[2], 0));
	cr_assert(eq(i64, freed->value[3], 0));
	cr_assert(eq(i64, freed->value[4], 1));
	cr_assert(eq(i64, freed->value[5], 48));
	cr_assert(eq(sz, freed->n_location_id, 2));
	assert_location(prof, freed->location_id[0], &freed_stack[0], 1);
	assert_location(prof, freed->location_id[1], &freed_stack[1], 1);
	/* main is one function at two places. */
	cr_assert(eq(u64, location(prof, freed->location_id[1])->line[0]->function_id,
		     location(prof, leak->location_id[2])->line[0]->function_id));
	perftools__profiles__profile__free_unpacked(prof, NULL);
	heap_profile__free(p);
}

/* Without the frames' kinds (a report that does not say), each frame is a location. */
Test(profile_export, pprof_frames_as_locations_without_inline_kinds)
{
	struct heap_profile *p = heap_profile__new();
	struct profile_labels l = { .pid = 7, .rank = -1, .tid = 9 };
	Perftools__Profiles__Profile *prof;

	add(p, &l, leak_stack, 4, OUTSTANDING, 5, 160);
	prof = write_and_decode(p);
	cr_assert(eq(sz, prof->n_sample_type, 2), "only the figures the profile has");
	cr_assert(eq(str, (char *)str(prof, prof->sample_type[0]->type), "inuse_objects"));
	cr_assert(eq(sz, prof->n_sample, 1));
	cr_assert(eq(sz, prof->sample[0]->n_location_id, 4));
	for (size_t i = 0; i < 4; i++)
		assert_line(prof, location(prof, prof->sample[0]->location_id[i])->line[0],
			    &leak_stack[i]);
	cr_assert(eq(int, mapping(prof, 1)->has_inline_frames, 0));
	cr_assert(eq(i64, label(prof, prof->sample[0], "rank"), -1), "not a rank: no label");
	cr_assert(eq(i64, label(prof, prof->sample[0], "thread"), 9));
	cr_assert(eq(i64, prof->sample[0]->value[1], 160));
	perftools__profiles__profile__free_unpacked(prof, NULL);
	heap_profile__free(p);
}

Test(profile_export, pprof_needs_figures)
{
	struct heap_profile *p = heap_profile__new();
	FILE *f = tmpfile();

	cr_assert(eq(int, profile_write_pprof(f, p), -ENODATA));
	fclose(f);
	heap_profile__free(p);
}

/* The folded text of p under weight w. */
static char *folded(const struct heap_profile *p, enum folded_weight w, int *err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	*err = profile_write_folded(f, p, w);
	fclose(f);
	return text;
}

Test(profile_export, folded_each_weight)
{
	struct heap_profile *p = sample_profile();
	static const char *const want[] = {
		[FOLDED_OUTSTANDING] = "main;work;leaf;malloc 64\n",
		[FOLDED_PEAK] = "main;work;leaf;malloc 96\nmain;calloc 48\n",
		[FOLDED_ALLOCATED] = "main;work;leaf;malloc 96\nmain;calloc 48\n",
		[FOLDED_CALLS] = "main;work;leaf;malloc 3\nmain;calloc 1\n",
	};

	for (enum folded_weight w = FOLDED_OUTSTANDING; w <= FOLDED_CALLS; w++) {
		int err;
		char *text = folded(p, w, &err);

		cr_assert(eq(int, err, 0));
		cr_assert(eq(str, text, (char *)want[w]), "weight %s", folded_weight_name(w));
		free(text);
	}
	heap_profile__free(p);
}

/* Two processes' (or threads') same stack is one line, their weights summed. */
Test(profile_export, folded_merges_processes_and_keeps_separators_out_of_names)
{
	struct heap_profile *p = heap_profile__new();
	struct profile_labels a = { .pid = 1, .rank = 0 }, b = { .pid = 2, .rank = 1 };
	struct stack_frame odd[] = {
		{ .library = LIBC, .function = "malloc" },
		{ .library = EXE, .function = "op;er\nator()" },
	};
	char *text;
	int err;

	add(p, &a, freed_stack, 2, OUTSTANDING, 1, 100);
	add(p, &b, freed_stack, 2, OUTSTANDING, 2, 250);
	add(p, &b, odd, 2, OUTSTANDING, 1, 7);
	text = folded(p, FOLDED_OUTSTANDING, &err);
	cr_assert(eq(int, err, 0));
	cr_assert(eq(str, text, "main;calloc 350\nop:er ator();malloc 7\n"));
	free(text);
	text = folded(p, FOLDED_PEAK, &err);
	cr_assert(eq(int, err, -ENODATA), "no peak figures: said, not an empty file");
	free(text);
	heap_profile__free(p);
}

Test(profile_export, folded_weight_names)
{
	enum folded_weight w;

	cr_assert(eq(int, folded_weight_parse("peak", &w), 0));
	cr_assert(eq(int, w, FOLDED_PEAK));
	cr_assert(eq(int, folded_weight_parse("calls", &w), 0));
	cr_assert(eq(int, w, FOLDED_CALLS));
	cr_assert(eq(int, folded_weight_parse("bytes", &w), -EINVAL));
	cr_assert(eq(str, (char *)folded_weight_name(FOLDED_ALLOCATED), "allocated"));
}

Test(profile_export, keep_rank)
{
	struct heap_profile *p = sample_profile();
	struct profile_labels other = { .pid = 5, .rank = 3 };
	const struct profile_sample *const *samples;

	add(p, &other, freed_stack, 2, ALLOCATED, 9, 900);
	cr_assert(eq(sz, heap_profile__samples(p, &samples), 3));
	cr_assert(eq(sz, heap_profile__keep_rank(p, 3), 1));
	cr_assert(eq(sz, heap_profile__samples(p, &samples), 1));
	cr_assert(eq(i64, samples[0]->values[PROFILE_ALLOC_BYTES], 900));
	cr_assert(eq(int, samples[0]->labels.pid, 5));
	/* The samples left still merge with what is added after. */
	add(p, &other, freed_stack, 2, ALLOCATED, 1, 100);
	cr_assert(eq(sz, heap_profile__samples(p, &samples), 1));
	cr_assert(eq(i64, samples[0]->values[PROFILE_ALLOC_BYTES], 1000));
	cr_assert(eq(sz, heap_profile__keep_rank(p, 7), 0));
	heap_profile__free(p);
}
