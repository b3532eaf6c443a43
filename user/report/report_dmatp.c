// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * DMATP's layout of the text report (--dmatp, top -b, a stored run's processes): overall,
 * per thread, per library, per function within its library, each with mem_size, mem_min,
 * mem_max and every call count; then the owner, allocator and mappings sections. Scripts
 * read it: it stays as it is, byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "report.h"
#include "printable.h"

static void print_balance(FILE *out, const char *indent, const struct balance *b)
{
	fprintf(out, "%smem_size = %" PRId64 ", mem_min = %" PRId64 ", mem_max = %" PRId64
		     ", requested = %" PRIu64 "\n",
		indent, b->current, b->min, b->max, b->requested);
	fputs(indent, out);
	/* Every entry point, in one order, whether called or not: the same columns everywhere. */
	for (int f = 0; f < HT_NR_FUNCS; f++)
		fprintf(out, "%s%s: %" PRIu64, f ? ", " : "", ht_func_names[f], b->calls[f]);
	fputc('\n', out);
}

static void print_process(FILE *out, const struct target *t, const struct process_facts *pf)
{
	const struct thread_stats *th, *tht;
	const struct library_stats *l, *lt;
	const struct function_stats *f, *ft;
	char command[PRINTABLE_SIZE(sizeof(t->command))];

	fprintf(out, "==== Statistics of overall memory usage =====\n");
	fprintf(out, "Program name: %s\n", printable(t->command, command, sizeof(command)));
	fprintf(out, "PID: %d", t->pid);
	if (t->mpi.rank >= 0)
		fprintf(out, ", rank: %d", t->mpi.rank);
	if (t->mpi.world_size >= 0)
		fprintf(out, " of %d", t->mpi.world_size);
	if (t->mpi.local_rank >= 0)
		fprintf(out, ", local rank: %d", t->mpi.local_rank);
	if (t->mpi.job[0])
		fprintf(out, ", job: %s", t->mpi.job);
	if (pf->host)
		fprintf(out, ", host: %s", pf->host);
	report_ending_text(out, t, pf, false);
	fputc('\n', out);
	report_tracing_notes(out, pf);
	fprintf(out, "Lost events: %" PRIu64 ", incomplete stacks: %" PRIu64, pf->lost_events,
		t->incomplete_stacks);
	if (t->unsupported_unwinds)
		fprintf(out, " (%" PRIu64 " cut at an unwind rule heaptap cannot follow)",
			t->unsupported_unwinds);
	fputc('\n', out);
	report_allocator_note(out, t);
	print_balance(out, "", &t->stats.total);

	fprintf(out, "----- Statistics of individual thread memory usage -----\n");
	HASH_ITER(hh, t->stats.threads, th, tht) {
		fprintf(out, "Thread ID: %u (%s)\n", th->tid, th->name);
		print_balance(out, "", &th->bal);
	}

	fprintf(out, "----- Statistics of individual library memory usage -----\n");
	HASH_ITER(hh, t->stats.libraries, l, lt) {
		fprintf(out, "Library: %s\n", l->library);
		print_balance(out, "", &l->bal);
		fprintf(out, "----- Statistics of individual function memory usage -----\n");
		HASH_ITER(hh, t->stats.functions, f, ft) {
			if (strcmp(f->library, l->library))
				continue;
			fprintf(out, "  Function: %s\n", f->function);
			print_balance(out, "  ", &f->bal);
		}
	}
	report_owner_text(out, t);
	report_allocators_text(out, t);
	if (pf->owner) /* a stored run's process */
		stored_owner__text(out, pf->owner, t->probed ? t->alloc.path : NULL);
	report_mappings_text(out, &t->mappings);
}

void report_text_processes(FILE *out, struct session *s)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);

	fprintf(out, "heaptap report (attribution: %s)\n", attribution_rule_name(session__rule(s)));
	for (size_t i = 0; i < n; i++) {
		struct process_facts pf = {
			.lost_events = session__lost_events(s, targets[i]),
			.holds_skipped = session__holds_skipped(s, targets[i]),
		};

		print_process(out, targets[i], &pf);
	}
	fflush(out);
}

void report_text_process(FILE *out, const struct target *t, const struct process_facts *pf)
{
	print_process(out, t, pf);
}

void report_text_run(FILE *out, const struct report_run *run)
{
	fprintf(out, "heaptap report (attribution: %s)\n", attribution_rule_name(run->rule));
	fprintf(out, "Run %" PRId64 "%s%s: %zu process%s\n", run->id, run->job ? ", job " : "",
		run->job ? run->job : "", run->nr, run->nr == 1 ? "" : "es");
	for (size_t i = 0; i < run->nr; i++)
		print_process(out, run->targets[i], &run->facts[i]);
	fflush(out);
}

void report_dmatp(FILE *out, struct session *s)
{
	report_text_processes(out, s);
	report_untraced_text(out, s);
	report_unwind_tables_text(out, s);
	report_symbols_text(out, s);
	fflush(out);
}
