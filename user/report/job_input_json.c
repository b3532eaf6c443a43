// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A report's processes, parsed by json-c, into a job's ranks (job_input_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "job_input_internal.h"
#include "log.h"
#include "report_frames.h"
#include "report_input.h"

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* An integer field: *out = -1 when missing or null; false when of another type. */
static bool int_field(json_object *o, const char *key, int64_t *out)
{
	json_object *v = field(o, key);

	*out = -1;
	if (!v)
		return true;
	if (!json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int64(v);
	return true;
}

static char *string_field(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return v && json_object_is_type(v, json_type_string) ?
		       strdup(json_object_get_string(v)) :
		       NULL;
}

/* libraries[] or functions[] of a process. 0, -EINVAL or -ENOMEM. */
static int read_groups(json_object *list, bool functions, struct job_group **out, size_t *nr)
{
	size_t n;

	if (!list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return -EINVAL;
	n = json_object_array_length(list);
	if (!(*out = calloc(n ? n : 1, sizeof(**out))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(list, i);
		struct job_group *g = &(*out)[i];
		json_object *lib = field(o, "library"), *fn = field(o, "function");

		*nr = i + 1;
		if (!lib || !json_object_is_type(lib, json_type_string) ||
		    (functions && (!fn || !json_object_is_type(fn, json_type_string))) ||
		    !report_input_balance(o, &g->bal))
			return -EINVAL;
		g->library = strdup(json_object_get_string(lib));
		g->function = functions ? strdup(json_object_get_string(fn)) : NULL;
		if (!g->library || (functions && !g->function))
			return -ENOMEM;
	}
	return 0;
}

static bool number(json_object *v, double *out)
{
	if (!v || !(json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double)))
		return false;
	*out = json_object_get_double(v);
	return true;
}

/* threads[]: tid, name and BAL. 0, -EINVAL or -ENOMEM. */
static int read_threads(json_object *list, struct job_rank *r)
{
	size_t n;

	if (!list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return -EINVAL;
	n = json_object_array_length(list);
	if (!(r->threads = calloc(n ? n : 1, sizeof(*r->threads))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(list, i);
		struct job_thread *th = &r->threads[i];

		r->nr_threads = i + 1;
		if (!int_field(o, "tid", &th->tid) || !report_input_balance(o, &th->bal))
			return -EINVAL;
		if (!(th->name = string_field(o, "name")) && !(th->name = strdup("?")))
			return -ENOMEM;
	}
	return 0;
}

/* samples: [[t, current, max], ...]. 0, -EINVAL or -ENOMEM. */
static int read_samples(json_object *list, struct job_rank *r)
{
	size_t n;

	if (!list)
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return -EINVAL;
	n = json_object_array_length(list);
	if (!(r->samples = calloc(n ? n : 1, sizeof(*r->samples))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(list, i);
		double t, current, max;

		if (!json_object_is_type(s, json_type_array) || json_object_array_length(s) != 3 ||
		    !number(json_object_array_get_idx(s, 0), &t) ||
		    !number(json_object_array_get_idx(s, 1), &current) ||
		    !number(json_object_array_get_idx(s, 2), &max))
			return -EINVAL;
		r->samples[i] = (struct job_sample){
			.t = t,
			.current = json_object_get_int64(json_object_array_get_idx(s, 1)),
			.max = json_object_get_int64(json_object_array_get_idx(s, 2)),
		};
		r->nr_samples = i + 1;
	}
	return 0;
}

/* One process of a report; *what names what was bad. 0, -EINVAL or -ENOMEM. */
static int read_rank(json_object *o, struct job_rank *r, const char **what)
{
	json_object *total = field(o, "total"), *peak = field(o, "peak"), *exited;
	int64_t pid, rank, world, lost, incomplete, local, status, sig, sample_bytes;
	int err;

	*what = "pid, rank or world_size";
	if (!int_field(o, "pid", &pid) || !int_field(o, "rank", &rank) ||
	    !int_field(o, "world_size", &world) || pid < 0)
		return -EINVAL;
	r->pid = (int)pid;
	r->rank = (int)rank;
	r->world_size = (int)world;
	*what = "lost_events or incomplete_stacks";
	if (!int_field(o, "lost_events", &lost) || !int_field(o, "incomplete_stacks", &incomplete))
		return -EINVAL;
	r->lost_events = lost > 0 ? (uint64_t)lost : 0;
	r->incomplete_stacks = incomplete > 0 ? (uint64_t)incomplete : 0;
	exited = field(o, "exited");
	r->exited = exited && json_object_get_boolean(exited);
	/* "sampled": {"bytes": R} (absent or null: exact; reports before it were). */
	if (field(o, "sampled") && json_object_is_type(field(o, "sampled"), json_type_object) &&
	    int_field(field(o, "sampled"), "bytes", &sample_bytes) && sample_bytes > 0)
		r->sample_bytes = (uint64_t)sample_bytes;
	*what = "total";
	if (!total || !report_input_balance(total, &r->total))
		return -EINVAL;
	r->host = string_field(o, "host");
	if (!(r->command = string_field(o, "command")) && !(r->command = strdup("?")))
		return -ENOMEM;
	r->job = string_field(o, "job");
	*what = "local_rank, exit_status or signal";
	if (!int_field(o, "local_rank", &local) || !int_field(o, "exit_status", &status) ||
	    !int_field(o, "signal", &sig))
		return -EINVAL;
	r->local_rank = (int)local;
	r->exit_status = (int)status;
	r->signal = (int)sig;
	*what = "threads";
	if ((err = read_threads(field(o, "threads"), r)))
		return err;
	*what = "libraries";
	if ((err = read_groups(field(o, "libraries"), false, &r->libraries, &r->nr_libraries)))
		return err;
	*what = "functions";
	if ((err = read_groups(field(o, "functions"), true, &r->functions, &r->nr_functions)))
		return err;
	*what = "samples";
	if ((err = read_samples(field(o, "samples"), r)))
		return err;
	*what = "peak";
	if (peak && !json_object_is_type(peak, json_type_null)) {
		if (!json_object_is_type(peak, json_type_object))
			return -EINVAL;
		r->peak = json_object_get(peak);
	}
	*what = "oom";
	if (field(o, "oom") && !json_object_is_type(field(o, "oom"), json_type_null)) {
		if (!json_object_is_type(field(o, "oom"), json_type_object))
			return -EINVAL;
		r->oom = json_object_get(field(o, "oom"));
	}
	return 0;
}

void job_rank__clear(struct job_rank *r)
{
	for (size_t i = 0; i < r->nr_libraries; i++)
		free(r->libraries[i].library);
	for (size_t i = 0; i < r->nr_functions; i++) {
		free(r->functions[i].library);
		free(r->functions[i].function);
	}
	for (size_t i = 0; i < r->nr_threads; i++)
		free(r->threads[i].name);
	free(r->threads);
	free(r->job);
	free(r->libraries);
	free(r->functions);
	free(r->samples);
	free(r->host);
	free(r->command);
	json_object_put(r->peak);
	json_object_put(r->oom);
	memset(r, 0, sizeof(*r));
}

static int read_untraced(struct job *j, json_object *list)
{
	size_t n = list && json_object_is_type(list, json_type_array) ?
			   json_object_array_length(list) :
			   0;
	struct job_untraced *u;

	if (!n)
		return 0;
	if (!(u = realloc(j->untraced, (j->nr_untraced + n) * sizeof(*u))))
		return -ENOMEM;
	j->untraced = u;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(list, i);
		int64_t pid;

		u = &j->untraced[j->nr_untraced++];
		int_field(o, "pid", &pid);
		u->pid = (int)pid;
		u->command = string_field(o, "command");
		u->reason = string_field(o, "reason");
	}
	return 0;
}

/*
 * The report's "node", under its host. A second report of one host (one heaptap per rank)
 * only counts: what the host's processes held at once is then unknown.
 */
static int read_node(struct job *j, json_object *root)
{
	json_object *node = field(root, "node"), *host = field(root, "host");
	const char *name = host && json_object_is_type(host, json_type_string) ?
				   json_object_get_string(host) : NULL;
	struct job_node *grown;

	if (!node || !json_object_is_type(node, json_type_object))
		return 0;
	for (size_t i = 0; i < j->nr_nodes; i++) {
		struct job_node *n = &j->nodes[i];

		if ((!name && !n->host) || (name && n->host && !strcmp(name, n->host))) {
			n->reports++;
			return 0;
		}
	}
	if (!(grown = realloc(j->nodes, (j->nr_nodes + 1) * sizeof(*grown))))
		return -ENOMEM;
	j->nodes = grown;
	grown[j->nr_nodes] = (struct job_node){ .node = json_object_get(node), .reports = 1 };
	if (name && !(grown[j->nr_nodes].host = strdup(name))) {
		json_object_put(node);
		return -ENOMEM;
	}
	j->nr_nodes++;
	return 0;
}

int job_input_add_report(struct job *j, json_object *root, const char *source)
{
	json_object *processes = field(root, "processes"), *rule = field(root, "attribution");
	const char *name = source ? source : "the database";
	struct report_frames frames;
	const char *what = "";
	struct job_rank *grown;
	char *job_id;
	size_t n;
	int err;

	if ((err = report_frames__read(root, name, &frames)))
		return err;
	n = json_object_array_length(processes);
	if (!(grown = realloc(j->ranks, (j->nr + n) * sizeof(*grown)))) {
		log_error("out of memory reading %s", name);
		return -ENOMEM;
	}
	j->ranks = grown;
	if (!j->attribution && rule && json_object_is_type(rule, json_type_string) &&
	    !(j->attribution = strdup(json_object_get_string(rule))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(processes, i);
		struct job_rank *r = &j->ranks[j->nr];

		memset(r, 0, sizeof(*r));
		r->source = source;
		/* Its sites' frames as objects, as the peak's readers take them. */
		what = "frames";
		err = report_frames__expand_process(&frames, o);
		if (!err)
			err = read_rank(o, r, &what);
		/* run and attach name the host once, for all their processes. */
		if (!err && !r->host && field(root, "host") &&
		    json_object_is_type(field(root, "host"), json_type_string) &&
		    !(r->host = string_field(root, "host")))
			err = -ENOMEM;
		j->nr++;
		if (err) {
			log_error("%s: process %zu: %s %s", name, i,
				  err == -ENOMEM ? "out of memory reading its" : "bad", what);
			return err;
		}
		/* An image that ended in an exec: the process goes on in the next one. */
		if (field(o, "exec") && json_object_get_boolean(field(o, "exec"))) {
			job_rank__clear(r);
			j->nr--;
			continue;
		}
		job_id = string_field(o, "job");
		if (job_id && j->job_id && strcmp(job_id, j->job_id)) {
			log_error("%s holds a process of job %s, %s of job %s: give the reports of "
				  "one job", name, job_id, j->job_source ? j->job_source :
				  "another file", j->job_id);
			free(job_id);
			return -EINVAL;
		}
		if (job_id && !j->job_id) {
			j->job_id = job_id;
			j->job_source = source;
		} else {
			free(job_id);
		}
	}
	if ((err = read_node(j, root)))
		return err;
	return read_untraced(j, field(root, "untraced"));
}
