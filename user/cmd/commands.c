// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "log.h"
#include "own_heap.h"
#include "owner_text.h"
#include "preflight.h"
#include "privilege.h"
#include "profile_files.h"
#include "profile_session.h"
#include "report.h"

int setup_privileges(void)
{
	log_setup_libbpf();
	return privilege_init() ? EXIT_FAILURE_INTERNAL : EXIT_OK;
}

int setup_tracing(void)
{
	int status = setup_privileges();

	if (status == EXIT_OK)
		status = preflight_check();
	if (status == EXIT_OK)
		own_heap_in_huge_pages(); /* what traces allocates tens of MB in small pieces */
	return status;
}

/*
 * Consumer threads unless --consumers says: one for a single process (nothing to share
 * out), else one per online CPU up to 8. Each drains its own ring; a node's ranks spread
 * over them by pid, so a rank's burst at MPI_Init waits behind its ring's share only.
 * Past 8, the threads would mostly contend for the shared symbol cache.
 */
static bool many_processes(const struct trace_options *t, bool node)
{
	return t->follow || t->mpi_only || t->nr_pids > 1 || node;
}

static unsigned default_consumers(bool many)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!many || cpus < 1)
		return 1;
	return cpus > 8 ? 8 : (unsigned)cpus;
}

/*
 * Each ring's bytes: a single process keeps 16 MiB; a node's processes share 256 MiB of
 * rings (32 MiB each at least), enough for the MPI_Init of 16 ranks (~13 MiB of events
 * each) on a node whose consumers fall behind, as a 2-CPU one does.
 */
static uint64_t ring_bytes(unsigned consumers, bool many)
{
	uint64_t each = (256ull << 20) / (consumers ? consumers : 1), bytes = 32ull << 20;

	if (!many)
		return 16ull << 20;
	while (bytes * 2 <= each)
		bytes *= 2;
	return bytes;
}

int open_session(const struct trace_options *t, bool detailed_stacks, bool node,
		 struct session **s)
{
	struct session_opts so = {
		.rule = t->rule,
		.follow = t->follow,
		.mpi_only = t->mpi_only,
		.unwind_tables = !t->frame_pointers,
		.detailed_stacks = detailed_stacks,
		.tree_budget = t->tree_budget,
		.table_budget = t->table_budget,
		.symbol_budget = t->symbol_budget,
		.live_blocks = t->live_blocks,
		.sample_bytes = t->sample_bytes,
		.sample_interval = t->interval,
		.allocators = t->allocators,
		.nr_allocators = t->nr_allocators,
		/* What heaptap launches maps, in all likelihood, the C library it runs with. */
		.warm_own_libraries = t->command != NULL,
	};
	bool many = many_processes(t, node);
	int err;

	so.consumers = t->consumers ? t->consumers : default_consumers(many);
	so.ring_bytes = ring_bytes(so.consumers, many || so.consumers > 1);
	err = session__new(&so, s);
	if (!err) {
		privilege_setup_done();
		return EXIT_OK;
	}
	if (err == -EPERM || err == -EACCES) {
		log_error("loading BPF needs root, or CAP_BPF and CAP_PERFMON: run it with sudo");
		return EXIT_NO_PRIVILEGE;
	}
	log_error("cannot load the BPF programs: %s (heaptap -v shows why)", strerror(-err));
	return EXIT_FAILURE_INTERNAL;
}

int open_outputs(const struct output_options *o, const struct trace_options *t, bool attached,
		 struct outputs *out)
{
	const struct report_output files[] = {
		{ &out->text, o->text_path, "-o" },
		{ &out->json, o->json_path, "--json" },
		{ &out->stacks, o->stacks_path, "--stacks" },
		{ &out->pprof, o->pprof_path, "--pprof" },
		{ &out->folded, o->folded_path, "--folded" },
	};

