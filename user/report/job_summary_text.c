// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The job summary as text: read from its JSON, so that the text and --json never differ. */
#include <inttypes.h>
#include <string.h>
#include "human_bytes.h"
#include "job_summary.h"

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static int64_t num(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

static const char *bytes(int64_t b, char *buf, size_t size)
{
	return human_bytes(b, buf, size);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "min (rank r)  median  max (rank r)" of a STAT, bytes or a count. */
static void print_stat(FILE *out, const char *what, json_object *s, bool is_bytes)
{
	char a[32], b[32], c[32];

	if (is_bytes) {
		bytes(num(s, "min"), a, sizeof(a));
		bytes(num(s, "median"), b, sizeof(b));
		bytes(num(s, "max"), c, sizeof(c));
	} else {
		snprintf(a, sizeof(a), "%" PRId64, num(s, "min"));
		snprintf(b, sizeof(b), "%" PRId64, num(s, "median"));
		snprintf(c, sizeof(c), "%" PRId64, num(s, "max"));
	}
	fprintf(out, "  %-8s %10s (rank %" PRId64 ") %10s %10s (rank %" PRId64 ")\n", what, a,
		num(s, "rank_of_min"), b, c, num(s, "rank_of_max"));
}

static void print_heading(FILE *out, json_object *sum)
{
	json_object *hosts = get(sum, "hosts"), *files = get(sum, "files");
	size_t nr_hosts = json_object_array_length(hosts);

	fprintf(out, "heaptap job summary: ");
	if (get(sum, "job"))
		fprintf(out, "job %s, ", json_object_get_string(get(sum, "job")));
	if (get(sum, "run"))
		fprintf(out, "run %" PRId64 ", ", num(sum, "run"));
	else
		fprintf(out, "%zu report file%s, ", json_object_array_length(files),
			json_object_array_length(files) == 1 ? "" : "s");
	fprintf(out, "%" PRId64 " %s%s", num(sum, "ranks"),
		json_object_get_boolean(get(sum, "mpi")) ? "MPI rank" : "process",
		num(sum, "ranks") == 1 ? "" : json_object_get_boolean(get(sum, "mpi")) ? "s" : "es");
	if (get(sum, "world_size"))
		fprintf(out, " of %" PRId64, num(sum, "world_size"));
	fprintf(out, " (attribution %s)\n", json_object_get_string(get(sum, "attribution")));
	fprintf(out, "Hosts: ");
	if (!nr_hosts)
		fprintf(out, "not recorded (reports of an earlier heaptap's run and attach)");
	for (size_t i = 0; i < nr_hosts; i++)
		fprintf(out, "%s%s", i ? ", " : "",
			json_object_get_string(json_object_array_get_idx(hosts, i)));
	fprintf(out, "\nDuration: ");
	if (get(sum, "duration"))
		fprintf(out, "%.1f s", json_object_get_double(get(sum, "duration")));
	else
		fprintf(out, "unknown (no samples)");
	fprintf(out, "\nLost events: %" PRId64 ", incomplete stacks: %" PRId64
		     ", untraced processes: %zu, other processes: %" PRId64 "\n",
		num(sum, "lost_events"), num(sum, "incomplete_stacks"),
		json_object_array_length(get(sum, "untraced")), num(sum, "other_processes"));
	if (get(sum, "sampled"))
		fprintf(out, "Sampled by bytes (--sample-bytes %" PRId64 "): %" PRId64 " of %" PRId64
			     " ranks; their bytes, blocks and calls are estimates\n",
			num(get(sum, "sampled"), "bytes"), num(get(sum, "sampled"), "ranks"),
			num(sum, "ranks"));
	for (size_t i = 0; i < json_object_array_length(get(sum, "untraced")); i++) {
		json_object *u = json_object_array_get_idx(get(sum, "untraced"), i);

		fprintf(out, "  untraced: pid %" PRId64 " %s: %s\n", num(u, "pid"),
			json_object_get_string(get(u, "command")),
			json_object_get_string(get(u, "reason")));
	}
}

static void print_outliers(FILE *out, json_object *sum)
{
	json_object *rule = get(sum, "outlier_rule"), *list = get(sum, "outliers");
	char median[32], mad[32], peak[32];
	size_t n = json_object_array_length(list);

	fprintf(out, "Outliers (a peak more than %.1f robust deviations and %.0f%% above the "
		     "median %s, MAD %s): ",
		json_object_get_double(get(rule, "z")),
		json_object_get_double(get(rule, "min_ratio")) * 100,
		bytes(num(rule, "median"), median, sizeof(median)),
		bytes(num(rule, "mad"), mad, sizeof(mad)));
	if (!n)
		fprintf(out, "none");
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(list, i);

		fprintf(out, "%srank %" PRId64 " (peak %s", i ? ", " : "", num(o, "rank"),
			bytes(num(o, "max"), peak, sizeof(peak)));
		if (get(o, "z"))
			fprintf(out, ", z %.1f", json_object_get_double(get(o, "z")));
		fputc(')', out);
	}
	fputc('\n', out);
}

static void print_ranks(FILE *out, json_object *sum)
{
	json_object *list = get(sum, "ranks_detail");

	fprintf(out, "\n%6s %8s %-16s %10s %10s %10s %8s %10s\n", "RANK", "PID", "HOST",
		"CURRENT", "PEAK", "CALLS", "LOST", "INCOMPLETE");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *r = json_object_array_get_idx(list, i);
		char cur[32], peak[32];

		fprintf(out, "%6" PRId64 " %8" PRId64 " %-16s %10s %10s %10" PRId64 " %8" PRId64
			     " %10" PRId64 "%s\n",
			num(r, "rank"), num(r, "pid"),
			get(r, "host") ? json_object_get_string(get(r, "host")) : "-",
			bytes(num(r, "current"), cur, sizeof(cur)),
			bytes(num(r, "max"), peak, sizeof(peak)), num(r, "calls"),
			num(r, "lost_events"), num(r, "incomplete_stacks"),
			json_object_get_boolean(get(r, "outlier")) ? "  outlier" : "");
	}
}

