// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap report: its options, which reader reads what they name, and the one report file
 * heaptap wrote, printed again with its call trees (--tree, --full, --pprof, --folded).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cli_cluster.h"
#include "cmd_report.h"
#include "commands.h"
#include "log.h"
#include "own_heap.h"
#include "printable.h"
#include "profile_files.h"
#include "report_input.h"
#include "store_read.h"

static void print_total(FILE *out, const struct balance *b)
{
	fprintf(out, "mem_size = %" PRId64 ", mem_min = %" PRId64 ", mem_max = %" PRId64
		     ", requested = %" PRIu64 "\n",
		b->current, b->min, b->max, b->requested);
	for (int f = 0, shown = 0; f < HT_NR_FUNCS; f++)
		fprintf(out, "%s%s: %" PRIu64, shown++ ? ", " : "", ht_func_names[f], b->calls[f]);
	fputc('\n', out);
}

static void print_text(FILE *out, const struct loaded_report *r, const struct tree_opts *tree)
{
	fprintf(out, "heaptap report %s (attribution: %s)\n", r->path, r->attribution);
	for (size_t i = 0; i < r->nr; i++) {
		const struct loaded_process *p = &r->processes[i];
		char command[PRINTABLE_SIZE(512)];

		fprintf(out, "==== PID %d", p->pid);
		if (p->rank >= 0)
			fprintf(out, ", rank %d", p->rank);
		if (p->world_size >= 0)
			fprintf(out, " of %d", p->world_size);
		fprintf(out, ": %s =====\n", printable(p->command, command, sizeof(command)));
		print_total(out, &p->total);
		if (!tree->show)
			continue;
		report_tree_heading(out, p->pid, p->rank, p->world_size, p->command);
		if (!p->has_tree)
			fprintf(out, "(this report has no call tree: heaptap older than --tree "
				     "wrote it)\n");
		else if (report_calltree_text(out, &p->tree, tree))
			fprintf(out, "(out of memory: no tree)\n");
	}
	fflush(out);
}

static json_object *int_or_null(int v)
{
	return v >= 0 ? json_object_new_int(v) : NULL;
}

/* The processes, their trees as --under and --depth select. 0 or -ENOMEM. */
static int print_json(FILE *out, const struct loaded_report *r, const struct tree_opts *tree)
{
	json_object *root = json_object_new_object(), *processes = json_object_new_array();
	struct calltree *under = calloc(r->nr ? r->nr : 1, sizeof(*under));
	struct frame_table *names = frame_table__new();
	int err = under && names ? 0 : -ENOMEM;

	json_object_object_add(root, "heaptap", json_object_new_int(REPORT_SCHEMA));
	json_object_object_add(root, "attribution", json_object_new_string(r->attribution));
	if (names) {
		json_object_object_add(root, "frames", frame_table__json(names));
		json_object_object_add(root, "stacks", frame_table__stacks_json(names));
	}
	for (size_t i = 0; i < r->nr && !err; i++) {
		const struct loaded_process *p = &r->processes[i];
		json_object *o = json_object_new_object(), *total = json_object_new_object();

		json_object_object_add(o, "pid", json_object_new_int(p->pid));
		json_object_object_add(o, "rank", int_or_null(p->rank));
		json_object_object_add(o, "world_size", int_or_null(p->world_size));
		json_object_object_add(o, "command", json_object_new_string(p->command));
		report_json_balance(total, &p->total);
		json_object_object_add(o, "total", total);
		/* Serialized below: the trees must live until then. */
		if (tree->under && !(err = calltree__under(&p->tree, tree->under, &under[i])))
			calltree__sort(&under[i]);
		json_object_object_add(o, "calltree",
				       report_calltree_json(tree->under ? &under[i] : &p->tree,
							    tree->depth, names));
		json_object_array_add(processes, o);
	}
	json_object_object_add(root, "processes", processes);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	frame_table__free(names);
	for (size_t i = 0; under && i < r->nr; i++)
		calltree__clear(&under[i]);
	free(under);
	fflush(out);
	return err;
}

