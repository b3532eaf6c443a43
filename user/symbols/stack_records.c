// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include "stack_records.h"
#include "word_hash.h"

/*
 * A record's key is its frames themselves, their strings interned (so compared as
 * pointers) and every byte set (padding zeroed), after a word for completeness:
 * one allocation per record, and a lookup is one hash (by words) of a few hundred bytes.
 */
struct record_key {
	uint64_t complete;
	struct stack_frame frames[];
};

static const char *intern(struct stack_records *r, const char *text)
{
	return text ? strpool__intern(&r->names, text) : NULL;
}

/* frames as r keeps them, into key; false if out of memory. */
static bool fill_key(struct stack_records *r, const struct stack_frame *frames, size_t nr,
		     bool complete, struct record_key *key)
{
	key->complete = complete;
	for (size_t i = 0; i < nr; i++) {
		struct stack_frame *f = &key->frames[i];

		f->library = intern(r, frames[i].library);
		f->function = intern(r, frames[i].function);
		if (!f->library || !f->function)
			return false;
		if (!r->detailed)
			continue;
		f->offset = frames[i].offset;
		f->symbol = intern(r, frames[i].symbol);
		f->file = intern(r, frames[i].file);
		f->line = frames[i].line;
		f->inlined = frames[i].inlined;
		f->tail_called = frames[i].tail_called;
		if ((frames[i].symbol && !f->symbol) || (frames[i].file && !f->file))
			return false;
	}
	return true;
}

struct stack_record *stack_records__intern(struct stack_records *r,
					   const struct stack_frame *frames, size_t nr,
					   bool complete)
{
	size_t len = sizeof(struct record_key) + nr * sizeof(struct stack_frame);
	struct stack_record *rec = NULL;
	struct record_key *key;
	unsigned int hash;

	/*
	 * A rank's stacks name ~30,000 functions, each asked for again in stack after stack:
	 * the pool remembers 4,096 of them by address (64 KiB), not 64.
	 */
	if (!r->names.memo_bits)
		r->names.memo_bits = 12;
	/* Most stacks were seen before: look them up in a scratch key, copied only if new. */
	if (len > r->scratch_len) {
		free(r->scratch);
		r->scratch_len = 0;
		if (!(r->scratch = malloc(len)))
			return NULL;
		r->scratch_len = len;
	}
	memset(r->scratch, 0, len);
	if (!fill_key(r, frames, nr, complete, r->scratch))
		return NULL;
	HASH_VALUE(r->scratch, len, hash);
	HASH_FIND_BYHASHVALUE(hh, r->by_key, r->scratch, len, hash, rec);
	if (rec)
		return rec;
	key = malloc(len);
	rec = calloc(1, sizeof(*rec));
	if (!key || !rec)
		goto fail;
	memcpy(key, r->scratch, len);
	rec->frames = key->frames;
	rec->nr = nr;
	rec->complete = complete;
	rec->key = key;
	HASH_ADD_KEYPTR_BYHASHVALUE(hh, r->by_key, rec->key, len, hash, rec);
	r->bytes += sizeof(*rec) + len;
	return rec;
fail:
	free(key);
	free(rec);
	return NULL;
}

struct record_model {
	const struct stack_record *model;
	struct stack_record *here;
	UT_hash_handle hh;
};

struct stack_record *stack_records__intern_like(struct stack_records *r,
						const struct stack_record *model)
{
	struct record_model *m;
	struct stack_record *rec;

	HASH_FIND_PTR(r->by_model, &model, m);
	if (m)
		return m->here;
	rec = stack_records__intern(r, model->frames, model->nr, model->complete);
	if (!rec || !(m = malloc(sizeof(*m))))
		return rec; /* without memory to remember it, the next is interned again */
	m->model = model;
	m->here = rec;
	HASH_ADD_PTR(r->by_model, model, m);
	return rec;
}

void stack_records__forget_models(struct stack_records *r)
{
	struct record_model *m, *tmp;

	HASH_ITER(hh, r->by_model, m, tmp) {
		HASH_DEL(r->by_model, m);
		free(m);
	}
}

void stack_records__keep_sites(struct stack_records *r)
{
	struct stack_record *rec, *tmp;

	stack_records__forget_models(r);
	HASH_ITER(hh, r->by_key, rec, tmp) {
		rec->tree_path = NULL;
		if (rec->site)
			continue;
		HASH_DEL(r->by_key, rec);
		r->bytes -= sizeof(*rec) + sizeof(struct record_key) +
			    rec->nr * sizeof(struct stack_frame);
		free(rec->key);
		free(rec);
	}
	free(r->scratch);
	r->scratch = NULL;
	r->scratch_len = 0;
}

void stack_records__clear(struct stack_records *r)
{
	struct stack_record *rec, *tmp;

	stack_records__forget_models(r);
	HASH_ITER(hh, r->by_key, rec, tmp) {
		HASH_DEL(r->by_key, rec);
		free(rec->key);
		free(rec);
	}
	strpool__clear(&r->names);
	free(r->scratch);
	r->scratch = NULL;
	r->scratch_len = 0;
	r->bytes = 0;
}
