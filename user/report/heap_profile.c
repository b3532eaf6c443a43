// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "heap_profile.h"
#include "strpool.h"

/*
 * A sample's key is its labels and frames, their strings interned (so compared as
 * pointers) and every byte set: the frames the sample points to are the key's own.
 */
struct sample_key {
	struct profile_labels labels;
	struct stack_frame frames[];
};

struct sample_entry {
	struct profile_sample sample;
	struct sample_key *key;
	UT_hash_handle hh;
};

struct build_id_entry {
	const char *library; /* interned; the key, by its text */
	const char *hex;     /* interned */
	UT_hash_handle hh;
};

struct thread_key {
	int pid, tid;
};

struct thread_name_entry {
	struct thread_key key;
	const char *name; /* interned */
	UT_hash_handle hh;
};

struct heap_profile {
	struct sample_entry *by_key;
	struct thread_name_entry *thread_names;
	struct profile_sample **order; /* the samples in the order first added */
	size_t nr, cap;
	struct build_id_entry *build_ids;
	struct strpool names;
	unsigned int known;
	bool per_thread, inline_known;
	double when, duration;
	uint64_t sample_bytes;
};

struct heap_profile *heap_profile__new(void)
{
	return calloc(1, sizeof(struct heap_profile));
}

void heap_profile__free(struct heap_profile *p)
{
	struct sample_entry *e, *tmp;
	struct build_id_entry *b, *btmp;
	struct thread_name_entry *t, *ttmp;

	if (!p)
		return;
	HASH_ITER(hh, p->thread_names, t, ttmp) {
		HASH_DEL(p->thread_names, t);
		free(t);
	}
	HASH_ITER(hh, p->by_key, e, tmp) {
		HASH_DEL(p->by_key, e);
		free(e->key);
		free(e);
	}
	HASH_ITER(hh, p->build_ids, b, btmp) {
		HASH_DEL(p->build_ids, b);
		free(b);
	}
	strpool__clear(&p->names);
	free(p->order);
	free(p);
}

static const char *intern(struct heap_profile *p, const char *text)
{
	return text ? strpool__intern(&p->names, text) : NULL;
}

/* The key of frames and labels, its strings interned; NULL when out of memory. */
static struct sample_key *make_key(struct heap_profile *p, const struct profile_labels *labels,
				   const struct stack_frame *frames, size_t nr, size_t *len)
{
	struct sample_key *key;

	*len = sizeof(*key) + nr * sizeof(key->frames[0]);
	key = calloc(1, *len); /* padding zeroed: the key is hashed as bytes */
	if (!key)
		return NULL;
	key->labels = *labels;
	for (size_t i = 0; i < nr; i++) {
		struct stack_frame *f = &key->frames[i];

		f->function = intern(p, frames[i].function ? frames[i].function : "?");
		f->library = intern(p, frames[i].library ? frames[i].library : "?");
		f->file = intern(p, frames[i].file);
		f->offset = frames[i].offset;
		f->line = frames[i].line;
		f->inlined = frames[i].inlined;
		if (!f->function || !f->library || (frames[i].file && !f->file)) {
			free(key);
			return NULL;
		}
	}
	return key;
}

static int append(struct heap_profile *p, struct profile_sample *s)
{
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct profile_sample **grown = realloc(p->order, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		p->order = grown;
		p->cap = cap;
	}
	p->order[p->nr++] = s;
	return 0;
}

