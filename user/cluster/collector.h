/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The collector: accepts agents and viewers (epoll, non-blocking), stores what agents send
 * (a transaction per round of batches, acknowledged once committed, each group written
 * once per round), answers queries, and
 * marks agents gone without a goodbye as lost. Closes any connection that breaks the
 * protocol, with one logged line; the others go on.
 */
#ifndef HEAPTAP_COLLECTOR_H
#define HEAPTAP_COLLECTOR_H

#include <signal.h>
#include "auth.h"
#include "munge_cred.h"

struct collector_opts {
	const char *listen;	    /* ADDR:PORT (port 0: any free one) */
	const char *db_path;
	const char *metrics_listen; /* NULL: no Prometheus endpoint */
	const struct auth_key *key; /* len 0: agents need no key */
	struct munge_opts munge;    /* on: agents need a MUNGE credential too */
	double client_timeout;	    /* s: a handshake, a frame begun, or silence */
	double lost_after;	    /* s without its agent before a process is "agent lost" */
	double commit_every;	    /* s: a round's length, what an acknowledgement may wait */
};

/* Serve until *stop. heaptap's exit status. */
int collector__run(const struct collector_opts *opts, volatile sig_atomic_t *stop);

#endif
