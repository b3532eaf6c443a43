// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap: an out-of-process tracer of dynamic memory. */
#include "cli.h"
#include "commands.h"
#include "log.h"
#include "own_heap.h"
#include "preflight.h"
#include "privilege.h"
#include "store_migrate.h"
#include "store_read.h"

int main(int argc, char **argv)
{
	struct options opts;
	int status;

	status = cli_parse(argc, argv, &opts);
	if (status != EXIT_OK)
		return status;
	log_verbose = opts.verbose;
	/* Reading reports needs neither privileges nor BPF: a JSON file, or a database. */
	if (opts.cmd == CMD_REPORT && !opts.full && !opts.tree && !opts.pprof_path &&
	    !opts.folded_path && !opts.list_runs &&
	    (opts.rank < 0 || !store_is_database(opts.inputs[0]))) {
		/* A job's reports are parsed whole, one after the other: millions of small
		 * objects made and freed, which without it fault the heap in and out again. */
		own_heap_in_huge_pages();
		status = cmd_report_job(&opts);
		goto cleanup;
	}
	if (opts.cmd == CMD_REPORT && store_is_database(opts.inputs[0])) {
		status = cmd_report_db(&opts);
		goto cleanup;
	}
	if (opts.cmd == CMD_REPORT && (opts.list_runs || opts.run_id)) {
		log_error("--list and --run read a database heaptap collect wrote, not %s",
			  opts.inputs[0]);
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (opts.cmd == CMD_STORE_MIGRATE) {
		status = store__migrate(opts.inputs[0], opts.inputs[1], stdout) ? EXIT_USAGE
										: EXIT_OK;
		goto cleanup;
	}
	if (opts.cmd == CMD_REPORT || opts.cmd == CMD_COMPARE) {
		status = opts.cmd == CMD_REPORT ? cmd_report(&opts) : cmd_compare(&opts);
		goto cleanup;
	}
	log_setup_libbpf();
	/* It reads files and loads nothing: it needs no privilege, nor the kernel's features. */
	if (opts.cmd == CMD_SITES) {
		status = cmd_sites(&opts);
		goto cleanup;
	}
	/* First, while heaptap is one thread: capabilities are per thread. */
	if (privilege_init())
		return EXIT_FAILURE_INTERNAL;
	/* What reads no process of this machine runs anywhere (a container, an old kernel). */
	if (opts.cmd == CMD_COLLECT || (opts.cmd == CMD_TOP && opts.collector)) {
		status = opts.cmd == CMD_COLLECT ? cmd_collect(&opts) : cmd_top_collector(&opts);
		goto cleanup;
	}
	status = preflight_check();
	if (status != EXIT_OK)
		goto cleanup;
	own_heap_in_huge_pages(); /* what traces allocates tens of MB in small pieces */
	switch (opts.cmd) {
	case CMD_RUN:
		status = cmd_run(&opts);
		break;
	case CMD_ATTACH:
		status = cmd_attach(&opts);
		break;
	case CMD_AGENT:
		status = cmd_agent(&opts);
		break;
	default:
		status = cmd_top(&opts);
		break;
	}
cleanup:
	cli_free(&opts);
	return status;
}
