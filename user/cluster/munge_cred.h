/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * MUNGE credentials that bind one connection: the agent has its local munged encode
 * "heaptap agent" || collector nonce || client nonce; the collector has its munged decode
 * it and accepts only that exact payload, from uid 0 or its own uid. MUNGE proves who
 * encoded (and munged refuses a credential decoded twice or older than its TTL); it does
 * not encrypt the connection.
 */
#ifndef HEAPTAP_MUNGE_CRED_H
#define HEAPTAP_MUNGE_CRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Longer than any credential munged makes for our payload; more is refused undecoded. */
#define MUNGE_CRED_MAX 1024u

struct munge_opts {
	bool on;	    /* --munge */
	const char *socket; /* --munge-socket; NULL: libmunge's default */
};

/* Does munged answer at the socket? 0, or -1 after one line saying what to do. */
int munge_cred_probe(const struct munge_opts *m);

/*
 * The agent's credential for this connection (a NUL-terminated string for free()), or
 * NULL with *why set to munged's error.
 */
char *munge_cred_encode(const struct munge_opts *m, const uint8_t *collector_nonce,
			const uint8_t *client_nonce, size_t nonce_len, const char **why);

/*
 * Check an untrusted credential (len bytes, not NUL-terminated) for this connection: NULL
 * if it is good, else why not, in a few words (valid until the next call). *uid: who
 * encoded it, when munged said so. Blocks while munged answers.
 */
const char *munge_cred_verify(const struct munge_opts *m, const uint8_t *cred, size_t len,
			      const uint8_t *collector_nonce, const uint8_t *client_nonce,
			      size_t nonce_len, uid_t *uid);

#endif
