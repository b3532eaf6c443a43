// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heaptap_types.h"
#include "os_wire.h"
#include "wire.h"

void wire_reader__init(struct wire_reader *r, uint32_t limit)
{
	*r = (struct wire_reader){ .limit = limit };
}

void wire_reader__release(struct wire_reader *r)
{
	free(r->body);
	r->body = NULL;
	r->body_cap = 0;
	r->have = 0;
}

/*
 * protobuf-c sizes its structs by what the bytes claim: a crafted message of a few MiB
 * could make it allocate a hundred times that. Each decode gets a budget.
 */
struct budget_alloc {
	size_t left;
};

static void *budget_malloc(void *data, size_t size)
{
	struct budget_alloc *b = data;

	if (!b || size > b->left)
		return NULL;
	b->left -= size;
	return malloc(size);
}

/* Nothing is credited back: a decode that frees as it goes still spends its budget. */
static void budget_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

/* How a decoded message is freed, after its decode's budget is gone. */
static ProtobufCAllocator free_allocator = { budget_malloc, budget_free, NULL };

wire_msg *wire_decode(const uint8_t *data, size_t len, const char **why)
{
	struct budget_alloc budget = { WIRE_MAX_DECODED };
	ProtobufCAllocator alloc = { budget_malloc, budget_free, &budget };
	wire_msg *msg;

	msg = heaptap__envelope__unpack(&alloc, len, data);
	if (!msg) {
		*why = budget.left < WIRE_MAX_DECODED / 2 ? "undecodable message (or too large "
							     "once decoded)"
							   : "undecodable message";
		return NULL;
	}
	if (msg->body_case == HEAPTAP__ENVELOPE__BODY__NOT_SET) {
		*why = "message of no known kind";
		wire_msg_free(msg);
		return NULL;
	}
	return msg;
}

void wire_msg_free(wire_msg *msg)
{
	if (msg)
		heaptap__envelope__free_unpacked(msg, &free_allocator);
}

int wire_encode(const wire_msg *msg, uint8_t **out, size_t *len)
{
	size_t size = heaptap__envelope__get_packed_size(msg);
	uint32_t be;
	uint8_t *buf;

	if (size > WIRE_MAX_MESSAGE)
		return -EMSGSIZE;
	buf = malloc(WIRE_HEADER_SIZE + size);
	if (!buf)
		return -ENOMEM;
	buf[0] = 'H';
	buf[1] = 'T';
	buf[2] = WIRE_VERSION;
	buf[3] = 0;
	be = htonl((uint32_t)size);
	memcpy(buf + 4, &be, sizeof(be));
	heaptap__envelope__pack(msg, buf + WIRE_HEADER_SIZE);
	*out = buf;
	*len = WIRE_HEADER_SIZE + size;
	return 0;
}

