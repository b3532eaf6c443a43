// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attribution.h"
#include "human_bytes.h"
#include "top_held.h"

/* A site's row: its figures in 38 columns, its short stack in what the screen has left. */
#define FIGURES_WIDTH 38
#define STACK_FRAMES 4

/*
 * "fill_cache < load < main": from the innermost frame outside the allocator outwards, a
 * few frames, to main or a thread's start.
 */
static void short_stack(const struct stack_record *rec, const char *allocator, char *buf,
			size_t size)
{
	size_t i = 1, shown = 0, len = 0;

	buf[0] = '\0';
	if (!rec) {
		snprintf(buf, size, "(stack not recorded)");
		return;
	}
	while (i < rec->nr && allocator && !strcmp(rec->frames[i].library, allocator))
		i++;
	for (; i < rec->nr && shown < STACK_FRAMES && len < size; i++, shown++) {
		const char *function = rec->frames[i].function;

		len += snprintf(buf + len, size - len, "%s%s", shown ? " < " : "", function);
		if (!strcmp(function, "main") || is_startup_symbol(function))
			break;
	}
}

void top_held__draw(const struct target *t, int first, int last)
{
	const struct owner *o = &t->owner;
	const char *allocator = t->probed ? t->alloc.path : NULL;
	uint32_t nr, *order;
	char held[16], growth[16], stack[256];
	int row = first + 2;

	if (!o->live) {
		mvprintw(first, 0, "Not followed for this process (out of memory).");
		return;
	}
	mvprintw(first, 0, "Held now: %s in %" PRIu64 " blocks   peak: %s",
		 human_bytes((int64_t)o->bytes, held, sizeof(held)), o->blocks,
		 human_bytes((int64_t)o->peak_bytes, growth, sizeof(growth)));
	attron(A_REVERSE);
	mvprintw(first + 1, 0, "%8s %8s %10s %-8s %s", "HELD", "BLOCKS", "GROWTH/s", "",
		 "ALLOCATED AT");
	attroff(A_REVERSE);
	order = owner__by_outstanding(o, &nr);
	for (uint32_t i = 0; order && i < nr && row < last; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		struct leak_verdict v = leak_series__verdict(s->series);

		if (!s->blocks)
			break;
		short_stack(s->record, allocator, stack, sizeof(stack));
		mvprintw(row++, 0, "%8s %8" PRIu64 " %10s %-8s %.*s",
			 human_bytes((int64_t)s->bytes, held, sizeof(held)), s->blocks,
			 human_bytes((int64_t)v.growth_bytes_per_second, growth, sizeof(growth)),
			 v.likely_leak ? "leak?" : "", COLS > FIGURES_WIDTH ? COLS - FIGURES_WIDTH : 0,
			 stack);
	}
	free(order);
}
