// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stack_records.h"

/*
 * "library\0offset\0function\0symbol\0file\0line kind\0" per frame (kind: 'i' inlined,
 * 't' tail-called, 'f' else; a missing string empty), then the completeness flag.
 */
static char *serialize(const struct stack_frame *frames, size_t nr, bool complete, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < nr; i++) {
		fputs(frames[i].library, f);
		fputc('\0', f);
		fprintf(f, "%" PRIx64, frames[i].offset);
		fputc('\0', f);
		fputs(frames[i].function, f);
		fputc('\0', f);
		fputs(frames[i].symbol ? frames[i].symbol : "", f);
		fputc('\0', f);
		fputs(frames[i].file ? frames[i].file : "", f);
		fputc('\0', f);
		fprintf(f, "%d %c", frames[i].line,
			frames[i].inlined ? 'i' : frames[i].tail_called ? 't' : 'f');
		fputc('\0', f);
	}
	fputc(complete ? 'c' : 'i', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct stack_record *stack_records__intern(struct stack_records *r,
					   const struct stack_frame *frames, size_t nr,
					   bool complete)
{
	struct stack_record *rec;
	size_t len;
	char *key = serialize(frames, nr, complete, &len), *p;

	if (!key)
		return NULL;
	HASH_FIND(hh, r->by_key, key, len, rec);
	if (rec) {
		free(key);
		return rec;
	}
	rec = calloc(1, sizeof(*rec));
	if (rec)
		rec->frames = calloc(nr ? nr : 1, sizeof(*rec->frames));
	if (!rec || !rec->frames) {
		free(rec);
		free(key);
		return NULL;
	}
	/* The frames' strings point into the key. */
	p = key;
	for (size_t i = 0; i < nr; i++) {
		rec->frames[i].library = p;
		p += strlen(p) + 1;
		rec->frames[i].offset = frames[i].offset;
		p += strlen(p) + 1;
		rec->frames[i].function = p;
		p += strlen(p) + 1;
		rec->frames[i].symbol = *p ? p : NULL;
		p += strlen(p) + 1;
		rec->frames[i].file = *p ? p : NULL;
		p += strlen(p) + 1;
		rec->frames[i].line = frames[i].line;
		rec->frames[i].inlined = frames[i].inlined;
		rec->frames[i].tail_called = frames[i].tail_called;
		p += strlen(p) + 1;
	}
	rec->nr = nr;
	rec->complete = complete;
	rec->key = key;
	HASH_ADD_KEYPTR(hh, r->by_key, rec->key, len, rec);
	return rec;
}

void stack_records__clear(struct stack_records *r)
{
	struct stack_record *rec, *tmp;

	HASH_ITER(hh, r->by_key, rec, tmp) {
		HASH_DEL(r->by_key, rec);
		free(rec->frames);
		free(rec->key);
		free(rec);
	}
}
