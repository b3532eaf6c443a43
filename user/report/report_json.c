// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <time.h>
#include <json-c/json.h>
#include "report.h"

/* [[t_seconds, current, max], ...]: t to the millisecond. */
static json_object *samples_json(const struct total_series *s)
{
	json_object *list = json_object_new_array();

	for (uint32_t i = 0; i < s->nr; i++) {
		json_object *row = json_object_new_array();
		char t[32];

		snprintf(t, sizeof(t), "%.3f", s->items[i].t);
		json_object_array_add(row, json_object_new_double_s(s->items[i].t, t));
		json_object_array_add(row, json_object_new_int64(s->items[i].current));
		json_object_array_add(row, json_object_new_int64(s->items[i].max));
		json_object_array_add(list, row);
	}
	return list;
}

/* names: schema 2, each frame its index in names. */
/* summary: without what a job's summary does not read (trees, site lists, mappings). */
static json_object *process_json(const struct target *t, const struct process_facts *pf,
				 struct frame_table *names, bool summary)
{
	json_object *p = json_object_new_object(), *total = json_object_new_object();
	json_object *threads = json_object_new_array(), *libraries = json_object_new_array();
	json_object *functions = json_object_new_array();
	const struct thread_stats *th, *tht;
	const struct library_stats *l, *lt;
	const struct function_stats *f, *ft;

	json_object_object_add(p, "pid", json_object_new_int(t->pid));
	json_object_object_add(p, "rank", t->mpi.rank >= 0 ? json_object_new_int(t->mpi.rank) : NULL);
	json_object_object_add(p, "world_size", t->mpi.world_size >= 0 ?
							json_object_new_int(t->mpi.world_size) : NULL);
	json_object_object_add(p, "local_rank", t->mpi.local_rank >= 0 ?
							json_object_new_int(t->mpi.local_rank) : NULL);
	json_object_object_add(p, "job", t->mpi.job[0] ? json_object_new_string(t->mpi.job) : NULL);
	json_object_object_add(p, "command", json_object_new_string(t->command));
	if (pf->host) { /* a run's process: where it ran, and how its tracing ended */
		json_object_object_add(p, "host", json_object_new_string(pf->host));
		json_object_object_add(p, "status", json_object_new_string(
			pf->state ? pf->state : t->exec ? "exec" : t->exited ? "exited" : "running"));
		json_object_object_add(p, "agent_lost", json_object_new_boolean(
			pf->state && !strcmp(pf->state, "agent lost")));
		json_object_object_add(p, "dropped_messages",
				       json_object_new_uint64(pf->dropped_messages));
	}
	json_object_object_add(p, "exited", json_object_new_boolean(t->exited));
	report_sampled_json(p, t, pf);
	json_object_object_add(p, "exec", json_object_new_boolean(t->exec));
	/* How it ended: an exit status, or the signal that killed it (null: not known). */
	json_object_object_add(p, "exit_status", t->exit_known && WIFEXITED(t->exit_code) ?
					json_object_new_int(WEXITSTATUS(t->exit_code)) : NULL);
	json_object_object_add(p, "signal", t->exit_known && WIFSIGNALED(t->exit_code) ?
					json_object_new_int(WTERMSIG(t->exit_code)) : NULL);
	json_object_object_add(p, "holds_skipped", json_object_new_uint64(pf->holds_skipped));
	json_object_object_add(p, "lost_events", json_object_new_uint64(pf->lost_events));
	json_object_object_add(p, "lost_ring_full", json_object_new_uint64(pf->lost_ring_full));
	json_object_object_add(p, "incomplete_stacks", json_object_new_uint64(t->incomplete_stacks));
	json_object_object_add(p, "unsupported_unwinds",
			       json_object_new_uint64(t->unsupported_unwinds));
	json_object_object_add(p, "allocator", t->probed ? json_object_new_string(t->alloc.path) : NULL);
	json_object_object_add(p, "usable_known", json_object_new_boolean(report_usable_known(t)));
	json_object_object_add(p, "allocators", report_allocators_json(t));
	report_json_balance(total, &t->stats.total);
	json_object_object_add(p, "total", total);

