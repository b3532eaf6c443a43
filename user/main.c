// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap: an out-of-process tracer of dynamic memory. */
#include "cli.h"
#include "commands.h"
#include "log.h"

int main(int argc, char **argv)
{
	struct options opts;
	int status;

	cli_parse(argc, argv, &opts);
	log_verbose = opts.verbose;
	log_setup_libbpf();
	status = opts.cmd == CMD_RUN ? cmd_run(&opts) : cmd_attach(&opts);
	cli_free(&opts);
	return status;
}