/* --pprof and --folded: the report's allocation stacks, of --rank R or of every process. */
static int write_exports(const struct report_options *opts, struct loaded_report *r,
			 struct report_file *pprof, struct report_file *folded)
{
	if (opts->rank >= 0 && !heap_profile__keep_rank(r->profile, opts->rank)) {
		log_error("%s has no allocation stacks of rank %d: heaptap report %s lists the "
			  "ranks", r->path, opts->rank, r->path);
		report_file__close(pprof);
		report_file__close(folded);
		return EXIT_USAGE;
	}
	if (profile_write_files(r->profile, pprof, folded, opts->out.folded_weight))
		return EXIT_FAILURE_INTERNAL;
	return EXIT_OK;
}

static int report_file(const struct report_options *opts)
{
	struct tree_opts tree = {
		.show = opts->out.tree, .depth = opts->out.depth, .under = opts->out.under
	};
	struct report_file text = {}, json = {}, pprof = {}, folded = {};
	bool exports = opts->out.pprof_path || opts->out.folded_path;
	struct {
		struct report_file *rf;
		const char *path;
	} files[] = {
		{ &text, opts->out.text_path },
		{ &json, opts->out.json_path },
		{ &pprof, opts->out.pprof_path },
		{ &folded, opts->out.folded_path },
	};
	struct loaded_report r;
	int status = EXIT_OK, err, read_err;
	FILE *f;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (files[i].path && (err = report_file__open(files[i].rf, files[i].path))) {
			log_error("cannot write %s: %s", files[i].path, strerror(-err));
			status = EXIT_USAGE;
			goto cleanup;
		}
	}
	read_err = exports ? loaded_report__read_json_with_profile(opts->inputs[0], &r) :
			     loaded_report__read_json(opts->inputs[0], &r);
	if (read_err) {
		status = EXIT_USAGE;
		goto cleanup;
	}
	f = text.f ? report_file__begin(&text) : stdout;
	if (f)
		print_text(f, &r, &tree);
	if ((text.f || opts->out.text_path) && (!f || report_file__close(&text))) {
		log_error("cannot write %s", opts->out.text_path);
		status = EXIT_FAILURE_INTERNAL;
	}
	if (json.f) {
		f = report_file__begin(&json);
		if (!f || print_json(f, &r, &tree) || report_file__close(&json)) {
			log_error("cannot write %s", opts->out.json_path);
			status = EXIT_FAILURE_INTERNAL;
		}
	}
	if (exports && (err = write_exports(opts, &r, &pprof, &folded)) && status == EXIT_OK)
		status = err;
	loaded_report__clear(&r);
cleanup:
	report_file__close(&text);
	report_file__close(&json);
	report_file__close(&pprof);
	report_file__close(&folded);
	return status;
}

static int cmd_report(const void *options)
{
	const struct report_options *o = options;
	bool db = store_is_database(o->inputs[0]);

	/* Reading reports needs neither privileges nor BPF: a JSON file, or a database. */
	if (!o->out.full && !o->out.tree && !o->out.pprof_path && !o->out.folded_path &&
	    !o->list_runs && (o->rank < 0 || !db)) {
		/* A job's reports are parsed whole, one after the other: millions of small
		 * objects made and freed, which without it fault the heap in and out again. */
		own_heap_in_huge_pages();
		return cmd_report_job(o);
	}
	if (db)
		return cmd_report_db(o);
	if (o->list_runs || o->run_id) {
		log_error("--list and --run read a database heaptap collect wrote, not %s",
			  o->inputs[0]);
		return EXIT_USAGE;
	}
	return report_file(o);
}

/* report's own options without a short form. */
enum { OPT_RANK = CLI_OWN_KEYS, OPT_RUN, OPT_LIST };

