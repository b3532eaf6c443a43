// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A batch into the database: its processes, their groups and samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heaptap_types.h"
#include "log.h"
#include "store_internal.h"
#include "store_os.h"
#include "store_owner.h"
#include "store_schema.h"

/* "job:ID" or "agent:UID" */
#define RUN_KEY_SIZE 128

/* The id of a library's or function's name, added if new. 0 on error. */
static int64_t name_id(struct store *st, const char *text)
{
	size_t len = strlen(text);
	struct name_id *n;
	struct db_stmt *s;
	int64_t id = 0;

	HASH_FIND(hh, st->names, text, len, n);
	if (n)
		return n->id;
	s = store_stmt(st, NAME_FIND);
	store_bind_text(s, 1, text);
	if (db_step(s) == DB_ROW)
		id = db_column_int64(s, 0);
	db_reset(s);
	if (!id) {
		/* Added by another collector meanwhile: found, not added twice. */
		s = store_stmt(st, NAME_ADD);
		store_bind_text(s, 1, text);
		if (store_run(st, s, "add name"))
			return 0;
		s = store_stmt(st, NAME_FIND);
		store_bind_text(s, 1, text);
		if (db_step(s) == DB_ROW)
			id = db_column_int64(s, 0);
		db_reset(s);
		if (!id)
			return store_db_error(st, "add name"), 0;
	}
	n = malloc(sizeof(*n) + len + 1);
	if (n) {
		n->id = id;
		memcpy(n->text, text, len + 1);
		HASH_ADD(hh, st->names, text, len, n);
	}
	return id;
}

/* Group g's columns as parameters base + 1 ... base + STORE_GROUP_PARAMS of s. */
static void bind_group(struct db_stmt *s, int base, const struct pending_group *g)
{
	db_bind_int64(s, base + 1, g->process);
	db_bind_int(s, base + 2, g->kind);
	db_bind_int64(s, base + 3, g->a);
	db_bind_int64(s, base + 4, g->b);
	store_bind_text(s, base + 5, g->name);
	db_bind_int64(s, base + 6, g->current);
	db_bind_int64(s, base + 7, g->min);
	db_bind_int64(s, base + 8, g->max);
	db_bind_int64(s, base + 9, (int64_t)g->requested);
	for (int f = 0; f < HT_NR_FUNCS; f++)
		db_bind_int64(s, base + 10 + f, (int64_t)g->calls[f]);
}

static int write_status(struct store *st, int64_t id, const struct process_status *ps)
{
	struct db_stmt *s = store_stmt(st, PROCESS_STATUS);

	db_bind_int64(s, 1, id);
	db_bind_double(s, 2, ps->last_seen);
	store_bind_text(s, 3, ps->state);
	if (ps->exit_status >= 0)
		db_bind_int(s, 4, ps->exit_status);
	if (ps->signal >= 0)
		db_bind_int(s, 5, ps->signal);
	db_bind_int64(s, 6, (int64_t)ps->lost_events);
	db_bind_int64(s, 7, (int64_t)ps->incomplete_stacks);
	db_bind_int64(s, 8, (int64_t)ps->holds_skipped);
	db_bind_int64(s, 9, (int64_t)ps->unsupported_unwinds);
	return store_run(st, s, "process status");
}

static void bind_sample(struct db_stmt *s, int base, const struct pending_sample *p)
{
	db_bind_int64(s, base + 1, p->process);
	db_bind_double(s, base + 2, p->t);
	db_bind_int64(s, base + 3, p->current);
	db_bind_int64(s, base + 4, p->max);
}

/* Row i of rows (a round's groups in key order, or its samples) bound from base + 1 on. */
typedef void bind_row_fn(struct db_stmt *s, int base, const void *rows, size_t i);

static void bind_group_at(struct db_stmt *s, int base, const void *rows, size_t i)
{
	bind_group(s, base, ((const struct pending_group *const *)rows)[i]);
}

static void bind_group_of_array(struct db_stmt *s, int base, const void *rows, size_t i)
{
	bind_group(s, base, &((const struct pending_group *)rows)[i]);
}

static void bind_sample_at(struct db_stmt *s, int base, const void *rows, size_t i)
{
	bind_sample(s, base, &((const struct pending_sample *)rows)[i]);
}

/*
 * n rows: per_statement at a time through many (PostgreSQL's statement of many rows, NULL
 * on SQLite), the rest one by one through the statement one. 0 or -EIO (logged).
 */
