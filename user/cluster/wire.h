/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The wire: frames of the protocol in proto/heaptap.proto (an 8-byte header: "HT", the
 * version, 0, the length big-endian; then one protobuf Envelope). Reading trusts nothing:
 * every way a stream can be wrong ends it with one reason.
 */
#ifndef HEAPTAP_WIRE_H
#define HEAPTAP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "heaptap.pb-c.h"

#define WIRE_VERSION 1
#define WIRE_HEADER_SIZE 8
/* The largest Envelope: agents split their batches well below it. */
#define WIRE_MAX_MESSAGE (4u << 20)
/* The largest before the peer has authenticated: a Hello or an Auth. */
#define WIRE_MAX_GREETING 4096u
/* Memory one decoded message may take: protobuf structs are larger than their bytes. */
#define WIRE_MAX_DECODED (96u << 20)
/* Limits on what a message may say, beyond its size. */
#define WIRE_MAX_STRING 4096u
#define WIRE_NONCE_SIZE 32u
/* An Owner's lists (outstanding, peak): sites each, and frames a site. */
#define WIRE_MAX_OWNER_SITES 50u
#define WIRE_MAX_SITE_FRAMES 128u

typedef Heaptap__Envelope wire_msg;

/* One stream's frames, as its bytes come. */
struct wire_reader {
	uint8_t header[WIRE_HEADER_SIZE];
	size_t have;	/* bytes of the frame under way (header included) */
	uint32_t length; /* its Envelope's length, once the header is in */
	uint8_t *body;	/* the Envelope's bytes so far, grown as they come */
	size_t body_cap;
	uint32_t limit; /* largest Envelope accepted now: WIRE_MAX_GREETING or _MESSAGE */
	char error[128]; /* why the stream was refused */
};

/* Called with each whole message, which it owns (wire_msg_free); nonzero stops the feed. */
typedef int (*wire_on_msg)(void *ctx, wire_msg *msg);

void wire_reader__init(struct wire_reader *r, uint32_t limit);
void wire_reader__release(struct wire_reader *r);
/* The largest Envelope accepted from now on (once the peer authenticated). */
static inline void wire_reader__set_limit(struct wire_reader *r, uint32_t limit)
{
	r->limit = limit;
}
/* Is a frame begun and not whole? */
static inline bool wire_reader__partial(const struct wire_reader *r)
{
	return r->have > 0;
}
/*
 * Take n bytes of the stream; hand each whole message to on_msg. 0; -EPROTO with
 * r->error saying why the stream is bad; or on_msg's nonzero value.
 */
int wire_reader__feed(struct wire_reader *r, const uint8_t *data, size_t n, wire_on_msg on_msg,
		      void *ctx);

/* Unpack one Envelope's bytes. NULL, with why, when they are not a valid message. */
wire_msg *wire_decode(const uint8_t *data, size_t len, const char **why);
void wire_msg_free(wire_msg *msg);

/* A frame for msg (header and Envelope), malloc'ed. 0 or -ENOMEM / -EMSGSIZE. */
int wire_encode(const wire_msg *msg, uint8_t **out, size_t *len);

/* Check what a batch from an agent says: NULL, or why it is refused. */
const char *wire_check_batch(const Heaptap__Batch *b);

#endif
