/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* gendoc's parts: what they read of the option tables (user/cli/cli_table.h). */
#ifndef HEAPTAP_GENDOC_H
#define HEAPTAP_GENDOC_H

#include <stdbool.h>
#include <stdio.h>
#include "cli_table.h"

/* What an option's argument is (cli_table.h says how its table writes it). */
enum arg_kind { ARG_NONE, ARG_TYPED, ARG_CHOICE, ARG_PID, ARG_FILE };

enum arg_kind arg_kind(const struct argp_option *o);
/* The {} that ends a table. */
bool is_end(const struct argp_option *o);
/* Has it a short form (-a)? */
bool has_short(const struct argp_option *o);
/* --help, --usage, --version: argp adds them to every subcommand. */
extern const struct argp_option builtin_options[];

/* complete.c: the completion scripts, on out. 0, or 1 if out failed. */
int complete_bash(FILE *out);
int complete_zsh(FILE *out);

#endif
