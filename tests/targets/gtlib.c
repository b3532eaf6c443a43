// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Built with frame pointers and without inlining, IPA cloning or tail calls, so that
 * every function here is a real frame with its own symbol.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <stdbool.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "gtlib.h"

#define KEEP __attribute__((noinline, noipa, used))

enum fn { MALLOC, CALLOC, REALLOC, REALLOCARRAY, FREE, MEMALIGN, POSIX_MEMALIGN,
	  ALIGNED_ALLOC, VALLOC, PVALLOC, NR_FNS };
static const char *const fn_names[NR_FNS] = {
	"malloc", "calloc", "realloc", "reallocarray", "free", "memalign", "posix_memalign",
	"aligned_alloc", "valloc", "pvalloc",
};

struct balance {
	long long current, min, max;
	unsigned long long requested;
	unsigned long long calls[NR_FNS];
};

struct group {
	const char *name;
	struct balance bal;
};

struct thread_row {
	long tid;
	char name[16];
	struct balance bal;
};

#define MAX_GROUPS 32
#define MAX_THREADS 16
static struct group entries[MAX_GROUPS], callers[MAX_GROUPS];
static struct thread_row threads[MAX_THREADS];
static int nr_threads;
static struct balance library;
/* Threads run one at a time; the lock only keeps the bookkeeping honest if they did not. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread const char *current_entry;

static void apply(struct balance *b, enum fn f, long long delta, unsigned long long requested)
{
	b->current += delta;
	if (b->current < b->min)
		b->min = b->current;
	if (b->current > b->max)
		b->max = b->current;
	b->requested += requested;
	b->calls[f]++;
}

static struct group *group_of(struct group *table, int size, const char *name)
{
	for (int i = 0; i < size; i++) {
		if (!table[i].name)
			table[i].name = name;
		if (!strcmp(table[i].name, name))
			return &table[i];
	}
	abort();
}

/* The calling thread's row; nothing here may allocate. */
static struct thread_row *thread_row(void)
{
	long tid = syscall(SYS_gettid);

	for (int i = 0; i < nr_threads; i++) {
		if (threads[i].tid == tid)
			return &threads[i];
	}
	if (nr_threads == MAX_THREADS)
		abort();
	threads[nr_threads].tid = tid;
	return &threads[nr_threads++];
}

/* Record one call: made by `caller` under the current entry function, in this thread. */
static void record(const char *caller, enum fn f, long long delta, unsigned long long requested)
{
	struct thread_row *t;

	pthread_mutex_lock(&lock);
	t = thread_row();
	pthread_getname_np(pthread_self(), t->name, sizeof(t->name)); /* prctl: no malloc */
	apply(&t->bal, f, delta, requested);
	apply(&library, f, delta, requested);
	apply(&group_of(entries, MAX_GROUPS, current_entry)->bal, f, delta, requested);
	apply(&group_of(callers, MAX_GROUPS, caller)->bal, f, delta, requested);
	pthread_mutex_unlock(&lock);
}

/*
 * Entry points not called: those the object providing malloc lacks (under a preloaded
 * allocator, glibc's own would mix two heaps: jemalloc has no pvalloc, tcmalloc no
 * reallocarray), and with gt_skip_aligned() the aligned ones.
 */
static bool skipped[NR_FNS];

static const char *object_defining(const char *symbol)
{
	void *at = dlsym(RTLD_DEFAULT, symbol);
	Dl_info info;

	return at && dladdr(at, &info) ? info.dli_fname : NULL;
}

__attribute__((constructor)) static void skip_what_the_allocator_lacks(void)
{
	const char *provider = object_defining("malloc");

	for (int f = 0; f < NR_FNS; f++) {
		const char *object = object_defining(fn_names[f]);

		skipped[f] = !provider || !object || strcmp(object, provider);
	}
}

void gt_skip_aligned(void)
{
	skipped[MEMALIGN] = skipped[POSIX_MEMALIGN] = skipped[ALIGNED_ALLOC] = true;
	skipped[VALLOC] = skipped[PVALLOC] = true;
}

/* Internal callers: one per entry point, named under the caller rule. */

KEEP static void *gt_call_malloc(size_t n)
{
	if (skipped[MALLOC])
		return NULL;

	void *p = malloc(n);

	record(__func__, MALLOC, malloc_usable_size(p), p ? n : 0);
	return p;
}

KEEP static void *gt_call_calloc(size_t n, size_t size)
{
	if (skipped[CALLOC])
		return NULL;

	void *p = calloc(n, size);

	record(__func__, CALLOC, malloc_usable_size(p), p ? n * size : 0);
	return p;
}

