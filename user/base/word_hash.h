/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A hash for uthash's tables whose keys are long or many: two lanes of multiply-xor over
 * 8-byte words. uthash's own (Jenkins, a byte at a time) took most of a lookup's time for
 * keys of a few hundred bytes (a stack) and a good share for a function's name.
 *
 *   #include "word_hash.h"   after <uthash.h>, in a file whose tables all take it
 */
#ifndef HEAPTAP_WORD_HASH_H
#define HEAPTAP_WORD_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline unsigned int word_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t a = len * 0x9E3779B97F4A7C15ull, b = ~a, w;

	for (; len >= 16; p += 16, len -= 16) {
		memcpy(&w, p, 8);
		a = (a ^ w) * 0xff51afd7ed558ccdull;
		a ^= a >> 32;
		memcpy(&w, p + 8, 8);
		b = (b ^ w) * 0xc4ceb9fe1a85ec53ull;
		b ^= b >> 32;
	}
	if (len >= 8) {
		memcpy(&w, p, 8);
		a = (a ^ w) * 0xff51afd7ed558ccdull;
		a ^= a >> 32;
		p += 8;
		len -= 8;
	}
	for (; len; len--)
		a = (a ^ *p++) * 0x100000001b3ull;
	a ^= b * 0x9E3779B97F4A7C15ull;
	return (unsigned int)(a ^ a >> 29);
}

#undef HASH_FUNCTION
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = word_hash((keyptr), (keylen)))

#endif
