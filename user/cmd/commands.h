/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What the subcommands share: launching, attaching, the session, the report files. */
#ifndef HEAPTAP_COMMANDS_H
#define HEAPTAP_COMMANDS_H

#include <stdio.h>
#include "cli_outputs.h"
#include "cli_trace.h"
#include "clock.h"
#include "report.h"
#include "session.h"
#include "stop_signal.h"

/*
 * Before a subcommand loads BPF or reads other users' processes: libbpf's messages through
 * heaptap's log, and the capabilities set while heaptap is one thread (they are per
 * thread). EXIT_OK or EXIT_FAILURE_INTERNAL.
 */
int setup_privileges(void);
/* And before it traces: this machine checked (preflight), heaptap's heap in huge pages. */
int setup_tracing(void);

/* The program execvp would run for name, and the ELF the kernel loads for it (a script's
 * interpreter). EXIT_OK, or an exit status after saying why in one line. */
int resolve_command(const char *name, char *path, char *image, size_t size);
/*
 * Start argv traced from its first instruction, its standard output and error on output
 * (-1: heaptap's). EXIT_OK with *pid, or an exit status.
 */
int launch_command(struct session *s, const char *path, const char *image, char **argv,
		   int output, pid_t *pid);
/* The shell's view of a wait status: the exit code, or 128 + the killing signal. */
int command_status(int wstatus);
/* Attach to every pid, then say so on standard error. EXIT_OK or an exit status. */
int attach_all(struct session *s, const pid_t *pids, size_t nr);

/*
 * Shared by both: start a session, or say in one line why not. detailed_stacks: --stacks
 * or --pprof, whose stacks carry source lines and inlined functions. node: it traces a
 * node's processes whatever the options say (the agent): consumer threads and rings for
 * many, unless --consumers says.
 */
int open_session(const struct trace_options *t, bool detailed_stacks, bool node,
		 struct session **s);

/* The report files the options name: -o, --json, --stacks, --pprof, --folded; and what
 * --tree, --folded-weight and the text's layout options add. */
struct outputs {
	struct report_file text, json, stacks;
	struct tree_opts tree;
	struct report_file pprof, folded;
	enum folded_weight folded_weight;
	struct text_opts layout; /* --dmatp, --bytes, --mappings, --full, -v */
};
/*
 * Open them before any target is touched: EXIT_OK, or EXIT_USAGE after one line. t: --mpi
 * for the text's layout; attached: attach's processes ran before tracing began.
 */
int open_outputs(const struct output_options *o, const struct trace_options *t, bool attached,
		 struct outputs *out);
/*
 * Write the reports and close their files; the text one goes to default_out without -o
 * (or when its file fails). EXIT_OK, or EXIT_FAILURE_INTERNAL if one could not be written.
 */
int write_reports(struct session *s, struct outputs *out, FILE *default_out);
/* Only --pprof and --folded, from one profile of the session (top). 0, or -1 after saying why. */
int write_session_exports(struct session *s, struct outputs *out);
/* Close what write_reports did not (no report): a file heaptap created is removed. */
void close_outputs(struct outputs *out);
/*
 * What attach and top do before touching a process: open the outputs, start the session,
 * and let SIGINT and SIGTERM set stop_requested. EXIT_OK, or an exit status after one
 * line, with nothing left open.
 */
int open_outputs_and_session(const struct output_options *o, const struct trace_options *t,
			     bool attached, struct outputs *out, struct session **s);
/* Close the outputs (as close_outputs) and free the session (NULL: none). */
void close_outputs_and_session(struct outputs *out, struct session *s);
#endif
