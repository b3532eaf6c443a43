// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The profile.proto messages are built in arrays that grow, linked by index while they
 * grow, and given the pointers protobuf-c wants only once complete: one allocation per
 * kind of message, not one per message.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "profile_pprof.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* pprof's sample types, in the order of the profile's values. */
static const struct {
	enum profile_value value;
	const char *type, *unit;
} sample_types[] = {
	{ PROFILE_ALLOC_BLOCKS, "alloc_objects", "count" },
	{ PROFILE_ALLOC_BYTES, "alloc_space", "bytes" },
	{ PROFILE_INUSE_BLOCKS, "inuse_objects", "count" },
	{ PROFILE_INUSE_BYTES, "inuse_space", "bytes" },
	{ PROFILE_PEAK_BLOCKS, "peak_objects", "count" },
	{ PROFILE_PEAK_BYTES, "peak_space", "bytes" },
};
#define NR_SAMPLE_TYPES (sizeof(sample_types) / sizeof(sample_types[0]))
#define MAX_LABELS 4 /* pid, rank, thread, thread_name */

/* Bytes as a key: a string's text, or a message's identifying fields. */
struct id_entry {
	uint64_t id; /* a string's index; a message's id (its index + 1) */
	UT_hash_handle hh;
	char key[];
};

/* A growing array of n items of a given size. */
struct array {
	void *items;
	size_t n, cap;
};

struct builder {
	const struct heap_profile *profile;
	struct id_entry *strings_by_text, *functions_by_key, *mappings_by_name, *locations_by_key;
	struct array strings;	/* char * */
	struct array functions; /* pb_function */
	struct array mappings;	/* pb_mapping */
	struct array locations; /* pb_location, n_line and line as an index into lines */
	struct array lines;	/* pb_line */
	struct array samples;	/* pb_sample, location_id, value, label as indices */
	struct array location_ids, values; /* uint64_t, int64_t */
	struct array labels;		   /* pb_label */
	size_t nr_types;
	enum profile_value types[NR_SAMPLE_TYPES];
};

/* Room for one more item; NULL when out of memory. */
static void *array_push(struct array *a, size_t size)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		void *grown = realloc(a->items, cap * size);

		if (!grown)
			return NULL;
		a->items = grown;
		a->cap = cap;
	}
	return memset((char *)a->items + a->n++ * size, 0, size);
}

/* The id of key in *table, or 0 when absent. */
static uint64_t find_id(struct id_entry *table, const void *key, size_t len)
{
	struct id_entry *e;

	HASH_FIND(hh, table, key, len, e);
	return e ? e->id : 0;
}

static int add_id(struct id_entry **table, const void *key, size_t len, uint64_t id)
{
	struct id_entry *e = malloc(sizeof(*e) + len);

	if (!e)
		return -ENOMEM;
	e->id = id;
	memcpy(e->key, key, len);
	HASH_ADD(hh, *table, key, len, e);
	return 0;
}

static void free_ids(struct id_entry **table)
{
	struct id_entry *e, *tmp;

	HASH_ITER(hh, *table, e, tmp) {
		HASH_DEL(*table, e);
		free(e);
	}
}

/* The string table's index of text (made now if new); -1 when out of memory. */
static int64_t string_index(struct builder *b, const char *text)
{
	size_t len = strlen(text);
	uint64_t index;
	char **slot;

	if (!len && b->strings.n)
		return 0; /* "" is entry 0, made first */
	if ((index = find_id(b->strings_by_text, text, len)))
		return (int64_t)index;
	index = b->strings.n;
	slot = array_push(&b->strings, sizeof(char *));
	if (!slot || !(*slot = strdup(text)) ||
	    (len && add_id(&b->strings_by_text, text, len, index)))
		return -1;
	return (int64_t)index;
}

/* The id of the function named name in file (NULL: unknown); 0 when out of memory. */
static uint64_t function_id(struct builder *b, const char *name, const char *file)
{
	int64_t key[2] = { string_index(b, name), string_index(b, file ? file : "") };
	pb_function *f;
	uint64_t id;

	if (key[0] < 0 || key[1] < 0)
		return 0;
	if ((id = find_id(b->functions_by_key, key, sizeof(key))))
		return id;
	if (!(f = array_push(&b->functions, sizeof(*f))))
		return 0;
	perftools__profiles__function__init(f);
	f->id = id = b->functions.n;
	f->name = f->system_name = key[0];
	f->filename = key[1];
	return add_id(&b->functions_by_key, key, sizeof(key), id) ? 0 : id;
}

