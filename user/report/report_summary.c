// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The top of a process's text report, the answer first: its peak and when, the sites that
 * held it, what it still held at the end and which sites look like leaks, its calls, and
 * what the figures miss (lost events, incomplete stacks). At most a dozen lines.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "attribution.h"
#include "human_bytes.h"
#include "report.h"
#include "printable.h"

/* Sites named under the peak, and under what is still held: the rest are in the tables. */
#define PEAK_SITES 3
#define HELD_SITES 2
/* Frames of a site's chain: enough to tell insert < tree_worker from its neighbours. */
#define CHAIN_FRAMES 4

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * "insert < tree_worker (demo)": the site's frames from the innermost outside the
 * allocator outwards, to main or a thread's start, each run of one library followed by
 * its name.
 */
static void print_chain(FILE *out, const struct stack_record *r, const char *allocator)
{
	size_t i = 1, shown = 0;

	if (!r || !r->nr) {
		fputs("(stack not recorded)", out);
		return;
	}
	while (i < r->nr && allocator && !strcmp(r->frames[i].library, allocator))
		i++;
	for (; i < r->nr; i++) {
		const struct stack_frame *f = &r->frames[i];
		bool last = i + 1 == r->nr || !strcmp(f->function, "main") ||
			    is_startup_symbol(r->frames[i + 1].function);

		if (shown == CHAIN_FRAMES) {
			fputs(" < ...", out);
			return;
		}
		fprintf(out, "%s%s", shown++ ? " < " : "", f->function);
		/* A run of one library ends here, or the chain is cut after it. */
		if (last || shown == CHAIN_FRAMES || strcmp(f->library, r->frames[i + 1].library))
			fprintf(out, " (%s)", base_name(f->library));
		if (last)
			return;
	}
	if (!shown) /* every frame is the allocator's: it allocated for itself */
		fprintf(out, "%s (%s)", r->frames[0].function, base_name(r->frames[0].library));
}

/*
 * growth: a likely leak's bytes per second, said on its line; NULL: not one. stderr: a
 * sampled estimate's standard error, said as "± X"; NULL: exact.
 */
static void print_site(FILE *out, const struct owner_site *s, uint64_t blocks, uint64_t bytes,
		       const double *growth, const double *stderr_bytes, const char *allocator,
		       const struct text_opts *o)
{
	char size[32], count[32], rate[32], error[32];

	fprintf(out, "%12s", size_text((int64_t)bytes, o->bytes, size, sizeof(size)));
	if (stderr_bytes)
		fprintf(out, " ± %s", size_text((int64_t)*stderr_bytes, o->bytes, error,
						sizeof(error)));
	fprintf(out, " in %s block%s", grouped_count(blocks, count, sizeof(count)),
		blocks == 1 ? "" : "s");
	if (growth)
		fprintf(out, ", likely leak growing %s/s",
			size_text((int64_t)*growth, o->bytes, rate, sizeof(rate)));
	fputs(": ", out);
	print_chain(out, s->record, allocator);
	fputc('\n', out);
}

/* "PID 25551, rank 0 of 2: ./app, exited with status 0" */
static void print_heading(FILE *out, const struct target *t, const struct process_facts *pf)
{
	char command[PRINTABLE_SIZE(sizeof(t->command))];

	fprintf(out, "==== PID %d", t->pid);
	if (t->mpi.rank >= 0)
		fprintf(out, ", rank %d", t->mpi.rank);
	if (t->mpi.rank >= 0 && t->mpi.world_size >= 0)
		fprintf(out, " of %d", t->mpi.world_size);
	fprintf(out, ": %s", printable(t->command, command, sizeof(command)));
	if (!report_ending_text(out, t, pf, true))
		fprintf(out, ", still running");
	fprintf(out, " ====\n");
}

/*
 * Attached to a running process: what heaptap saw move, and what it knows was there
 * before (the frees of blocks it never saw allocated), on one line.
 */