KEEP static void *gt_call_realloc(void *old, size_t n)
{
	if (skipped[REALLOC])
		return NULL;

	long long before = malloc_usable_size(old); /* before realloc releases it */
	void *p = realloc(old, n);
	long long delta = p ? (long long)malloc_usable_size(p) - before : (old && !n ? -before : 0);

	record(__func__, REALLOC, delta, p ? n : 0);
	return p;
}

KEEP static void *gt_call_reallocarray(void *old, size_t n, size_t size)
{
	if (skipped[REALLOCARRAY])
		return NULL;

	long long before = malloc_usable_size(old);
	void *p = reallocarray(old, n, size);

	record(__func__, REALLOCARRAY, p ? (long long)malloc_usable_size(p) - before : 0,
	       p ? n * size : 0);
	return p;
}

KEEP static void gt_call_free(void *p)
{
	long long before = malloc_usable_size(p);

	free(p);
	record(__func__, FREE, -before, 0);
}

KEEP static void *gt_call_memalign(size_t align, size_t n)
{
	if (skipped[MEMALIGN])
		return NULL;

	void *p = memalign(align, n);

	record(__func__, MEMALIGN, malloc_usable_size(p), p ? n : 0);
	return p;
}

KEEP static void *gt_call_aligned_alloc(size_t align, size_t n)
{
	if (skipped[ALIGNED_ALLOC])
		return NULL;

	void *p = aligned_alloc(align, n);

	record(__func__, ALIGNED_ALLOC, malloc_usable_size(p), p ? n : 0);
	return p;
}

KEEP static void *gt_call_posix_memalign(size_t align, size_t n)
{
	if (skipped[POSIX_MEMALIGN])
		return NULL;

	void *p = NULL;
	int err = posix_memalign(&p, align, n);

	record(__func__, POSIX_MEMALIGN, err ? 0 : malloc_usable_size(p), err ? 0 : n);
	return err ? NULL : p;
}

KEEP static void *gt_call_valloc(size_t n)
{
	if (skipped[VALLOC])
		return NULL;

	void *p = valloc(n);

	record(__func__, VALLOC, malloc_usable_size(p), p ? n : 0);
	return p;
}

KEEP static void *gt_call_pvalloc(size_t n)
{
	if (skipped[PVALLOC])
		return NULL;

	void *p = pvalloc(n);

	record(__func__, PVALLOC, malloc_usable_size(p), p ? n : 0);
	return p;
}

/* Entry functions. Blocks live in library globals, so any entry may free them. */

#define MAX_BLOCKS 256
static void *blocks[MAX_BLOCKS], *aligned[8];
static int nr_blocks;

void gt_make_blocks(int n)
{
	current_entry = __func__;
	for (int i = 0; i < n && nr_blocks < MAX_BLOCKS; i++) {
		size_t size = 8 + (size_t)(i * 37 % 500);

		blocks[nr_blocks++] = i % 3 ? gt_call_malloc(size) : gt_call_calloc(i % 7 + 1, size);
	}
}

void gt_resize_blocks(void)
{
	current_entry = __func__;
	for (int i = 0; i < nr_blocks; i++)
		blocks[i] = i % 2 ? gt_call_realloc(blocks[i], 600 + i)
				  : gt_call_reallocarray(blocks[i], i % 5 + 1, 100);
	if (nr_blocks < MAX_BLOCKS)
		blocks[nr_blocks++] = gt_call_realloc(NULL, 333); /* glibc: reaches malloc */
}

void gt_release_blocks(void)
{
	current_entry = __func__;
	while (nr_blocks > 0)
		gt_call_free(blocks[--nr_blocks]);
}

void gt_aligned_blocks(void)
{
	current_entry = __func__;
	aligned[0] = gt_call_memalign(64, 100);
	aligned[1] = gt_call_aligned_alloc(256, 512);
	aligned[2] = gt_call_posix_memalign(128, 1000);
	aligned[3] = gt_call_valloc(5000);
	aligned[4] = gt_call_pvalloc(3000);
	aligned[5] = gt_call_aligned_alloc(4096, 4096);
	aligned[6] = gt_call_memalign(32, 40);
	gt_call_posix_memalign(3, 64); /* EINVAL: alignment not a power of two */
}

void gt_release_aligned(void)
{
	current_entry = __func__;
	for (int i = 0; i < 7; i++) {
		gt_call_free(aligned[i]);
		aligned[i] = NULL;
	}
}

/*
 * Every aligned entry point at alignments from 16 bytes to 4 MiB and sizes from 1 byte to
 * 200 KiB (valloc and pvalloc: their page), every other block freed: under an allocator
 * that carves aligned blocks from larger ones (mimalloc), sizes that depend on where each
 * block falls.
 */
