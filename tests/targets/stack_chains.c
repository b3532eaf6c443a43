// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Deep, known call chains through code without frame pointers, each ending in malloc:
 * recursion, a qsort comparator (through glibc), a zlib allocation callback (through
 * libz), a frame whose CFA moves to rbp mid-body (a variable-length array), a signal
 * handler (through the signal trampoline) and a thread (down to clone3).
 *
 * Then the same calls again and again from places whose stacks differ only above the
 * probed call: twin callers at the same depth, recursions to other depths, longjmps out of
 * the call, coroutines on one reused stack, and a handler of signals raised from twin
 * callers. Each stack must be its own, as many times as the program counted: a stack
 * remembered from an earlier call and reused without proof would show as the wrong one.
 *
 * One more function, alloc_in_expression_frame, describes its CFA by a DWARF expression
 * heaptap does not follow: its stacks must end there, incomplete, never guessed on.
 *
 * Right before each malloc, in the same function, glibc's backtrace() (libgcc's own
 * .eh_frame unwinder) records the chain, and /proc/self/maps turns each address into a
 * file and an offset: the truth heaptap's stacks must equal.
 *
 * stack_chains --truth FILE
 */
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_FRAMES 128
#define MAX_CASES 64
#define REPEATS 50
#define KEEP __attribute__((noinline, noipa))

struct chain {
	const char *name; /* the function that records it and calls malloc */
	void *frames[MAX_FRAMES];
	int nr;
	int calls; /* of a repeated case: its calls; 0 for the others, recorded per call */
};

static struct chain cases[MAX_CASES];
static int nr_cases;
static void *volatile sink;

/* The caller's chain, from the recording function outwards (backtrace's own frame 0). */
#define RECORD(fn)                                                               \
	do {                                                                     \
		struct chain *c = &cases[nr_cases++];                           \
		c->name = fn;                                                    \
		c->nr = backtrace(c->frames, MAX_FRAMES);                        \
	} while (0)

/* A repeated call: one case per distinct chain, with the calls that had it. */
static void count_chain(const char *fn, void **frames, int nr)
{
	for (int i = 0; i < nr_cases; i++) {
		struct chain *c = &cases[i];

		if (c->calls && c->name == fn && c->nr == nr &&
		    !memcmp(c->frames, frames, nr * sizeof(frames[0]))) {
			c->calls++;
			return;
		}
	}
	if (nr_cases == MAX_CASES)
		abort();
	cases[nr_cases] = (struct chain){ .name = fn, .nr = nr, .calls = 1 };
	memcpy(cases[nr_cases++].frames, frames, nr * sizeof(frames[0]));
}

#define RECORD_REPEATED(fn)                                                      \
	do {                                                                     \
		void *frames_[MAX_FRAMES];                                       \
		count_chain(fn, frames_, backtrace(frames_, MAX_FRAMES));        \
	} while (0)

static KEEP void *alloc_in_recursion(void)
{
	RECORD(__func__);
	return malloc(1001);
}

static KEEP void *recurse(int depth)
{
	void *p = depth ? recurse(depth - 1) : alloc_in_recursion();

	sink = p; /* work after the call: no tail call */
	return p;
}

static KEEP int alloc_in_comparator(const void *a, const void *b)
{
	static int recorded;

	if (!recorded++) {
		RECORD(__func__);
		sink = malloc(1002);
	}
	return *(const int *)a - *(const int *)b;
}

static KEEP void *alloc_in_zalloc(void *opaque, unsigned items, unsigned size)
{
	(void)opaque;
	RECORD(__func__);
	return malloc((size_t)items * size);
}

static KEEP void free_in_zfree(void *opaque, void *p)
{
	(void)opaque;
	free(p);
}

/* A variable-length array: the compiler addresses the frame from rbp, the CFA too. */
static KEEP void *alloc_in_moving_cfa(int n)
{
	volatile char scratch[n];
	void *p;

	memset((char *)scratch, 1, n);
	RECORD(__func__);
	p = malloc(1003 + scratch[n - 1]);
	sink = (void *)&scratch[0];
	return p;
}

