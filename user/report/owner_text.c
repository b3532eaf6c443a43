// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <inttypes.h>
#include <string.h>
#include "attribution.h"
#include "human_bytes.h"
#include "owner_text.h"

static unsigned site_depth = 6;

void owner_text_set_depth(unsigned frames)
{
	site_depth = frames ? frames : 1;
}

void owner_text_heading(FILE *out, const char *title, uint64_t bytes, uint64_t blocks)
{
	char text[16];

	fprintf(out, "----- %s, by allocation site -----\n", title);
	fprintf(out, "%s in %" PRIu64 " blocks\n", human_bytes((int64_t)bytes, text, sizeof(text)),
		blocks);
}

static void print_stack(FILE *out, const struct stack_frame *frames, size_t nr,
			const char *allocator)
{
	size_t i = 1, shown = 0;

	if (!nr) {
		fprintf(out, "        (stack not recorded: out of memory)\n");
		return;
	}
	while (i < nr && allocator && !strcmp(frames[i].library, allocator))
		i++;
	for (; i < nr && shown < site_depth; i++, shown++) {
		const struct stack_frame *f = &frames[i];
		const char *lib = strrchr(f->library, '/');

		fprintf(out, "        %s (%s)", f->function, lib ? lib + 1 : f->library);
		if (f->file && f->line > 0)
			fprintf(out, " %s:%d", f->file, f->line);
		else if (f->file)
			fprintf(out, " %s:?", f->file);
		fputc('\n', out);
		if (!strcmp(f->function, "main") || is_startup_symbol(f->function))
			break;
	}
}

void owner_text_site(FILE *out, const struct owner_text_site *s, const char *allocator)
{
	char text[16];

	fprintf(out, "  %s in %" PRIu64 " block%s",
		human_bytes((int64_t)s->bytes, text, sizeof(text)), s->blocks,
		s->blocks == 1 ? "" : "s");
	if (s->outstanding) {
		fprintf(out, " (%s requested)",
			human_bytes((int64_t)s->requested, text, sizeof(text)));
		if (s->likely_leak)
			fprintf(out, ", likely leak: growing %s/s",
				human_bytes((int64_t)s->growth_bytes_per_second, text,
					    sizeof(text)));
	}
	fputc('\n', out);
	print_stack(out, s->frames, s->nr, allocator);
}

void owner_text_freed_before(FILE *out, uint64_t calls, uint64_t bytes, bool bytes_known)
{
	if (!calls)
		return;
	fprintf(out, "Freed, allocated before tracing: %" PRIu64 " calls", calls);
	if (bytes_known)
		fprintf(out, ", %" PRIu64 " bytes", bytes);
	fputc('\n', out);
}
