/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A run's processes as the report writers take them (struct target, struct
 * process_facts), filled from the database or from a collector's answer.
 */
#ifndef HEAPTAP_RUN_VIEW_H
#define HEAPTAP_RUN_VIEW_H

#include <stdint.h>
#include "run_model.h"
#include "session.h"
#include "stored_owner.h"

struct run_process {
	struct target t;
	struct process_facts facts;
	int64_t id; /* the collector's */
	char host[256];
	char state[16]; /* "agent lost", "detached", or "" */
	struct stored_owner *owner; /* who held its memory; NULL: not stored */
	/* Frees what the store gave t besides its groups (store_os.c); NULL: nothing. */
	void (*release)(struct target *t);
};

struct run_view {
	int64_t id;
	char job[256]; /* "": its processes have no job id */
	char command[512];
	enum attribution_rule rule;
	double started; /* seconds since the Epoch */
	size_t nr;
	struct run_process **processes;
	/* Built by run_view__report: */
	struct target **targets;
	struct process_facts *facts;
};

/* A new process at the end of the view (zeroed, rank -1). NULL when out of memory. */
struct run_process *run_view__add(struct run_view *v);
/* Ready for the report writers: groups sorted. 0 or -ENOMEM. */
int run_view__report(struct run_view *v, struct report_run *out);
/* Only the processes of MPI rank rank kept (report DB --rank): how many. */
size_t run_view__keep_rank(struct run_view *v, int rank);
/* Free what the view holds and empty it. */
void run_view__clear(struct run_view *v);

/* Set a process's state from its name ("running", "exited", "exec", "detached",
 * "agent lost") and how it ended (-1: unknown). */
void run_process__set_state(struct run_process *p, const char *state, int exit_status,
			    int signal);

#endif