static volatile sig_atomic_t handled;

static KEEP void alloc_in_handler(int sig)
{
	(void)sig;
	RECORD(__func__);
	sink = malloc(1004);
	handled = 1;
}

static KEEP void spin_until_handled(void)
{
	while (!handled)
		;
}

static KEEP void *alloc_in_thread(void *arg)
{
	(void)arg;
	RECORD(__func__);
	return malloc(1005);
}

/* CFA = rsp + 16 while it calls malloc, said as DW_CFA_def_cfa_expression { breg7 16 }. */
void *alloc_in_expression_frame(void);
__asm__(".text\n.globl alloc_in_expression_frame\n"
	".type alloc_in_expression_frame, @function\n"
	"alloc_in_expression_frame:\n.cfi_startproc\n"
	"\tsub $8, %rsp\n"
	".cfi_escape 0x0f, 0x02, 0x77, 0x10\n"
	"\tmov $1006, %edi\n"
	"\tcall malloc@PLT\n"
	"\tadd $8, %rsp\n"
	".cfi_def_cfa_offset 8\n"
	"\tret\n.cfi_endproc\n"
	".size alloc_in_expression_frame, .-alloc_in_expression_frame\n");

#define EXPRESSION_CALLS 3

/* Twins: the same code at the same depth, so the call below starts from the same sp. */
static KEEP void *alloc_from_twin(void)
{
	RECORD_REPEATED(__func__);
	return malloc(1007);
}

static KEEP void twin_a(void)
{
	sink = alloc_from_twin();
}

static KEEP void twin_b(void)
{
	sink = alloc_from_twin();
}

static KEEP void *alloc_at_depth(void)
{
	RECORD_REPEATED(__func__);
	return malloc(1008);
}

static KEEP void *descend(int depth)
{
	void *p = depth ? descend(depth - 1) : alloc_at_depth();

	sink = p;
	return p;
}

static KEEP void descend_3(void)
{
	descend(3);
}

static KEEP void descend_4(void)
{
	descend(4);
}

/* Deeper than a stack map entry holds (HT_STORED_FRAMES): its frames travel inline. */
static KEEP void descend_60(void)
{
	descend(60);
}

static jmp_buf jumped;

static KEEP void alloc_then_jump(void)
{
	RECORD_REPEATED(__func__);
	sink = malloc(1009);
	longjmp(jumped, 1);
}

static KEEP void jump_a(void)
{
	if (!setjmp(jumped))
		alloc_then_jump();
}

static KEEP void jump_b(void)
{
	if (!setjmp(jumped))
		alloc_then_jump();
}

/* Coroutines, one after the other on the same stack. */
static ucontext_t resumed, coroutine;
static char coroutine_stack[64 * 1024] __attribute__((aligned(16)));

static KEEP void alloc_in_coroutine(void)
{
	RECORD_REPEATED(__func__);
	sink = malloc(1010);
}

static KEEP void coroutine_a(void)
{
	alloc_in_coroutine();
	sink = NULL;
}

static KEEP void coroutine_b(void)
{
	alloc_in_coroutine();
	sink = NULL;
}

static void run_coroutine(void (*body)(void))
{
	getcontext(&coroutine);
	coroutine.uc_stack.ss_sp = coroutine_stack;
	coroutine.uc_stack.ss_size = sizeof(coroutine_stack);
	coroutine.uc_link = &resumed;
	makecontext(&coroutine, body, 0);
	swapcontext(&resumed, &coroutine);
}

static KEEP void run_coroutine_a(void)
{
	run_coroutine(coroutine_a);
}

static KEEP void run_coroutine_b(void)
{
	run_coroutine(coroutine_b);
}

/* A handler of signals raised from twins: the same handler frame above other callers. */

static KEEP void alloc_in_raised_handler(int sig)
{
	(void)sig;
	RECORD_REPEATED(__func__);
	sink = malloc(1011);
}

static KEEP void raise_a(void)
{
	raise(SIGUSR1);
	sink = NULL;
}

