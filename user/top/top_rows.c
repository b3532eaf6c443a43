// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "printable.h"
#include "top_rows.h"

struct calls_seen {
	pid_t pid;
	uint64_t allocs, frees;
};

struct top_rows {
	struct calls_seen *seen;
	size_t nr;
	double last;
};

static double monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t total_calls(const struct balance *b)
{
	uint64_t n = 0;

	for (int f = 0; f < HT_NR_FUNCS; f++)
		n += b->calls[f];
	return n;
}

struct top_rows *top_rows__new(void)
{
	return calloc(1, sizeof(struct top_rows));
}

void top_rows__free(struct top_rows *r)
{
	if (r)
		free(r->seen);
	free(r);
}

static struct calls_seen *seen_of(struct top_rows *r, pid_t pid)
{
	struct calls_seen *grown;

	for (size_t i = 0; i < r->nr; i++) {
		if (r->seen[i].pid == pid)
			return &r->seen[i];
	}
	grown = realloc(r->seen, (r->nr + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	r->seen = grown;
	r->seen[r->nr] = (struct calls_seen){ .pid = pid };
	return &r->seen[r->nr++];
}

/* Ranks in order, then the processes without one; pids within. */
static int by_rank(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a, *y = *(struct target *const *)b;
	unsigned xr = x->mpi.rank, yr = y->mpi.rank; /* -1: after every rank */

	if (xr != yr)
		return xr < yr ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void top_rows__print(struct top_rows *r, FILE *out, struct session *s)
{
	struct target **targets, **sorted;
	size_t n = session__targets(s, &targets), live = 0;
	double t = monotonic_now(), dt = r->last ? t - r->last : 0;
	uint64_t lost = 0;
	char clock[16] = "";
	time_t wall = time(NULL);
	struct tm tm;

	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return;
	memcpy(sorted, targets, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_rank);
	for (size_t i = 0; i < n; i++) {
		live += !sorted[i]->exited;
		lost += session__lost_events(s, sorted[i]);
	}
	if (localtime_r(&wall, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	fprintf(out, "heaptap top %s: %zu processes (%zu live), lost events %" PRIu64 "\n", clock,
		n, live, lost);
	fprintf(out, "%5s %8s %12s %12s %10s %10s %12s %-7s  %s\n", "RANK", "PID", "CURRENT",
		"MAX", "ALLOC/s", "FREE/s", "CALLS", "STATE", "COMMAND");
	for (size_t i = 0; i < n; i++) {
		const struct target *tg = sorted[i];
		const struct balance *b = &tg->stats.total;
		uint64_t calls = total_calls(b), frees = b->calls[HT_FREE];
		struct calls_seen *seen = seen_of(r, tg->pid);
		double alloc_rate = 0, free_rate = 0;
		char rank[16] = "-", command[PRINTABLE_SIZE(sizeof(tg->command))];

		/* Rates over the time since the last snapshot; none in the first. */
		if (seen && dt > 0) {
			alloc_rate = (calls - frees - seen->allocs) / dt;
			free_rate = (frees - seen->frees) / dt;
		}
		if (seen) {
			seen->allocs = calls - frees;
			seen->frees = frees;
		}
		if (tg->mpi.rank >= 0)
			snprintf(rank, sizeof(rank), "%d", tg->mpi.rank);
		fprintf(out, "%5s %8d %12" PRId64 " %12" PRId64 " %10.0f %10.0f %12" PRIu64
			     " %-7s  %s\n",
			rank, tg->pid, b->current, b->max, alloc_rate, free_rate, calls,
			tg->oom.killed ? "OOM-killed" : tg->exited ? "exited" : "running",
			printable(tg->command, command, sizeof(command)));
	}
	fputc('\n', out);
	fflush(out);
	r->last = t;
	free(sorted);
}