	HASH_ITER(hh, t->stats.threads, th, tht) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tid", json_object_new_int64(th->tid));
		json_object_object_add(o, "name", json_object_new_string(th->name));
		report_json_balance(o, &th->bal);
		json_object_array_add(threads, o);
	}
	HASH_ITER(hh, t->stats.libraries, l, lt) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "library", json_object_new_string(l->library));
		report_json_balance(o, &l->bal);
		json_object_array_add(libraries, o);
	}
	HASH_ITER(hh, t->stats.functions, f, ft) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "function", json_object_new_string(f->function));
		json_object_object_add(o, "library", json_object_new_string(f->library));
		report_json_balance(o, &f->bal);
		json_object_array_add(functions, o);
	}
	if (t->samples.nr)
		json_object_object_add(p, "samples", samples_json(&t->samples));
	json_object_object_add(p, "threads", threads);
	json_object_object_add(p, "libraries", libraries);
	json_object_object_add(p, "functions", functions);
	if (!summary)
		json_object_object_add(p, "calltree", report_calltree_json(&t->tree, 0, names));
	json_object_object_add(p, "calltree_lost", json_object_new_uint64(t->tree_lost));
	json_object_object_add(p, "calltree_dropped", json_object_new_boolean(t->tree_dropped));
	/* What the tree costs heaptap: its nodes, and their bytes with the stacks' paths. */
	json_object_object_add(p, "calltree_nodes", json_object_new_uint64(t->tree.nr_nodes));
	json_object_object_add(p, "calltree_bytes", json_object_new_uint64(t->tree.bytes));
	if (t->owner.live)
		report_owner_json(p, t, !summary, names);
	if (pf->owner) /* a stored run's process */
		stored_owner__json(p, pf->owner);
	if (!summary)
		json_object_object_add(p, "mappings", report_mappings_json(&t->mappings));
	if (names && frame_table__intern_process(names, p)) {
		json_object_put(p);
		return NULL;
	}
	return p;
}

/* Beyond the schema's required fields: what each file's unwind table cost. */
static json_object *unwind_tables_json(struct session *s)
{
	json_object *tables = json_object_new_array();
	const struct unwind_file *files;
	size_t n = session__unwind_files(s, &files);

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "file", json_object_new_string(files[i].path));
		json_object_object_add(o, "rows", json_object_new_uint64(files[i].nr_rows));
		json_object_object_add(o, "bytes", json_object_new_uint64(unwind_file_bytes(&files[i])));
		json_object_object_add(o, "build_ms", json_object_new_double(files[i].build_ms));
		/* null, or the budget it did not fit: then it has no rows. */
		json_object_object_add(o, "skipped", files[i].over_budget ?
				json_object_new_string(budget_verdict_name(files[i].over_budget)) : NULL);
		json_object_object_add(o, "cut_stacks", json_object_new_uint64(files[i].cut_stacks));
		json_object_array_add(tables, o);
	}
	return tables;
}

static json_object *budget_json(const struct budget *b)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "per_file", json_object_new_uint64(b->limits.per_file));
	json_object_object_add(o, "total", json_object_new_uint64(b->limits.total));
	json_object_object_add(o, "used", json_object_new_uint64(b->used));
	json_object_object_add(o, "files_over", json_object_new_uint64(b->files_refused));
	return o;
}

/* How the calls' stacks were found: the cache of the BPF side, or a walk. */
static json_object *stack_cache_json(struct session *s)
{
	struct stack_cache_stats c = session__stack_cache(s);
	json_object *o = json_object_new_object();

	json_object_object_add(o, "hits", json_object_new_uint64(c.hits));
	json_object_object_add(o, "walks", json_object_new_uint64(c.walks));
	return o;
}