static void print_since_attaching(FILE *out, const struct target *t, const struct text_opts *o)
{
	const struct owner *ow = &t->owner;
	const struct unknown_frees *before = &ow->freed_before_tracing;
	char held[32], blocks[32], freed[32], calls[32], net[32];

	fprintf(out, "Since attaching: %s in %s blocks allocated and still held",
		size_text((int64_t)ow->bytes, o->bytes, held, sizeof(held)),
		grouped_count(ow->blocks, blocks, sizeof(blocks)));
	if (!before->calls) {
		fprintf(out, "; no block from before freed; net change %s\n",
			size_text(t->stats.total.current, o->bytes, net, sizeof(net)));
		return;
	}
	if (before->bytes_known)
		fprintf(out, "; %s in %s blocks freed that were there before: net change %s\n",
			size_text((int64_t)before->bytes, o->bytes, freed, sizeof(freed)),
			grouped_count(before->calls, calls, sizeof(calls)),
			size_text(t->stats.total.current, o->bytes, net, sizeof(net)));
	else
		fprintf(out, "; %s blocks freed that were there before (their sizes unknown to "
			     "this allocator)\n",
			grouped_count(before->calls, calls, sizeof(calls)));
}

static void print_peak(FILE *out, const struct target *t, const struct text_opts *o)
{
	const struct owner *ow = &t->owner;
	const char *allocator = t->probed ? t->alloc.path : NULL;
	char size[32], blocks[32];
	uint32_t nr, shown = 0, *order;

	if (!ow->peak_bytes) {
		fprintf(out, "Peak: %s (no block allocated while traced)\n",
			size_text(t->stats.total.max, o->bytes, size, sizeof(size)));
		return;
	}
	fprintf(out, "Peak: %s in %s blocks, %.1f s into tracing; %s\n",
		size_text((int64_t)ow->peak_bytes, o->bytes, size, sizeof(size)),
		grouped_count(ow->peak_blocks, blocks, sizeof(blocks)), t->peak_seconds,
		ow->sites_dropped ? "its sites were dropped to keep ended processes within "
				    "--tree-budget" : "held by:");
	order = ow->sites_dropped ? NULL : owner__by_peak(ow, &nr);
	for (uint32_t i = 0; order && i < nr && shown < PEAK_SITES; i++) {
		const struct owner_site *s = &ow->sites[order[i]];
		uint64_t n = owner_site__peak_blocks(ow, s);

		if (!n)
			continue; /* sorted by bytes: a site of empty blocks may follow */
		print_site(out, s, n, owner_site__peak_bytes(ow, s), NULL, NULL, allocator, o);
		shown++;
	}
	free(order);
}

/*
 * "Killed by the OOM killer 12.30 s into tracing, holding 120 MiB in 30 blocks (cgroup
 * /job_7: 128 MiB of its limit 128 MiB):" and the sites that held the most then.
 */
static void print_oom(FILE *out, const struct target *t, const struct text_opts *o)
{
	const struct oom_record *r = &t->oom;
	const struct cgroup_memory *cg = &r->cgroup;
	const char *allocator = t->probed ? t->alloc.path : NULL;
	char size[32], blocks[32], usage[32], limit[32];

	fprintf(out, "Killed by the OOM killer at %.2f s into tracing, holding %s in %s blocks",
		r->seconds, size_text((int64_t)r->bytes, o->bytes, size, sizeof(size)),
		grouped_count(r->blocks, blocks, sizeof(blocks)));
	if (cg->version && cg->usage_known)
		fprintf(out, " (memory cgroup %s: %s used, limit %s)", cg->path,
			size_text((int64_t)cg->usage, o->bytes, usage, sizeof(usage)),
			cg->limit ? size_text((int64_t)cg->limit, o->bytes, limit, sizeof(limit)) :
				    "none");
	fprintf(out, "%s\n", r->nr_sites && !t->owner.sites_dropped ? "; held by:" : "");
	for (uint32_t i = 0; !t->owner.sites_dropped && i < r->nr_sites && i < PEAK_SITES; i++)
		print_site(out, &t->owner.sites[r->sites[i].site], r->sites[i].blocks,
			   r->sites[i].bytes, NULL, NULL, allocator, o);
}

