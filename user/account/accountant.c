// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "accountant.h"

void balance__apply(struct balance *b, enum ht_func func, int64_t delta, uint64_t requested,
		    uint64_t calls)
{
	b->current += delta;
	if (b->current < b->min)
		b->min = b->current;
	if (b->current > b->max)
		b->max = b->current;
	b->requested += requested;
	b->calls[func] += calls;
}

void balance__add(struct balance *into, const struct balance *b)
{
	into->current += b->current;
	into->min += b->min;
	into->max += b->max;
	into->requested += b->requested;
	for (int f = 0; f < HT_NR_FUNCS; f++)
		into->calls[f] += b->calls[f];
}

/*
 * Every event is charged to groups by name, and a process's events come from few places:
 * the groups charged last are remembered by the addresses of the names asked for (the
 * symbolizer's interned strings) and checked by content, so that an address reused for
 * another name only misses. Hashing the names each time cost more than all the rest.
 */
#define MEMO_SLOTS 64

struct charge_memo {
	struct thread_stats *thread; /* the last thread charged */
	struct {
		const char *library, *function; /* as asked for */
		struct function_stats *f;
	} slots[MEMO_SLOTS];
};

static size_t memo_slot(const char *library, const char *function)
{
	return (((uintptr_t)library >> 3) ^ ((uintptr_t)function >> 2)) * 0x9E3779B97F4A7C15ull >>
	       58;
}

static struct thread_stats *thread_of(struct process_stats *ps, uint32_t tid)
{
	struct thread_stats *t;

	HASH_FIND(hh, ps->threads, &tid, sizeof(tid), t);
	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	HASH_ADD(hh, ps->threads, tid, sizeof(t->tid), t);
	return t;
}

static struct library_stats *library_of(struct process_stats *ps, const char *library)
{
	struct library_stats *l;

	HASH_FIND_STR(ps->libraries, library, l);
	if (l)
		return l;
	l = calloc(1, sizeof(*l));
	if (!l || !(l->library = strdup(library))) {
		free(l);
		return NULL;
	}
	HASH_ADD_KEYPTR(hh, ps->libraries, l->library, strlen(l->library), l);
	return l;
}

static struct function_stats *function_of(struct process_stats *ps, const char *library,
					  const char *function)
{
	size_t lib_len = strlen(library), fn_len = strlen(function);
	size_t key_len = lib_len + 1 + fn_len;
	char key[key_len + 1];
	struct function_stats *f;

	memcpy(key, library, lib_len + 1);
	memcpy(key + lib_len + 1, function, fn_len + 1);
	HASH_FIND(hh, ps->functions, key, key_len, f);
	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->key = malloc(key_len + 1))) {
		free(f);
		return NULL;
	}
	memcpy(f->key, key, key_len + 1);
	f->library = f->key;
	f->function = f->key + lib_len + 1;
	HASH_ADD_KEYPTR(hh, ps->functions, f->key, key_len, f);
	return f;
}

/* The groups of library and function, through the memo. */
static struct function_stats *groups_of(struct process_stats *ps, const char *library,
					const char *function)
{
	size_t slot = memo_slot(library, function);
	struct charge_memo *memo = ps->memo;
	struct library_stats *l;
	struct function_stats *f;

	if (memo && memo->slots[slot].library == library && memo->slots[slot].function == function &&
	    !strcmp(memo->slots[slot].f->function, function) &&
	    !strcmp(memo->slots[slot].f->library, library))
		return memo->slots[slot].f;
	l = library_of(ps, library);
	f = function_of(ps, library, function);
	if (!l || !f)
		return NULL;
	f->in = l;
	if (!memo)
		memo = ps->memo = calloc(1, sizeof(*memo)); /* without it, only slower */
	if (memo) {
		memo->slots[slot].library = library;
		memo->slots[slot].function = function;
		memo->slots[slot].f = f;
	}
	return f;
}

