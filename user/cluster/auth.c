// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include "auth.h"
#include "log.h"

int auth_key_load(const char *path, struct auth_key *key)
{
	struct stat st;
	ssize_t n;
	int fd, err = 0;

	key->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		err = -errno;
		log_error("cannot read the key %s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		log_error("the key %s is not a regular file", path);
		err = -EINVAL;
		goto cleanup;
	}
	/* A key others can read is no secret: refuse it rather than use it. */
	if (st.st_mode & 077) {
		log_error("the key %s is readable by others (mode %04o): chmod 600 %s", path,
			  (unsigned int)(st.st_mode & 07777), path);
		err = -EPERM;
		goto cleanup;
	}
	n = read(fd, key->bytes, sizeof(key->bytes));
	if (n < 0) {
		err = -errno;
		log_error("cannot read the key %s: %s", path, strerror(errno));
		goto cleanup;
	}
	while (n > 0 && strchr(" \t\r\n", key->bytes[n - 1]))
		n--;
	if (n < (ssize_t)AUTH_MIN_KEY || n == sizeof(key->bytes)) {
		log_error("the key %s must hold %u to %u bytes (e.g. openssl rand -hex 32 > %s)",
			  path, AUTH_MIN_KEY, AUTH_MAX_KEY - 1, path);
		err = -EINVAL;
		goto cleanup;
	}
	key->len = n;
cleanup:
	close(fd);
	if (err)
		auth_key_wipe(key);
	return err;
}

void auth_key_wipe(struct auth_key *key)
{
	OPENSSL_cleanse(key->bytes, sizeof(key->bytes));
	key->len = 0;
}

int auth_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

void auth_proof(const struct auth_key *key, enum auth_role role, const uint8_t *client_nonce,
		const uint8_t *collector_nonce, size_t nonce_len, uint8_t proof[AUTH_PROOF_SIZE])
{
	/* Each side's proof covers its role first: one side's proof never passes for the other's. */
	static const char client_label[] = "heaptap agent", collector_label[] = "heaptap collector";
	const char *label = role == AUTH_CLIENT ? client_label : collector_label;
	const uint8_t *first = role == AUTH_CLIENT ? client_nonce : collector_nonce;
	const uint8_t *second = role == AUTH_CLIENT ? collector_nonce : client_nonce;
	size_t label_len = strlen(label);
	uint8_t data[sizeof(collector_label) + 2 * 64];
	unsigned int len = AUTH_PROOF_SIZE;

	if (nonce_len > 64)
		nonce_len = 64;
	memcpy(data, label, label_len);
	memcpy(data + label_len, first, nonce_len);
	memcpy(data + label_len + nonce_len, second, nonce_len);
	if (!HMAC(EVP_sha256(), key->bytes, (int)key->len, data, label_len + 2 * nonce_len, proof,
		  &len))
		memset(proof, 0, AUTH_PROOF_SIZE);
}

bool auth_check(const struct auth_key *key, enum auth_role role, const uint8_t *client_nonce,
		const uint8_t *collector_nonce, size_t nonce_len, const uint8_t *proof, size_t len)
{
	uint8_t want[AUTH_PROOF_SIZE];

	if (!key->len || len != AUTH_PROOF_SIZE)
		return false;
	auth_proof(key, role, client_nonce, collector_nonce, nonce_len, want);
	return CRYPTO_memcmp(want, proof, AUTH_PROOF_SIZE) == 0;
}
