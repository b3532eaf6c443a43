// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* To add a subcommand: its cmd_NAME.c (options, parser, run), its line here, its man page. */
#include "cmd_agent.h"
#include "cmd_attach.h"
#include "cmd_collect.h"
#include "cmd_compare.h"
#include "cmd_report.h"
#include "cmd_run.h"
#include "cmd_sites.h"
#include "cmd_store_migrate.h"
#include "cmd_top.h"
#include "command_list.h"

const struct cli_command *const heaptap_commands[] = {
	&run_command,	  &attach_command,  &top_command,     &sites_command,
	&report_command, &compare_command, &agent_command,   &collect_command,
	&store_migrate_command,
};

const size_t heaptap_nr_commands = sizeof(heaptap_commands) / sizeof(heaptap_commands[0]);
