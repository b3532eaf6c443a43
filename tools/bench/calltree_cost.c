// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * calltree_cost: what the call tree adds to each call heaptap accounts, on a stack 20
 * frames deep (18 nodes below the start-up frames): a malloc and a free alternately
 * charged to every node of the stack's cached path.
 */
#include <stdio.h>
#include <time.h>
#include "calltree.h"

#define FRAMES 20
#define CALLS 20000000L

int main(void)
{
	struct stack_frame frames[FRAMES];
	char names[FRAMES][16];
	struct calltree t = {};
	struct calltree_path *p;
	struct timespec a, b;
	double ns;

	for (int i = 0; i < FRAMES; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		frames[i] = (struct stack_frame){ "/usr/lib/libx.so", 0x1000 + i, names[i] };
	}
	frames[0].function = "malloc";
	frames[FRAMES - 1].function = "_start";
	p = calltree__path_of(&t, frames, FRAMES, true);
	if (!p)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < CALLS; i++)
		calltree__charge(p, i & 1 ? HT_FREE : HT_MALLOC, i & 1 ? -64 : 64, 64);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / CALLS;
	printf("call tree: %u nodes per call, %.1f ns per call, %.2f ns per node\n", p->nr, ns,
	       ns / p->nr);
	calltree__clear(&t);
	return 0;
}
