// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* JSON reports read back: only what report and compare use, checked as it is read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "log.h"
#include "profile_input.h"
#include "report_frames.h"
#include "report_input.h"
#include "report_read.h"

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool read_int(json_object *o, const char *key, int *out)
{
	json_object *v = field(o, key);

	if (!v || json_object_is_type(v, json_type_null)) {
		*out = -1;
		return true;
	}
	if (!json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int(v);
	return true;
}

/* BAL: current, min, max, requested and the calls per entry point. */
bool report_input_balance(json_object *o, struct balance *b)
{
	json_object *calls = field(o, "calls");
	const char *keys[] = { "current", "min", "max", "requested" };
	int64_t values[4];

	for (int i = 0; i < 4; i++) {
		json_object *v = field(o, keys[i]);

		if (!v || !json_object_is_type(v, json_type_int))
			return false;
		values[i] = json_object_get_int64(v);
	}
	*b = (struct balance){ .current = values[0], .min = values[1], .max = values[2],
			       .requested = (uint64_t)values[3] };
	if (!calls || !json_object_is_type(calls, json_type_object))
		return false;
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		json_object *n = field(calls, ht_func_names[f]);

		if (n && !json_object_is_type(n, json_type_int))
			return false;
		b->calls[f] = n ? (uint64_t)json_object_get_int64(n) : 0;
	}
	return true;
}

/*
 * Schema 2's nodes ([parent, frame, BAL's figures...], parents first), from the text of the
 * list: each made below the node its parent index names (nodes[] keeps them by index).
 */
static int read_rows(struct calltree *t, const char *text, const struct report_frames *f)
{
	struct calltree_node **nodes = NULL;
	size_t n = 0, cap = 0, at = 0, nr;
	int64_t v[CALLTREE_MERGED + 1];
	int got, err = 0;

	while (!err && (got = report_scan__row(text, &at, v, CALLTREE_MERGED + 1, &nr)) > 0) {
		json_object *frame, *fn, *lib;
		struct balance *b;
		int64_t up = v[CALLTREE_PARENT];

		if (n == cap) {
			struct calltree_node **more;

			cap = cap ? cap * 2 : 1024;
			if (!(more = realloc(nodes, cap * sizeof(*nodes)))) {
				err = -ENOMEM;
				break;
			}
			nodes = more;
		}
		frame = report_frames__at(f, v[CALLTREE_FRAME]);
		fn = frame ? json_object_object_get(frame, "function") : NULL;
		lib = frame ? json_object_object_get(frame, "library") : NULL;
		if (nr < CALLTREE_MERGED || up < -1 || up >= (int64_t)n || !fn || !lib) {
			err = -EINVAL;
			break;
		}
		nodes[n] = calltree__child(t, up >= 0 ? nodes[up] : NULL,
					   json_object_get_string(lib), json_object_get_string(fn));
		if (!nodes[n]) {
			err = -ENOMEM;
			break;
		}
		b = &nodes[n++]->bal;
		*b = (struct balance){ .current = v[CALLTREE_CURRENT], .min = v[CALLTREE_MIN],
				       .max = v[CALLTREE_MAX],
				       .requested = (uint64_t)v[CALLTREE_REQUESTED] };
		for (int c = 0; c < HT_NR_FUNCS; c++)
			b->calls[c] = (uint64_t)v[CALLTREE_CALLS + c];
	}
	free(nodes);
	return err ? err : got < 0 ? got : 0;
}

/* One node: its path, outermost first, and its balance. */
static int read_node(struct calltree *t, json_object *o)
{
	json_object *path = field(o, "path");
	struct calltree_node *node = NULL;
	size_t n;

	if (!path || !json_object_is_type(path, json_type_array) ||
	    !(n = json_object_array_length(path)))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		json_object *frame = json_object_array_get_idx(path, i);
		json_object *fn = field(frame, "function"), *lib = field(frame, "library");

		if (!fn || !lib || !json_object_is_type(fn, json_type_string) ||
		    !json_object_is_type(lib, json_type_string))
			return -EINVAL;
		node = calltree__child(t, node, json_object_get_string(lib),
				       json_object_get_string(fn));
		if (!node)
			return -ENOMEM;
	}
	return report_input_balance(o, &node->bal) ? 0 : -EINVAL;
}

/* Schema 1's nodes, from the text of the list. */
static int read_nodes(struct calltree *t, const char *text)
{
	json_object *tree = json_tokener_parse(text);
	int err = tree && json_object_is_type(tree, json_type_array) ? 0 : -EINVAL;

	for (size_t i = 0; !err && i < json_object_array_length(tree); i++)
		err = read_node(t, json_object_array_get_idx(tree, i));
	json_object_put(tree);
	return err;
}