/* A table of libraries or functions: current and max as min/median/max, and calls. */
static void print_groups(FILE *out, json_object *list, bool functions)
{
	size_t n = json_object_array_length(list);

	fprintf(out, "\n%s by largest max over the ranks (%zu shown; RANK: the rank of the "
		     "largest max):\n", functions ? "Functions" : "Libraries", n);
	fprintf(out, "%-29s %-29s %5s %-20s %s\n", "CURRENT min/median/max",
		"MAX min/median/max", "RANK", "CALLS min/med/max", functions ? "FUNCTION (LIBRARY)" :
										 "LIBRARY");
	for (size_t i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(list, i);
		json_object *cur = get(g, "current"), *max = get(g, "max"), *calls = get(g, "calls");
		char a[16], b[16], c[16], d[16], e[16], f[16], col1[64], col2[64], col3[64];

		snprintf(col1, sizeof(col1), "%s/%s/%s", bytes(num(cur, "min"), a, sizeof(a)),
			 bytes(num(cur, "median"), b, sizeof(b)), bytes(num(cur, "max"), c, sizeof(c)));
		snprintf(col2, sizeof(col2), "%s/%s/%s", bytes(num(max, "min"), d, sizeof(d)),
			 bytes(num(max, "median"), e, sizeof(e)), bytes(num(max, "max"), f, sizeof(f)));
		snprintf(col3, sizeof(col3), "%" PRId64 "/%" PRId64 "/%" PRId64, num(calls, "min"),
			 num(calls, "median"), num(calls, "max"));
		fprintf(out, "%-29s %-29s %5" PRId64 " %-20s ", col1, col2, num(max, "rank_of_max"),
			col3);
		if (functions)
			fprintf(out, "%s (%s)\n", json_object_get_string(get(g, "function")),
				base_name(json_object_get_string(get(g, "library"))));
		else
			fprintf(out, "%s\n", json_object_get_string(get(g, "library")));
	}
}

/* Frames a site's short stack leaves out: the allocator's entry points, the start-up. */
static bool plain_frame(const char *function)
{
	static const char *const skipped[] = {
		"malloc", "calloc", "realloc", "reallocarray", "free", "memalign",
		"posix_memalign", "aligned_alloc", "valloc", "pvalloc", "_start",
		"__libc_start_main", "__libc_start_call_main", "start_thread", "clone", "clone3",
	};

	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++) {
		if (!strcmp(function, skipped[i]))
			return false;
	}
	return true;
}

/* A site's frames, innermost first, as "f < g < main" (SITE_FRAMES of them at most). */
#define SITE_FRAMES 6
static void print_frames(FILE *out, json_object *frames)
{
	size_t n = frames ? json_object_array_length(frames) : 0;
	int shown = 0;

	for (size_t i = 0; i < n; i++) {
		const char *fn = json_object_get_string(
			get(json_object_array_get_idx(frames, i), "function"));

		if (!fn || !plain_frame(fn))
			continue;
		if (shown == SITE_FRAMES) {
			fprintf(out, " < ...");
			break;
		}
		fprintf(out, "%s%s", shown++ ? " < " : "", fn);
	}
}

/* The ranks of largest peak shown, with PEAK_SITES sites each (--json has JOB_PEAK_SITES). */
#define PEAK_RANKS 5
#define PEAK_SITES 3
static void print_peaks(FILE *out, json_object *peaks)
{
	size_t n = json_object_array_length(peaks);

	fprintf(out, "\nAt the largest rank peaks, the sites that held most (%s):\n",
		n > PEAK_RANKS ? "the 5 largest peaks; --json has every rank's" : "largest first");
	for (size_t i = 0; i < n && i < PEAK_RANKS; i++) {
		json_object *p = json_object_array_get_idx(peaks, i), *sites = get(p, "sites");
		char b[32];

		fprintf(out, "  rank %" PRId64 ": peak %s in %" PRId64 " blocks\n", num(p, "rank"),
			bytes(num(p, "bytes"), b, sizeof(b)), num(p, "blocks"));
		for (size_t s = 0; s < json_object_array_length(sites) && s < PEAK_SITES; s++) {
			json_object *site = json_object_array_get_idx(sites, s);

			fprintf(out, "    %10s in %6" PRId64 " blocks: ",
				bytes(num(site, "bytes"), b, sizeof(b)), num(site, "blocks"));
			print_frames(out, get(site, "frames"));
			fputc('\n', out);
		}
	}
}

