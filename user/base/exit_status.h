/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap's exit statuses, which every layer that ends a command returns. */
#ifndef HEAPTAP_EXIT_STATUS_H
#define HEAPTAP_EXIT_STATUS_H

/* Exit statuses (run exits with the command's own status when it ran). */
enum exit_status {
	EXIT_OK = 0,
	/*
	 * heaptap cannot run here (a kernel feature missing, not in the initial PID namespace),
	 * BPF could not be loaded or attached, a report could not be written, out of memory.
	 */
	EXIT_FAILURE_INTERNAL = 1,
	EXIT_USAGE = 2,		   /* bad command line, a report file heaptap cannot open */
	EXIT_BAD_TARGET = 3,	   /* no such process, a kernel thread, nothing to probe */
	EXIT_NO_PRIVILEGE = 4,	   /* not root, nor the capabilities (cli_exit_statuses) */
	EXIT_PARTIAL = 5,	   /* some processes could not be traced (the report lists them) */
	EXIT_NOT_EXECUTABLE = 126, /* run: the command exists but cannot be executed */
	EXIT_NOT_FOUND = 127,	   /* run: no such command */
};

#endif