/* The limits on what heaptap keeps of the targets' files, and the files over them. */
static json_object *budgets_json(struct session *s)
{
	const struct symcache *cache = session__symcache(s);
	const struct budget *tables = session__table_budget(s);
	json_object *o = json_object_new_object(), *symbols, *files = json_object_new_array();

	json_object_object_add(o, "tables", tables ? budget_json(tables) : NULL);
	symbols = budget_json(symcache__budget(cache));
	for (const struct object_file *f = symcache__next(cache, NULL); f;
	     f = symcache__next(cache, f)) {
		json_object *file, *left_out;

		if (!f->left_out)
			continue;
		file = json_object_new_object();
		left_out = json_object_new_array();
		json_object_object_add(file, "file", json_object_new_string(object_file__name(f)));
		json_object_object_add(file, "budget",
				       json_object_new_string(budget_verdict_name(f->over_budget)));
		for (unsigned int bit = 1; bit <= LEFT_OUT_LAST; bit <<= 1) {
			if (f->left_out & bit)
				json_object_array_add(left_out,
						      json_object_new_string(left_out_name(bit)));
		}
		json_object_object_add(file, "left_out", left_out);
		json_object_array_add(files, file);
	}
	json_object_object_add(symbols, "files", files);
	json_object_object_add(o, "symbols", symbols);
	return o;
}

/*
 * The consumers: their rings and how full each came, the holds they served, the stack
 * map's fill, heaptap's own CPU. What tells whether a node's burst fitted.
 */
static json_object *consumers_json(struct session *s)
{
	struct session_figures f = session__figures(s);
	json_object *o = json_object_new_object(), *rings = json_object_new_array();
	json_object *holds = json_object_new_object(), *stacks = json_object_new_object();

	json_object_object_add(o, "threads", json_object_new_int(f.consumers));
	for (unsigned i = 0; i < f.consumers; i++) {
		struct consumer_figures c = session__consumer_figures(s, i);
		json_object *ring = json_object_new_object();

		json_object_object_add(ring, "events", json_object_new_uint64(c.events));
		json_object_object_add(ring, "bytes", json_object_new_uint64(c.ring.bytes));
		json_object_object_add(ring, "peak", json_object_new_uint64(c.ring.peak));
		json_object_array_add(rings, ring);
	}
	json_object_object_add(o, "rings", rings);
	json_object_object_add(holds, "count", json_object_new_uint64(f.holds.nr));
	json_object_object_add(holds, "total_ms", json_object_new_double(f.holds.total_ns / 1e6));
	json_object_object_add(holds, "longest_ms",
			       json_object_new_double(f.holds.longest_ns / 1e6));
	json_object_object_add(o, "holds", holds);
	json_object_object_add(stacks, "entries", json_object_new_uint64(f.stack_map_entries));
	json_object_object_add(stacks, "peak", json_object_new_uint64(f.stack_map_peak));
	json_object_object_add(stacks, "inline_calls", json_object_new_uint64(f.inline_stacks));
	json_object_object_add(stacks, "shared", json_object_new_uint64(f.shared_stacks));
	json_object_object_add(stacks, "forgotten", json_object_new_uint64(f.forgotten_stacks));
	json_object_object_add(o, "stack_map", stacks);
	json_object_object_add(o, "cpu_seconds", json_object_new_double(f.cpu_seconds));
	return o;
}

static json_object *untraced_json(struct session *s)
{
	json_object *list = json_object_new_array();

	for (const struct untraced *u = session__untraced(s); u; u = u->next) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "pid", json_object_new_int(u->pid));
		json_object_object_add(o, "command", json_object_new_string(u->command));
		json_object_object_add(o, "reason", json_object_new_string(u->reason));
		json_object_array_add(list, o);
	}
	return list;
}

/* The frames of what names names are written before the processes that refer to them. */
/* The machine the processes ran on, as the job's summary names hosts; NULL if unknown. */
static json_object *this_host(void)
{
	char name[256];

	if (gethostname(name, sizeof(name)))
		return NULL;
	name[sizeof(name) - 1] = '\0';
	return json_object_new_string(name);
}

