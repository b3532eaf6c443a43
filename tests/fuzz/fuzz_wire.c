// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The collector's decoder: a stream of bytes from the network, cut into reads at places
 * the input chooses, framed, decoded, checked (a batch as the collector checks it before
 * storing anything) and, for a run's view, turned into the report writers' structs.
 * Input: byte 0 = how many bytes each read takes, then the stream. Its low six bits give
 * 1-64 and its top two a scale of 1, 16, 256 or 4096: single bytes find framing bugs, whole
 * frames per read keep long inputs as cheap as the collector's own reads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "run_wire.h"
#include "wire.h"

static int on_msg(void *ctx, wire_msg *msg)
{
	struct wire_reader *r = ctx;
	struct run_view v = {};

	/* What the collector does after the handshake: larger frames are allowed. */
	wire_reader__set_limit(r, WIRE_MAX_MESSAGE);
	switch (msg->body_case) {
	case HEAPTAP__ENVELOPE__BODY_BATCH:
		wire_check_batch(msg->batch);
		break;
	case HEAPTAP__ENVELOPE__BODY_RUN_VIEW:
		run_wire__decode(msg->run_view, &v);
		run_view__clear(&v);
		break;
	case HEAPTAP__ENVELOPE__BODY_HELLO:
		if (msg->hello->host && strlen(msg->hello->host) > WIRE_MAX_MESSAGE)
			abort();
		break;
	default:
		break;
	}
	wire_msg_free(msg);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_reader r;
	size_t chunk;

	if (size < 1)
		return 0;
	chunk = ((size_t)(data[0] & 0x3f) + 1) << ((data[0] >> 6) * 4);
	data++;
	size--;
	wire_reader__init(&r, WIRE_MAX_GREETING);
	while (size > 0) {
		size_t n = size < chunk ? size : chunk;
		/* Each read in its own exact-size block: ASan sees a read past its end. */
		uint8_t *copy = malloc(n);

		memcpy(copy, data, n);
		if (wire_reader__feed(&r, copy, n, on_msg, &r)) {
			free(copy);
			break;
		}
		free(copy);
		data += n;
		size -= n;
	}
	wire_reader__release(&r);
	return 0;
}