static void print_held(FILE *out, const struct target *t, const struct text_opts *o)
{
	const struct owner *ow = &t->owner;
	const char *allocator = t->probed ? t->alloc.path : NULL;
	char size[32], blocks[32];
	uint32_t nr, leaks = 0, *order = ow->sites_dropped ? NULL : owner__by_outstanding(ow, &nr);

	for (uint32_t i = 0; order && i < nr && ow->sites[order[i]].blocks; i++)
		leaks += leak_series__verdict(ow->sites[order[i]].series).likely_leak;
	fprintf(out, "At the end: %s in %s block%s still held",
		size_text((int64_t)ow->bytes, o->bytes, size, sizeof(size)),
		grouped_count(ow->blocks, blocks, sizeof(blocks)), ow->blocks == 1 ? "" : "s");
	if (leaks)
		fprintf(out, "; %u likely leak%s (growing all along)", leaks,
			leaks == 1 ? "" : "s");
	else if (ow->blocks)
		fprintf(out, "; no likely leak");
	fprintf(out, "%s\n", ow->blocks && order ? ":" : "");
	for (uint32_t i = 0, shown = 0; order && i < nr && shown < HELD_SITES; i++) {
		const struct owner_site *s = &ow->sites[order[i]];
		struct leak_verdict v = leak_series__verdict(s->series);
		double error = s->variance > 0 ? sqrt(s->variance) : 0;

		if (!s->blocks)
			break;
		/* The leaks first: a large block held since the start is not the news. */
		if (leaks && !v.likely_leak)
			continue;
		print_site(out, s, s->blocks, s->bytes,
			   v.likely_leak ? &v.growth_bytes_per_second : NULL,
			   ow->sample_bytes ? &error : NULL, allocator, o);
		shown++;
	}
	free(order);
}

/* "Calls: 124,005 (calloc 60,001, free 60,003...); lost events: 0, incomplete stacks: 0" */
static void print_calls(FILE *out, const struct target *t, const struct process_facts *pf)
{
	const struct balance *b = &t->stats.total;
	uint64_t all = 0;
	char n[32];

	for (int f = 0; f < HT_NR_FUNCS; f++)
		all += b->calls[f];
	fprintf(out, "Calls: %s", grouped_count(all, n, sizeof(n)));
	for (int f = 0, shown = 0; f < HT_NR_FUNCS; f++) {
		if (b->calls[f])
			fprintf(out, "%s%s %s", shown++ ? ", " : " (", ht_func_names[f],
				grouped_count(b->calls[f], n, sizeof(n)));
	}
	fprintf(out, "%s; lost events: %s", all ? ")" : "",
		grouped_count(pf->lost_events, n, sizeof(n)));
	fprintf(out, ", incomplete stacks: %s", grouped_count(t->incomplete_stacks, n, sizeof(n)));
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
}

/* The blocks past --live-blocks: counted in the balances, not in the sites above. */
static void print_over_limit(FILE *out, const struct target *t, const struct text_opts *o)
{
	struct live_blocks_losses over;
	char n[32], size[32];

	if (!t->owner.live)
		return;
	over = live_blocks__over_limit(t->owner.live);
	if (over.blocks)
		fprintf(out, "Past the limit of %zu live blocks (--live-blocks): %s blocks, %s not "
			     "attributed to their sites; their frees count as freed before "
			     "tracing\n",
			live_blocks__limit(t->owner.live), grouped_count(over.blocks, n, sizeof(n)),
			size_text((int64_t)over.bytes, o->bytes, size, sizeof(size)));
}

void report_summary_text(FILE *out, const struct target *t, const struct process_facts *pf,
			 const struct text_opts *o)
{
	char peak[32], end[32];

	print_heading(out, t, pf);
	if (t->owner.sample_bytes)
		fprintf(out, "Sampled by bytes (--sample-bytes %s): bytes, blocks and calls are "
			     "estimates%s\n",
			size_text((int64_t)t->owner.sample_bytes, false, peak, sizeof(peak)),
			report_thread_calls_exact(t, pf) ? ", but each thread's calls (and the process's) "
						       "are counted exactly" : "");
	if (t->owner.live && o->attached)
		print_since_attaching(out, t, o);
	if (t->oom.killed)
		print_oom(out, t, o);
	if (t->owner.live) {
		print_peak(out, t, o);
		print_held(out, t, o);
	} else {
		/* No table of live blocks (out of memory): the balance is all there is. */
		fprintf(out, "Peak: %s; at the end: %s (no allocation sites: heaptap ran out of "
			     "memory for them)\n",
			size_text(t->stats.total.max, o->bytes, peak, sizeof(peak)),
			size_text(t->stats.total.current, o->bytes, end, sizeof(end)));
	}
	print_calls(out, t, pf);
	print_over_limit(out, t, o);
}
