// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap's size classes against the real allocators: this binary runs itself again with
 * the allocator preloaded, and the copy prints what malloc_usable_size answers for every
 * size up to 64 KiB at each common alignment, samples beyond, and reallocs; the test
 * compares each answer with size_classes__usable's.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "size_classes.h"

#define PROBE_ENV "HEAPTAP_TEST_USABLE_PROBE"
#define LIBDIR "/usr/lib/x86_64-linux-gnu/"
#define EVERY_SIZE_UP_TO (64 << 10)

static const uint64_t alignments[] = { 0, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 8192, 16384 };
/* Grown by less than a quarter too (500 -> 560, 300000 -> 330000): tcmalloc's rule. */
static const uint64_t realloc_sizes[] = { 0, 1, 8, 24, 100, 129, 500, 560, 700, 1000, 1500,
					  3000, 5000, 8200, 20000, 70000, 300000, 330000, 600000,
					  650000 };

static uint64_t sample_beyond(uint64_t n)
{
	return n + n / 97 + 4093;
}

static void *allocate(uint64_t size, uint64_t align)
{
	void *p = NULL;

	if (!align)
		return malloc(size);
	return posix_memalign(&p, align, size) ? NULL : p;
}

/* In the copy with the allocator preloaded: "A align size usable", "R old new moved u0 u". */
static void probe(void)
{
	for (size_t a = 0; a < sizeof(alignments) / sizeof(alignments[0]); a++) {
		for (uint64_t n = 0; n <= 64ull << 20;
		     n = n < EVERY_SIZE_UP_TO ? n + 1 : sample_beyond(n)) {
			void *p = allocate(n, alignments[a]);

			printf("A %lu %lu %zu\n", alignments[a], n, p ? malloc_usable_size(p) : 0);
			free(p);
		}
	}
	for (size_t i = 0; i < sizeof(realloc_sizes) / sizeof(realloc_sizes[0]); i++) {
		for (size_t j = 0; j < sizeof(realloc_sizes) / sizeof(realloc_sizes[0]); j++) {
			void *p = malloc(realloc_sizes[i]), *q;
			size_t before = malloc_usable_size(p);

			if (!realloc_sizes[j])
				continue; /* realloc(p, 0): freed or not, the live table knows */
			q = realloc(p, realloc_sizes[j]);
			printf("R %lu %lu %d %zu %zu\n", realloc_sizes[i], realloc_sizes[j], q == p,
			       before, malloc_usable_size(q));
			free(q);
		}
	}
	fflush(stdout);
}

__attribute__((constructor)) static void probe_if_asked(void)
{
	if (getenv(PROBE_ENV)) {
		probe();
		_exit(0);
	}
}

struct tally {
	unsigned long known, unknown, wrong;
	unsigned long unaligned_unknown; /* malloc, calloc, realloc: every one must be known */
	unsigned long reallocs;
};

static void compare_line(enum size_classes classes, const char *line, struct tally *t)
{
	unsigned long align, size, usable, in_place, before;
	uint64_t want;
	bool known;

	if (sscanf(line, "A %lu %lu %lu", &align, &size, &usable) == 3) {
		if (!usable)
			return; /* the allocation failed */
		known = size_classes__usable(classes, size, align, &want);
	} else if (sscanf(line, "R %lu %lu %lu %lu %lu", &before, &size, &in_place, &before,
			  &usable) == 5) {
		known = size_classes__realloc_usable(classes, size, before, in_place, &want);
		t->reallocs++;
		align = 0;
	} else {
		cr_fail("probe: unexpected line %s", line);
		return;
	}
	if (!known) {
		t->unknown++;
		if (!align)
			t->unaligned_unknown++;
		return;
	}
	t->known++;
	if (want != usable && t->wrong++ < 5)
		cr_log_error("%s: heaptap says %lu", strtok((char *)line, "\n"),
			     (unsigned long)want);
}

static struct tally compare_with(const char *library)
{
	char path[256], preload[300], *line = NULL;
	size_t cap = 0;
	struct tally t = {};
	int fds[2], status;
	pid_t child;
	FILE *in;

	snprintf(path, sizeof(path), LIBDIR "%s", library);
	cr_assert(eq(int, access(path, R_OK), 0), "%s is missing: run make deps-test", path);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", path);
	cr_assert(eq(int, pipe(fds), 0));
	child = fork();
	cr_assert(ge(int, child, 0));
	if (!child) {
		char *env[] = { preload, PROBE_ENV "=1", NULL };
		char *argv[] = { "probe", NULL };

		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execve("/proc/self/exe", argv, env);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	while (getline(&line, &cap, in) > 0)
		compare_line(size_classes__of(library), line, &t);
	free(line);
	fclose(in);
	cr_assert(eq(int, waitpid(child, &status, 0), child));
	cr_assert(eq(int, status, 0), "the probe under %s failed", library);
	cr_assert(eq(u64, t.wrong, 0), "%lu usable sizes differ under %s", t.wrong, library);
	cr_assert(gt(u64, t.reallocs, 200), "the probe under %s printed too little", library);
	cr_assert(eq(u64, t.unaligned_unknown, 0), "%lu unaligned sizes unknown under %s",
		  t.unaligned_unknown, library);
	return t;
}

TestSuite(size_classes, .timeout = 120);

Test(size_classes, jemalloc_every_size_and_alignment)
{
	struct tally t = compare_with("libjemalloc.so.2");

	cr_assert(eq(u64, t.unknown, 0));
}

Test(size_classes, tcmalloc_minimal_every_size_and_alignment)
{
	cr_assert(eq(u64, compare_with("libtcmalloc_minimal.so.4").unknown, 0));
}

Test(size_classes, tcmalloc_full_every_size_and_alignment)
{
	cr_assert(eq(u64, compare_with("libtcmalloc.so.4").unknown, 0));
}

/* Aligned blocks are unknown (their sizes depend on their addresses). */
Test(size_classes, mimalloc_unaligned_sizes)
{
	struct tally t = compare_with("libmimalloc.so.2");

	cr_assert(gt(u64, t.known, EVERY_SIZE_UP_TO));
}

/* Alignments above 64 of blocks under 8 KiB are unknown; every other block is known. */
Test(size_classes, tbb_proxy_every_size)
{
	struct tally t = compare_with("libtbbmalloc_proxy.so.2");

	cr_assert(gt(u64, t.known, 10 * EVERY_SIZE_UP_TO));
}

Test(size_classes, names_by_file)
{
	cr_assert(eq(int, size_classes__of("/usr/lib/libjemalloc.so.2"), SIZE_CLASSES_JEMALLOC));
	cr_assert(eq(int, size_classes__of("libtbbmalloc_proxy.so.2"), SIZE_CLASSES_TBB));
	cr_assert(eq(int, size_classes__of("/lib/libc.so.6"), SIZE_CLASSES_NONE));
	cr_assert(eq(str, (char *)size_classes__name(SIZE_CLASSES_TCMALLOC), "tcmalloc"));
	/* Pages whose layout BPF knows: mimalloc 2.0 only, by the file's own name. */
	cr_assert(size_classes__pages_readable("/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0"));
	cr_assert(not(size_classes__pages_readable("/usr/lib/libmimalloc.so.2.1")));
	cr_assert(not(size_classes__pages_readable("libjemalloc.so.2")));
}
