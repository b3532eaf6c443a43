/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Byte counts as people read them: the live views' narrow columns, the report's sizes. */
#ifndef HEAPTAP_HUMAN_BYTES_H
#define HEAPTAP_HUMAN_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * "12.3M": bytes in 7 columns, signed (a group that frees more than it allocates goes
 * negative). Returns buf.
 */
const char *human_bytes(int64_t bytes, char *buf, size_t size);

/*
 * The text report's one style of size: "280 B", "4.0 KiB", "2.7 MiB" (binary units, one
 * decimal), signed; with raw (--bytes) the exact count, "2821184". Returns buf.
 */
const char *size_text(int64_t bytes, bool raw, char *buf, size_t size);

/* A count with thousands separators: "60,001". Returns buf. */
const char *grouped_count(uint64_t n, char *buf, size_t size);

#endif