/*
 * "node7: 46.0M in 4 blocks at once, 0.33 s into tracing (its ranks' own peaks add up to
 * 86.0M); held by:" and the sites across its ranks that held most then.
 */
static void print_nodes(FILE *out, json_object *nodes)
{
	fprintf(out, "\nNode peaks (what each host's traced processes held at once, not the sum "
		     "of their peaks):\n");
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i), *peak = get(n, "peak");
		json_object *host = get(n, "host"), *sites = get(peak, "sites");
		char b[32], sum[32];

		fprintf(out, "  %s: ", host ? json_object_get_string(host) : "(host not recorded)");
		if (!peak || json_object_is_type(peak, json_type_null)) {
			fprintf(out, "unknown: %" PRId64 " reports of one heaptap each; trace "
				     "the host with one (run --mpi, attach --mpi)\n",
				num(n, "reports"));
			continue;
		}
		if (get(n, "resolution") &&
		    !strcmp(json_object_get_string(get(n, "resolution")), "samples"))
			fprintf(out, "%s at once by the stored samples, %.2f s into the run (a "
				     "higher sum between two samples is missed; its ranks' own "
				     "peaks add up to %s)\n",
				bytes(num(peak, "bytes"), b, sizeof(b)),
				json_object_get_double(get(peak, "seconds")),
				bytes(num(n, "sum_of_rank_peaks"), sum, sizeof(sum)));
		else
			fprintf(out, "%s in %" PRId64 " blocks at once, %.2f s into tracing (its "
				     "ranks' own peaks add up to %s)%s\n",
				bytes(num(peak, "bytes"), b, sizeof(b)), num(peak, "blocks"),
				json_object_get_double(get(peak, "seconds")),
				bytes(num(n, "sum_of_rank_peaks"), sum, sizeof(sum)),
				json_object_array_length(sites) ? "; held by:" : "");
		for (size_t s = 0; s < json_object_array_length(sites) && s < PEAK_SITES; s++) {
			json_object *site = json_object_array_get_idx(sites, s);

			fprintf(out, "    %10s in %6" PRId64 " blocks, rank %" PRId64 ": ",
				bytes(num(site, "bytes"), b, sizeof(b)), num(site, "blocks"),
				num(site, "rank"));
			print_frames(out, get(site, "frames"));
			fputc('\n', out);
		}
	}
}

/* "Killed by the OOM killer: rank 3 (PID 1234 on node7) at 12.30 s, holding 120M in 30 blocks" */
static void print_oom_kills(FILE *out, json_object *kills)
{
	for (size_t i = 0; i < json_object_array_length(kills); i++) {
		json_object *k = json_object_array_get_idx(kills, i), *sites = get(k, "sites");
		json_object *host = get(k, "host");
		char b[32];

		fprintf(out, "\nKilled by the OOM killer: rank %" PRId64 " (PID %" PRId64 "%s%s) "
			     "at %.2f s, holding %s in %" PRId64 " blocks:\n",
			num(k, "rank"), num(k, "pid"), host ? " on " : "",
			host ? json_object_get_string(host) : "",
			json_object_get_double(get(k, "time")),
			bytes(num(k, "bytes"), b, sizeof(b)), num(k, "blocks"));
		for (size_t s = 0; s < json_object_array_length(sites) && s < PEAK_SITES; s++) {
			json_object *site = json_object_array_get_idx(sites, s);

			fprintf(out, "    %10s in %6" PRId64 " blocks: ",
				bytes(num(site, "bytes"), b, sizeof(b)), num(site, "blocks"));
			print_frames(out, get(site, "frames"));
			fputc('\n', out);
		}
	}
}

void job_summary_text(FILE *out, json_object *sum)
{
	print_heading(out, sum);
	fprintf(out, "\nPer rank %17s %21s %21s\n", "min", "median", "max");
	print_stat(out, "current", get(get(sum, "total"), "current"), true);
	print_stat(out, "peak", get(get(sum, "total"), "max"), true);
	print_stat(out, "calls", get(get(sum, "total"), "calls"), false);
	print_outliers(out, sum);
	print_ranks(out, sum);
	print_groups(out, get(sum, "libraries"), false);
	print_groups(out, get(sum, "functions"), true);
	if (get(sum, "peaks"))
		print_peaks(out, get(sum, "peaks"));
	if (get(sum, "nodes"))
		print_nodes(out, get(sum, "nodes"));
	if (get(sum, "oom_kills"))
		print_oom_kills(out, get(sum, "oom_kills"));
	fflush(out);
}
