/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The agent's link to the collector: every interval, what changed in each traced process
 * since its last message (only the groups that changed, with their full values), queued
 * as numbered batches until the collector acknowledges them. The queue is bounded; when
 * the collector is away it reconnects with backoff and sends again what was not
 * acknowledged. A batch dropped from a full queue is counted, and the next one carries
 * every group again, so that the stored balances stay whole.
 */
#ifndef HEAPTAP_AGENT_H
#define HEAPTAP_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include "attribution.h"
#include "auth.h"
#include "munge_cred.h"
#include "session.h"

/* Bytes of unacknowledged batches an agent keeps by default. */
#define AGENT_BUFFER_DEFAULT (64u << 20)

struct agent_opts {
	const char *collector;	    /* HOST:PORT */
	const struct auth_key *key; /* len 0: none */
	struct munge_opts munge;    /* on: prove who runs it with a MUNGE credential */
	size_t buffer_limit;	    /* bytes of unacknowledged batches */
	enum attribution_rule rule;
	const char *description;    /* its run's command when the ranks have no job id */
};

struct agent;

int agent__new(const struct agent_opts *opts, struct agent **out);
void agent__free(struct agent *a);
/* This node's name, as the collector stores it. */
const char *agent__host(const struct agent *a);

/*
 * Queue what changed in s's targets since the last call: final reports of those that
 * ended; with detach_live, those still running end as detached. 0 or -ENOMEM.
 */
int agent__snapshot(struct agent *a, struct session *s, bool detach_live);
/* Connect, handshake, send and read acks: whatever the socket allows, without blocking. */
void agent__pump(struct agent *a);
/* Wait up to timeout_ms for the socket, then pump. */
void agent__wait(struct agent *a, int timeout_ms);
/* Is every queued batch acknowledged? */
bool agent__drained(const struct agent *a);
/* Say goodbye (when drained) and close. */
void agent__goodbye(struct agent *a);
/* What is not delivered: batches queued or dropped, and their bytes. */
void agent__undelivered(const struct agent *a, size_t *batches, size_t *bytes,
			size_t *dropped);

#endif