void gt_aligned_sweep(void)
{
	static const size_t aligns[] = { 16, 64, 256, 4096, 65536, 4 << 20 };
	static const size_t sizes[] = { 1, 24, 100, 1000, 5000, 40000, 200000 };
	void *kept[2];
	int n = 0;

	current_entry = __func__;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t a = 0; a < sizeof(aligns) / sizeof(aligns[0]); a++) {
			void *p[3] = {
				gt_call_memalign(aligns[a], sizes[s]),
				gt_call_posix_memalign(aligns[a], sizes[s]),
				gt_call_aligned_alloc(aligns[a], sizes[s]),
			};

			for (int i = 0; i < 3; i++) {
				if (p[i] && n++ % 2)
					gt_call_free(p[i]);
			}
		}
		kept[0] = gt_call_valloc(sizes[s]);
		kept[1] = gt_call_pvalloc(sizes[s]);
		gt_call_free(kept[s % 2]);
	}
}

void gt_edge_cases(void)
{
	void *p;

	current_entry = __func__;
	gt_call_free(NULL);
	gt_call_malloc(SIZE_MAX);	     /* fails */
	gt_call_reallocarray(NULL, SIZE_MAX, 4); /* fails: overflow */
	p = gt_call_malloc(300);
	gt_call_realloc(p, 0);		     /* glibc frees p */
	p = gt_call_malloc(512 << 10);	     /* mmapped: its header says so */
	p = gt_call_realloc(p, 600 << 10);
	gt_call_free(p);
	/*
	 * Every early return of the entry points: each must be counted once, wherever the
	 * probe sits in the function (heaptap sites).
	 */
	gt_call_calloc(SIZE_MAX, 2);		     /* fails: overflow */
	p = gt_call_malloc(100);
	gt_call_realloc(p, SIZE_MAX);		     /* fails: p stays */
	gt_call_free(p);
	gt_call_free(gt_call_memalign(8, 24));	     /* small alignment: glibc calls malloc */
	gt_call_memalign(64, SIZE_MAX);		     /* fails */
	gt_call_aligned_alloc(64, SIZE_MAX);	     /* fails */
	gt_call_posix_memalign(64, SIZE_MAX);	     /* ENOMEM */
	gt_call_valloc(SIZE_MAX);		     /* fails */
	gt_call_pvalloc(SIZE_MAX);		     /* fails: rounding up overflows */
	gt_call_free(gt_call_reallocarray(NULL, 3, 40)); /* reaches realloc, then malloc */
}

/*
 * The truth is formatted into a static buffer and written with write(): stdio would
 * allocate its buffers, and those calls would be libgt's too, missing from the truth.
 */
static char truth_text[64 << 10];
static size_t truth_len;

static void emit(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (truth_len >= sizeof(truth_text))
		return;
	va_start(ap, fmt);
	n = vsnprintf(truth_text + truth_len, sizeof(truth_text) - truth_len, fmt, ap);
	va_end(ap);
	truth_len += n > 0 ? (size_t)n : 0;
}

static void write_balance(const struct balance *b)
{
	emit("\"current\": %lld, \"min\": %lld, \"max\": %lld, \"requested\": %llu, \"calls\": {",
		b->current, b->min, b->max, b->requested);
	for (int i = 0; i < NR_FNS; i++)
		emit("%s\"%s\": %llu", i ? ", " : "", fn_names[i], b->calls[i]);
	emit("}");
}

static void write_groups(const char *key, const struct group *g, int size)
{
	emit("\"%s\": [", key);
	for (int i = 0, n = 0; i < size && g[i].name; i++) {
		emit("%s\n  {\"function\": \"%s\", ", n++ ? "," : "", g[i].name);
		write_balance(&g[i].bal);
		emit("}");
	}
	emit("]");
}

int gt_truth_write(const char *path)
{
	char tmp[4096];
	ssize_t written;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	pthread_mutex_lock(&lock);
	truth_len = 0;
	emit("{\"pid\": %d, \"threads\": [", (int)getpid());
	for (int i = 0; i < nr_threads; i++) {
		emit("%s\n  {\"tid\": %ld, \"name\": \"%s\", ", i ? "," : "",
			threads[i].tid, threads[i].name);
		write_balance(&threads[i].bal);
		emit("}");
	}
	emit("],\n");
	write_groups("entry_functions", entries, MAX_GROUPS);
	emit(",\n");
	write_groups("caller_functions", callers, MAX_GROUPS);
	emit(",\n\"library\": {");
	write_balance(&library);
	emit("}}\n");
	pthread_mutex_unlock(&lock);
	/* Written aside and renamed, so that readers never see half of it. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	written = write(fd, truth_text, truth_len);
	if (close(fd) || written != (ssize_t)truth_len || truth_len >= sizeof(truth_text))
		return -1;
	return rename(tmp, path);
}
