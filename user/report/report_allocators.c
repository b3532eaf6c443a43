// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The allocators of a process: the malloc family's provider first (its balance is the
 * process's total), then each --allocator API with its own thread, library and function
 * groups. An API's calls are counted by kind: malloc, calloc, realloc, free, memalign,
 * posix_memalign, brk.
 */
#include <inttypes.h>
#include <string.h>
#include "custom_allocs.h"
#include "report.h"

static const char *malloc_family_name(const struct allocator *a)
{
	const char *slash = strrchr(a->path, '/');

	if (a->glibc)
		return "glibc";
	if (size_classes__name(a->classes))
		return size_classes__name(a->classes);
	return slash ? slash + 1 : a->path;
}

bool report_usable_known(const struct target *t)
{
	return t->alloc.glibc || (t->alloc.classes != SIZE_CLASSES_NONE && !t->usable_unknown);
}

static json_object *api_balance_json(const struct balance *b)
{
	json_object *o = json_object_new_object(), *calls = json_object_new_object();

	report_json_balance(o, b);
	for (int k = 0; k < SPEC_NR_KINDS; k++)
		json_object_object_add(calls, alloc_spec__kind_name(k),
				       json_object_new_uint64(b->calls[custom_allocs__slot(k)]));
	json_object_object_add(o, "calls", calls); /* by kind, in place of the malloc family's */
	return o;
}

static json_object *api_json(struct custom_account *acct)
{
	json_object *o = api_balance_json(&acct->stats.total);
	json_object *threads = json_object_new_array(), *libraries = json_object_new_array();
	json_object *functions = json_object_new_array();
	const struct thread_stats *th, *tht;
	const struct library_stats *l, *lt;
	const struct function_stats *f, *ft;

	accountant__sort(&acct->stats);
	json_object_object_add(o, "allocator", json_object_new_string(acct->spec->name));
	json_object_object_add(o, "library", acct->library ?
						     json_object_new_string(acct->library) : NULL);
	json_object_object_add(o, "usable_known", json_object_new_boolean(false));
	json_object_object_add(o, "freed_unknown", json_object_new_uint64(acct->freed_unknown));
	HASH_ITER(hh, acct->stats.threads, th, tht) {
		json_object *g = api_balance_json(&th->bal);

		json_object_object_add(g, "tid", json_object_new_int64(th->tid));
		json_object_object_add(g, "name", json_object_new_string(th->name));
		json_object_array_add(threads, g);
	}
	HASH_ITER(hh, acct->stats.libraries, l, lt) {
		json_object *g = api_balance_json(&l->bal);

		json_object_object_add(g, "library", json_object_new_string(l->library));
		json_object_array_add(libraries, g);
	}
	HASH_ITER(hh, acct->stats.functions, f, ft) {
		json_object *g = api_balance_json(&f->bal);

		json_object_object_add(g, "function", json_object_new_string(f->function));
		json_object_object_add(g, "library", json_object_new_string(f->library));
		json_object_array_add(functions, g);
	}
	json_object_object_add(o, "threads", threads);
	json_object_object_add(o, "libraries", libraries);
	json_object_object_add(o, "functions", functions);
	return o;
}

json_object *report_allocators_json(const struct target *t)
{
	json_object *all = json_object_new_array(), *family = json_object_new_object();
	struct custom_account *accts;
	size_t nr;

	if (t->probed) {
		json_object_object_add(family, "allocator",
				       json_object_new_string(malloc_family_name(&t->alloc)));
		json_object_object_add(family, "library", json_object_new_string(t->alloc.path));
		json_object_object_add(family, "usable_known",
				       json_object_new_boolean(report_usable_known(t)));
		json_object_object_add(family, "usable_unknown_blocks",
				       json_object_new_uint64(t->usable_unknown));
		report_json_balance(family, &t->stats.total);
		json_object_array_add(all, family);
	} else {
		json_object_put(family);
	}
	accts = custom_allocs__accounts(t->custom, &nr);
	for (size_t i = 0; i < nr; i++)
		json_object_array_add(all, api_json(&accts[i]));
	return all;
}

static void print_api_balance(FILE *out, const char *indent, const struct balance *b)
{
	fprintf(out, "%smem_size = %" PRId64 ", mem_min = %" PRId64 ", mem_max = %" PRId64
		     ", requested = %" PRIu64 "\n%s",
		indent, b->current, b->min, b->max, b->requested, indent);
	for (int k = 0; k < SPEC_NR_KINDS; k++)
		fprintf(out, "%s%s: %" PRIu64, k ? ", " : "", alloc_spec__kind_name(k),
			b->calls[custom_allocs__slot(k)]);
	fputc('\n', out);
}

void report_allocators_text(FILE *out, const struct target *t)
{
	size_t nr;
	struct custom_account *accts = custom_allocs__accounts(t->custom, &nr);

	for (size_t i = 0; i < nr; i++) {
		struct custom_account *a = &accts[i];
		const struct thread_stats *th, *tht;
		const struct library_stats *l, *lt;
		const struct function_stats *f, *ft;

		accountant__sort(&a->stats);
		fprintf(out, "==== Allocator %s (%s) =====\n", a->spec->name,
			a->library ? a->library : "not found");
		fprintf(out, "Block sizes unknown: usable = requested");
		if (a->freed_unknown)
			fprintf(out, "; frees of blocks allocated before tracing: %" PRIu64,
				a->freed_unknown);
		fputc('\n', out);
		print_api_balance(out, "", &a->stats.total);
		fprintf(out, "----- %s: individual thread memory usage -----\n", a->spec->name);
		HASH_ITER(hh, a->stats.threads, th, tht) {
			fprintf(out, "Thread ID: %u (%s)\n", th->tid, th->name);
			print_api_balance(out, "", &th->bal);
		}
		fprintf(out, "----- %s: individual library memory usage -----\n", a->spec->name);
		HASH_ITER(hh, a->stats.libraries, l, lt) {
			fprintf(out, "Library: %s\n", l->library);
			print_api_balance(out, "", &l->bal);
			HASH_ITER(hh, a->stats.functions, f, ft) {
				if (strcmp(f->library, l->library))
					continue;
				fprintf(out, "  Function: %s\n", f->function);
				print_api_balance(out, "  ", &f->bal);
			}
		}
	}
}