static int write_rows(struct store *st, struct db_stmt *many, int per_statement, int params,
		      enum stmt one, bind_row_fn *bind, const void *rows, size_t n,
		      const char *what)
{
	size_t i = 0;

	for (; many && i + per_statement <= n; i += per_statement) {
		db_reset(many);
		db_clear_bindings(many);
		for (int r = 0; r < per_statement; r++)
			bind(many, r * params, rows, i + r);
		if (store_run(st, many, what))
			return -EIO;
	}
	for (; i < n; i++) {
		struct db_stmt *s = store_stmt(st, one);

		bind(s, 0, rows, i);
		if (store_run(st, s, what))
			return -EIO;
	}
	return 0;
}

int store__flush(struct store *st)
{
	/*
	 * PostgreSQL's upserts in key order (see pending__in_key_order); SQLite's in the order
	 * first changed: it gained nothing measurable there, and the sort's arrays were a
	 * fifth of the collector's peak memory at 10,000 ranks.
	 */
	const struct pending_group **order = st->groups_many ? pending__in_key_order(&st->pending)
							     : NULL;
	struct known_process *kp, *tmp;

	if (st->groups_many && !order) {
		log_error("database: out of memory for a round's changed groups");
		return -ENOMEM;
	}
	if (st->pending.nr)
		log_debug("database: %zu groups, %d to a statement", st->pending.nr,
			  st->groups_many ? STORE_GROUPS_MANY : 1);
	if (write_rows(st, st->groups_many, STORE_GROUPS_MANY, STORE_GROUP_PARAMS, GROUP_PUT,
		       order ? bind_group_at : bind_group_of_array,
		       order ? (const void *)order : st->pending.groups, st->pending.nr,
		       "store groups") ||
	    write_rows(st, st->samples_many, STORE_SAMPLES_MANY, STORE_SAMPLE_PARAMS, SAMPLE_ADD,
		       bind_sample_at, st->samples, st->nr_samples, "add samples"))
		return -EIO;
	pending__clear(&st->pending);
	st->nr_samples = 0;
	HASH_ITER(hh, st->processes, kp, tmp) {
		if (!st->pending_statuses)
			break;
		if (!kp->status.pending)
			continue;
		if (write_status(st, kp->id, &kp->status))
			return -EIO;
		kp->status.pending = false;
		st->pending_statuses--;
	}
	return 0;
}

void store__drop_pending(struct store *st)
{
	pending__clear(&st->pending);
	st->nr_samples = 0;
	st->pending_statuses = 0; /* their processes are forgotten with the transaction */
}

/* Room for n puts in st->puts. */
static struct pending_put *puts_for(struct store *st, size_t n)
{
	if (n > st->puts_cap) {
		struct pending_put *grown = realloc(st->puts, n * sizeof(*grown));

		if (!grown)
			return NULL;
		st->puts = grown;
		st->puts_cap = n;
	}
	return st->puts;
}

static int stage_groups(struct store *st, int64_t id, const Heaptap__Process *p)
{
	struct pending_put *puts = puts_for(st, 1 + p->n_threads + p->n_libraries +
						    p->n_functions);
	size_t n = 0;

	if (!puts)
		goto oom;
	if (p->total)
		puts[n++] = (struct pending_put){ STORE_TOTAL, 0, 0, NULL, p->total };
	for (size_t i = 0; i < p->n_threads; i++)
		puts[n++] = (struct pending_put){ STORE_THREAD, p->threads[i]->tid, 0,
						  p->threads[i]->name, p->threads[i]->balance };
	for (size_t i = 0; i < p->n_libraries; i++) {
		int64_t lib = name_id(st, p->libraries[i]->library);

		if (!lib)
			return -EIO;
		puts[n++] = (struct pending_put){ STORE_LIBRARY, lib, 0, NULL,
						  p->libraries[i]->balance };
	}
	for (size_t i = 0; i < p->n_functions; i++) {
		const Heaptap__Function *f = p->functions[i];
		int64_t lib = name_id(st, f->library), fn = name_id(st, f->function);

		if (!lib || !fn)
			return -EIO;
		puts[n++] = (struct pending_put){ STORE_FUNCTION, lib, fn, NULL, f->balance };
	}
	if (!pending__put(&st->pending, id, puts, n))
		return 0;
oom:
	log_error("database: out of memory for a round's changed groups");
	return -ENOMEM;
}

