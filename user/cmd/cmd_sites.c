// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap sites: where heaptap would probe each entry point of an allocator, its first
 * instructions, and the rule that chose the site (probe_site.h). Reads files only: no BPF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "allocator.h"
#include "cmd_sites.h"
#include "commands.h"
#include "elfsyms.h"
#include "log.h"
#include "probe_site.h"
#include "procmaps.h"
#include "symcache.h"

static void print_function(const struct allocator *a, const struct object_file *obj,
			   enum ht_func f, FILE *out)
{
	struct probe_site s;
	char why[256];

	if (!a->offsets[f]) {
		fprintf(out, "%s: not defined in this file\n\n", ht_func_names[f]);
		return;
	}
	for (int g = 0; g < (int)f; g++) {
		if (a->offsets[g] == a->offsets[f]) {
			fprintf(out, "%s: the same function as %s (one probe serves both)\n\n",
				ht_func_names[f], ht_func_names[g]);
			return;
		}
	}
	probe_site__of_file(obj->fd, a->offsets[f], elfsyms__size_at(obj->syms, a->offsets[f]),
			    &s);
	fprintf(out, "%s at %#llx: probe at %#llx", ht_func_names[f],
		(unsigned long long)s.entry, (unsigned long long)s.site);
	if (s.site != s.entry)
		fprintf(out, " (+%llu)", (unsigned long long)(s.site - s.entry));
	fprintf(out, "\n");
	for (size_t i = 0; i < s.nr_insns; i++) {
		const struct probe_insn *p = &s.insns[i];

		fprintf(out, "  +%-3llu %-40s %s%s\n", (unsigned long long)(p->offset - s.entry),
			p->text, p->emulated ? "emulated" : "single-stepped",
			p->offset == s.site ? "  <- probe" : "");
	}
	probe_site__explain(&s, why, sizeof(why));
	fprintf(out, "  rule: %s\n\n", why);
}

/* The allocator in the file at path. */
static int allocator_in_file(struct symcache *cache, const char *path, struct allocator *a,
			     struct object_file **obj)
{
	struct stat st;

	if (stat(path, &st)) {
		log_error("cannot read %s: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	*obj = symcache__get(cache, st.st_dev, st.st_ino, path);
	if (!*obj)
		return EXIT_FAILURE_INTERNAL;
	if (!(*obj)->syms) {
		log_error("%s is not an ELF file heaptap can read", path);
		return EXIT_BAD_TARGET;
	}
	allocator__from_object(path, *obj, a);
	return EXIT_OK;
}

/* The allocator pid calls (heaptap's own without -p). */
static int allocator_of_process(struct symcache *cache, pid_t pid, struct allocator *a,
				struct object_file **obj)
{
	struct procmaps maps = {};
	int err = procmaps__read(pid, &maps);

	if (!err)
		err = allocator__find(pid, &maps, cache, a);
	procmaps__clear(&maps);
	if (err == -ENOENT) {
		log_error("PID %d maps no malloc heaptap can probe (yet)", pid);
		return EXIT_BAD_TARGET;
	}
	if (err) {
		log_error("cannot read the mappings of PID %d: %s", pid, strerror(-err));
		return err == -EACCES || err == -EPERM ? EXIT_NO_PRIVILEGE : EXIT_BAD_TARGET;
	}
	/* allocator__find loaded it: this finds it again in the cache. */
	*obj = symcache__get(cache, a->dev, a->inode, a->open_path);
	return *obj ? EXIT_OK : EXIT_FAILURE_INTERNAL;
	return EXIT_OK;
}

static int cmd_sites(const void *options)
{
	const struct sites_options *opts = options;
	const char *at = getenv("HEAPTAP_PROBE_AT");
	struct object_file *obj = NULL;
	int status = EXIT_FAILURE_INTERNAL;
	struct symcache *cache;
	struct allocator *a;

	/* It reads files and loads nothing: it needs no privilege, nor the kernel's features. */
	log_setup_libbpf();
	cache = symcache__new();
	a = calloc(1, sizeof(*a));
	if (!cache || !a)
		goto cleanup;
	if (opts->file)
		status = allocator_in_file(cache, opts->file, a, &obj);
	else
		status = allocator_of_process(cache, opts->nr_pids ? opts->pids[0] : getpid(), a,
					      &obj);
	if (status != EXIT_OK)
		goto cleanup;
	printf("probe sites in %s (file offsets; %s)\n\n", a->path,
	       elfsyms__full(obj->syms) ? "symbols from .symtab" : "symbols from .dynsym");
	for (int f = 0; f < HT_NR_FUNCS; f++)
		print_function(a, obj, f, stdout);
	if (at && !strcmp(at, "entry"))
		printf("HEAPTAP_PROBE_AT=entry is set: heaptap probes every entry instead.\n");
cleanup:
	free(a);
	symcache__free(cache);
	return status;
}

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "the allocator this process calls (default: the C library "
				"heaptap itself runs with)" },
	{},
};

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct sites_options *o = c->opts;

	switch (key) {
	case 'p':
		return cli_add_pids(c, arg, &o->pids, &o->nr_pids);
	case ARGP_KEY_ARG:
		if (o->file)
			return ARGP_ERR_UNKNOWN;
		o->file = arg;
		return 0;
	case ARGP_KEY_END:
		if (o->file && o->nr_pids)
			return cli_usage_error(c->sub, "%s", "sites reads -p PID or a FILE, not "
					       "both");
		if (o->nr_pids > 1)
			return cli_usage_error(c->sub, "%s", "sites reads one process: -p PID");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static void free_options(void *opts)
{
	struct sites_options *o = opts;

	free(o->pids);
}

const struct cli_command sites_command = {
	.name = "sites",
	.summary = "show where heaptap probes each allocator entry point, and why",
	.man_section = 1,
	.options = options,
	.args_doc = "[-p PID | FILE]",
	.doc = "Show, for each malloc-family entry point of an allocator (the one PID calls, "
	       "the one in FILE, or heaptap's own C library), its first instructions, where "
	       "heaptap places its probe and the rule that chose the place. The kernel "
	       "emulates a few instructions (push of a register, relative jumps and calls, "
	       "nop) and single-steps every other probed one at the price of a second trap: "
	       "heaptap probes the first emulated instruction when what it skips changes "
	       "nothing its probe reads.\v"
	       "Offsets are file offsets. Needs no privilege for FILE.",
	.opts_size = sizeof(struct sites_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_sites,
};