/* The mapping of library (its index + 1); 0 when out of memory. */
static uint64_t mapping_id(struct builder *b, const char *library)
{
	const char *build_id = heap_profile__build_id(b->profile, library);
	pb_mapping *m;
	uint64_t id;

	if ((id = find_id(b->mappings_by_name, library, strlen(library))))
		return id;
	if (!(m = array_push(&b->mappings, sizeof(*m))))
		return 0;
	perftools__profiles__mapping__init(m);
	m->id = id = b->mappings.n;
	m->filename = string_index(b, library);
	m->build_id = string_index(b, build_id ? build_id : "");
	/* Every location is named already: no reader should symbolize it again. */
	m->has_functions = true;
	m->has_inline_frames = heap_profile__inline_known(b->profile);
	if (m->filename < 0 || m->build_id < 0)
		return 0;
	return add_id(&b->mappings_by_name, library, strlen(library), id) ? 0 : id;
}

/*
 * The location of frames[0..nr): a return address and the functions inlined at it, the
 * innermost first, as pprof's lines are. 0 when out of memory.
 */
static uint64_t location_id(struct builder *b, const struct stack_frame *frames, size_t nr)
{
	uint64_t key[2 + 2 * nr], id, mapping = mapping_id(b, frames[nr - 1].library);
	size_t first_line = b->lines.n;
	pb_location *loc;
	pb_mapping *m;

	if (!mapping)
		return 0;
	m = (pb_mapping *)b->mappings.items + mapping - 1;
	key[0] = mapping;
	key[1] = frames[nr - 1].offset;
	for (size_t i = 0; i < nr; i++) {
		key[2 + 2 * i] = function_id(b, frames[i].function, frames[i].file);
		key[3 + 2 * i] = (uint64_t)frames[i].line;
		if (!key[2 + 2 * i])
			return 0;
		m->has_filenames |= frames[i].file != NULL;
		m->has_line_numbers |= frames[i].line > 0;
	}
	if ((id = find_id(b->locations_by_key, key, sizeof(key))))
		return id;
	for (size_t i = 0; i < nr; i++) {
		pb_line *line = array_push(&b->lines, sizeof(*line));

		if (!line)
			return 0;
		perftools__profiles__line__init(line);
		line->function_id = key[2 + 2 * i];
		line->line = frames[i].line;
	}
	if (!(loc = array_push(&b->locations, sizeof(*loc))))
		return 0;
	perftools__profiles__location__init(loc);
	loc->id = id = b->locations.n;
	loc->mapping_id = mapping;
	/* File offsets: the mapping starts at 0, so that address - start + offset is one. */
	loc->address = frames[nr - 1].offset;
	if (m->memory_limit <= loc->address)
		m->memory_limit = loc->address + 1;
	loc->n_line = nr;
	loc->line = (pb_line **)(uintptr_t)first_line; /* linked once the lines stop moving */
	return add_id(&b->locations_by_key, key, sizeof(key), id) ? 0 : id;
}

/*
 * A number labels the sample: with its key as its unit, as pprof would guess it, since
 * pprof reads a label of number 0 without a unit as no label (rank 0).
 */
static int add_label(struct builder *b, const char *key, int64_t num)
{
	pb_label *l = array_push(&b->labels, sizeof(*l));

	if (!l)
		return -ENOMEM;
	perftools__profiles__label__init(l);
	l->key = string_index(b, key);
	l->num = num;
	l->num_unit = string_index(b, key);
	return l->key < 0 || l->num_unit < 0 ? -ENOMEM : 0;
}

static int add_text_label(struct builder *b, const char *key, const char *text)
{
	pb_label *l = array_push(&b->labels, sizeof(*l));

	if (!l)
		return -ENOMEM;
	perftools__profiles__label__init(l);
	l->key = string_index(b, key);
	l->str = string_index(b, text);
	return l->key < 0 || l->str < 0 ? -ENOMEM : 0;
}

/* The sample's process, its rank, and its thread: the tid, and the name heaptap saw. */
static int add_labels(struct builder *b, const struct profile_labels *labels)
{
	const char *name = heap_profile__thread_name(b->profile, labels->pid, labels->tid);

	if (add_label(b, "pid", labels->pid) ||
	    (labels->rank >= 0 && add_label(b, "rank", labels->rank)))
		return -ENOMEM;
	if (!labels->tid)
		return 0;
	return add_label(b, "thread", labels->tid) ||
			       (name && add_text_label(b, "thread_name", name)) ?
		       -ENOMEM :
		       0;
}

