// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "accountant.h"
#include "agent_metrics.h"

static struct metrics_who who_of(const struct target *t, const char *host)
{
	return (struct metrics_who){ t->mpi.job, host, t->mpi.rank, t->pid };
}

void agent_metrics__update(struct metrics *m, struct session *s, const char *host)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);

	/* Ended images first: a pid's new image (after exec) keeps the series. */
	for (size_t i = 0; i < n; i++) {
		const struct target *t = targets[i];
		struct metrics_who who = who_of(t, host);

		if (!t->untraced && (t->exited || t->exec))
			metrics__forget_process(m, &who);
	}
	for (size_t i = 0; i < n; i++) {
		const struct target *t = targets[i];
		struct metrics_who who = who_of(t, host);
		struct library_stats *lib, *tmp;

		if (t->untraced || t->exited || t->exec || !t->probed)
			continue;
		metrics__set_process(m, &who, t->stats.total.current, t->stats.total.max,
				     t->stats.total.calls);
		HASH_ITER(hh, t->stats.libraries, lib, tmp)
			metrics__set_library(m, &who, lib->library, lib->bal.current);
	}
}