	*out = (struct outputs){
		.tree = { .show = o->tree, .depth = o->depth, .under = o->under },
		.folded_weight = o->folded_weight,
		.layout = {
			.dmatp = o->dmatp,
			.bytes = o->bytes,
			.mappings = o->mappings,
			.full = o->full,
			.verbose = log_verbose,
			.mpi = t->mpi_only,
			.attached = attached,
		},
	};
	owner_text_set_depth(o->site_depth);
	if (report_outputs__open(files, sizeof(files) / sizeof(files[0]))) {
		close_outputs(out);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

void close_outputs(struct outputs *out)
{
	report_file__close(&out->text);
	report_file__close(&out->json);
	report_file__close(&out->stacks);
	report_file__close(&out->pprof);
	report_file__close(&out->folded);
}

int open_outputs_and_session(const struct output_options *o, const struct trace_options *t,
			     bool attached, struct outputs *out, struct session **s)
{
	/* A bad report path fails now, before any process is touched. */
	int status = open_outputs(o, t, attached, out);

	if (status != EXIT_OK)
		return status;
	/* pprof's locations carry source lines and inlined functions. */
	status = open_session(t, o->stacks_path || o->pprof_path, false, s);
	if (status != EXIT_OK) {
		close_outputs(out);
		return status;
	}
	catch_stop_signals(request_stop);
	return EXIT_OK;
}

void close_outputs_and_session(struct outputs *out, struct session *s)
{
	close_outputs(out);
	session__free(s);
}

/* The text report, and the trees when --tree asks. */
static void report_text_and_trees(FILE *f, struct session *s, const struct outputs *out)
{
	report_text(f, s, &out->layout);
	if (out->tree.show)
		report_trees(f, s, &out->tree);
}

static void json_report(FILE *f, struct session *s, const struct outputs *out)
{
	(void)out;
	report_json(f, s);
}

static void stacks_report(FILE *f, struct session *s, const struct outputs *out)
{
	(void)out;
	report_stacks(f, s);
}

/* Write one report into its file and close it. 0 or -errno. */
static int write_report(struct report_file *rf, struct session *s, const struct outputs *out,
			void (*report)(FILE *, struct session *, const struct outputs *))
{
	FILE *f = report_file__begin(rf);
	int err = f ? 0 : -errno;

	if (f)
		report(f, s, out);
	if (report_file__close(rf) && !err)
		err = -EIO;
	return err;
}

int write_session_exports(struct session *s, struct outputs *out)
{
	struct heap_profile *p = heap_profile__new();
	int err = p ? profile_from_session(s, p) : -ENOMEM;

	if (err) {
		log_error("cannot write --pprof or --folded: %s", strerror(-err));
		report_file__close(&out->pprof);
		report_file__close(&out->folded);
	} else {
		err = profile_write_files(p, &out->pprof, &out->folded, out->folded_weight);
	}
	heap_profile__free(p);
	return err ? -1 : 0;
}

int write_reports(struct session *s, struct outputs *out, FILE *default_out)
{
	int err, status = EXIT_OK;

	if (!out->text.f) {
		report_text_and_trees(default_out, s, out);
	} else if ((err = write_report(&out->text, s, out, report_text_and_trees))) {
		/* The text report is small: better on the terminal than lost. */
		log_error("cannot write %s: %s; the report follows", out->text.path,
			  strerror(-err));
		report_text_and_trees(default_out, s, out);
		status = EXIT_FAILURE_INTERNAL;
	}
	if (out->json.f && (err = write_report(&out->json, s, out, json_report))) {
		log_error("cannot write %s: %s", out->json.path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
	if (out->stacks.f && (err = write_report(&out->stacks, s, out, stacks_report))) {
		log_error("cannot write %s: %s", out->stacks.path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
	if ((out->pprof.f || out->folded.f) && write_session_exports(s, out))
		status = EXIT_FAILURE_INTERNAL;
	if (status == EXIT_OK && session__untraced(s)) {
		log_error("some processes could not be traced: the report lists them and why");
		status = EXIT_PARTIAL;
	}
	return status;
}
