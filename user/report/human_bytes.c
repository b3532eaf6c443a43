// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <inttypes.h>
#include <stdio.h>
#include "human_bytes.h"

const char *human_bytes(int64_t bytes, char *buf, size_t size)
{
	static const char units[] = "BKMGTP";
	double value = (double)bytes;
	int unit = 0;

	while ((value >= 1024 || value <= -1024) && unit < 5) {
		value /= 1024;
		unit++;
	}
	if (unit == 0)
		snprintf(buf, size, "%" PRId64 "B", bytes);
	else
		snprintf(buf, size, "%.1f%c", value, units[unit]);
	return buf;
}

const char *size_text(int64_t bytes, bool raw, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double value = (double)bytes;
	int unit = 0;

	if (raw) {
		snprintf(buf, size, "%" PRId64, bytes);
		return buf;
	}
	while ((value >= 1024 || value <= -1024) && unit < 5) {
		value /= 1024;
		unit++;
	}
	if (unit == 0)
		snprintf(buf, size, "%" PRId64 " B", bytes);
	else
		snprintf(buf, size, "%.1f %s", value, units[unit]);
	return buf;
}

const char *grouped_count(uint64_t n, char *buf, size_t size)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n);
	size_t at = 0;

	for (int i = 0; i < len && at + 1 < size; i++) {
		if (i && (len - i) % 3 == 0 && at + 2 < size)
			buf[at++] = ',';
		buf[at++] = digits[i];
	}
	buf[at < size ? at : size - 1] = '\0';
	return buf;
}