int heap_profile__add(struct heap_profile *p, const struct profile_labels *labels,
		      const struct stack_frame *frames, size_t nr, const int64_t *values,
		      unsigned int known)
{
	static const struct stack_frame unrecorded = {
		.function = PROFILE_UNRECORDED,
		.library = PROFILE_UNRECORDED_LIBRARY,
	};
	struct sample_entry *e;
	struct sample_key *key;
	size_t len;

	if (!nr) {
		frames = &unrecorded;
		nr = 1;
	}
	key = make_key(p, labels, frames, nr, &len);
	if (!key)
		return -ENOMEM;
	HASH_FIND(hh, p->by_key, key, len, e);
	if (e) {
		free(key);
	} else {
		e = calloc(1, sizeof(*e));
		if (!e || append(p, &e->sample)) {
			free(e);
			free(key);
			return -ENOMEM;
		}
		e->key = key;
		e->sample = (struct profile_sample){ .labels = *labels, .frames = key->frames,
						     .nr = nr };
		HASH_ADD_KEYPTR(hh, p->by_key, key, len, e);
	}
	for (int v = 0; v < PROFILE_NR_VALUES; v++) {
		if (known & PROFILE_VALUE(v))
			e->sample.values[v] += values[v];
	}
	p->known |= known;
	if (labels->tid)
		p->per_thread = true;
	return 0;
}

unsigned int heap_profile__known(const struct heap_profile *p)
{
	return p->known;
}

bool heap_profile__per_thread(const struct heap_profile *p)
{
	return p->per_thread;
}

void heap_profile__set_inline_known(struct heap_profile *p)
{
	p->inline_known = true;
}

bool heap_profile__inline_known(const struct heap_profile *p)
{
	return p->inline_known;
}

size_t heap_profile__samples(const struct heap_profile *p,
			     const struct profile_sample *const **out)
{
	*out = (const struct profile_sample *const *)p->order;
	return p->nr;
}

size_t heap_profile__keep_rank(struct heap_profile *p, int rank)
{
	size_t kept = 0;

	for (size_t i = 0; i < p->nr; i++) {
		/* The sample is its entry's first member. */
		struct sample_entry *e = (struct sample_entry *)p->order[i];

		if (e->sample.labels.rank == rank) {
			p->order[kept++] = &e->sample;
			continue;
		}
		HASH_DEL(p->by_key, e);
		free(e->key);
		free(e);
	}
	p->nr = kept;
	return kept;
}

int heap_profile__set_build_id(struct heap_profile *p, const char *library, const char *hex)
{
	const char *lib = intern(p, library), *id = intern(p, hex);
	struct build_id_entry *b;

	if (!lib || !id)
		return -ENOMEM;
	HASH_FIND_STR(p->build_ids, lib, b);
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->library = lib;
		HASH_ADD_KEYPTR(hh, p->build_ids, lib, strlen(lib), b);
	}
	b->hex = id;
	return 0;
}

const char *heap_profile__build_id(const struct heap_profile *p, const char *library)
{
	struct build_id_entry *b = NULL;

	if (library)
		HASH_FIND_STR(p->build_ids, library, b);
	return b ? b->hex : NULL;
}

int heap_profile__set_thread_name(struct heap_profile *p, int pid, int tid, const char *name)
{
	struct thread_key key = { .pid = pid, .tid = tid };
	const char *text = intern(p, name);
	struct thread_name_entry *t;

	if (!text)
		return -ENOMEM;
	HASH_FIND(hh, p->thread_names, &key, sizeof(key), t);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		t->key = key;
		HASH_ADD(hh, p->thread_names, key, sizeof(t->key), t);
	}
	t->name = text;
	return 0;
}

const char *heap_profile__thread_name(const struct heap_profile *p, int pid, int tid)
{
	struct thread_key key = { .pid = pid, .tid = tid };
	struct thread_name_entry *t;

	HASH_FIND(hh, p->thread_names, &key, sizeof(key), t);
	return t ? t->name : NULL;
}

void heap_profile__set_time(struct heap_profile *p, double when, double duration)
{
	p->when = when;
	p->duration = duration;
}

void heap_profile__set_sample_bytes(struct heap_profile *p, uint64_t sample_bytes)
{
	p->sample_bytes = sample_bytes;
}

uint64_t heap_profile__sample_bytes(const struct heap_profile *p)
{
	return p->sample_bytes;
}

void heap_profile__time(const struct heap_profile *p, double *when, double *duration)
{
	*when = p->when;
	*duration = p->duration;
}
