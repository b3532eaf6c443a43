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
