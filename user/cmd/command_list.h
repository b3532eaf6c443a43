/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap's subcommands, in the order heaptap --help lists them: main() parses and runs
 * them, tools/man/gendoc.c makes their man pages and completion from them.
 */
#ifndef HEAPTAP_COMMAND_LIST_H
#define HEAPTAP_COMMAND_LIST_H

#include "cli.h"

extern const struct cli_command *const heaptap_commands[];
extern const size_t heaptap_nr_commands;

#endif
