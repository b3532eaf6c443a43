/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap compare: its options (cmd_compare.c). */
#ifndef HEAPTAP_CMD_COMPARE_H
#define HEAPTAP_CMD_COMPARE_H

#include "cli_outputs.h"

struct compare_options {
	struct output_options out; /* --under, --depth, --json, --html */
	const char **inputs;	   /* the reports named */
	size_t nr_inputs;
};
extern const struct cli_command compare_command;

#endif
