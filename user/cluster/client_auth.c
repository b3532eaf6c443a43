// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "client_auth.h"

static int refuse(char *why, size_t why_size, int err, const char *text)
{
	snprintf(why, why_size, "%s", text);
	return err;
}

int client_answer(const struct auth_key *key, const struct munge_opts *munge,
		  const uint8_t nonce[WIRE_NONCE_SIZE], const Heaptap__Challenge *ch,
		  struct client_answer *out, char *why, size_t why_size)
{
	*out = (struct client_answer){ .auth = HEAPTAP__AUTH__INIT };
	if (!ch->has_nonce || ch->nonce.len != WIRE_NONCE_SIZE)
		return refuse(why, why_size, -EPROTO, "its challenge has no nonce");
	if (ch->key_required && !key->len)
		return refuse(why, why_size, -EACCES, "requires a key: give it with --key FILE");
	/* The collector proves it holds the key too: no key, no data to an impostor. */
	if (key->len && (!ch->key_required ||
			 !auth_check(key, AUTH_COLLECTOR, nonce, ch->nonce.data, WIRE_NONCE_SIZE,
				     ch->has_proof ? ch->proof.data : NULL,
				     ch->has_proof ? ch->proof.len : 0)))
		return refuse(why, why_size, -EACCES,
			      "does not prove it holds the key: nothing is sent to it");
	/* A credential would be worth nothing to a collector that does not check it. */
	if (munge->on && !ch->munge_required)
		return refuse(why, why_size, -EACCES,
			      "does not ask for MUNGE credentials: nothing is sent to it (run it "
			      "with --munge, or this without)");
	if (key->len) {
		auth_proof(key, AUTH_CLIENT, nonce, ch->nonce.data, WIRE_NONCE_SIZE, out->proof);
		out->auth.has_proof = true;
		out->auth.proof.data = out->proof;
		out->auth.proof.len = sizeof(out->proof);
	}
	/* Without --munge, none: the collector's refusal says to add it. */
	if (munge->on) {
		const char *munged_says = NULL;

		out->cred = munge_cred_encode(munge, ch->nonce.data, nonce, WIRE_NONCE_SIZE,
					      &munged_says);
		if (!out->cred) {
			snprintf(why, why_size, "no MUNGE credential: %s",
				 munged_says ? munged_says : "?");
			return -EIO;
		}
		out->auth.has_munge = true;
		out->auth.munge.data = (uint8_t *)out->cred;
		out->auth.munge.len = strlen(out->cred);
	}
	return 0;
}

void client_answer__free(struct client_answer *out)
{
	free(out->cred);
	out->cred = NULL;
}