static int __attribute__((format(printf, 2, 3))) refuse(struct wire_reader *r, const char *fmt,
							 ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* The header is in: check it. 0 or -EPROTO. */
static int check_header(struct wire_reader *r)
{
	uint32_t be;

	if (r->header[0] != 'H' || r->header[1] != 'T')
		return refuse(r, "garbage: not a heaptap frame (first bytes 0x%02x%02x)",
			      r->header[0], r->header[1]);
	if (r->header[2] != WIRE_VERSION || r->header[3] != 0)
		return refuse(r, "protocol version %u.%u: this heaptap speaks version 1",
			      r->header[2], r->header[3]);
	memcpy(&be, r->header + 4, sizeof(be));
	r->length = ntohl(be);
	if (r->length == 0 || r->length > r->limit)
		return refuse(r, "bad length: a frame of %u bytes (1 to %u allowed here)",
			      r->length, r->limit);
	return 0;
}

/* A whole Envelope is in data: decode it and hand it over. */
static int deliver(struct wire_reader *r, const uint8_t *data, wire_on_msg on_msg, void *ctx)
{
	const char *why = NULL;
	wire_msg *msg = wire_decode(data, r->length, &why);

	r->have = 0;
	if (!msg) {
		snprintf(r->error, sizeof(r->error), "%s (%u bytes)", why, r->length);
		return -EPROTO;
	}
	return on_msg(ctx, msg);
}

int wire_reader__feed(struct wire_reader *r, const uint8_t *data, size_t n, wire_on_msg on_msg,
		      void *ctx)
{
	int err;

	while (n > 0) {
		size_t take, body_have;

		if (r->have < WIRE_HEADER_SIZE) {
			take = WIRE_HEADER_SIZE - r->have;
			take = take < n ? take : n;
			memcpy(r->header + r->have, data, take);
			r->have += take;
			data += take;
			n -= take;
			if (r->have < WIRE_HEADER_SIZE)
				return 0;
			if ((err = check_header(r)))
				return err;
			if (!n)
				return 0;
		}
		body_have = r->have - WIRE_HEADER_SIZE;
		/* The whole Envelope in what came: decode it where it lies. */
		if (body_have == 0 && n >= r->length) {
			uint32_t length = r->length; /* on_msg may change the reader's limit */

			err = deliver(r, data, on_msg, ctx);
			data += length;
			n -= length;
			if (err)
				return err;
			continue;
		}
		take = r->length - body_have;
		take = take < n ? take : n;
		/* Grown as bytes come, not as the header claims: a liar costs what it sent. */
		if (body_have + take > r->body_cap) {
			size_t cap = r->body_cap ? r->body_cap : 4096;
			uint8_t *grown;

			while (cap < body_have + take)
				cap *= 2;
			cap = cap < r->length ? cap : r->length;
			grown = realloc(r->body, cap);
			if (!grown)
				return refuse(r, "out of memory for a frame of %u bytes", r->length);
			r->body = grown;
			r->body_cap = cap;
		}
		memcpy(r->body + body_have, data, take);
		r->have += take;
		data += take;
		n -= take;
		if (r->have - WIRE_HEADER_SIZE < r->length)
			return 0;
		err = deliver(r, r->body, on_msg, ctx);
		/* A large frame's buffer is not kept for the small ones that follow. */
		if (r->body_cap > 65536) {
			free(r->body);
			r->body = NULL;
			r->body_cap = 0;
		}
		if (err)
			return err;
	}
	return 0;
}

static bool string_ok(const char *s)
{
	return !s || strnlen(s, WIRE_MAX_STRING + 1) <= WIRE_MAX_STRING;
}

static const char *check_balance(const Heaptap__Balance *b)
{
	if (!b)
		return "a group without its balance";
	if (b->n_calls > HT_NR_FUNCS)
		return "a balance with more call counts than entry points";
	return NULL;
}

static const char *check_sites(Heaptap__OwnerSite *const *sites, size_t n)
{
	if (n > WIRE_MAX_OWNER_SITES)
		return "an owner list of more than 50 sites";
	for (size_t i = 0; i < n; i++) {
		const Heaptap__OwnerSite *s = sites[i];

		if (s->n_frames > WIRE_MAX_SITE_FRAMES)
			return "an allocation site of more than 128 frames";
		if (s->blocks > INT64_MAX || s->bytes > INT64_MAX || s->requested > INT64_MAX)
			return "a site's count over 2^63";
		if (s->has_growth_bytes_per_second && !isfinite(s->growth_bytes_per_second))
			return "a site's growth that is not a number";
		for (size_t f = 0; f < s->n_frames; f++) {
			const Heaptap__SiteFrame *fr = s->frames[f];

			if (!fr->function || !fr->library || !string_ok(fr->function) ||
			    !string_ok(fr->library) || !string_ok(fr->file))
				return "a bad frame name";
		}
	}
	return NULL;
}

static const char *check_owner(const Heaptap__Owner *o)
{
	const Heaptap__FreedBeforeTracing *f = o->freed_before_tracing;
	const char *why;

	if ((why = check_sites(o->outstanding, o->n_outstanding)) ||
	    (why = check_sites(o->peak, o->n_peak)) ||
	    (why = check_sites(o->allocated, o->n_allocated)) ||
	    (o->oom && (why = check_sites(o->oom->sites, o->oom->n_sites))))
		return why;
	if (o->oom && (!isfinite(o->oom->time) || o->oom->bytes > INT64_MAX ||
		       o->oom->blocks > INT64_MAX || o->oom->cgroup_usage > INT64_MAX ||
		       o->oom->cgroup_limit > INT64_MAX || o->oom->cgroup_max_usage > INT64_MAX ||
		       !string_ok(o->oom->cgroup_path)))
		return "an OOM kill that is not a time and counts under 2^63";
	if (o->blocks > INT64_MAX || o->bytes > INT64_MAX || o->peak_blocks > INT64_MAX ||
	    o->peak_bytes > INT64_MAX || (f && (f->calls > INT64_MAX || f->bytes > INT64_MAX)))
		return "an owner's count over 2^63";
	return NULL;
}

static const char *check_process(const Heaptap__Process *p)
{
	const char *why;

	if (!p->has_key)
		return "a process without its key";
	if (p->identity && (!string_ok(p->identity->job) || !string_ok(p->identity->command) ||
			    !string_ok(p->identity->host) || !string_ok(p->identity->allocator)))
		return "an identity string over 4096 bytes";
	if (p->has_state && (p->state < HEAPTAP__STATE__RUNNING || p->state > HEAPTAP__STATE__DETACHED))
		return "a process state agents do not send";
	if (p->total && (why = check_balance(p->total)))
		return why;
	if (p->owner && (why = check_owner(p->owner)))
		return why;
	if ((p->mappings && (why = wire_check_mappings(p->mappings))) ||
	    (p->allocators && (why = wire_check_allocators(p->allocators))))
		return why;
	for (size_t i = 0; i < p->n_threads; i++) {
		if (!string_ok(p->threads[i]->name) || !p->threads[i]->has_tid)
			return "a bad thread";
		if ((why = check_balance(p->threads[i]->balance)))
			return why;
	}
	for (size_t i = 0; i < p->n_libraries; i++) {
		if (!p->libraries[i]->library || !string_ok(p->libraries[i]->library))
			return "a bad library name";
		if ((why = check_balance(p->libraries[i]->balance)))
			return why;
	}
	for (size_t i = 0; i < p->n_functions; i++) {
		const Heaptap__Function *f = p->functions[i];

		if (!f->library || !f->function || !string_ok(f->library) || !string_ok(f->function))
			return "a bad function name";
		if ((why = check_balance(f->balance)))
			return why;
	}
	return NULL;
}

const char *wire_check_batch(const Heaptap__Batch *b)
{
	const char *why;

	if (!b->has_seq || b->seq == 0)
		return "a batch without its sequence number";
	for (size_t i = 0; i < b->n_processes; i++) {
		if ((why = check_process(b->processes[i])))
			return why;
	}
	return NULL;
}
