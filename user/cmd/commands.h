/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The subcommands. Each returns heaptap's exit status. */
#ifndef HEAPTAP_COMMANDS_H
#define HEAPTAP_COMMANDS_H

#include <stdio.h>
#include "cli.h"
#include "clock.h"
#include "report.h"
#include "session.h"
#include "stop_signal.h"

int cmd_run(const struct options *opts);
int cmd_attach(const struct options *opts);
int cmd_top(const struct options *opts);
int cmd_sites(const struct options *opts);
int cmd_report(const struct options *opts);
int cmd_compare(const struct options *opts);
int cmd_agent(const struct options *opts);
int cmd_collect(const struct options *opts);
/*
 * heaptap report FILE... or DB.sqlite without --full, --tree, --pprof, --folded or --list:
 * the job's summary across its ranks; of JSON reports with --rank R, that rank's report.
 */
int cmd_report_job(const struct options *opts);
struct job;
/* Its --html page (cmd_report_html.c) into html, open: EXIT_OK or EXIT_FAILURE_INTERNAL. */
int report_job_html(const struct options *opts, const struct job *j, json_object *summary,
		    struct report_file *html);
/* heaptap report DB.sqlite */
int cmd_report_db(const struct options *opts);
/* top --collector */
int cmd_top_collector(const struct options *opts);

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

/* Shared by both: start a session, or say in one line why not. */
int open_session(const struct options *opts, struct session **s);

/* The report files the options name: -o, --json, --stacks, --pprof, --folded; and what
 * --tree, --folded-weight and the text's layout options add. */
struct outputs {
	struct report_file text, json, stacks;
	struct tree_opts tree;
	struct report_file pprof, folded;
	enum folded_weight folded_weight;
	struct text_opts layout; /* --dmatp, --bytes, --mappings, --full, -v */
};
/* Open them before any target is touched: EXIT_OK, or EXIT_USAGE after one line. */
int open_outputs(const struct options *opts, struct outputs *out);
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
int open_outputs_and_session(const struct options *opts, struct outputs *out,
			     struct session **s);
/* Close the outputs (as close_outputs) and free the session (NULL: none). */
void close_outputs_and_session(struct outputs *out, struct session *s);
#endif
