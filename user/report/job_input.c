// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Jobs read back from JSON reports; a database's runs come as the same JSON (job_input_db.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "job_input_internal.h"
#include "report_scan.h"
#include "log.h"
#include "report_frames.h"
#include "report_input.h"
#include "store_read.h"

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
	int64_t pid, rank, world, lost, incomplete, local, status, sig;
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
	return 0;
}

static void rank_clear(struct job_rank *r)
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
			rank_clear(r);
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
	return read_untraced(j, field(root, "untraced"));
}

/*
 * Each process's fields the summary does not read, made null before parsing: they are
 * most of a report's objects (a rank of Open MPI has some 20,000 call-tree nodes and 3,000
 * allocation sites), and a scan of the text is many times quicker than json-c's objects.
 */
static const char *const unread_fields[] = { "calltree", "allocated", "outstanding", "mappings",
					     NULL };

/*
 * The report in text (size bytes, named name), changed in place: its one JSON object, or
 * of top -b --json's snapshots (one a line) the last whole one. NULL after one logged line.
 */
static json_object *parse_report(char *text, size_t size, const char *name)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *last = NULL, *o;
	size_t at = 0;
	struct report_cut unread = {};
	bool cut = false;

	if (!tok || report_scan__cut(text, size, NULL, unread_fields, &unread)) {
		log_error("cannot read %s: %s", name, strerror(ENOMEM));
		goto cleanup;
	}
	while (at < size) {
		at += strspn(text + at, " \t\r\n");
		if (at == size)
			break;
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, text + at, (int)(size - at < INT32_MAX ? size - at :
									  INT32_MAX));
		if (!o) {
			cut = true;
			break;
		}
		json_object_put(last);
		last = o;
		at += json_tokener_get_parse_end(tok);
	}
	if (!last)
		log_error("cannot read %s: %s", name, size ? "not JSON, or cut short: give a report "
			  "heaptap finished writing" : "empty");
	else if (cut)
		log_info("%s: its last snapshot is cut short; the one before it is reported", name);
cleanup:
	report_cut__clear(&unread);
	json_tokener_free(tok);
	return last;
}

/* The report in the file (parse_report). NULL after one logged line. */
static json_object *read_report(const char *path)
{
	size_t size = 0;
	char *text = report_scan__slurp(path, &size);
	json_object *root;

	if (!text) {
		log_error("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	root = parse_report(text, size, path);
	free(text);
	return root;
}

static int add_file(struct job *j, const char *path)
{
	json_object *root = read_report(path);
	int err;

	if (!root)
		return -EINVAL;
	err = job_input_add_report(j, root, path);
	json_object_put(root);
	return err;
}

static int by_rank(const void *a, const void *b)
{
	const struct job_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * The ranks: the processes with an MPI rank when some have one (the others counted apart),
 * else every process numbered in order. A rank twice is two jobs' files mixed.
 */
static int settle_ranks(struct job *j)
{
	size_t kept = 0;

	for (size_t i = 0; i < j->nr; i++)
		j->mpi |= j->ranks[i].rank >= 0;
	for (size_t i = 0; i < j->nr; i++) {
		struct job_rank *r = &j->ranks[i];

		if (!j->mpi) {
			r->rank = (int)i;
		} else if (r->rank < 0) {
			rank_clear(r);
			j->nr_other++;
			continue;
		}
		j->ranks[kept++] = *r;
	}
	j->nr = kept;
	qsort(j->ranks, j->nr, sizeof(*j->ranks), by_rank);
	for (size_t i = 1; i < j->nr; i++) {
		const struct job_rank *a = &j->ranks[i - 1], *b = &j->ranks[i];

		if (a->rank != b->rank)
			continue;
		if (a->source && b->source && strcmp(a->source, b->source))
			log_error("%s and %s both hold rank %d: give the reports of one job",
				  a->source, b->source, a->rank);
		else
			log_error("%s holds rank %d twice (pids %d and %d): give one job's report",
				  a->source ? a->source : "the run", a->rank, a->pid, b->pid);
		return -EINVAL;
	}
	for (size_t i = 1; i < j->nr; i++) {
		const struct job_rank *a = &j->ranks[0], *b = &j->ranks[i];

		if (a->world_size >= 0 && b->world_size >= 0 && a->world_size != b->world_size) {
			log_error("rank %d is of a job of %d ranks, rank %d of %d: give the reports "
				  "of one job", a->rank, a->world_size, b->rank, b->world_size);
			return -EINVAL;
		}
	}
	return 0;
}

int job__read(const char *const *paths, size_t n, int64_t run_id, struct job *out)
{
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (n == 1 && store_is_database(paths[0])) {
		err = job_input_read_db(out, paths[0], run_id);
	} else if (run_id) {
		log_error("--run picks a run of a database heaptap collect wrote, not of %s",
			  paths[0]);
		err = -EINVAL;
	} else {
		for (size_t i = 0; i < n && !err; i++) {
			if (store_is_database(paths[i])) {
				log_error("%s is a database: report it alone, not with other files",
					  paths[i]);
				err = -EINVAL;
			} else {
				err = add_file(out, paths[i]);
			}
		}
	}
	if (!err && !out->attribution && !(out->attribution = strdup("entry")))
		err = -ENOMEM;
	if (!err)
		err = settle_ranks(out);
	if (!err && !out->nr) {
		log_error("%s holds no process to report", n == 1 ? paths[0] : "these files");
		err = -EINVAL;
	}
	if (err)
		job__clear(out);
	return err;
}

int job__read_text(char *text, size_t size, const char *name, struct job *out)
{
	json_object *root = parse_report(text, size, name);
	int err = root ? 0 : -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!err)
		err = job_input_add_report(out, root, name);
	json_object_put(root);
	if (!err && !out->attribution && !(out->attribution = strdup("entry")))
		err = -ENOMEM;
	if (!err)
		err = settle_ranks(out);
	if (err)
		job__clear(out);
	return err;
}

void job__clear(struct job *j)
{
	for (size_t i = 0; i < j->nr; i++)
		rank_clear(&j->ranks[i]);
	for (size_t i = 0; i < j->nr_untraced; i++) {
		free(j->untraced[i].command);
		free(j->untraced[i].reason);
	}
	free(j->untraced);
	free(j->ranks);
	free(j->attribution);
	free(j->job_id);
	memset(j, 0, sizeof(*j));
}

const struct job_rank *job__rank(const struct job *j, int rank)
{
	for (size_t i = 0; i < j->nr; i++) {
		if (j->ranks[i].rank == rank)
			return &j->ranks[i];
	}
	return NULL;
}