/* tree: the text of the process's calltree (cut from o), NULL when it has none. */
static int read_process(json_object *o, const char *tree, const struct report_frames *f,
			struct loaded_process *p, struct heap_profile *profile, const char **what)
{
	json_object *command = field(o, "command");
	int pid, err;

	*what = "pid, rank or world_size";
	if (!read_int(o, "pid", &pid) || !read_int(o, "rank", &p->rank) ||
	    !read_int(o, "world_size", &p->world_size))
		return -EINVAL;
	p->pid = pid;
	/* "sampled": {"bytes": R}; absent (older reports) or null: exact. */
	if (field(o, "sampled") && json_object_is_type(field(o, "sampled"), json_type_object) &&
	    field(field(o, "sampled"), "bytes"))
		p->sample_bytes = (uint64_t)json_object_get_int64(field(field(o, "sampled"), "bytes"));
	*what = "frames";
	if (profile && (err = report_frames__expand_process(f, o)))
		return err;
	if (profile && (err = profile_read_json_process(o, &(struct profile_labels){
								.pid = pid, .rank = p->rank },
							profile, what)))
		return err;
	*what = "total";
	if (!field(o, "total") || !report_input_balance(field(o, "total"), &p->total))
		return -EINVAL;
	p->command = strdup(command && json_object_is_type(command, json_type_string) ?
				    json_object_get_string(command) :
				    "?");
	if (!p->command)
		return -ENOMEM;
	if (!tree)
		return 0;
	*what = "calltree";
	p->has_tree = true;
	err = f->version > 1 ? read_rows(&p->tree, tree, f) : read_nodes(&p->tree, tree);
	if (err)
		return err;
	calltree__sort(&p->tree);
	return 0;
}

/*
 * The report's JSON, each process's call tree cut out into cut (read by hand: it is most of
 * a report's values), and its sites too unless with_profile; of top -b --json's snapshots
 * (one a line) the last whole one, its processes' trees from cut->kept[*first] on. NULL
 * after one logged line.
 */
static json_object *parse(const char *path, bool with_profile, struct report_cut *cut,
			  size_t *first)
{
	static const char *const sites[] = { "outstanding", "allocated", "peak", "mappings",
					     "stacks", NULL };

	return report_read_last(path, "calltree", with_profile ? NULL : sites,
				"the file heaptap --json wrote", cut, first);
}

static int read_json(const char *path, struct loaded_report *out, bool with_profile)
{
	struct report_cut trees = {};
	size_t first = 0;
	json_object *root = parse(path, with_profile, &trees, &first), *processes, *rule;
	struct report_frames frames;
	const char *what = "";
	int err = 0;
	size_t n;

	*out = (struct loaded_report){ .path = path };
	if (!root) {
		report_cut__clear(&trees);
		return -EINVAL;
	}
	if ((err = report_frames__read(root, path, &frames)))
		goto cleanup;
	processes = field(root, "processes");
	rule = field(root, "attribution");
	out->attribution = strdup(rule ? json_object_get_string(rule) : "entry");
	n = json_object_array_length(processes);
	out->processes = calloc(n ? n : 1, sizeof(*out->processes));
	if (with_profile)
		out->profile = heap_profile__new();
	if (!out->attribution || !out->processes || (with_profile && !out->profile)) {
		err = -ENOMEM;
		log_error("out of memory reading %s", path);
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		err = read_process(json_object_array_get_idx(processes, i),
				   first + i < trees.nr ? trees.kept[first + i] : NULL, &frames,
				   &out->processes[i],
				   out->profile, &what);
		out->nr = i + 1;
		if (err) {
			log_error("%s: process %zu: %s %s", path, i,
				  err == -ENOMEM ? "out of memory reading its" : "bad", what);
			goto cleanup;
		}
	}
cleanup:
	json_object_put(root);
	report_cut__clear(&trees);
	if (err)
		loaded_report__clear(out);
	return err;
}

int loaded_report__read_json(const char *path, struct loaded_report *out)
{
	return read_json(path, out, false);
}

int loaded_report__read_json_with_profile(const char *path, struct loaded_report *out)
{
	return read_json(path, out, true);
}

void loaded_report__clear(struct loaded_report *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->processes[i].command);
		calltree__clear(&r->processes[i].tree);
	}
	free(r->processes);
	free(r->attribution);
	heap_profile__free(r->profile);
	*r = (struct loaded_report){ .path = r->path };
}
