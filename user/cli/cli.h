/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The command line: subcommands, options, and heaptap's exit statuses. */
#ifndef HEAPTAP_CLI_H
#define HEAPTAP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "alloc_spec.h"
#include "attribution.h"
#include "budget.h"
#include "profile_folded.h"

/* Exit statuses (run exits with the command's own status when it ran). */
enum exit_status {
	EXIT_OK = 0,
	/*
	 * heaptap cannot run here (kernel older than 6.6, not in the initial PID namespace),
	 * BPF could not be loaded or attached, a report could not be written, out of memory.
	 */
	EXIT_FAILURE_INTERNAL = 1,
	EXIT_USAGE = 2,		   /* bad command line, a report file heaptap cannot open */
	EXIT_BAD_TARGET = 3,	   /* no such process, a kernel thread, nothing to probe */
	EXIT_NO_PRIVILEGE = 4,	   /* not root, nor the capabilities (cli_exit_statuses) */
	EXIT_PARTIAL = 5,	   /* some processes could not be traced (the report lists them) */
	EXIT_NOT_EXECUTABLE = 126, /* run: the command exists but cannot be executed */
	EXIT_NOT_FOUND = 127,	   /* run: no such command */
};

enum subcommand {
	CMD_RUN, CMD_ATTACH, CMD_TOP, CMD_SITES, CMD_REPORT, CMD_COMPARE, CMD_AGENT, CMD_COLLECT,
	CMD_STORE_MIGRATE
};

struct options {
	enum subcommand cmd;
	enum attribution_rule rule;
	const char *json_path; /* --json */
	const char *text_path; /* -o */
	double duration;       /* attach -d, seconds; 0 = until stopped */
	pid_t *pids;	       /* attach -p */
	size_t nr_pids;
	char **command;	       /* run: NULL-terminated argv */
	bool follow;	       /* run/top --follow */
	bool mpi_only;	       /* run/top --mpi */
	bool batch;	       /* top -b: snapshots on standard output */
	bool json_lines;       /* top --json: each snapshot one JSON report on one line */
	double interval;       /* top -i, seconds between refreshes */
	long count;	       /* top -n: refreshes before quitting; 0 = until done */
	bool frame_pointers; /* --unwind fp: no unwind tables */
	struct budget_limits table_budget;  /* --table-budget */
	struct budget_limits symbol_budget; /* --symbol-budget */
	uint64_t tree_budget;		    /* --tree-budget */
	const char *stacks_path; /* --stacks */
	const char *file;	 /* sites FILE */
	bool tree;		 /* --tree: the call tree in the text report */
	unsigned depth;		 /* --depth: its levels shown (0: all) */
	const char *under;	 /* --under: the function it starts at */
	const char **inputs;	 /* report, compare: the report files named */
	size_t nr_inputs;
	const char *html_path;	 /* report, compare: --html */
	bool verbose;
	/* The cluster's commands (cli_cluster.c). */
	const char *collector;	   /* agent, top: --collector HOST:PORT */
	const char *key_path;	   /* agent, collect, top: --key */
	bool munge;		   /* agent, collect: --munge */
	const char *munge_socket;  /* agent, collect: --munge-socket; NULL: libmunge's */
	const char *listen;	   /* collect --listen */
	const char *db_path;	   /* collect --db; report's FILE */
	const char *metrics_listen; /* collect --metrics */
	double client_timeout;	   /* collect: seconds for a handshake, a frame, silence */
	double lost_after;	   /* collect: seconds before an agent gone is lost */
	double commit_every;	   /* collect: seconds a round of batches lasts */
	uint64_t buffer_limit;	   /* agent --buffer: bytes of unacknowledged batches */
	long run_id;		   /* report, top: --run; 0 = the newest */
	bool list_runs;		   /* report --list */
	uint64_t live_blocks;	   /* --live-blocks: per process (0: the default) */
	unsigned consumers;	   /* --consumers: event threads (0: from the node) */
	struct alloc_spec *allocators; /* --allocator, in order */
	size_t nr_allocators;
	unsigned site_depth;	   /* --site-depth: frames per allocation site shown */
	/* The heap profile exports (cli_exports.c). */
	const char *pprof_path;	   /* run, attach, report: --pprof */
	const char *folded_path;   /* --folded */
	enum folded_weight folded_weight; /* --folded-weight */
	bool folded_weight_set;
	int rank;		   /* report --rank; -1: every process */
	bool full;		   /* report --full: each process's report, not the job's summary */
};

/*
 * Parse argv: global options, a subcommand, its options. EXIT_OK, or EXIT_USAGE after one
 * line on standard error. --help, --usage and --version print and exit(0). The command
 * (run, top --follow) points into argv; argv[i] of the subcommand's name is replaced by
 * "heaptap NAME" for argp's messages.
 */
int cli_parse(int argc, char **argv, struct options *opts);
void cli_free(struct options *opts);

/* --consumers at most: one ring per consumer, HT_MAX_SHARDS of them. */
#define CLI_MAX_CONSUMERS 64
#endif
