/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A client's answer to the collector's challenge: the agent's and the viewer's alike. */
#ifndef HEAPTAP_CLIENT_AUTH_H
#define HEAPTAP_CLIENT_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include "auth.h"
#include "munge_cred.h"
#include "wire.h"

struct client_answer {
	Heaptap__Auth auth;	       /* points into this struct: send it from here */
	uint8_t proof[AUTH_PROOF_SIZE];
	char *cred;		       /* MUNGE's, or NULL */
};

/*
 * Check that the challenge asks for what the client brings, and that a collector asking for
 * a key proved it holds it too; then fill out->auth with the client's proof and credential.
 * 0, or -errno with why, a phrase to follow "collector HOST:PORT": -EACCES when the two
 * sides do not agree (trying again will not help), -EPROTO for a challenge without a nonce,
 * -EIO when munged made no credential. client_answer__free() after sending, either way.
 */
int client_answer(const struct auth_key *key, const struct munge_opts *munge,
		  const uint8_t nonce[WIRE_NONCE_SIZE], const Heaptap__Challenge *ch,
		  struct client_answer *out, char *why, size_t why_size);
void client_answer__free(struct client_answer *out);

#endif
