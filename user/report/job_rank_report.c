// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* One rank of a job read back, as its own report: the report writers' target rebuilt. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "job_input.h"
#include "report.h"

/* r's figures as a target the report writers take (its groups sorted). 0 or -ENOMEM. */
static int fill_target(struct target *t, const struct job *j, const struct job_rank *r)
{
	int err = 0;

	t->pid = r->pid;
	t->mpi.rank = j->mpi ? r->rank : -1;
	t->mpi.world_size = r->world_size;
	t->mpi.local_rank = r->local_rank;
	snprintf(t->mpi.job, sizeof(t->mpi.job), "%s", r->job ? r->job : "");
	snprintf(t->command, sizeof(t->command), "%s", r->command);
	t->exited = r->exited;
	/* A wait status, as the report writers read it. */
	t->exit_known = r->exited && (r->exit_status >= 0 || r->signal > 0);
	t->exit_code = r->signal > 0 ? r->signal : r->exit_status >= 0 ? (r->exit_status & 0xff) << 8 : 0;
	t->incomplete_stacks = r->incomplete_stacks;
	t->stats.total = r->total;
	for (size_t i = 0; i < r->nr_threads && !err; i++)
		err = accountant__set_thread(&t->stats, (uint32_t)r->threads[i].tid,
					     r->threads[i].name, &r->threads[i].bal);
	for (size_t i = 0; i < r->nr_libraries && !err; i++)
		err = accountant__set_library(&t->stats, r->libraries[i].library,
					      &r->libraries[i].bal);
	for (size_t i = 0; i < r->nr_functions && !err; i++)
		err = accountant__set_function(&t->stats, r->functions[i].library,
					       r->functions[i].function, &r->functions[i].bal);
	if (!err)
		accountant__sort(&t->stats);
	return err;
}

int job_rank_report(FILE *out, const struct job *j, const struct job_rank *r, bool json)
{
	struct target *t = calloc(1, sizeof(*t));
	struct process_facts pf = { .lost_events = r->lost_events, .host = r->host };
	const struct process_facts *facts = &pf;
	struct report_run run = {
		.rule = strcmp(j->attribution, "caller") ? ATTRIBUTE_ENTRY : ATTRIBUTE_CALLER,
		.id = j->run,
		.job = r->job,
		.nr = 1,
		.targets = &t,
		.facts = facts,
	};
	int err = t ? fill_target(t, j, r) : -ENOMEM;

	if (!err && json) {
		report_json_run(out, &run, false);
	} else if (!err) {
		fprintf(out, "heaptap report %s, %s %d (attribution: %s)\n",
			r->source ? r->source : "of a database", j->mpi ? "rank" : "process",
			r->rank, j->attribution);
		report_text_process(out, t, &pf);
		fflush(out);
	}
	if (t)
		accountant__clear(&t->stats);
	free(t);
	return err;
}
