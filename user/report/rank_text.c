// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* DMATP's text sections of one process, from its JSON report (report --html's rank pages). */
#include <string.h>
#include "heaptap_types.h"
#include "rank_text.h"

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str_field(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static void print_balance(FILE *out, const char *indent, json_object *b)
{
	json_object *calls = field(b, "calls");

	fprintf(out, "%smem_size = %lld, mem_min = %lld, mem_max = %lld, requested = %lld\n",
		indent, (long long)json_object_get_int64(field(b, "current")),
		(long long)json_object_get_int64(field(b, "min")),
		(long long)json_object_get_int64(field(b, "max")),
		(long long)json_object_get_int64(field(b, "requested")));
	fputs(indent, out);
	for (int f = 0; f < HT_NR_FUNCS; f++)
		fprintf(out, "%s%s: %lld", f ? ", " : "", ht_func_names[f],
			(long long)json_object_get_int64(field(calls, ht_func_names[f])));
	fputc('\n', out);
}

static size_t array_len(json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

void rank_text(FILE *out, json_object *p)
{
	json_object *threads = field(p, "threads"), *libs = field(p, "libraries");
	json_object *funcs = field(p, "functions"), *rank = field(p, "rank");
	json_object *world = field(p, "world_size");
	const char *host = str_field(p, "host"), *job = str_field(p, "job");

	fprintf(out, "==== Statistics of overall memory usage =====\n");
	fprintf(out, "Program name: %s\n", str_field(p, "command") ?: "?");
	fprintf(out, "PID: %d", json_object_get_int(field(p, "pid")));
	if (rank && json_object_is_type(rank, json_type_int))
		fprintf(out, ", rank: %d", json_object_get_int(rank));
	if (world && json_object_is_type(world, json_type_int))
		fprintf(out, " of %d", json_object_get_int(world));
	if (job && *job)
		fprintf(out, ", job: %s", job);
	if (host)
		fprintf(out, ", host: %s", host);
	fputc('\n', out);
	fprintf(out, "Lost events: %lld, incomplete stacks: %lld\n",
		(long long)json_object_get_int64(field(p, "lost_events")),
		(long long)json_object_get_int64(field(p, "incomplete_stacks")));
	print_balance(out, "", field(p, "total"));

	fprintf(out, "----- Statistics of individual thread memory usage -----\n");
	for (size_t i = 0; i < array_len(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i);

		fprintf(out, "Thread ID: %d (%s)\n", json_object_get_int(field(t, "tid")),
			str_field(t, "name") ?: "?");
		print_balance(out, "", t);
	}
	fprintf(out, "----- Statistics of individual library memory usage -----\n");
	for (size_t i = 0; i < array_len(libs); i++) {
		json_object *l = json_object_array_get_idx(libs, i);
		const char *lib = str_field(l, "library") ?: "?";

		fprintf(out, "Library: %s\n", lib);
		print_balance(out, "", l);
		fprintf(out, "----- Statistics of individual function memory usage -----\n");
		for (size_t k = 0; k < array_len(funcs); k++) {
			json_object *f = json_object_array_get_idx(funcs, k);
			const char *flib = str_field(f, "library");

			if (!flib || strcmp(flib, lib))
				continue;
			fprintf(out, "  Function: %s\n", str_field(f, "function") ?: "?");
			print_balance(out, "  ", f);
		}
	}
}
