/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The report files and what shapes them, shared by run, attach, top (its exports), report
 * and compare: a subcommand embeds struct output_options, puts the rows it takes in its
 * table (writing itself those whose text is its own, with the key below), and hands the
 * keys it does not know to cli_parse_outputs.
 */
#ifndef HEAPTAP_CLI_OUTPUTS_H
#define HEAPTAP_CLI_OUTPUTS_H

#include "cli.h"
#include "profile_folded.h"

enum {
	CLI_OPT_OUTPUT = 'o', /* -o FILE: its text is each subcommand's */
	CLI_OPT_JSON = CLI_OUTPUT_KEYS, /* --json FILE */
	CLI_OPT_STACKS,
	CLI_OPT_HTML, /* --html FILE: its text is each subcommand's */
	CLI_OPT_PPROF,
	CLI_OPT_FOLDED,
	CLI_OPT_FOLDED_WEIGHT,
	CLI_OPT_TREE,
	CLI_OPT_DEPTH,
	CLI_OPT_UNDER,
	CLI_OPT_SITE_DEPTH,
	CLI_OPT_DMATP,
	CLI_OPT_BYTES,
	CLI_OPT_MAPPINGS,
	CLI_OPT_FULL, /* --full: its text is each subcommand's */
};

struct output_options {
	const char *text_path;	 /* -o */
	const char *json_path;	 /* --json */
	const char *stacks_path; /* --stacks */
	const char *html_path;	 /* --html */
	const char *pprof_path;	 /* --pprof */
	const char *folded_path; /* --folded */
	enum folded_weight folded_weight; /* --folded-weight */
	bool folded_weight_set;
	bool tree;	       /* --tree: the call tree in the text report */
	unsigned depth;	       /* --depth: its levels shown (0: all) */
	const char *under;     /* --under: the function it starts at */
	bool dmatp;	       /* --dmatp: DMATP's layout of the text report */
	bool bytes;	       /* --bytes: sizes as exact byte counts */
	bool mappings;	       /* --mappings: the OS view's stacks in the text */
	bool full;	       /* --full */
	unsigned site_depth;   /* --site-depth: frames per allocation site shown */
};

#define CLI_OPTION_JSON_FILE                                                                \
	{ "json", CLI_OPT_JSON, "FILE", 0, "also write the report as JSON (schema "           \
					   "\"heaptap\": 2)" }
#define CLI_OPTION_STACKS                                                                   \
	{ "stacks", CLI_OPT_STACKS, "FILE", 0, "also write every distinct stack that called " \
					       "the allocator, as JSON lines with its calls" }
/* The call tree in the text report (report_tree.c). */
#define CLI_OPTIONS_TREE                                                                     \
	{ "tree", CLI_OPT_TREE, NULL, 0, "also print each process's inclusive call tree, "      \
					 "sorted by max" },                                     \
	{ "depth", CLI_OPT_DEPTH, "N", 0, "with --tree: show N levels of it" },                  \
	{ "under", CLI_OPT_UNDER, "FUNCTION", 0, "with --tree: start at FUNCTION, wherever it " \
						 "is called (its places summed)" }
/* How the text report of run and attach is laid out (report_text.c). */
#define CLI_OPTIONS_TEXT_LAYOUT                                                               \
	{ "dmatp", CLI_OPT_DMATP, NULL, 0, "print the text report in DMATP's layout (every "   \
					   "counter of every group, raw bytes, the mappings' " \
					   "stacks, the budgets), as heaptap printed it "      \
					   "before" },                                         \
	{ "bytes", CLI_OPT_BYTES, NULL, 0, "sizes in the text report as exact byte counts, " \
					   "not KiB, MiB, GiB" },                              \
	{ "mappings", CLI_OPT_MAPPINGS, NULL, 0, "also list the stacks that made mappings "   \
						 "(mmap, munmap, mremap, brk, madvise) in "   \
						 "the text report" },                         \
	{ "full", CLI_OPT_FULL, NULL, 0, "an MPI job: each rank's own report before the "      \
					 "summary across the ranks (without it they are in " \
					 "--json only)" }
/* The owner figures' stacks in the text of run and attach. */
#define CLI_OPTION_SITE_DEPTH                                                                \
	{ "site-depth", CLI_OPT_SITE_DEPTH, "N", 0, "frames shown per allocation site in the " \
						    "text report (default 6)" }
/* The heap profile exports of run, attach, top and report. */
#define CLI_OPTIONS_EXPORTS                                                                  \
	{ "pprof", CLI_OPT_PPROF, "FILE", 0, "also write the allocation stacks as a pprof heap " \
					     "profile (gzipped profile.proto): go tool pprof "  \
					     "FILE" },                                          \
	{ "folded", CLI_OPT_FOLDED, "FILE", 0, "also write the allocation stacks as folded "     \
					       "stacks for flame graphs (flamegraph.pl, "       \
					       "inferno, speedscope)" },                        \
	{ "folded-weight", CLI_OPT_FOLDED_WEIGHT, "outstanding|peak|allocated|calls", 0,        \
	  "what --folded weighs: outstanding (default: bytes still allocated at the end), "    \
	  "peak, allocated or calls" }

/* Said by every subcommand that writes reports while it traces (run, attach). */
#define CLI_REPORT_FILES_DOC                                                                 \
	"Report files (--json, -o, --stacks, --pprof, --folded) are opened before tracing "    \
	"starts, so a bad path fails at once with exit status 2. A file that exists keeps its " \
	"contents until the report replaces them at the end; one heaptap created is removed "   \
	"if no report is written (the target could not be traced). heaptap --help lists the "  \
	"exit statuses."

/* The defaults, for ARGP_KEY_INIT. */
void cli_outputs_defaults(struct output_options *o);
/* A key of this group: 0 or cli_usage_error()'s value; ARGP_ERR_UNKNOWN for any other. */
error_t cli_parse_outputs(struct cli_state *c, struct output_options *o, int key, char *arg);
/* The checks of the whole: --depth and --under need --tree; --folded-weight, --folded. */
int cli_check_tree(const struct cli_command *sub, const struct output_options *o);
int cli_check_exports(const struct cli_command *sub, const struct output_options *o);
/* Both: 0, or EINVAL once one has said why. */
error_t cli_check_outputs(const struct cli_command *sub, const struct output_options *o);

#endif
