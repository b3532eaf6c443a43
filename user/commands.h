/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The subcommands. Each returns heaptap's exit status. */
#ifndef HEAPTAP_COMMANDS_H
#define HEAPTAP_COMMANDS_H

#include <signal.h>
#include <stdio.h>
#include "cli.h"
#include "session.h"

int cmd_run(const struct options *opts);
int cmd_attach(const struct options *opts);

/* Shared by both: start a session, or say in one line why not. */
int open_session(const struct options *opts, struct session **s);
/* Write the reports the options ask for; the text one to default_out unless -o. */
int write_reports(struct session *s, const struct options *opts, FILE *default_out);
/* SIGINT and SIGTERM set stop_requested instead of killing heaptap. */
extern volatile sig_atomic_t stop_requested;
void catch_stop_signals(void (*handler)(int));

#endif
