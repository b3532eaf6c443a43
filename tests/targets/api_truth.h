/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a program that calls an allocator API directly (tbb_user, pool_user) knows of its
 * own calls, per thread and in all: requested bytes held now, their min and max, calls by
 * kind, written as JSON for the tests to compare with heaptap's allocators[] entry.
 * Threads run one after another, so min and max do not depend on the order of events.
 */
#ifndef HEAPTAP_API_TRUTH_H
#define HEAPTAP_API_TRUTH_H

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

enum api_kind { K_MALLOC, K_CALLOC, K_REALLOC, K_FREE, K_MEMALIGN, K_POSIX_MEMALIGN, K_BRK,
		K_NR };
static const char *const api_kind_names[K_NR] = { "malloc", "calloc", "realloc", "free",
						   "memalign", "posix_memalign", "brk" };

struct api_balance {
	long tid;
	long long current, min, max, requested;
	long long calls[K_NR];
};

#define API_MAX_THREADS 8
static struct api_balance api_total, api_threads[API_MAX_THREADS];
static int api_nr_threads;

static struct api_balance *api_thread(void)
{
	long tid = syscall(SYS_gettid);

	for (int i = 0; i < api_nr_threads; i++) {
		if (api_threads[i].tid == tid)
			return &api_threads[i];
	}
	api_threads[api_nr_threads].tid = tid;
	return &api_threads[api_nr_threads++];
}

static void api_move(struct api_balance *b, enum api_kind kind, long long delta,
		     long long requested)
{
	b->calls[kind]++;
	b->current += delta;
	b->requested += requested;
	if (b->current < b->min)
		b->min = b->current;
	if (b->current > b->max)
		b->max = b->current;
}

/* One call: what it moved (requested bytes), and what it asked for when it got a block. */
static void api_note(enum api_kind kind, long long delta, long long requested)
{
	api_move(&api_total, kind, delta, requested);
	api_move(api_thread(), kind, delta, requested);
}

static void api_write_balance(FILE *f, const struct api_balance *b)
{
	fprintf(f, "\"current\": %lld, \"min\": %lld, \"max\": %lld, \"requested\": %lld, "
		   "\"calls\": {", b->current, b->min, b->max, b->requested);
	for (int k = 0; k < K_NR; k++)
		fprintf(f, "%s\"%s\": %lld", k ? ", " : "", api_kind_names[k], b->calls[k]);
	fprintf(f, "}");
}

static int api_write_truth(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "{\"total\": {");
	api_write_balance(f, &api_total);
	fprintf(f, "}, \"threads\": [");
	for (int i = 0; i < api_nr_threads; i++) {
		fprintf(f, "%s{\"tid\": %ld, ", i ? ", " : "", api_threads[i].tid);
		api_write_balance(f, &api_threads[i]);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
	return fclose(f);
}

#endif
