// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A collector's run as a job: each stored process (the store's run view) made a rank
 * directly, with the figures its report would give (report_json.c), and its samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "job_input_internal.h"
#include "log.h"
#include "report.h"
#include "store_read.h"

/* A stored process's threads, libraries and functions, in the order of its sorted groups. */
static int groups_of(struct job_rank *r, const struct process_stats *stats)
{
	const struct thread_stats *th, *tht;
	const struct library_stats *l, *lt;
	const struct function_stats *f, *ft;
	size_t n;

	n = HASH_COUNT(stats->threads);
	if (!(r->threads = calloc(n ? n : 1, sizeof(*r->threads))))
		return -ENOMEM;
	HASH_ITER(hh, stats->threads, th, tht) {
		struct job_thread *o = &r->threads[r->nr_threads++];

		*o = (struct job_thread){ .tid = th->tid, .bal = th->bal };
		if (!(o->name = strdup(th->name)))
			return -ENOMEM;
	}
	n = HASH_COUNT(stats->libraries);
	if (!(r->libraries = calloc(n ? n : 1, sizeof(*r->libraries))))
		return -ENOMEM;
	HASH_ITER(hh, stats->libraries, l, lt) {
		struct job_group *g = &r->libraries[r->nr_libraries++];

		g->bal = l->bal;
		if (!(g->library = strdup(l->library)))
			return -ENOMEM;
	}
	n = HASH_COUNT(stats->functions);
	if (!(r->functions = calloc(n ? n : 1, sizeof(*r->functions))))
		return -ENOMEM;
	HASH_ITER(hh, stats->functions, f, ft) {
		struct job_group *g = &r->functions[r->nr_functions++];

		g->bal = f->bal;
		if (!(g->library = strdup(f->library)) || !(g->function = strdup(f->function)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The sites that held most at its peak, as the report's "peak" gives them, into *out (NULL:
 * none), and its "oom" into *oom (NULL: not chosen by the OOM killer). 0 or -ENOMEM.
 */
static int peak_of(const struct target *t, const struct process_facts *pf, json_object **out,
		   json_object **oom)
{
	json_object *p = json_object_new_object(), *peak;

	*out = *oom = NULL;
	if (!p)
		return -ENOMEM;
	if (t->owner.live)
		report_owner_json(p, t, true, NULL);
	if (pf->owner)
		stored_owner__json(p, pf->owner);
	if (json_object_object_get_ex(p, "peak", &peak) &&
	    json_object_is_type(peak, json_type_object))
		*out = json_object_get(peak);
	if (json_object_object_get_ex(p, "oom", &peak) &&
	    json_object_is_type(peak, json_type_object))
		*oom = json_object_get(peak);
	json_object_put(p);
	return 0;
}

/* Process i of the run into r, its samples read from st: 0, or -errno (*what: what failed). */
static int rank_of(struct store *st, const struct run_view *v, const struct report_run *run,
		   size_t i, struct job_rank *r, const char **what)
{
	const struct target *t = run->targets[i];
	const struct process_facts *pf = &run->facts[i];
	struct store_sample *samples;
	size_t n;
	int err;

	*r = (struct job_rank){
		.rank = t->mpi.rank >= 0 ? t->mpi.rank : -1,
		.pid = t->pid,
		.world_size = t->mpi.world_size >= 0 ? t->mpi.world_size : -1,
		.total = t->stats.total,
		.lost_events = pf->lost_events,
		.incomplete_stacks = t->incomplete_stacks,
		.sample_bytes = t->owner.sample_bytes,
		.exited = t->exited,
		.exit_status = t->exit_known && WIFEXITED(t->exit_code) ?
				       WEXITSTATUS(t->exit_code) : -1,
		.signal = t->exit_known && WIFSIGNALED(t->exit_code) ? WTERMSIG(t->exit_code) : -1,
		.local_rank = t->mpi.local_rank >= 0 ? t->mpi.local_rank : -1,
	};
	*what = "samples";
	if ((err = store__load_samples(st, v->processes[i]->id, v->started, &samples, &n)))
		return err;
	*what = "figures";
	r->samples = calloc(n ? n : 1, sizeof(*r->samples));
	for (size_t k = 0; r->samples && k < n; k++)
		r->samples[k] = (struct job_sample){ samples[k].t, samples[k].current,
						     samples[k].max };
	r->nr_samples = r->samples ? n : 0;
	free(samples);
	if (!r->samples || (pf->host && !(r->host = strdup(pf->host))) ||
	    !(r->command = strdup(t->command)) ||
	    (t->mpi.job[0] && !(r->job = strdup(t->mpi.job))) || groups_of(r, &t->stats))
		return -ENOMEM;
	return peak_of(t, pf, &r->peak, &r->oom);
}

/*
 * The run's processes into j, as job_input_add_report takes a report's: an image that
 * ended in an exec left out (the process goes on in the next), the processes of one job
 * only. 0, or -errno after one line.
 */
static int add_run(struct job *j, struct store *st, const struct run_view *v,
		   const struct report_run *run, const char *path)
{
	struct job_rank *grown = realloc(j->ranks, (j->nr + run->nr) * sizeof(*grown));
	const char *what;
	int err;

	if (!grown || (!j->attribution &&
		       !(j->attribution = strdup(attribution_rule_name(run->rule))))) {
		if (grown)
			j->ranks = grown;
		log_error("out of memory reading %s", path);
		return -ENOMEM;
	}
	j->ranks = grown;
	for (size_t i = 0; i < run->nr; i++) {
		const struct target *t = run->targets[i];
		struct job_rank *r = &j->ranks[j->nr];

		err = rank_of(st, v, run, i, r, &what);
		j->nr++;
		if (err && !strcmp(what, "samples")) {
			log_error("cannot read the samples of run %" PRId64 " of %s", v->id, path);
			return err;
		}
		if (err) {
			log_error("out of memory reading %s", path);
			return err;
		}
		if (t->exec) {
			job_rank__clear(r);
			j->nr--;
			continue;
		}
		if (!t->mpi.job[0])
			continue;
		if (j->job_id && strcmp(t->mpi.job, j->job_id)) {
			log_error("the database holds a process of job %s, another file of job %s: "
				  "give the reports of one job", t->mpi.job, j->job_id);
			return -EINVAL;
		}
		if (!j->job_id && !(j->job_id = strdup(t->mpi.job)))
			return -ENOMEM;
	}
	return 0;
}

int job_input_read_db(struct job *j, const char *path, int64_t run_id)
{
	struct store *st = NULL;
	struct run_view v = {};
	struct report_run run;
	int err;

	if ((err = store__open(path, true, &st)))
		return err;
	err = store__load_run(st, run_id, 0, false, &v);
	if (err == -ENOENT) {
		if (run_id)
			log_error("%s has no run %" PRId64 ": heaptap report %s --list shows them",
				  path, run_id, path);
		else
			log_error("%s holds no run yet: a collector (heaptap collect --db %s) stores "
				  "one when agents send it", path, path);
		goto cleanup;
	}
	if (err || (err = run_view__report(&v, &run))) {
		log_error("cannot read run %" PRId64 " of %s", run_id, path);
		goto cleanup;
	}
	j->run = v.id;
	err = add_run(j, st, &v, &run, path);
	if (!err && !j->job_id && v.job[0] && !(j->job_id = strdup(v.job)))
		err = -ENOMEM;
cleanup:
	run_view__clear(&v);
	store__close(st);
	return err;
}
