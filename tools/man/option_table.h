/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What gendoc's man pages and completion read of the option tables (user/cmd/cmd_*.c). */
#ifndef HEAPTAP_OPTION_TABLE_H
#define HEAPTAP_OPTION_TABLE_H

#include <stdbool.h>
#include "command_list.h"

/* What an option's argument is (cli.h says how its table writes it). */
enum arg_kind { ARG_NONE, ARG_TYPED, ARG_CHOICE, ARG_PID, ARG_FILE };

enum arg_kind arg_kind(const struct argp_option *o);
/* The {} that ends a table. */
bool is_end(const struct argp_option *o);
/* Has it a short form (-a)? */
bool has_short(const struct argp_option *o);
/* --help, --usage, --version: argp adds them to every subcommand. */
extern const struct argp_option builtin_options[];

#endif