static json_object *report_object(struct session *s, struct frame_table *names, bool summary)
{
	json_object *root = json_object_new_object(), *processes = json_object_new_array();
	struct target **targets;
	size_t n = session__targets(s, &targets);

	json_object_object_add(root, "heaptap", json_object_new_int(REPORT_SCHEMA));
	json_object_object_add(root, "host", this_host());
	json_object_object_add(root, "attribution",
			       json_object_new_string(attribution_rule_name(session__rule(s))));
	json_object_object_add(root, "frames", frame_table__json(names));
	json_object_object_add(root, "stacks", frame_table__stacks_json(names));
	for (size_t i = 0; i < n; i++) {
		struct process_facts pf = {
			.lost_events = session__lost_events(s, targets[i]),
			.holds_skipped = session__holds_skipped(s, targets[i]),
			.lost_ring_full = session__kernel_losses(s, targets[i]).ringbuf_full,
		};

		json_object_array_add(processes, process_json(targets[i], &pf, names, summary));
	}
	json_object_object_add(root, "processes", processes);
	json_object_object_add(root, "node", report_node_json(s, targets, n, samples_json));
	json_object_object_add(root, "untraced", untraced_json(s));
	json_object_object_add(root, "unwind_tables", unwind_tables_json(s));
	json_object_object_add(root, "budgets", budgets_json(s));
	json_object_object_add(root, "stack_cache", stack_cache_json(s));
	json_object_object_add(root, "consumers", consumers_json(s));
	return root;
}

/*
 * root and names written; a report of no process (out of memory) when either is NULL. The
 * call trees look their frames up in names as they are written.
 */
static void write_report(FILE *out, json_object *root, struct frame_table *names, int flags)
{
	fprintf(out, "%s\n", names && root ?
			json_object_to_json_string_ext(root, flags | JSON_C_TO_STRING_NOSLASHESCAPE) :
			"{\"heaptap\": 2, \"error\": \"out of memory\", \"processes\": []}");
	fflush(out);
	json_object_put(root);
	frame_table__free(names);
}

void report_json(FILE *out, struct session *s)
{
	struct frame_table *names = frame_table__new();

	write_report(out, names ? report_object(s, names, false) : NULL, names, JSON_C_TO_STRING_PLAIN);
}

void report_json_for_summary(FILE *out, struct session *s)
{
	/* Not built: what the job's summary does not read, most of a report's objects and time. */
	struct frame_table *names = frame_table__new();

	write_report(out, names ? report_object(s, names, true) : NULL, names,
		     JSON_C_TO_STRING_PLAIN);
}

void report_json_line(FILE *out, struct session *s)
{
	struct frame_table *names = frame_table__new();
	json_object *root = names ? report_object(s, names, false) : NULL;
	struct timespec now;
	char text[32];

	/* When the snapshot was taken: Unix time in seconds, to the millisecond. */
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(text, sizeof(text), "%lld.%03ld", (long long)now.tv_sec, now.tv_nsec / 1000000);
	if (root)
		json_object_object_add(root, "timestamp",
				       json_object_new_double_s(now.tv_sec + now.tv_nsec / 1e9, text));
	write_report(out, root, names, JSON_C_TO_STRING_PLAIN);
}

/* The run in schema 2, each frame its index in names. */
static json_object *run_object(const struct report_run *run, struct frame_table *names)
{
	json_object *root = json_object_new_object(), *processes = json_object_new_array();

	json_object_object_add(root, "heaptap", json_object_new_int(REPORT_SCHEMA));
	json_object_object_add(root, "frames", frame_table__json(names));
	json_object_object_add(root, "stacks", frame_table__stacks_json(names));
	json_object_object_add(root, "attribution",
			       json_object_new_string(attribution_rule_name(run->rule)));
	json_object_object_add(root, "run", json_object_new_int64(run->id));
	json_object_object_add(root, "job", run->job ? json_object_new_string(run->job) : NULL);
	for (size_t i = 0; i < run->nr; i++)
		json_object_array_add(processes, process_json(run->targets[i], &run->facts[i],
							      names, false));
	json_object_object_add(root, "processes", processes);
	return root;
}

void report_json_run(FILE *out, const struct report_run *run, bool one_line)
{
	struct frame_table *names = frame_table__new();

	(void)one_line; /* schema 2 is on one line either way (jq . spreads it out) */
	write_report(out, names ? run_object(run, names) : NULL, names, JSON_C_TO_STRING_PLAIN);
}
