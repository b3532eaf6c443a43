// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The OS view's ground truth: mmap, munmap (whole and partial, and of addresses never
 * mapped), mremap (grow, shrink, move), madvise and sbrk of known sizes, from known
 * functions of the program and of libmaps, one thread of its own, and malloc's own mmaps.
 * Each function records what it mapped, in all and per kind of call (each of its calls of
 * a kind is made from one stack, lib_map_anon's mmap from two); the truth is written as JSON.
 *
 * mappings (--truth FILE | --truth-dir DIR) [--wait]
 *   --truth-dir  the truth in DIR/mappings-RANK.json, RANK the launcher's (OMPI_COMM_WORLD_RANK...)
 *   --wait   map 96 KiB, then wait for SIGUSR1 before the work (heaptap attaches): its
 *            unmapping is then of bytes mapped before tracing
 */
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "launcher_rank.h"
#include "maplib.h"

#define KIB 1024L

enum kind { ANON, FILEB, BRK };

enum call { C_MMAP, C_MUNMAP, C_MREMAP, C_BRK, C_MADVISE, NR_CALLS };
static const char *const call_names[NR_CALLS] = { "mmap", "munmap", "mremap", "brk",
						   "madvise" };

struct balance {
	long current, min, max;
};

/* What one function did, as heaptap's mappings[] reports it. */
struct truth {
	const char *function, *library; /* library: a suffix of the path */
	struct balance bal;
	long kinds[3];
	long malloc_own;
	long calls[NR_CALLS];
	long released_calls, released_bytes;
	long before_calls, before_bytes; /* unmapped, mapped before tracing */
	/* Per call: the function's calls of one kind, as mappings.stacks has them per stack */
	struct balance sites[NR_CALLS];
	long site_own[NR_CALLS];
};

#define MAX_TRUTHS 32
static struct truth truths[MAX_TRUTHS];
static int nr_truths;

static struct truth *truth_of(const char *function, const char *library)
{
	for (int i = 0; i < nr_truths; i++) {
		if (!strcmp(truths[i].function, function) && !strcmp(truths[i].library, library))
			return &truths[i];
	}
	if (nr_truths == MAX_TRUTHS)
		abort();
	truths[nr_truths] = (struct truth){ .function = function, .library = library };
	return &truths[nr_truths++];
}

static void move(struct balance *b, long bytes)
{
	b->current += bytes;
	if (b->current < b->min)
		b->min = b->current;
	if (b->current > b->max)
		b->max = b->current;
}

/* One call of a function's, that moved its balance by bytes of a kind. */
static void called(struct truth *t, enum call call, enum kind kind, long bytes)
{
	t->calls[call]++;
	t->kinds[kind] += bytes;
	move(&t->bal, bytes);
	move(&t->sites[call], bytes);
}

/* Bytes of malloc's own mappings, moved by the function's last call. */
static void malloc_own(struct truth *t, enum call call, long bytes)
{
	t->malloc_own += bytes;
	t->site_own[call] += bytes;
}

static void *must(void *p)
{
	if (p == MAP_FAILED || !p)
		abort();
	return p;
}

/* A macro, not a function: each function below makes its own system calls. */
#define anon(len) mmap(NULL, (len), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)

/* Whole mappings: made and unmapped. */
__attribute__((noinline)) static void map_whole(void)
{
	struct truth *t = truth_of("map_whole", "mappings");
	char *p = must(anon(64 * KIB));

	called(t, C_MMAP, ANON, 64 * KIB);
	p[0] = 1;
	munmap(p, 64 * KIB);
	called(t, C_MUNMAP, ANON, -64 * KIB);
}

/* Parts of a mapping: a hole in the middle, its tail; then addresses never mapped. */
__attribute__((noinline)) static void map_partial(void)
{
	struct truth *t = truth_of("map_partial", "mappings");
	char *p = must(anon(256 * KIB));

	called(t, C_MMAP, ANON, 256 * KIB);
	munmap(p + 64 * KIB, 64 * KIB);
	called(t, C_MUNMAP, ANON, -64 * KIB);
	munmap(p + 224 * KIB, 32 * KIB);
	called(t, C_MUNMAP, ANON, -32 * KIB);
	/* Over the hole and a piece still mapped: only the piece was mapped. */
	munmap(p + 32 * KIB, 96 * KIB);
	called(t, C_MUNMAP, ANON, -32 * KIB);
	/* Nothing there any more: it moves nothing. */
	munmap(p + 64 * KIB, 64 * KIB);
	called(t, C_MUNMAP, ANON, 0);
}

static int scratch_file(size_t len)
{
	char path[] = "/tmp/heaptap-mappings-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || ftruncate(fd, len))
		abort();
	unlink(path);
	return fd;
}

/* A file mapped shared, its first pages unmapped: the rest stays mapped (file). */
__attribute__((noinline)) static void map_file(int fd)
{
	struct truth *t = truth_of("map_file", "mappings");
	char *p = must(mmap(NULL, 128 * KIB, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));

	called(t, C_MMAP, FILEB, 128 * KIB);
	p[0] = 1;
	munmap(p, 32 * KIB);
	called(t, C_MUNMAP, FILEB, -32 * KIB);
}

/* mremap: grown (it may move), shrunk in place, moved onto a reservation of its own. */
__attribute__((noinline)) static void remap_all(void)
{
	struct truth *t = truth_of("remap_all", "mappings");
	char *grown = must(anon(64 * KIB)), *shrunk, *moving, *reserve;

	called(t, C_MMAP, ANON, 64 * KIB);
	grown = must(mremap(grown, 64 * KIB, 192 * KIB, MREMAP_MAYMOVE));
	called(t, C_MREMAP, ANON, 128 * KIB);

	shrunk = must(anon(256 * KIB));
	called(t, C_MMAP, ANON, 256 * KIB);
	shrunk = must(mremap(shrunk, 256 * KIB, 64 * KIB, 0));
	called(t, C_MREMAP, ANON, -192 * KIB);

	reserve = must(mmap(NULL, 256 * KIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	called(t, C_MMAP, ANON, 256 * KIB);
	moving = must(anon(128 * KIB));
	called(t, C_MMAP, ANON, 128 * KIB);
	/* Onto the reservation's first half, which it replaces. */
	moving = must(mremap(moving, 128 * KIB, 128 * KIB, MREMAP_MAYMOVE | MREMAP_FIXED,
			     reserve));
	called(t, C_MREMAP, ANON, -128 * KIB);
	(void)grown, (void)shrunk;
}

/* madvise gives memory back but keeps the mapping: counted apart, no balance moved. */
__attribute__((noinline)) static void release_pages(void)
{
	struct truth *t = truth_of("release_pages", "mappings");
	char *p = must(anon(128 * KIB));

	called(t, C_MMAP, ANON, 128 * KIB);
	memset(p, 1, 128 * KIB);
	madvise(p, 64 * KIB, MADV_DONTNEED);
	called(t, C_MADVISE, ANON, 0), t->released_calls++, t->released_bytes += 64 * KIB;
	madvise(p + 64 * KIB, 32 * KIB, MADV_FREE);
	called(t, C_MADVISE, ANON, 0), t->released_calls++, t->released_bytes += 32 * KIB;
	/* Other advice is not the OS view's. */
	madvise(p, 128 * KIB, MADV_WILLNEED);
}

/* The break: grown, then shrunk by half (sbrk makes one brk call each, once primed). */
__attribute__((noinline)) static void move_break(void)
{
	struct truth *t = truth_of("move_break", "mappings");

	if (sbrk(128 * KIB) == (void *)-1)
		abort();
	called(t, C_BRK, BRK, 128 * KIB);
	if (sbrk(-64 * KIB) == (void *)-1)
		abort();
	called(t, C_BRK, BRK, -64 * KIB);
}

/* Blocks malloc serves by mmap: malloc's own mappings, charged where malloc is called. */
static void *big_block;

__attribute__((noinline)) static void big_malloc(void)
{
	struct truth *t = truth_of("big_malloc", "mappings");
	long chunk;

	big_block = malloc(1024 * KIB);
	/* An mmapped chunk: its usable size and its 16-byte header, whole pages. */
	chunk = malloc_usable_size(big_block) + 16;
	called(t, C_MMAP, ANON, chunk);
	malloc_own(t, C_MMAP, chunk);
}

__attribute__((noinline)) static void big_free(void)
{
	struct truth *t = truth_of("big_free", "mappings");
	long chunk = malloc_usable_size(big_block) + 16;

	free(big_block);
	called(t, C_MUNMAP, ANON, -chunk);
	malloc_own(t, C_MUNMAP, -chunk);
}

/* Mapped by main before heaptap attached (--wait), or while traced. */
static char *premapped;
static int attached_later;

__attribute__((noinline)) static void unmap_premapped(void)
{
	struct truth *t = truth_of("unmap_premapped", "mappings");

	munmap(premapped, 96 * KIB);
	called(t, C_MUNMAP, ANON, attached_later ? 0 : -96 * KIB);
	if (attached_later)
		t->before_calls++, t->before_bytes += 96 * KIB;
}

/* libmaps' functions, called from here. */
static void in_library(int fd)
{
	struct truth *anon_t = truth_of("lib_map_anon", "libmaps.so");
	struct truth *file_t = truth_of("lib_map_file", "libmaps.so");
	struct truth *unmap_t = truth_of("lib_unmap", "libmaps.so");
	struct truth *remap_t = truth_of("lib_remap", "libmaps.so");
	char *a = lib_map_anon(512 * KIB), *f;

	called(anon_t, C_MMAP, ANON, 512 * KIB);
	lib_unmap(a + 128 * KIB, 128 * KIB);
	called(unmap_t, C_MUNMAP, ANON, -128 * KIB);
	a = lib_remap(a, 128 * KIB, 320 * KIB);
	called(remap_t, C_MREMAP, ANON, 192 * KIB);
	f = lib_map_file(fd, 64 * KIB);
	called(file_t, C_MMAP, FILEB, 64 * KIB);
	lib_unmap(f, 64 * KIB);
	called(unmap_t, C_MUNMAP, FILEB, -64 * KIB);
}

/* A thread of its own, named, that maps through libmaps and keeps it. */
static long thread_tid, thread_mapped;

static void *mapper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "mapper");
	thread_tid = gettid();
	lib_map_anon(256 * KIB);
	thread_mapped = 256 * KIB;
	return NULL;
}

/* The function's calls of each kind: "sites": [{"call", "current", "min", "max", ...}]. */
static void write_sites(FILE *f, const struct truth *t)
{
	const char *sep = "";

	fprintf(f, ", \"sites\": [");
	for (int c = 0; c < NR_CALLS; c++) {
		const struct balance *b = &t->sites[c];

		if (!t->calls[c])
			continue;
		fprintf(f, "%s{\"call\": \"%s\", \"current\": %ld, \"min\": %ld, \"max\": %ld, "
			   "\"malloc_own\": %ld, \"calls\": %ld}",
			sep, call_names[c], b->current, b->min, b->max, t->site_own[c], t->calls[c]);
		sep = ", ";
	}
	fprintf(f, "]");
}

static void write_truth(const char *path)
{
	FILE *f = fopen(path, "w");
	struct truth *lib_anon = truth_of("lib_map_anon", "libmaps.so");

	if (!f)
		abort();
	/* The thread's call is lib_map_anon's too. */
	called(lib_anon, C_MMAP, ANON, thread_mapped);
	fprintf(f, "{\"pid\": %d, \"thread\": {\"tid\": %ld, \"name\": \"mapper\", "
		   "\"current\": %ld, \"mmap\": 1},\n \"functions\": [\n", getpid(), thread_tid,
		thread_mapped);
	for (int i = 0; i < nr_truths; i++) {
		struct truth *t = &truths[i];

		fprintf(f, "  {\"function\": \"%s\", \"library\": \"%s\", \"current\": %ld, "
			   "\"min\": %ld, \"max\": %ld, \"anonymous\": %ld, \"file\": %ld, "
			   "\"brk\": %ld, \"malloc_own\": %ld, \"calls\": {\"mmap\": %ld, "
			   "\"munmap\": %ld, \"mremap\": %ld, \"brk\": %ld, \"madvise\": %ld}, "
			   "\"released\": {\"calls\": %ld, \"bytes\": %ld}, "
			   "\"unmapped_before_tracing\": {\"calls\": %ld, \"bytes\": %ld}",
			t->function, t->library, t->bal.current, t->bal.min, t->bal.max,
			t->kinds[ANON], t->kinds[FILEB], t->kinds[BRK], t->malloc_own,
			t->calls[C_MMAP], t->calls[C_MUNMAP], t->calls[C_MREMAP], t->calls[C_BRK],
			t->calls[C_MADVISE], t->released_calls, t->released_bytes, t->before_calls,
			t->before_bytes);
		write_sites(f, t);
		fprintf(f, "}%s\n", i + 1 < nr_truths ? "," : "");
	}
	fprintf(f, "]}\n");
	if (fclose(f))
		abort();
}

static void *volatile first_block; /* volatile: a malloc/free pair the compiler keeps */

int main(int argc, char **argv)
{
	const char *truth = NULL;
	char truth_in_dir[4096];
	pthread_t thread;
	sigset_t usr1;
	int fd, sig;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--truth") && i + 1 < argc) {
			truth = argv[++i];
		} else if (!strcmp(argv[i], "--truth-dir") && i + 1 < argc) {
			rank_truth_path(truth_in_dir, sizeof(truth_in_dir), argv[++i], "mappings");
			truth = truth_in_dir;
		} else if (!strcmp(argv[i], "--wait")) {
			attached_later = 1;
		}
	}
	/* Blocked from the start: a SIGUSR1 sent early waits for sigwait(). */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	/*
	 * What main itself does is not checked: the scratch file, sbrk's first look at the
	 * break, malloc's start (its first call sets up the heap).
	 */
	fd = scratch_file(128 * KIB);
	sbrk(0);
	first_block = malloc(1);
	free(first_block);
	premapped = must(anon(96 * KIB));
	if (attached_later && sigwait(&usr1, &sig))
		return 1;
	map_whole();
	map_partial();
	map_file(fd);
	remap_all();
	release_pages();
	move_break();
	big_malloc();
	big_free();
	unmap_premapped();
	in_library(fd);
	if (pthread_create(&thread, NULL, mapper, NULL) || pthread_join(thread, NULL))
		return 1;
	if (truth)
		write_truth(truth);
	printf("mappings done\n");
	return 0;
}
