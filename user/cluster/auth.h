/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Challenge-response with a shared key: each side sends a random nonce, and proves it
 * holds the key with HMAC-SHA256 over both nonces and its role. The key never travels.
 */
#ifndef HEAPTAP_AUTH_H
#define HEAPTAP_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTH_PROOF_SIZE 32u
#define AUTH_MIN_KEY 16u
#define AUTH_MAX_KEY 4096u

struct auth_key {
	size_t len; /* 0: no key */
	uint8_t bytes[AUTH_MAX_KEY];
};

/*
 * Read the key from path: its bytes, without trailing newlines and spaces; the file
 * must be readable by its owner only (mode 0600 or 0400). 0, or -errno after one line
 * saying what to do.
 */
int auth_key_load(const char *path, struct auth_key *key);
void auth_key_wipe(struct auth_key *key);

/* Fill buf with random bytes. 0 or -errno. */
int auth_random(void *buf, size_t len);

enum auth_role { AUTH_CLIENT, AUTH_COLLECTOR };

/*
 * The proof role's side gives: HMAC-SHA256(key, label(role) || own nonce || peer's nonce)
 * where the collector's "own" is its nonce, the client's its own.
 */
void auth_proof(const struct auth_key *key, enum auth_role role, const uint8_t *client_nonce,
		const uint8_t *collector_nonce, size_t nonce_len, uint8_t proof[AUTH_PROOF_SIZE]);
/* Does proof (len bytes) come from a holder of the key? In constant time. */
bool auth_check(const struct auth_key *key, enum auth_role role, const uint8_t *client_nonce,
		const uint8_t *collector_nonce, size_t nonce_len, const uint8_t *proof,
		size_t len);

#endif
