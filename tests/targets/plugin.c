// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A library the dlopener target loads after heaptap attached. Built without frame
 * pointers: only its .eh_frame table, loaded before its code runs, gives whole stacks
 * through it. Its constructor allocates too, the earliest moment its code runs.
 */
#include <stdlib.h>

#define WORK_BLOCKS 25

/* Exported, so that the compiler cannot drop the allocations as unused. */
void *plugin_ctor_block;
void *plugin_blocks[WORK_BLOCKS];

__attribute__((noinline)) static void *plugin_leaf(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" : : "r"(p) : "memory"); /* keep the call a call */
	return p;
}

__attribute__((noinline)) static void *plugin_middle(size_t size)
{
	void *p = plugin_leaf(size);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

__attribute__((constructor)) static void plugin_ctor(void)
{
	plugin_ctor_block = malloc(4321);
}

/* Allocates WORK_BLOCKS blocks, two calls below itself; returns how many. */
int plugin_work(void)
{
	for (int i = 0; i < WORK_BLOCKS; i++)
		plugin_blocks[i] = plugin_middle(100 + i);
	return WORK_BLOCKS;
}