static int add_sample(struct builder *b, const struct profile_sample *s)
{
	size_t first_location = b->location_ids.n, first_value = b->values.n;
	size_t first_label = b->labels.n;
	bool inline_known = heap_profile__inline_known(b->profile);
	bool any = false;
	pb_sample *out;

	for (size_t t = 0; t < b->nr_types; t++)
		any |= s->values[b->types[t]] != 0;
	if (!any)
		return 0; /* none of what pprof shows: a site known only at the peak, say */
	for (size_t i = 0, end; i < s->nr; i = end) {
		uint64_t *slot;

		/* A location ends at the first frame that is not inlined into the next. */
		for (end = i; inline_known && end + 1 < s->nr && s->frames[end].inlined; end++)
			;
		end++;
		slot = array_push(&b->location_ids, sizeof(*slot));
		if (!slot || !(*slot = location_id(b, &s->frames[i], end - i)))
			return -ENOMEM;
	}
	for (size_t t = 0; t < b->nr_types; t++) {
		int64_t *v = array_push(&b->values, sizeof(*v));

		if (!v)
			return -ENOMEM;
		*v = s->values[b->types[t]];
	}
	if (add_labels(b, &s->labels))
		return -ENOMEM;
	if (!(out = array_push(&b->samples, sizeof(*out))))
		return -ENOMEM;
	perftools__profiles__sample__init(out);
	out->n_location_id = b->location_ids.n - first_location;
	out->location_id = (uint64_t *)(uintptr_t)first_location;
	out->n_value = b->values.n - first_value;
	out->value = (int64_t *)(uintptr_t)first_value;
	out->n_label = b->labels.n - first_label;
	out->label = (pb_label **)(uintptr_t)first_label;
	return 0;
}

/* An array of pointers to each item of a: NULL when out of memory (or a is empty). */
static void **pointers_to(const struct array *a, size_t size)
{
	void **p = calloc(a->n ? a->n : 1, sizeof(*p));

	for (size_t i = 0; p && i < a->n; i++)
		p[i] = (char *)a->items + i * size;
	return p;
}

