// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Jobs read back: JSON reports (parsed by job_input_json.c), or a database's run, its
 * processes made ranks from the store's run view (job_input_db.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "job_input_internal.h"
#include "log.h"
#include "report_read.h"
#include "store_read.h"

/*
 * Each process's fields the summary does not read, made null before parsing: they are
 * most of a report's objects (a rank of Open MPI has some 20,000 call-tree nodes and 3,000
 * allocation sites), and a scan of the text is many times quicker than json-c's objects.
 */
static const char *const unread_fields[] = { "calltree", "allocated", "outstanding", "mappings",
					     NULL };

/* The report in the file, its fields the summary does not read made null. */
static json_object *read_report(const char *path)
{
	struct report_cut unread = {};
	json_object *root = report_read_last(path, NULL, unread_fields,
					     "a report heaptap finished writing", &unread, NULL);

	report_cut__clear(&unread);
	return root;
}

/* A report already in memory, changed in place (job__read_text): as read_report. */
static json_object *parse_report(char *text, size_t size, const char *name)
{
	struct report_cut unread = {};
	json_object *root = report_parse_last(text, size, name, NULL, unread_fields,
					      "a report heaptap finished writing", &unread, NULL);

	report_cut__clear(&unread);
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
			job_rank__clear(r);
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
		job_rank__clear(&j->ranks[i]);
	for (size_t i = 0; i < j->nr_untraced; i++) {
		free(j->untraced[i].command);
		free(j->untraced[i].reason);
	}
	free(j->untraced);
	for (size_t i = 0; i < j->nr_nodes; i++) {
		free(j->nodes[i].host);
		json_object_put(j->nodes[i].node);
	}
	free(j->nodes);
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
