// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap report FILE.json: a report heaptap wrote, printed again, with its call trees. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "printable.h"
#include "profile_files.h"
#include "report_input.h"

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
static int write_exports(const struct options *opts, struct loaded_report *r,
			 struct report_file *pprof, struct report_file *folded)
{
	if (opts->rank >= 0 && !heap_profile__keep_rank(r->profile, opts->rank)) {
		log_error("%s has no allocation stacks of rank %d: heaptap report %s lists the "
			  "ranks", r->path, opts->rank, r->path);
		report_file__close(pprof);
		report_file__close(folded);
		return EXIT_USAGE;
	}
	if (profile_write_files(r->profile, pprof, folded, opts->folded_weight))
		return EXIT_FAILURE_INTERNAL;
	return EXIT_OK;
}

int cmd_report(const struct options *opts)
{
	struct tree_opts tree = { .show = opts->tree, .depth = opts->depth, .under = opts->under };
	struct report_file text = {}, json = {}, pprof = {}, folded = {};
	bool exports = opts->pprof_path || opts->folded_path;
	struct {
		struct report_file *rf;
		const char *path;
	} files[] = {
		{ &text, opts->text_path },
		{ &json, opts->json_path },
		{ &pprof, opts->pprof_path },
		{ &folded, opts->folded_path },
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
	if ((text.f || opts->text_path) && (!f || report_file__close(&text))) {
		log_error("cannot write %s", opts->text_path);
		status = EXIT_FAILURE_INTERNAL;
	}
	if (json.f) {
		f = report_file__begin(&json);
		if (!f || print_json(f, &r, &tree) || report_file__close(&json)) {
			log_error("cannot write %s", opts->json_path);
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
