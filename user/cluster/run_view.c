// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run_view.h"

struct run_process *run_view__add(struct run_view *v)
{
	struct run_process **grown, *p;

	grown = realloc(v->processes, (v->nr + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	v->processes = grown;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->t.mpi.rank = p->t.mpi.world_size = p->t.mpi.local_rank = -1;
	v->processes[v->nr++] = p;
	return p;
}

void run_process__set_state(struct run_process *p, const char *state, int exit_status,
			    int signal)
{
	struct target *t = &p->t;

	t->exec = !strcmp(state, "exec");
	t->exited = t->exec || !strcmp(state, "exited");
	t->exit_known = t->exited && (exit_status >= 0 || signal > 0);
	/* A wait status, as the report writers read it. */
	t->exit_code = signal > 0 ? signal : exit_status >= 0 ? (exit_status & 0xff) << 8 : 0;
	p->state[0] = '\0';
	if (!strcmp(state, "agent lost") || !strcmp(state, "detached"))
		snprintf(p->state, sizeof(p->state), "%s", state);
}

int run_view__report(struct run_view *v, struct report_run *out)
{
	free(v->targets);
	free(v->facts);
	v->targets = calloc(v->nr ? v->nr : 1, sizeof(*v->targets));
	v->facts = calloc(v->nr ? v->nr : 1, sizeof(*v->facts));
	if (!v->targets || !v->facts)
		return -ENOMEM;
	for (size_t i = 0; i < v->nr; i++) {
		struct run_process *p = v->processes[i];

		accountant__sort(&p->t.stats);
		v->targets[i] = &p->t;
		v->facts[i] = p->facts;
		v->facts[i].host = p->host;
		v->facts[i].state = p->state[0] ? p->state : NULL;
		v->facts[i].owner = p->owner;
		if (p->owner && p->owner->oom_killed) { /* the reports' headings say so */
			p->t.oom.killed = true;
			p->t.oom.seconds = p->owner->oom_time;
			p->t.oom.bytes = p->owner->oom_bytes;
			p->t.oom.blocks = p->owner->oom_blocks;
		}
	}
	*out = (struct report_run){
		.rule = v->rule,
		.id = v->id,
		.job = v->job[0] ? v->job : NULL,
		.nr = v->nr,
		.targets = v->targets,
		.facts = v->facts,
	};
	return 0;
}

static void run_process_free(struct run_process *p)
{
	accountant__clear(&p->t.stats);
	stored_owner__free(p->owner);
	if (p->release)
		p->release(&p->t);
	free(p);
}

size_t run_view__keep_rank(struct run_view *v, int rank)
{
	size_t kept = 0;

	for (size_t i = 0; i < v->nr; i++) {
		struct run_process *p = v->processes[i];

		if (p->t.mpi.rank == rank) {
			v->processes[kept++] = p;
			continue;
		}
		run_process_free(p);
	}
	v->nr = kept;
	return kept;
}

void run_view__clear(struct run_view *v)
{
	for (size_t i = 0; i < v->nr; i++)
		run_process_free(v->processes[i]);
	free(v->processes);
	free(v->targets);
	free(v->facts);
	memset(v, 0, sizeof(*v));
}