static KEEP void raise_b(void)
{
	raise(SIGUSR1);
	sink = NULL;
}

/*
 * From one call site, so that both calls have one stack: the second may reuse the first's.
 * (A bound the compiler cannot see: two unrolled calls would be two call sites.)
 */
static volatile int two = 2;

static KEEP void twice(void (*call)(void))
{
	for (int i = 0; i < two; i++)
		call();
}

/* Each case twice in a row, then its twin twice: same start, another stack. */
static KEEP void run_repeated_cases(void)
{
	struct sigaction handler = { .sa_handler = alloc_in_raised_handler };

	sigaction(SIGUSR1, &handler, NULL);
	for (int i = 0; i < REPEATS; i++) {
		twice(twin_a);
		twice(twin_b);
		twice(i % 2 ? descend_4 : descend_3);
		if (i % 10 == 0)
			twice(descend_60);
		twice(jump_a);
		twice(jump_b);
		twice(i % 2 ? run_coroutine_b : run_coroutine_a);
		twice(raise_a);
		twice(raise_b);
	}
}

static KEEP void run_cases(void)
{
	int values[64];
	z_stream zs = { .zalloc = alloc_in_zalloc, .zfree = free_in_zfree };
	pthread_t thread;
	void *block;

	sink = recurse(20);
	sink = recurse(70); /* deeper than a stack map entry: inline, whole all the same */
	for (int i = 0; i < 64; i++)
		values[i] = (i * 37) % 64;
	qsort(values, 64, sizeof(values[0]), alloc_in_comparator);
	if (deflateInit(&zs, Z_DEFAULT_COMPRESSION) == Z_OK)
		deflateEnd(&zs);
	sink = alloc_in_moving_cfa(100 + (int)(values[1] & 1));
	signal(SIGALRM, alloc_in_handler);
	alarm(1);
	spin_until_handled();
	pthread_create(&thread, NULL, alloc_in_thread, NULL);
	pthread_join(thread, &block);
	sink = block;
	for (int i = 0; i < EXPRESSION_CALLS; i++)
		sink = alloc_in_expression_frame();
	run_repeated_cases();
}

/* Each recorded address as the file that maps it and its offset in that file. */
static void write_frame(FILE *out, void *addr)
{
	unsigned long a = (unsigned long)addr, start, end, offset;
	char line[4096], path[4096];
	FILE *maps = fopen("/proc/self/maps", "r");

	while (maps && fgets(line, sizeof(line), maps)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &offset, path) >= 3 &&
		    a >= start && a < end) {
			fprintf(out, "{\"library\": \"%s\", \"offset\": %lu}", path, a - start + offset);
			break;
		}
	}
	if (maps)
		fclose(maps);
}

static int write_truth(const char *path)
{
	FILE *out = fopen(path, "w");

	if (!out)
		return -1;
	fprintf(out, "{\"pid\": %d, \"expression_calls\": %d, \"cases\": [", (int)getpid(),
		EXPRESSION_CALLS);
	for (int i = 0; i < nr_cases; i++) {
		fprintf(out, "%s\n {\"function\": \"%s\", \"calls\": %d, \"frames\": [",
			i ? "," : "", cases[i].name, cases[i].calls);
		/* Frame 0 is backtrace()'s return address in the recording function: drop it. */
		for (int f = 1; f < cases[i].nr; f++) {
			fprintf(out, "%s", f > 1 ? ", " : "");
			write_frame(out, cases[i].frames[f]);
		}
		fprintf(out, "]}");
	}
	fprintf(out, "]}\n");
	return fclose(out);
}

int main(int argc, char **argv)
{
	void *warm[1];
	char tmp[4096];

	if (argc != 3 || strcmp(argv[1], "--truth")) {
		fprintf(stderr, "usage: stack_chains --truth FILE\n");
		return 2;
	}
	backtrace(warm, 1); /* loads libgcc_s now, not in the first case */
	run_cases();
	/* Renamed into place, so that readers never see half of it. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	if (write_truth(tmp) || rename(tmp, argv[2])) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
