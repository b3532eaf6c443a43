// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "budget.h"

uint64_t budget__room(const struct budget *b, uint64_t held)
{
	uint64_t file = held < b->limits.per_file ? b->limits.per_file - held : 0;
	uint64_t total = b->used < b->limits.total ? b->limits.total - b->used : 0;

	return file < total ? file : total;
}

enum budget_verdict budget__check(const struct budget *b, uint64_t held, uint64_t bytes)
{
	if (held > b->limits.per_file || bytes > b->limits.per_file - held)
		return BUDGET_FILE;
	if (b->used > b->limits.total || bytes > b->limits.total - b->used)
		return BUDGET_TOTAL;
	return BUDGET_OK;
}

enum budget_verdict budget__take(struct budget *b, uint64_t *held, uint64_t bytes)
{
	enum budget_verdict v = budget__check(b, *held, bytes);

	if (v == BUDGET_OK) {
		*held += bytes;
		b->used += bytes;
	}
	return v;
}

void budget__give_back(struct budget *b, uint64_t *held, uint64_t bytes)
{
	if (bytes > *held)
		bytes = *held;
	*held -= bytes;
	b->used -= bytes < b->used ? bytes : b->used;
}

enum budget_verdict budget__why(const struct budget *b, uint64_t held)
{
	uint64_t file = held < b->limits.per_file ? b->limits.per_file - held : 0;
	uint64_t total = b->used < b->limits.total ? b->limits.total - b->used : 0;

	return file <= total ? BUDGET_FILE : BUDGET_TOTAL;
}

const char *budget_verdict_name(enum budget_verdict v)
{
	switch (v) {
	case BUDGET_FILE:
		return "per-file budget";
	case BUDGET_TOTAL:
		return "total budget";
	default:
		return NULL;
	}
}

const char *budget_size_text(uint64_t bytes, char *buf, size_t size)
{
	static const char units[] = "GMK";

	for (int i = 0; i < 3; i++) {
		uint64_t unit = 1ULL << (10 * (3 - i));

		if (bytes >= unit && bytes % unit == 0)
			snprintf(buf, size, "%" PRIu64 "%c", bytes / unit, units[i]);
		else if (bytes >= unit)
			snprintf(buf, size, "%.1f%c", (double)bytes / unit, units[i]);
		else
			continue;
		return buf;
	}
	snprintf(buf, size, "%" PRIu64, bytes);
	return buf;
}

int budget_size_parse(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0, unit = 1;
	size_t i;

	for (i = 0; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (s[i] - '0');
	}
	if (i == 0)
		return -EINVAL;
	if (i + 1 == len) {
		switch (s[i]) {
		case 'K': case 'k':
			unit = 1ULL << 10;
			break;
		case 'M': case 'm':
			unit = 1ULL << 20;
			break;
		case 'G': case 'g':
			unit = 1ULL << 30;
			break;
		default:
			return -EINVAL;
		}
	} else if (i != len) {
		return -EINVAL;
	}
	if (v > max / unit)
		return -ERANGE;
	*out = v * unit;
	return 0;
}

int budget_limits_parse(const char *arg, uint64_t max, struct budget_limits *out)
{
	struct budget_limits parsed = *out;
	size_t first = strcspn(arg, ",");
	const char *second = arg[first] ? arg + first + 1 : NULL;
	int err = 0;

	if (!first && !second)
		return -EINVAL;
	if (first)
		err = budget_size_parse(arg, first, max, &parsed.per_file);
	if (!err && second)
		err = budget_size_parse(second, strlen(second), max, &parsed.total);
	if (err)
		return err;
	if (!parsed.per_file || !parsed.total)
		return -EINVAL; /* nothing at all: that is --unwind fp, not a budget */
	*out = parsed;
	return 0;
}