int accountant__charge(struct process_stats *ps, const struct charge *c)
{
	struct thread_stats *t = ps->memo && ps->memo->thread && ps->memo->thread->tid == c->tid ?
					 ps->memo->thread :
					 thread_of(ps, c->tid);
	struct function_stats *f = t ? groups_of(ps, c->library, c->function) : NULL;
	struct library_stats *l = f ? f->in : NULL;

	if (!t || !l || !f)
		return -ENOMEM;
	if (ps->memo)
		ps->memo->thread = t;
	/* The name the thread had when it called: it may be renamed or gone by the report. */
	if (c->thread_name)
		strncpy(t->name, c->thread_name, sizeof(t->name) - 1);
	uint64_t calls = c->calls ? c->calls : 1;
	/* A thread whose calls were counted exactly has them, and the process its share. */
	uint64_t thread_calls = t->calls_exact ? 0 : calls;

	balance__apply(&ps->total, c->func, c->delta, c->requested, thread_calls);
	balance__apply(&t->bal, c->func, c->delta, c->requested, thread_calls);
	balance__apply(&l->bal, c->func, c->delta, c->requested, calls);
	balance__apply(&f->bal, c->func, c->delta, c->requested, calls);
	return 0;
}

int accountant__set_thread(struct process_stats *ps, uint32_t tid, const char *name,
			   const struct balance *b)
{
	struct thread_stats *t = thread_of(ps, tid);

	if (!t)
		return -ENOMEM;
	if (name)
		strncpy(t->name, name, sizeof(t->name) - 1);
	t->bal = *b;
	return 0;
}

int accountant__count_thread_calls(struct process_stats *ps, uint32_t tid, const char *name,
				   const uint64_t *calls)
{
	struct thread_stats *t = thread_of(ps, tid);

	if (!t)
		return -ENOMEM;
	if (name && !t->name[0])
		strncpy(t->name, name, sizeof(t->name) - 1);
	if (!t->calls_exact) {
		/* The estimates the thread's sampled calls stood for give way to its counts. */
		for (int f = 0; f < HT_NR_FUNCS; f++) {
			ps->total.calls[f] -= t->bal.calls[f];
			t->bal.calls[f] = 0;
		}
		t->calls_exact = true;
	}
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		ps->total.calls[f] += calls[f];
		t->bal.calls[f] += calls[f];
	}
	return 0;
}

int accountant__set_library(struct process_stats *ps, const char *library,
			    const struct balance *b)
{
	struct library_stats *l = library_of(ps, library);

	if (!l)
		return -ENOMEM;
	l->bal = *b;
	return 0;
}

int accountant__set_function(struct process_stats *ps, const char *library,
			     const char *function, const struct balance *b)
{
	struct function_stats *f = function_of(ps, library, function);

	if (!f)
		return -ENOMEM;
	f->bal = *b;
	return 0;
}

static int by_tid(struct thread_stats *a, struct thread_stats *b)
{
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int by_library(struct library_stats *a, struct library_stats *b)
{
	return strcmp(a->library, b->library);
}

static int by_library_function(struct function_stats *a, struct function_stats *b)
{
	int c = strcmp(a->library, b->library);

	return c ? c : strcmp(a->function, b->function);
}

void accountant__sort(struct process_stats *ps)
{
	HASH_SORT(ps->threads, by_tid);
	HASH_SORT(ps->libraries, by_library);
	HASH_SORT(ps->functions, by_library_function);
}

void accountant__clear(struct process_stats *ps)
{
	struct thread_stats *t, *tt;
	struct library_stats *l, *lt;
	struct function_stats *f, *ft;

	HASH_ITER(hh, ps->threads, t, tt) {
		HASH_DEL(ps->threads, t);
		free(t);
	}
	HASH_ITER(hh, ps->libraries, l, lt) {
		HASH_DEL(ps->libraries, l);
		free(l->library);
		free(l);
	}
	HASH_ITER(hh, ps->functions, f, ft) {
		HASH_DEL(ps->functions, f);
		free(f->key);
		free(f);
	}
	free(ps->memo);
	memset(ps, 0, sizeof(*ps));
}

uint64_t accountant__calls(const struct process_stats *ps)
{
	uint64_t calls = 0;

	for (int f = 0; f < HT_NR_FUNCS; f++)
		calls += ps->total.calls[f];
	return calls;
}