static const struct argp_option options[] = {
	CLI_OPTIONS_TREE,
	{ "json", CLI_OPT_JSON, "FILE", 0, "write the job's summary as JSON (schema "
					   "\"heaptap_summary\": 1); with --full, --rank or "
					   "--tree, the processes and their trees (as --tree, "
					   "--depth and --under select)" },
	{ "output", 'o', "FILE", 0, "write the text to FILE instead of standard output" },
	{ "count", 'n', "N", 0, "the summary's tables: the N libraries and functions of largest "
				"max (default 20; with --json, all unless -n)" },
	{ "full", CLI_OPT_FULL, NULL, 0, "each process's own report instead of the job's "
					 "summary" },
	{ "html", CLI_OPT_HTML, "FILE", 0, "also write the job as one self-contained web page: "
					   "the summary, memory over time per rank, functions "
					   "and libraries across ranks, the call tree, each "
					   "rank's report" },
	CLI_OPTIONS_EXPORTS,
	{ "rank", OPT_RANK, "R", 0, "--pprof, --folded, or a database's report: only MPI rank R "
				    "(default: every process of the report)" },
	{ "run", OPT_RUN, "ID", 0, "DB.sqlite: the run to report (default: the newest)" },
	{ "list", OPT_LIST, NULL, 0, "DB.sqlite: list the stored runs: id, job, start, ranks, "
				     "hosts" },
	{ "site-depth", CLI_OPT_SITE_DEPTH, "N", 0, "frames shown per allocation site in the "
						    "text of a database's run (default 6)" },
	{},
};

static int check(const struct cli_command *sub, const struct report_options *o)
{
	const struct output_options *out = &o->out;

	if (!o->nr_inputs)
		return cli_usage_error(sub, "%s", "report reads JSON reports of one job, or a "
					     "database: heaptap report FILE.json..., or DB.sqlite");
	if (o->nr_inputs > 1 && (out->tree || out->full || out->pprof_path ||
				 out->folded_path || o->list_runs))
		return cli_usage_error(sub, "%s", "--tree, --full, --pprof, --folded and --list "
					     "read one file: name one, or drop them for the job's "
					     "summary of several");
	if (out->html_path && (out->tree || out->full || o->rank >= 0 || out->pprof_path ||
			       out->folded_path || o->list_runs))
		return cli_usage_error(sub, "%s", "--html writes the job's page: drop --tree, "
					     "--full, --rank, --pprof, --folded and --list");
	return cli_check_outputs(sub, out);
}

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct report_options *o = c->opts;
	char *end;
	long rank;

	switch (key) {
	case ARGP_KEY_INIT:
		cli_outputs_defaults(&o->out);
		o->rank = -1;
		return 0;
	case 'n':
		return cli_parse_count(c, arg, &o->count);
	case OPT_RANK:
		errno = 0;
		rank = strtol(arg, &end, 10);
		if (errno || end == arg || *end || rank < 0 || rank > 1 << 24)
			return cli_usage_error(c->sub, "--rank wants an MPI rank (0 or more), not "
					       "'%s'", arg);
		o->rank = (int)rank;
		return 0;
	case OPT_RUN:
		return cli_parse_run_id(c, arg, &o->run_id);
	case OPT_LIST:
		o->list_runs = true;
		return 0;
	case ARGP_KEY_ARG:
		return cli_add_file(c, arg, &o->inputs, &o->nr_inputs);
	case ARGP_KEY_END:
		return check(c->sub, o);
	default:
		return cli_parse_outputs(c, &o->out, key, arg);
	}
}

static void free_options(void *opts)
{
	struct report_options *o = opts;

	free(o->inputs);
}

const struct cli_command report_command = {
	.name = "report",
	.summary = "a job's memory across its ranks, from JSON reports or a database",
	.man_section = 1,
	.options = options,
	.args_doc = "FILE.json...\nDB.sqlite\npostgresql://HOST/DB",
	.doc = "Read a job's JSON reports (one, or one per rank) or a run stored by heaptap "
	       "collect (the newest, or --run ID) and print the job's summary: each rank's "
	       "current and peak as min/median/max, the outlier ranks, and each library and "
	       "function across the ranks; --json writes it as JSON, --html as one web page. "
	       "--rank R prints rank R's own report, --full every process's, --tree the call "
	       "trees of one file; --list lists the stored runs. --pprof and --folded export "
	       "the allocation stacks, of every process or of --rank R. Needs no privileges.",
	.takes_files = true,
	.opts_size = sizeof(struct report_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_report,
};
