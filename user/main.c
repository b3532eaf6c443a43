// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap: an out-of-process tracer of dynamic memory. */
#include "cli.h"
#include "command_list.h"
#include "log.h"

int main(int argc, char **argv)
{
	struct cli_parsed p;
	int status;

	status = cli_parse(argc, argv, heaptap_commands, heaptap_nr_commands, &p);
	if (status != EXIT_OK)
		return status;
	log_verbose = p.verbose;
	/* Each sets up what it needs: privileges, this machine's checks (commands.h). */
	status = p.command->run(p.opts);
	cli_free(&p);
	return status;
}