static int64_t run_find(struct store *st, const char *key)
{
	struct db_stmt *s = store_stmt(st, RUN_FIND);
	int64_t id = 0;

	store_bind_text(s, 1, key);
	if (db_step(s) == DB_ROW)
		id = db_column_int64(s, 0);
	db_reset(s);
	return id;
}

/*
 * The run a new process belongs to: its job's, or (no job id) its agent's. 0 on error.
 * The run's command: the job's first process's, or the agent's own command line.
 */
static int64_t run_of(struct store *st, int64_t agent, const char *job, const char *command,
		      double now)
{
	char key[RUN_KEY_SIZE], attribution[16] = "", agent_command[512] = "";
	struct db_stmt *s = store_stmt(st, AGENT_INFO);
	int64_t id = 0;

	db_bind_int64(s, 1, agent);
	if (db_step(s) == DB_ROW) {
		const char *c = db_column_text(s, 0);
		const char *a = db_column_text(s, 1);
		const char *uid = db_column_text(s, 2);

		snprintf(agent_command, sizeof(agent_command), "%s", c ? c : "");
		snprintf(attribution, sizeof(attribution), "%s", a ? a : "");
		snprintf(key, sizeof(key), "agent:%s", uid ? uid : "?");
	}
	db_reset(s);
	if (job && job[0])
		snprintf(key, sizeof(key), "job:%s", job);
	if ((id = run_find(st, key)))
		return id;
	/* The job's ranks may report to other collectors: their run, if one added it first. */
	s = store_stmt(st, RUN_ADD);
	store_bind_text(s, 1, key);
	store_bind_text(s, 2, job && job[0] ? job : NULL);
	store_bind_text(s, 3, job && job[0] ? command : agent_command);
	db_bind_double(s, 4, now);
	store_bind_text(s, 5, attribution);
	if (store_run(st, s, "add run"))
		return 0;
	if (!(id = run_find(st, key)))
		store_db_error(st, "add run");
	return id;
}

static char *dup_column(struct db_stmt *s, int i)
{
	const char *text = db_column_text(s, i);

	return strdup(text ? text : "");
}

/* The process an agent's key names: known, stored, or added now from its identity. */
static struct known_process *process_of(struct store *st, int64_t agent, const char *host,
					const Heaptap__Process *p, double now)
{
	const Heaptap__Identity *who = p->identity;
	struct known_process *kp, probe = { .k = { agent, p->key } };
	struct db_stmt *s;

	HASH_FIND(hh, st->processes, &probe.k, sizeof(probe.k), kp);
	if (kp)
		return kp;
	kp = calloc(1, sizeof(*kp));
	if (!kp)
		return NULL;
	kp->k = probe.k;
	s = store_stmt(st, PROCESS_FIND);
	db_bind_int64(s, 1, agent);
	db_bind_int64(s, 2, (int64_t)p->key);
	if (db_step(s) == DB_ROW) {
		kp->id = db_column_int64(s, 0);
		kp->job = dup_column(s, 1);
		kp->host = dup_column(s, 2);
		kp->rank = db_column_null(s, 3) ? -1 : db_column_int(s, 3);
		kp->pid = db_column_int(s, 4);
	}
	db_reset(s);
	if (!kp->id) {
		/* No identity (an agent that lost its first message): stored as unknown. */
		const char *job = who ? who->job : NULL;
		int64_t run = run_of(st, agent, job, who ? who->command : NULL, now);

		s = store_stmt(st, PROCESS_ADD);
		db_bind_int64(s, 1, run);
		db_bind_int64(s, 2, agent);
		db_bind_int64(s, 3, (int64_t)p->key);
		store_bind_text(s, 4, host);
		if (who) {
			db_bind_int(s, 5, who->pid);
			if (who->rank >= 0)
				db_bind_int(s, 6, who->rank);
			if (who->world_size >= 0)
				db_bind_int(s, 7, who->world_size);
			if (who->local_rank >= 0)
				db_bind_int(s, 8, who->local_rank);
			store_bind_text(s, 9, who->job && who->job[0] ? who->job : NULL);
			store_bind_text(s, 10, who->command);
			store_bind_text(s, 11, who->allocator);
			db_bind_int(s, 12, who->usable_known);
			if (who->has_uid)
				db_bind_int64(s, 14, who->uid);
			store_bind_text(s, 15, who->user);
			if (who->has_sample_bytes && who->sample_bytes)
				db_bind_int64(s, 16, (int64_t)who->sample_bytes);
		}
		db_bind_double(s, 13, now);
		if (run && db_step(s) == DB_ROW)
			kp->id = db_column_int64(s, 0);
		db_reset(s);
		if (!kp->id) {
			if (run)
				store_db_error(st, "add process");
			free(kp);
			return NULL;
		}
		kp->job = strdup(job ? job : "");
		kp->host = strdup(host ? host : "");
		kp->rank = who ? who->rank : -1;
		kp->pid = who ? who->pid : 0;
	}
	if (!kp->job || !kp->host) {
		free(kp->job);
		free(kp->host);
		free(kp);
		return NULL;
	}
	HASH_ADD(hh, st->processes, k, sizeof(kp->k), kp);
	return kp;
}

