/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap attach: its options (cmd_attach.c). */
#ifndef HEAPTAP_CMD_ATTACH_H
#define HEAPTAP_CMD_ATTACH_H

#include "cli_outputs.h"
#include "cli_trace.h"

struct attach_options {
	struct trace_options trace; /* -p, --mpi, and how they are traced */
	struct output_options out;  /* -o, --json, --stacks, --pprof, --folded, --tree... */
	double duration;	    /* -d, seconds; 0: until stopped */
};
extern const struct cli_command attach_command;

#endif
