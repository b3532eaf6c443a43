// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>
#include "report.h"

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

	fprintf(out, "==== Statistics of overall memory usage =====\n");
	fprintf(out, "Program name: %s\n", t->command);
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
	if (pf->state)
		fprintf(out, ", %s", pf->state);
	else if (t->exec)
		fprintf(out, ", then exec'd another program");
	else if (t->exited && t->exit_known && WIFSIGNALED(t->exit_code))
		fprintf(out, ", killed by signal %d (%s)", WTERMSIG(t->exit_code),
			strsignal(WTERMSIG(t->exit_code)));
	else if (t->exited && t->exit_known)
		fprintf(out, ", exited with status %d", WEXITSTATUS(t->exit_code));
	else if (t->exited)
		fprintf(out, ", exited");
	fputc('\n', out);
	if (pf->holds_skipped)
		fprintf(out, "Not held at %" PRIu64 " exec or loader events (heaptap was slow): "
			     "stacks through what they loaded may be cut\n",
			pf->holds_skipped);
	if (pf->dropped_messages)
		fprintf(out, "Updates its agent dropped (collector unreachable, buffer full): %"
			     PRIu64 "; the balances are whole, its time series has gaps\n",
			pf->dropped_messages);
	fprintf(out, "Lost events: %" PRIu64 ", incomplete stacks: %" PRIu64, pf->lost_events,
		t->incomplete_stacks);
	if (t->unsupported_unwinds)
		fprintf(out, " (%" PRIu64 " cut at an unwind rule heaptap cannot follow)",
			t->unsupported_unwinds);
	fputc('\n', out);
	if (pf->lost_ring_full)
		fprintf(out, "Of those, %" PRIu64 " dropped with its ring full (heaptap fell behind; "
			     "the process ran on): its calls, balances and call tree are short by "
			     "them, and a block whose allocation was lost counts as freed before "
			     "tracing when it is freed\n",
			pf->lost_ring_full);
	if (!report_usable_known(t) && t->probed)
		fprintf(out, "Allocator: %s (block sizes unknown: usable = requested for %" PRIu64
			     " blocks)\n",
			t->alloc.path, t->usable_unknown);
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

static void print_budget(FILE *out, const char *what, const struct budget *b)
{
	char used[16], total[16], per_file[16];

	fprintf(out, "%s budget: %s of %s used, %s per file; files over it: %" PRIu64 "\n", what,
		budget_size_text(b->used, used, sizeof(used)),
		budget_size_text(b->limits.total, total, sizeof(total)),
		budget_size_text(b->limits.per_file, per_file, sizeof(per_file)), b->files_refused);
}

/* What unwinding through each file cost: rows in BPF maps, and the time to build them. */
static void print_unwind_tables(FILE *out, struct session *s)
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
static void print_symbol_budget(FILE *out, struct session *s)
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

void report_text_processes(FILE *out, struct session *s)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);

	fprintf(out, "heaptap report (attribution: %s)\n", attribution_rule_name(session__rule(s)));
	for (size_t i = 0; i < n; i++) {
		struct process_facts pf = {
			.lost_events = session__lost_events(s, targets[i]),
			.holds_skipped = session__holds_skipped(s, targets[i]),
			.lost_ring_full = session__kernel_losses(s, targets[i]).ringbuf_full,
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

/* Processes heaptap could not trace: a report is honest about what it does not cover. */
static void print_untraced(FILE *out, struct session *s)
{
	const struct untraced *u = session__untraced(s);

	if (!u)
		return;
	fprintf(out, "==== Not traced =====\n");
	for (; u; u = u->next)
		fprintf(out, "PID %d (%s): %s\n", u->pid, u->command[0] ? u->command : "?",
			u->reason);
}

void report_text(FILE *out, struct session *s)
{
	report_text_processes(out, s);
	print_untraced(out, s);
	print_unwind_tables(out, s);
	print_symbol_budget(out, s);
	fflush(out);
}
