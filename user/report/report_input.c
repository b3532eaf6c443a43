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

static bool whole(json_object *v)
{
	return v && json_object_is_type(v, json_type_int);
}

/*
 * Schema 2's nodes ([parent, frame, BAL's figures...], parents first): each made below the
 * node its parent index names (nodes[] keeps them by index).
 */
static int read_rows(struct calltree *t, json_object *tree, const struct report_frames *f)
{
	size_t n = json_object_array_length(tree);
	struct calltree_node **nodes = malloc((n ? n : 1) * sizeof(*nodes));
	int err = nodes ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !err; i++) {
		json_object *row = json_object_array_get_idx(tree, i), *frame, *fn, *lib;
		struct calltree_node *parent = NULL;
		struct balance *b;
		int64_t up, v[CALLTREE_MERGED];

		err = -EINVAL;
		if (!json_object_is_type(row, json_type_array) ||
		    json_object_array_length(row) < CALLTREE_MERGED)
			break;
		for (int c = 0; c < CALLTREE_MERGED; c++) {
			json_object *x = json_object_array_get_idx(row, c);

			if (!whole(x))
				goto bad;
			v[c] = json_object_get_int64(x);
		}
		up = v[CALLTREE_PARENT];
		frame = report_frames__get(f, json_object_array_get_idx(row, CALLTREE_FRAME));
		fn = frame ? json_object_object_get(frame, "function") : NULL;
		lib = frame ? json_object_object_get(frame, "library") : NULL;
		if (up < -1 || up >= (int64_t)i || !fn || !lib)
			break;
		parent = up >= 0 ? nodes[up] : NULL;
		nodes[i] = calltree__child(t, parent, json_object_get_string(lib),
					   json_object_get_string(fn));
		if (!nodes[i]) {
			err = -ENOMEM;
			break;
		}
		b = &nodes[i]->bal;
		*b = (struct balance){ .current = v[CALLTREE_CURRENT], .min = v[CALLTREE_MIN],
				       .max = v[CALLTREE_MAX],
				       .requested = (uint64_t)v[CALLTREE_REQUESTED] };
		for (int c = 0; c < HT_NR_FUNCS; c++)
			b->calls[c] = (uint64_t)v[CALLTREE_CALLS + c];
		err = 0;
	}
bad:
	free(nodes);
	return err;
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

static int read_process(json_object *o, const struct report_frames *f, struct loaded_process *p,
			struct heap_profile *profile, const char **what)
{
	json_object *command = field(o, "command"), *tree = field(o, "calltree");
	int pid, err;

	*what = "pid, rank or world_size";
	if (!read_int(o, "pid", &pid) || !read_int(o, "rank", &p->rank) ||
	    !read_int(o, "world_size", &p->world_size))
		return -EINVAL;
	p->pid = pid;
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
	if (!json_object_is_type(tree, json_type_array))
		return -EINVAL;
	p->has_tree = true;
	if (f->version > 1 && (err = read_rows(&p->tree, tree, f)))
		return err;
	for (size_t i = 0; f->version == 1 && i < json_object_array_length(tree); i++) {
		err = read_node(&p->tree, json_object_array_get_idx(tree, i));
		if (err)
			return err;
	}
	calltree__sort(&p->tree);
	return 0;
}

static int read_json(const char *path, struct loaded_report *out, bool with_profile)
{
	json_object *root = json_object_from_file(path), *processes, *rule;
	struct report_frames frames;
	const char *what = "";
	int err = 0;
	size_t n;

	*out = (struct loaded_report){ .path = path };
	if (!root) {
		FILE *f = fopen(path, "r");

		/* json-c's own message ends in a newline, and says little ("failed: continue"). */
		log_error("cannot read %s: %s", path, f ? "not JSON, or cut short: give the file "
			  "heaptap --json wrote" : strerror(errno));
		if (f)
			fclose(f);
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
		err = read_process(json_object_array_get_idx(processes, i), &frames,
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
