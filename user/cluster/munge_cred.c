// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <munge.h>
#include <openssl/crypto.h>
#include "log.h"
#include "munge_cred.h"

#define LABEL "heaptap agent"
#define PAYLOAD_MAX (sizeof(LABEL) - 1 + 2 * 64)

static munge_ctx_t context(const struct munge_opts *m)
{
	munge_ctx_t ctx = munge_ctx_create();

	if (ctx && m->socket && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, m->socket) != EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

/* What the credential of this connection carries. Its length. */
static size_t payload(uint8_t *buf, const uint8_t *collector_nonce, const uint8_t *client_nonce,
		      size_t nonce_len)
{
	size_t label_len = sizeof(LABEL) - 1;

	if (nonce_len > 64)
		nonce_len = 64;
	memcpy(buf, LABEL, label_len);
	memcpy(buf + label_len, collector_nonce, nonce_len);
	memcpy(buf + label_len + nonce_len, client_nonce, nonce_len);
	return label_len + 2 * nonce_len;
}

int munge_cred_probe(const struct munge_opts *m)
{
	munge_ctx_t ctx = context(m);
	munge_err_t err;
	char *cred = NULL;

	if (!ctx) {
		log_error("cannot set up MUNGE (out of memory, or a bad --munge-socket)");
		return -1;
	}
	err = munge_encode(&cred, ctx, NULL, 0);
	if (err != EMUNGE_SUCCESS)
		log_error("MUNGE does not answer at %s: %s (is munged running? --munge-socket "
			  "PATH names its socket)", m->socket ? m->socket : "its default socket",
			  munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(err));
	free(cred);
	munge_ctx_destroy(ctx);
	return err == EMUNGE_SUCCESS ? 0 : -1;
}

char *munge_cred_encode(const struct munge_opts *m, const uint8_t *collector_nonce,
			const uint8_t *client_nonce, size_t nonce_len, const char **why)
{
	uint8_t buf[PAYLOAD_MAX];
	size_t len = payload(buf, collector_nonce, client_nonce, nonce_len);
	munge_ctx_t ctx = context(m);
	munge_err_t err;
	char *cred = NULL;

	if (!ctx) {
		*why = "cannot set up a MUNGE context";
		return NULL;
	}
	err = munge_encode(&cred, ctx, buf, (int)len);
	if (err != EMUNGE_SUCCESS) {
		*why = munge_strerror(err);
		free(cred);
		cred = NULL;
	}
	munge_ctx_destroy(ctx);
	return cred;
}

const char *munge_cred_verify(const struct munge_opts *m, const uint8_t *cred, size_t len,
			      const uint8_t *collector_nonce, const uint8_t *client_nonce,
			      size_t nonce_len, uid_t *uid)
{
	uint8_t want[PAYLOAD_MAX];
	size_t want_len = payload(want, collector_nonce, client_nonce, nonce_len);
	static char munged_says[128]; /* the collector is one thread */
	char text[MUNGE_CRED_MAX + 1];
	const char *why = NULL;
	munge_ctx_t ctx;
	munge_err_t err;
	void *got = NULL;
	int got_len = 0;
	gid_t gid;

	*uid = (uid_t)-1;
	/* Untrusted: bounded, and a C string without a NUL inside before libmunge sees it. */
	if (!cred || !len)
		return "no MUNGE credential";
	if (len > MUNGE_CRED_MAX || memchr(cred, '\0', len))
		return "a malformed MUNGE credential";
	memcpy(text, cred, len);
	text[len] = '\0';
	ctx = context(m);
	if (!ctx)
		return "cannot set up a MUNGE context";
	err = munge_decode(text, ctx, &got, &got_len, uid, &gid);
	if (err != EMUNGE_SUCCESS) {
		/* munged's words ("Expired credential", "Replayed credential", ...). */
		snprintf(munged_says, sizeof(munged_says), "its MUNGE credential: %s",
			 munge_strerror(err));
		why = munged_says;
	} else if (got_len < 0 || (size_t)got_len != want_len ||
		 CRYPTO_memcmp(got, want, want_len))
		why = "a MUNGE credential for another connection";
	else if (*uid != 0 && *uid != getuid())
		why = "a MUNGE credential of a user other than root or the collector's";
	free(got);
	munge_ctx_destroy(ctx);
	return why;
}
