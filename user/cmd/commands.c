// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "log.h"
#include "owner_text.h"
#include "privilege.h"
#include "profile_files.h"
#include "profile_session.h"
#include "report.h"

volatile sig_atomic_t stop_requested;

/*
 * Consumer threads unless --consumers says: one for a single process (nothing to share
 * out), else one per online CPU up to 8. Each drains its own ring; a node's ranks spread
 * over them by pid, so a rank's burst at MPI_Init waits behind its ring's share only.
 * Past 8, the threads would mostly contend for the shared symbol cache.
 */
static bool many_processes(const struct options *opts)
{
	return opts->follow || opts->mpi_only || opts->nr_pids > 1 || opts->cmd == CMD_AGENT;
}

static unsigned default_consumers(const struct options *opts)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!many_processes(opts) || cpus < 1)
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

int open_session(const struct options *opts, struct session **s)
{
	struct session_opts so = {
		.rule = opts->rule,
		.follow = opts->follow,
		.mpi_only = opts->mpi_only,
		.unwind_tables = !opts->frame_pointers,
		/* pprof's locations carry source lines and inlined functions. */
		.detailed_stacks = opts->stacks_path != NULL || opts->pprof_path != NULL,
		.tree_budget = opts->tree_budget,
		.table_budget = opts->table_budget,
		.symbol_budget = opts->symbol_budget,
		.live_blocks = opts->live_blocks,
		.sample_interval = opts->interval,
		.allocators = opts->allocators,
		.nr_allocators = opts->nr_allocators,
		/* What heaptap launches maps, in all likelihood, the C library it runs with. */
		.warm_own_libraries = opts->command != NULL,
	};
	int err;

	so.consumers = opts->consumers ? opts->consumers : default_consumers(opts);
	so.ring_bytes = ring_bytes(so.consumers, many_processes(opts) || so.consumers > 1);
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

int open_outputs(const struct options *opts, struct outputs *out)
{
	const struct report_output files[] = {
		{ &out->text, opts->text_path, "-o" },
		{ &out->json, opts->json_path, "--json" },
		{ &out->stacks, opts->stacks_path, "--stacks" },
		{ &out->pprof, opts->pprof_path, "--pprof" },
		{ &out->folded, opts->folded_path, "--folded" },
	};

	*out = (struct outputs){
		.tree = { .show = opts->tree, .depth = opts->depth, .under = opts->under },
		.folded_weight = opts->folded_weight,
	};
	owner_text_set_depth(opts->site_depth);
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

/* The text report, and the trees when --tree asks. */
static void report_text_and_trees(FILE *f, struct session *s, const struct outputs *out)
{
	report_text(f, s);
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

void request_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void catch_stop_signals(void (*handler)(int))
{
	/* No SA_RESTART: the signal must interrupt the poll. */
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
