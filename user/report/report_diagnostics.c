// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What a report says of the session beside its processes: the processes it could not
 * trace, and what unwinding and naming cost (the budgets: shown by --dmatp and -v).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "report.h"
#include "printable.h"

static void print_budget(FILE *out, const char *what, const struct budget *b)
{
	char used[16], total[16], per_file[16];

	fprintf(out, "%s budget: %s of %s used, %s per file; files over it: %" PRIu64 "\n", what,
		budget_size_text(b->used, used, sizeof(used)),
		budget_size_text(b->limits.total, total, sizeof(total)),
		budget_size_text(b->limits.per_file, per_file, sizeof(per_file)), b->files_refused);
}

/* What unwinding through each file cost: rows in BPF maps, and the time to build them. */
void report_unwind_tables_text(FILE *out, struct session *s)
{
	const struct unwind_file *files;
	size_t n = session__unwind_files(s, &files);
	uint64_t rows = 0;
	double ms = 0;

	if (!n)
		return;
	fprintf(out, "==== Unwind tables =====\n");
	for (size_t i = 0; i < n; i++) {
		const struct unwind_file *f = &files[i];

		rows += f->nr_rows;
		ms += f->build_ms;
		if (f->over_budget)
			fprintf(out, "%s: none (over the %s): frame pointers there", f->path,
				budget_verdict_name(f->over_budget));
		else if (f->err)
			fprintf(out, "%s: none (%s): frame pointers there", f->path,
				f->err == -ENOENT ? "no .eh_frame_hdr" : strerror(-f->err));
		else
			fprintf(out, "%s: %u rows, %.1f KiB, %.1f ms", f->path, f->nr_rows,
				unwind_file_bytes(f) / 1024.0, f->build_ms);
		if (f->cut_stacks)
			fprintf(out, "; %" PRIu64 " stack%s cut there", f->cut_stacks,
				f->cut_stacks == 1 ? "" : "s");
		fputc('\n', out);
	}
	fprintf(out, "Total: %zu files, %" PRIu64 " rows, %.1f KiB, %.1f ms\n", n, rows,
		rows * sizeof(struct ht_unwind_row) / 1024.0, ms);
	print_budget(out, "Table", session__table_budget(s));
}

/* The files whose symbols did not all fit the budget, and what each went without. */
void report_symbols_text(FILE *out, struct session *s)
{
	const struct symcache *cache = session__symcache(s);
	const struct budget *b = symcache__budget(cache);

	fprintf(out, "==== Symbols =====\n");
	print_budget(out, "Symbol", b);
	for (const struct object_file *f = symcache__next(cache, NULL); f;
	     f = symcache__next(cache, f)) {
		if (!f->left_out)
			continue;
		fprintf(out, "%s: over the %s, without", object_file__name(f),
			budget_verdict_name(f->over_budget));
		for (unsigned int bit = 1, shown = 0; bit <= LEFT_OUT_LAST; bit <<= 1) {
			if (f->left_out & bit)
				fprintf(out, "%s %s", shown++ ? "," : "", left_out_name(bit));
		}
		fputc('\n', out);
	}
}

/* Processes heaptap could not trace: a report is honest about what it does not cover. */
void report_untraced_text(FILE *out, struct session *s)
{
	const struct untraced *u = session__untraced(s);
	char command[PRINTABLE_SIZE(sizeof(u->command))];

	if (!u)
		return;
	fprintf(out, "==== Not traced =====\n");
	for (; u; u = u->next)
		fprintf(out, "PID %d (%s): %s\n", u->pid,
			u->command[0] ? printable(u->command, command, sizeof(command)) : "?",
			u->reason);
}
