/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The options every subcommand that traces shares (run, attach, top, agent): what it
 * traces, and how. A subcommand embeds struct trace_options, puts the rows it takes in its
 * table (those whose text differs from one subcommand to another it writes itself, with
 * the key below), and hands the keys it does not know to cli_parse_trace.
 */
#ifndef HEAPTAP_CLI_TRACE_H
#define HEAPTAP_CLI_TRACE_H

#include <stdint.h>
#include "alloc_spec.h"
#include "attribution.h"
#include "budget.h"
#include "cli.h"

enum {
	CLI_OPT_ATTRIBUTION = 'a',
	CLI_OPT_INTERVAL = 'i', /* -i SECONDS: its text is each subcommand's */
	CLI_OPT_PID = 'p',	/* -p PID[,PID...]: its text is each subcommand's */
	CLI_OPT_MPI = CLI_TRACE_KEYS, /* --mpi: its text is each subcommand's */
	CLI_OPT_FOLLOW,		      /* --follow: its text is each subcommand's */
	CLI_OPT_UNWIND,
	CLI_OPT_TABLE_BUDGET,
	CLI_OPT_SYMBOL_BUDGET,
	CLI_OPT_TREE_BUDGET,
	CLI_OPT_LIVE_BLOCKS,
	CLI_OPT_ALLOCATOR,
	CLI_OPT_SAMPLE_BYTES,
	CLI_OPT_CONSUMERS,
};

struct trace_options {
	pid_t *pids; /* -p */
	size_t nr_pids;
	char **command; /* run, top --follow, agent: NULL-terminated argv */
	bool follow;	/* --follow, --mpi */
	bool mpi_only;	/* --mpi */
	enum attribution_rule rule;
	bool frame_pointers;		    /* --unwind fp: no unwind tables */
	struct budget_limits table_budget;  /* --table-budget */
	struct budget_limits symbol_budget; /* --symbol-budget */
	uint64_t tree_budget;		    /* --tree-budget */
	uint64_t live_blocks;		    /* --live-blocks: per process (0: the default) */
	uint64_t sample_bytes; /* --sample-bytes R: sample calls by bytes (0: every call) */
	unsigned consumers;    /* --consumers: event threads (0: from the node) */
	struct alloc_spec *allocators;	    /* --allocator, in order */
	size_t nr_allocators;
	double interval; /* -i, seconds */
};

/* The attribution rule and the unwinder of every subcommand that traces. */
#define CLI_OPTION_ATTRIBUTION                                                              \
	{ "attribution", 'a', "entry|caller", 0,                                             \
	  "entry (default: the first library function the program called) or caller (the "  \
	  "innermost function outside the allocator)" }
#define CLI_OPTION_UNWIND                                                                   \
	{ "unwind", CLI_OPT_UNWIND, "tables|fp", 0,                                          \
	  "tables (default: .eh_frame rows, through code built without frame pointers) or "  \
	  "fp (frame pointers only: cheaper, wrong where they are missing)" }

/* What heaptap keeps of a target's files (budget.h): the defaults suit any real job. */
#define CLI_OPTIONS_BUDGETS                                                                  \
	{ "table-budget", CLI_OPT_TABLE_BUDGET, "SIZE[,TOTAL]", 0,                              \
	  "memory for unwind tables: per file and in all (default 32M,64M; sizes in K, M, G; "  \
	  "at most 256M); a file over it is unwound by frame pointers" },                       \
	{ "symbol-budget", CLI_OPT_SYMBOL_BUDGET, "SIZE[,TOTAL]", 0,                            \
	  "memory for symbols and call sites: per file and in all (default 64M,256M); a file "  \
	  "over it goes unnamed" },                                                             \
	{ "tree-budget", CLI_OPT_TREE_BUDGET, "SIZE", 0,                                        \
	  "memory for the call trees of processes that ended (default 64M); beyond it the "     \
	  "oldest ended trees are dropped, and the report says so" }

/* Allocator APIs beyond the malloc family (alloc_spec.h). */
#define CLI_OPTION_ALLOCATOR                                                                 \
	{ "allocator", CLI_OPT_ALLOCATOR, "NAME|FILE", 0, "also trace this allocator API: tbb " \
							  "(scalable_*), or a spec FILE of "   \
							  "'FUNCTION KIND ROLE=argN' lines; "  \
							  "repeatable" }

/* The threads that read the events, each the processes of its own ring (session.h). */
/* -i of run and attach (top and agent give it their own meaning). */
#define CLI_OPTION_SAMPLE_INTERVAL                                                           \
	{ "interval", 'i', "SECONDS", 0, "sample each allocation site's outstanding bytes (to " \
					 "tell likely leaks) and each process's RSS every "     \
					 "SECONDS (default 1)" }

#define CLI_OPTION_CONSUMERS                                                                 \
	{ "consumers", CLI_OPT_CONSUMERS, "N", 0, "read the events with N threads, each "      \
						  "owning a share of the processes (default: " \
						  "one for a single process, else the online " \
						  "CPUs, at most 8)" }
/* --consumers at most: one ring per consumer, HT_MAX_SHARDS of them. */
#define CLI_MAX_CONSUMERS 64

/* Who holds the memory (owner.h): its table's limit; -i, its samples. */
#define CLI_OPTION_LIVE_BLOCKS                                                               \
	{ "live-blocks", CLI_OPT_LIVE_BLOCKS, "N", 0, "remember at most N live blocks per "    \
						      "process for the owner figures (default " \
						      "4194304: ~180 MiB at most); blocks past " \
						      "it are counted, not owned" }

/* Sampling by bytes (sample_weights.h): agent's default differs, its text says so. */
#define CLI_OPTION_SAMPLE_BYTES(default_text)                                               \
	{ "sample-bytes", CLI_OPT_SAMPLE_BYTES, "R", 0, "sample calls by bytes: a call of s " \
							"bytes is traced with probability "    \
							"1-exp(-s/R), its figures weighed by " \
							"the inverse (K, M; 0: every call, "   \
							"exact; default " default_text ")" }

/* The agent's --sample-bytes: cluster-wide runs, a mode every rank can afford (README). */
#define CLI_AGENT_SAMPLE_BYTES (512u << 10)

/* The defaults, for ARGP_KEY_INIT. */
void cli_trace_defaults(struct trace_options *t);
/* A key of this group: 0 or cli_usage_error()'s value; ARGP_ERR_UNKNOWN for any other. */
error_t cli_parse_trace(struct cli_state *c, struct trace_options *t, int key, char *arg);
void cli_trace_free(struct trace_options *t);

#endif
