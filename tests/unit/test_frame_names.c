// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * frame_names.h: a return address named once per node, by file and offset, whatever
 * thread asks. This test binary names its own code: the answers are checked against
 * naming.h's (which caches nothing) and against the calls the code below makes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "frame_names.h"
#include "naming.h"
#include "self_offset.h"
#include "symcache.h"

TestSuite(frame_names);

static void *volatile returned_to;

__attribute__((noinline)) static void ht_fn_callee(void)
{
	returned_to = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void ht_fn_caller(void)
{
	ht_fn_callee();
	__asm__ volatile("" ::: "memory"); /* work after the call: no tail call */
}

static struct object_file *self(struct symcache *cache)
{
	struct object_file *obj = symcache__get(cache, 1 /* dev */, 1 /* inode */,
						"/proc/self/exe");

	cr_assert(obj != NULL && obj->syms != NULL);
	return obj;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Does the answer name code as naming.h does? */
static void expect_as_naming(struct object_file *obj, const struct frame_names *fn)
{
	struct named_frame want[NAMING_MAX_CHAIN];
	size_t n = naming__at(obj, fn->code, want, NAMING_MAX_CHAIN);

	cr_assert(eq(sz, fn->nr, n));
	for (size_t i = 0; i < n; i++) {
		cr_expect(same_text(fn->names[i].function, want[i].function), "%s vs %s",
			  fn->names[i].function, want[i].function);
		cr_expect(same_text(fn->names[i].symbol, want[i].symbol));
		cr_expect(same_text(fn->names[i].file, want[i].file));
		cr_expect(eq(int, fn->names[i].line, want[i].line));
	}
}

Test(frame_names, a_return_address_is_named_by_its_call_and_kept)
{
	struct symcache *cache = symcache__new();
	struct object_file *obj = self(cache);
	struct frame_names room;
	const struct frame_names *fn, *again;
	uint64_t ret;

	ht_fn_caller();
	ret = file_offset(returned_to);
	fn = frame_names__return(obj, ret, &room);
	cr_assert(fn != NULL);
	cr_expect(fn != &room, "kept in the cache, within the default budget");
	cr_expect(eq(u64, fn->code, ret - 1));
	cr_expect(eq(str, (char *)fn->names[fn->nr - 1].function, "ht_fn_caller"));
	cr_expect(fn->start_known);
	cr_expect(eq(u64, fn->start, file_offset(ht_fn_caller)));
	/* The call before it is a direct call to the callee. */
	cr_expect(fn->direct);
	cr_expect(eq(u64, fn->target, file_offset(ht_fn_callee)));
	expect_as_naming(obj, fn);
	/* Asked again: the one answer, not a new one. */
	again = frame_names__return(obj, ret, &room);
	cr_expect(eq(ptr, (void *)again, (void *)fn));
	/* The same offset as code is another answer: the function's own start. */
	fn = frame_names__code(obj, file_offset(ht_fn_callee), &room);
	cr_assert(fn != NULL);
	cr_expect(eq(u64, fn->code, file_offset(ht_fn_callee)));
	cr_expect(eq(str, (char *)fn->names[fn->nr - 1].function, "ht_fn_callee"));
	symcache__free(cache);
}

Test(frame_names, without_room_in_the_budget_answers_are_made_not_kept)
{
	struct symcache *cache = symcache__new();
	struct object_file *obj = self(cache);
	struct frame_names room;
	const struct frame_names *fn;

	/* Room for what the file already holds, none for answers. */
	symcache__set_limits(cache, &(struct budget_limits){ obj->bytes, obj->bytes });
	ht_fn_caller();
	fn = frame_names__return(obj, file_offset(returned_to), &room);
	cr_assert(fn != NULL);
	cr_expect(eq(ptr, (void *)fn, (void *)&room));
	cr_expect(eq(str, (char *)fn->names[fn->nr - 1].function, "ht_fn_caller"));
	cr_expect(ne(uint, obj->left_out & LEFT_OUT_CACHE, 0), "left out: %#x", obj->left_out);
	cr_expect(le(u64, symcache__budget(cache)->used, obj->bytes));
	symcache__free(cache);
}

/* Offsets of this binary's code around the functions above: thousands of frames. */
#define NR_OFFSETS 4000
#define NR_THREADS 8

struct namer {
	struct object_file *obj;
	const uint64_t *offsets;
	size_t first; /* each thread starts elsewhere: they meet in the middle of misses */
	const struct frame_names *got[NR_OFFSETS];
	char holder[NR_OFFSETS][64]; /* the holder's name, as the thread read it */
	pthread_barrier_t *start;
};

static void *name_all(void *arg)
{
	struct namer *n = arg;
	struct frame_names room;

	pthread_barrier_wait(n->start);
	for (size_t k = 0; k < NR_OFFSETS; k++) {
		size_t i = (n->first + k) % NR_OFFSETS;
		const struct frame_names *fn = frame_names__return(n->obj, n->offsets[i], &room);

		if (!fn)
			continue;
		n->got[i] = fn == &room ? NULL : fn;
		snprintf(n->holder[i], sizeof(n->holder[i]), "%s", fn->names[fn->nr - 1].function);
	}
	return NULL;
}

Test(frame_names, threads_naming_the_same_frames_get_one_answer)
{
	struct symcache *cache = symcache__new();
	struct object_file *obj = self(cache);
	static uint64_t offsets[NR_OFFSETS];
	static struct namer namers[NR_THREADS];
	pthread_t threads[NR_THREADS];
	pthread_barrier_t start;
	uint64_t base = file_offset(ht_fn_caller);
	size_t kept = 0;

	/* Every 13th byte on both sides: return addresses, mid-instruction or not. */
	for (size_t i = 0; i < NR_OFFSETS; i++)
		offsets[i] = base - NR_OFFSETS / 2 * 13 + i * 13;
	pthread_barrier_init(&start, NULL, NR_THREADS);
	for (int t = 0; t < NR_THREADS; t++) {
		namers[t] = (struct namer){ .obj = obj, .offsets = offsets,
					    .first = t * (NR_OFFSETS / NR_THREADS), .start = &start };
		cr_assert(eq(int, pthread_create(&threads[t], NULL, name_all, &namers[t]), 0));
	}
	for (int t = 0; t < NR_THREADS; t++)
		pthread_join(threads[t], NULL);
	pthread_barrier_destroy(&start);
	for (size_t i = 0; i < NR_OFFSETS; i++) {
		struct frame_names room;
		const struct frame_names *fn = frame_names__return(obj, offsets[i], &room);

		cr_assert(fn != NULL && fn != &room);
		kept += namers[0].got[i] != NULL;
		for (int t = 0; t < NR_THREADS; t++) {
			/* One answer kept for the offset, the one every thread was given. */
			cr_assert(eq(ptr, (void *)namers[t].got[i], (void *)fn), "offset 0x%llx",
				  (unsigned long long)offsets[i]);
			cr_assert(eq(str, namers[t].holder[i], namers[0].holder[i]));
		}
		expect_as_naming(obj, fn);
	}
	cr_expect(eq(sz, kept, NR_OFFSETS));
	cr_expect(le(u64, symcache__budget(cache)->used, SYMBOL_BUDGET_TOTAL));
	symcache__free(cache);
}
