/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What agent.c (the connection, the queue) and agent_batch.c (the diffs) share. */
#ifndef HEAPTAP_AGENT_INTERNAL_H
#define HEAPTAP_AGENT_INTERNAL_H

#include <stdint.h>
#include <uthash.h>
#include "agent.h"
#include "net.h"
#include "wire.h"

/* A batch encoded, waiting for its ack. */
struct pending {
	uint64_t seq;
	size_t len;
	struct pending *next;
	uint8_t frame[];
};

/* What the collector was last sent of one traced process image. */
struct sent {
	uint64_t serial; /* the session's number for it: the key on the wire */
	bool identity;	 /* its identity went out (since the last drop) */
	bool final;	 /* its last message went out: nothing more to send */
	Heaptap__State state;
	uint64_t lost_events, incomplete_stacks, holds_skipped, unsupported_unwinds;
	struct process_stats stats; /* the groups as sent */
	uint64_t owner_digest;	    /* of the Owner as sent (0: none yet) */
	double owner_sent_at;	    /* agent_mono() then */
	uint64_t mappings_digest;   /* of the Mappings as sent (0: none yet) */
	uint64_t allocators_digest; /* of the AllocatorApis as sent (0: none yet) */
	double os_sent_at;	    /* agent_mono() when either went */
	UT_hash_handle hh;
};

enum link_state { LINK_DOWN, LINK_CONNECTING, LINK_HANDSHAKE, LINK_READY };

struct agent {
	struct agent_opts opts;
	uint64_t id;
	char host[256], description[512];
	/* the queue */
	struct pending *head, *tail, *cursor; /* cursor: the next to send */
	size_t cursor_off, queued_bytes, queued;
	uint64_t next_seq, dropped;
	struct sent *sent;
	/* the link */
	enum link_state state;
	int fd;
	uint8_t nonce[WIRE_NONCE_SIZE];
	struct wire_reader reader;
	double next_attempt, backoff, last_sent;
	unsigned int heartbeat;
	bool said_unreachable, said_refused, ever_connected;
	uint8_t *out; /* the handshake's messages under way */
	size_t out_len, out_sent;
};

/* agent.c: queue one encoded batch (the queue owns it). */
void agent_queue(struct agent *a, struct pending *p);
/* Forget what was sent of every process: the next batch carries everything. */
void agent_forget_sent(struct agent *a);
double agent_mono(void);

#endif