/* Write len bytes of data to out gzipped, as pprof's files are. 0, -ENOMEM or -EIO. */
static int write_gzip(FILE *out, const uint8_t *data, size_t len)
{
	z_stream z = { .next_in = (uint8_t *)data, .avail_in = len };
	uint8_t chunk[65536];
	int ret;

	/* 16 + the window's bits: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR ||
		    fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) != sizeof(chunk) - z.avail_out)
			break;
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	return ret == Z_STREAM_END && !fflush(out) ? 0 : -EIO;
}

/* Link the arrays into the profile message, pack and write it. */
static int write_profile(FILE *out, struct builder *b, pb_value_type *types)
{
	pb_profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	pb_value_type period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	pb_label **labels = (pb_label **)pointers_to(&b->labels, sizeof(pb_label));
	pb_line **lines = (pb_line **)pointers_to(&b->lines, sizeof(pb_line));
	pb_value_type *type_ptrs[NR_SAMPLE_TYPES];
	pb_sample *samples = b->samples.items;
	pb_location *locations = b->locations.items;
	double when, duration;
	uint8_t *packed = NULL;
	int err = -ENOMEM;
	size_t len;

	prof.sample = (pb_sample **)pointers_to(&b->samples, sizeof(pb_sample));
	prof.location = (pb_location **)pointers_to(&b->locations, sizeof(pb_location));
	prof.mapping = (pb_mapping **)pointers_to(&b->mappings, sizeof(pb_mapping));
	prof.function = (pb_function **)pointers_to(&b->functions, sizeof(pb_function));
	if (!labels || !lines || !prof.sample || !prof.location || !prof.mapping || !prof.function)
		goto cleanup;
	for (size_t i = 0; i < b->samples.n; i++) {
		samples[i].location_id = (uint64_t *)b->location_ids.items +
					 (uintptr_t)samples[i].location_id;
		samples[i].value = (int64_t *)b->values.items + (uintptr_t)samples[i].value;
		samples[i].label = labels + (uintptr_t)samples[i].label;
	}
	for (size_t i = 0; i < b->locations.n; i++)
		locations[i].line = lines + (uintptr_t)locations[i].line;
	for (size_t t = 0; t < b->nr_types; t++)
		type_ptrs[t] = &types[t];
	prof.n_sample_type = b->nr_types;
	prof.sample_type = type_ptrs;
	prof.n_sample = b->samples.n;
	prof.n_location = b->locations.n;
	prof.n_mapping = b->mappings.n;
	prof.n_function = b->functions.n;
	/*
	 * Exact figures: every allocation counts once. Sampled by bytes: one sample per R
	 * bytes, the in-use bytes' type (the values are the estimates already, as Go's).
	 */
	period_type = types[b->nr_types - 1];
	prof.period = 1;
	if (heap_profile__sample_bytes(b->profile)) {
		for (size_t t = 0; t < b->nr_types; t++) {
			if (b->types[t] == PROFILE_INUSE_BYTES)
				period_type = types[t];
		}
		prof.period = (int64_t)heap_profile__sample_bytes(b->profile);
	}
	prof.period_type = &period_type;
	prof.default_sample_type = types[b->nr_types - 1].type;
	for (size_t t = 0; t < b->nr_types; t++) {
		if (b->types[t] == PROFILE_INUSE_BYTES)
			prof.default_sample_type = types[t].type;
	}
	heap_profile__time(b->profile, &when, &duration);
	prof.time_nanos = (int64_t)(when * 1e9);
	prof.duration_nanos = (int64_t)(duration * 1e9);
	prof.n_string_table = b->strings.n;
	prof.string_table = b->strings.items;

	len = perftools__profiles__profile__get_packed_size(&prof);
	packed = malloc(len ? len : 1);
	if (!packed)
		goto cleanup;
	perftools__profiles__profile__pack(&prof, packed);
	err = write_gzip(out, packed, len);
cleanup:
	free(packed);
	free(prof.sample);
	free(prof.location);
	free(prof.mapping);
	free(prof.function);
	free(labels);
	free(lines);
	return err;
}

/* A shared object's name: .so, or .so. or .so_ and a version (pprof's own rule). */
static bool is_shared_object(const char *path)
{
	const char *so = strstr(path, ".so");

	for (; so; so = strstr(so + 1, ".so")) {
		if (!so[3] || ((so[3] == '.' || so[3] == '_') && so[4] >= '0' && so[4] <= '9'))
			return true;
	}
	return false;
}

/*
 * pprof takes the first mapping for the program's (its "File:"): the first library that
 * is not a shared object is made first. 0 or -ENOMEM.
 */
static int map_program_first(struct builder *b, const struct profile_sample *const *samples,
			     size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t f = 0; f < samples[i]->nr; f++) {
			const char *lib = samples[i]->frames[f].library;

			if (lib[0] == '/' && !is_shared_object(lib))
				return mapping_id(b, lib) ? 0 : -ENOMEM;
		}
	}
	return 0;
}

static void builder_clear(struct builder *b)
{
	free_ids(&b->strings_by_text);
	free_ids(&b->functions_by_key);
	free_ids(&b->mappings_by_name);
	free_ids(&b->locations_by_key);
	for (size_t i = 0; i < b->strings.n; i++)
		free(((char **)b->strings.items)[i]);
	free(b->strings.items);
	free(b->functions.items);
	free(b->mappings.items);
	free(b->locations.items);
	free(b->lines.items);
	free(b->samples.items);
	free(b->location_ids.items);
	free(b->values.items);
	free(b->labels.items);
}

int profile_write_pprof(FILE *out, const struct heap_profile *p)
{
	struct builder b = { .profile = p };
	pb_value_type types[NR_SAMPLE_TYPES];
	const struct profile_sample *const *samples;
	size_t n = heap_profile__samples(p, &samples);
	int err = -ENOMEM;

	for (size_t t = 0; t < NR_SAMPLE_TYPES; t++) {
		if (heap_profile__known(p) & PROFILE_VALUE(sample_types[t].value))
			b.types[b.nr_types++] = sample_types[t].value;
	}
	if (!b.nr_types)
		return -ENODATA;
	if (string_index(&b, "") != 0) /* the table's entry 0, as the format wants */
		goto cleanup;
	for (size_t t = 0, i = 0; t < NR_SAMPLE_TYPES; t++) {
		if (i == b.nr_types || sample_types[t].value != b.types[i])
			continue;
		perftools__profiles__value_type__init(&types[i]);
		types[i].type = string_index(&b, sample_types[t].type);
		types[i].unit = string_index(&b, sample_types[t].unit);
		if (types[i++].unit < 0)
			goto cleanup;
	}
	if (map_program_first(&b, samples, n))
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		if (add_sample(&b, samples[i]))
			goto cleanup;
	}
	err = write_profile(out, &b, types);
cleanup:
	builder_clear(&b);
	return err;
}
