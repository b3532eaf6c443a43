/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What collector.c (sockets, the loop), collector_conn.c (the protocol) and
 * collector_round.c (rounds, acknowledgements, output) share.
 */
#ifndef HEAPTAP_COLLECTOR_INTERNAL_H
#define HEAPTAP_COLLECTOR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "collector.h"
#include "net.h"
#include "store.h"
#include "wire.h"

#include "metrics.h"

enum conn_state { CONN_HELLO, CONN_AUTH, CONN_READY };

struct conn {
	int fd;
	enum conn_state state;
	bool viewer;
	bool closing;	/* close once its output is sent */
	bool goodbye;
	char peer[NET_NAME_SIZE];
	bool dead;	/* closed: freed at the end of the loop's turn */
	char host[256];	/* the agent's, from its hello */
	char command[512], attribution[16];
	int pid;
	uint64_t uid;	/* the agent's id */
	int64_t agent;	/* its row in the database */
	uint8_t client_nonce[WIRE_NONCE_SIZE], nonce[WIRE_NONCE_SIZE];
	struct wire_reader reader;
	double opened, last_message, frame_started;
	uint64_t ack_seq; /* stored in the round under way: acknowledged at its commit */
	uint8_t *out;	  /* bytes not yet sent */
	size_t out_len, out_sent;
	struct conn *next_ack; /* in the round's list of connections to acknowledge */
	struct conn *prev, *next;
};

struct collector {
	const struct collector_opts *opts;
	struct store *store;
	int epfd, listen_fd;
	struct conn *conns;
	unsigned int nr_agents;
	bool in_round;	      /* a transaction is open */
	bool round_urgent;    /* an agent waits for its acknowledgement to finish */
	double round_started; /* monotonic */
	struct conn *to_ack;
	uint64_t refused, auth_failures, decode_errors, messages, bytes;
	struct metrics *metrics;
};

/* collector_conn.c: a message from conn; nonzero: close it (reason logged). */
int collector_handle(struct collector *c, struct conn *conn, wire_msg *msg);
/* collector_round.c: send what conn has pending; wait for EPOLLOUT if the socket is full. */
void collector_flush_output(struct collector *c, struct conn *conn);
/* Queue a message on conn (sent as the socket allows). 0 or -errno. */
int collector_send(struct collector *c, struct conn *conn, const wire_msg *msg);
/* Close conn now, with one line saying why (NULL: quietly). */
void collector_close(struct collector *c, struct conn *conn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Open a round (a transaction) unless one is. 0 or -EIO. */
int collector_begin_round(struct collector *c);
/* Commit the round under way and acknowledge what it stored. */
void collector_end_round(struct collector *c);
/* Roll it back: its agents are cut off, and send their batches again. */
void collector_abort_round(struct collector *c);
/* Seconds since the Epoch, as the database records them. */
double collector_now(void);

#endif