static const char *state_name(Heaptap__State state)
{
	switch (state) {
	case HEAPTAP__STATE__EXITED:
		return "exited";
	case HEAPTAP__STATE__EXEC:
		return "exec";
	case HEAPTAP__STATE__DETACHED:
		return "detached";
	default:
		return "running";
	}
}

static int stage_sample(struct store *st, int64_t process, double t, const Heaptap__Balance *b)
{
	if (st->nr_samples == st->samples_cap) {
		size_t cap = st->samples_cap ? 2 * st->samples_cap : 1024;
		struct pending_sample *grown = realloc(st->samples, cap * sizeof(*grown));

		if (!grown) {
			log_error("database: out of memory for a round's samples");
			return -ENOMEM;
		}
		st->samples = grown;
		st->samples_cap = cap;
	}
	st->samples[st->nr_samples++] = (struct pending_sample){ process, b->current, b->max, t };
	return 0;
}

static int put_process(struct store *st, int64_t agent, const char *host,
		       const Heaptap__Process *p, double t, store_on_process on_process, void *ctx)
{
	struct known_process *kp = process_of(st, agent, host, p, t);

	if (!kp)
		return -EIO;
	if (!kp->status.pending)
		st->pending_statuses++;
	kp->status = (struct process_status){
		.last_seen = t,
		.state = state_name(p->state),
		.exit_status = p->exit_status,
		.signal = p->signal,
		.lost_events = p->lost_events,
		.incomplete_stacks = p->incomplete_stacks,
		.holds_skipped = p->holds_skipped,
		.unsupported_unwinds = p->unsupported_unwinds,
		.pending = true,
	};
	if (stage_groups(st, kp->id, p))
		return -EIO;
	if (p->owner && store_owner__put(st, kp->id, p->owner))
		return -EIO;
	if ((p->mappings && store_os__put_mappings(st, kp->id, p->mappings)) ||
	    (p->allocators && store_os__put_allocators(st, kp->id, p->allocators)))
		return -EIO;
	/* A sample per batch: a time series, nothing to coalesce. */
	if (p->total && stage_sample(st, kp->id, t, p->total))
		return -ENOMEM;
	if (on_process) {
		struct store_who who = { kp->job, kp->host, kp->rank, kp->pid };

		on_process(ctx, &who, p);
	}
	return 0;
}

int store__apply_batch(struct store *st, int64_t agent, const char *host,
		       const Heaptap__Batch *b, bool *applied, store_on_process on_process,
		       void *ctx)
{
	struct db_stmt *s = store_stmt(st, AGENT_FIND_ID);
	uint64_t last_seq = 0;

	*applied = false;
	db_bind_int64(s, 1, agent);
	if (db_step(s) == DB_ROW)
		last_seq = db_column_int64(s, 0);
	db_reset(s);
	/* A batch sent again (its ack was lost, the collector restarted): stored already. */
	if (b->seq <= last_seq)
		return 0;
	for (size_t i = 0; i < b->n_processes; i++) {
		if (put_process(st, agent, host, b->processes[i], b->time, on_process, ctx))
			return -EIO;
	}
	s = store_stmt(st, AGENT_SEQ);
	db_bind_int64(s, 1, agent);
	db_bind_int64(s, 2, (int64_t)b->seq);
	db_bind_double(s, 3, b->time);
	db_bind_int64(s, 4, (int64_t)b->dropped_messages);
	if (store_run(st, s, "agent sequence"))
		return -EIO;
	*applied = true;
	return 0;
}

int64_t store__newest_run(struct store *st)
{
	struct db_stmt *s;
	int64_t id = 0;

	if (!(s = db__prepare(st->db, "SELECT max(id) FROM runs", 0)))
		return 0;
	if (db_step(s) == DB_ROW)
		id = db_column_int64(s, 0);
	db_stmt__finalize(s);
	return id;
}
