/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap run: its options (cmd_run.c). */
#ifndef HEAPTAP_CMD_RUN_H
#define HEAPTAP_CMD_RUN_H

#include "cli_outputs.h"
#include "cli_trace.h"

struct run_options {
	struct trace_options trace; /* the command, --follow, --mpi, and how it is traced */
	struct output_options out;  /* -o, --json, --stacks, --pprof, --folded, --tree... */
};
extern const struct cli_command run_command;

#endif
