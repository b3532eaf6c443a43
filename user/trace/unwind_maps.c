// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <uthash.h>
#include "bsearch_upper.h"
#include "budget.h"
#include "heaptap_types.h"
#include "log.h"
#include "unwind_maps.h"
#include "unwind_table.h"

/* The BPF unwinder finds a file's row in 24 halvings (ROW_SEARCH_STEPS). */
#define MAX_FILE_ROWS ((1u << 24) - 1)

struct file_key {
	uint64_t dev, inode;
};

struct file_entry {
	struct file_key key;
	uint32_t first_row;
	uint32_t file_id; /* its number in the node's shared stacks; 0: none */
	size_t index; /* into unwind_maps.files */
	UT_hash_handle hh;
};

struct unwind_maps {
	int rows_fd, processes_fd;
	uint32_t capacity, used; /* rows are handed out in order and never reused */
	struct budget budget;	 /* in bytes of rows: the total is the row map */
	struct file_entry *by_file;
	struct unwind_file *files;
	size_t nr_files;
	struct node_stacks *node; /* NULL: no stack is shared */
};

struct unwind_maps *unwind_maps__new(int rows_fd, uint32_t capacity, int processes_fd,
				     struct node_stacks *node)
{
	struct unwind_maps *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->rows_fd = rows_fd;
	u->capacity = capacity;
	u->processes_fd = processes_fd;
	u->node = node;
	u->budget.limits.total = (uint64_t)capacity * sizeof(struct ht_unwind_row);
	u->budget.limits.per_file = u->budget.limits.total;
	return u;
}

void unwind_maps__limit_files(struct unwind_maps *u, uint64_t per_file)
{
	u->budget.limits.per_file = per_file;
}

const struct budget *unwind_maps__budget(const struct unwind_maps *u)
{
	return &u->budget;
}

void unwind_maps__free(struct unwind_maps *u)
{
	struct file_entry *f, *tmp;

	if (!u)
		return;
	HASH_ITER(hh, u->by_file, f, tmp) {
		HASH_DEL(u->by_file, f);
		free(f);
	}
	for (size_t i = 0; i < u->nr_files; i++)
		free(u->files[i].path);
	free(u->files);
	free(u);
}

static double monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Copy count slots into the row map from slot first on: one system call for them all. */
static int store_slots(struct unwind_maps *u, const void *slots, uint32_t first, uint32_t count)
{
	__u32 *keys = malloc((count ? count : 1) * sizeof(*keys));
	__u32 done = count;
	int err = 0;

	if (!keys)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++)
		keys[i] = first + i;
	if (count && bpf_map_update_batch(u->rows_fd, keys, slots, &done, NULL))
		err = -errno;
	free(keys);
	return err;
}

/* How many of the table's rows start at or before offset (rows are sorted by pc). */
static uint32_t rows_at_or_before(const struct unwind_table *table, uint64_t offset)
{
	return BSEARCH_UPPER(table->rows, table->nr, pc, offset);
}

/* Index pages of 256 bytes or more: a search then takes a few steps on libc. */
#define MIN_PAGE_SHIFT 8

/*
 * The file's page index: the smallest pages whose index takes at most an eighth of its
 * rows' bytes (two words a row), so that it stays bounded whatever the file's size.
 * NULL (no index) when the file has too few rows to gain from one, or on no memory.
 */
static struct ht_unwind_index *page_index(const struct unwind_table *table,
					  struct unwind_file *file)
{
	uint64_t first_pc, last_pc, pages = 0, words;
	struct ht_unwind_index *index;
	uint32_t shift;

	if (table->nr < 16)
		return NULL;
	first_pc = table->rows[0].pc;
	last_pc = table->rows[table->nr - 1].pc;
	for (shift = MIN_PAGE_SHIFT;; shift++) {
		if (shift == 32)
			return NULL; /* rows strewn over the whole offset range: no index */
		pages = (last_pc >> shift) - (first_pc >> shift) + 1;
		if (pages + 1 <= table->nr / 2)
			break;
	}
	words = pages + 1;
	index = calloc((words + HT_INDEX_WORDS - 1) / HT_INDEX_WORDS, sizeof(*index));
	if (!index)
		return NULL;
	for (uint64_t p = 0; p < words; p++) {
		uint64_t page_start = ((first_pc >> shift) + p) << shift;

		index[p / HT_INDEX_WORDS].rows_before[p % HT_INDEX_WORDS] =
			p == pages ? table->nr : rows_at_or_before(table, page_start);
	}
	file->page_shift = shift;
	file->first_page = first_pc >> shift;
	file->nr_pages = pages;
	file->index_slots = (words + HT_INDEX_WORDS - 1) / HT_INDEX_WORDS;
	return index;
}

/*
 * Copy a file's rows into the row map, after those of the files before it, and its page
 * index after them when there is room (without one its rows are searched whole).
 */
static int store_rows(struct unwind_maps *u, const struct unwind_table *table,
		      struct unwind_file *file, uint32_t *first)
{
	struct ht_unwind_index *index;
	int err;

	if (table->nr > u->capacity - u->used)
		return -ENOSPC;
	/* libmpi alone has tens of thousands of rows. */
	err = store_slots(u, table->rows, u->used, table->nr);
	if (err)
		return err;
	*first = u->used;
	u->used += table->nr;
	index = page_index(table, file);
	/* The index counts in the file's budget and the total's, as its rows do. */
	if (index && (file->index_slots > u->capacity - u->used ||
		      unwind_file_bytes(file) > u->budget.limits.per_file ||
		      store_slots(u, index, u->used, file->index_slots)))
		file->index_slots = file->nr_pages = 0;
	u->used += file->index_slots;
	free(index);
	u->budget.used = (uint64_t)u->used * sizeof(struct ht_unwind_row);
	return 0;
}

/*
 * The file's rows within what is left of the budget: a file the total no longer has room
 * for is not even opened. -EFBIG (too big alone) or -ENOSPC (the total is spent) then.
 */
static int build_within_budget(struct unwind_maps *u, struct unwind_file *file,
			       const char *open_path, struct unwind_table *table)
{
	uint64_t room = budget__room(&u->budget, 0);
	int err = -ENOSPC;
	char size[16];

	/* One file's rows must stay within the BPF search's bounds too. */
	if (room > (uint64_t)MAX_FILE_ROWS * sizeof(struct ht_unwind_row))
		room = (uint64_t)MAX_FILE_ROWS * sizeof(struct ht_unwind_row);
	if (room >= sizeof(struct ht_unwind_row))
		err = unwind_table__build_within(open_path, room, table);
	if (err == -EFBIG || err == -ENOSPC) {
		file->over_budget = err == -ENOSPC ? BUDGET_TOTAL : budget__why(&u->budget, 0);
		err = file->over_budget == BUDGET_TOTAL ? -ENOSPC : -EFBIG;
		u->budget.files_refused++;
		/* Once per file, as the malformed-file warning: its table is never retried. */
		log_info("warning: %s: unwind table over the %s (%s): stacks through it may be cut "
			 "there", file->path, budget_verdict_name(file->over_budget),
			 budget_size_text(file->over_budget == BUDGET_TOTAL ?
						  u->budget.limits.total :
						  u->budget.limits.per_file,
					  size, sizeof(size)));
	}
	return err;
}

static struct file_entry *file_of(struct unwind_maps *u, pid_t pid, const struct mapping *m)
{
	struct file_key key = { m->dev, m->inode };
	struct unwind_table table = {};
	struct unwind_file *grown, *file;
	struct file_entry *f;
	char open_path[4096];
	double start;

	HASH_FIND(hh, u->by_file, &key, sizeof(key), f);
	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	grown = realloc(u->files, (u->nr_files + 1) * sizeof(*grown));
	if (!f || !grown) {
		free(f);
		return NULL;
	}
	u->files = grown;
	file = &u->files[u->nr_files];
	memset(file, 0, sizeof(*file));
	file->path = strdup(m->path);
	if (!file->path) {
		free(f);
		return NULL;
	}
	f->key = key;
	f->file_id = u->node ? node_stacks__file_id(u->node, m->dev, m->inode) : 0;
	f->index = u->nr_files++;
	HASH_ADD(hh, u->by_file, key, sizeof(key), f);

	start = monotonic_ms();
	file->err = procmaps__file_path(pid, m, open_path, sizeof(open_path));
	if (!file->err)
		file->err = build_within_budget(u, file, open_path, &table);
	if (!file->err)
		file->err = store_rows(u, &table, file, &f->first_row);
	if (!file->err)
		file->nr_rows = table.nr;
	file->build_ms = monotonic_ms() - start;
	/* Once per file: its table is built once, whatever number of processes map it. */
	if (table.malformed)
		log_info("warning: %s: malformed unwind information (skipped: %zu): stacks "
			 "through it may be cut there", file->path, table.malformed);
	unwind_table__clear(&table);
	if (file->err)
		log_debug("unwind table for %s: none (%s): frame pointers there", file->path,
			  file->err == -ENOENT ? "no CFI" : strerror(-file->err));
	else
		log_debug("unwind table for %s: %u rows, %.1f KiB, %.1f ms", file->path,
			  file->nr_rows, unwind_file_bytes(file) / 1024.0,
			  file->build_ms);
	return f;
}

int unwind_maps__update(struct unwind_maps *u, pid_t pid, const struct procmaps *maps)
{
	struct ht_process_mappings *pm = calloc(1, sizeof(*pm));
	__u32 key = pid;
	int err = 0;

	if (!pm)
		return -ENOMEM;
	/* maps are sorted by start, as the BPF search needs. */
	for (size_t i = 0; i < maps->nr; i++) {
		const struct mapping *m = &maps->maps[i];
		const struct unwind_file *file;
		struct file_entry *f;

		if (!m->executable || m->path[0] != '/')
			continue; /* anonymous code (JIT) and [vdso]: frame pointers */
		if (pm->nr == HT_MAX_MAPPINGS) {
			log_debug("pid %d: code past %d executable mappings is walked by frame "
				  "pointers", pid, HT_MAX_MAPPINGS);
			break;
		}
		f = file_of(u, pid, m);
		if (!f) {
			err = -ENOMEM;
			break;
		}
		file = &u->files[f->index];
		pm->maps[pm->nr++] = (struct ht_mapping){
			.start = m->start,
			.end = m->end,
			.file_offset = m->offset,
			.first_row = f->first_row,
			.nr_rows = file->err ? 0 : file->nr_rows,
			.first_index = f->first_row + file->nr_rows,
			.nr_pages = file->err ? 0 : file->nr_pages,
			.first_page = file->first_page,
			.page_shift = file->page_shift,
			.file_id = f->file_id,
		};
	}
	/* One update: the unwinder sees the old mappings or the new, never a mix. */
	if (!err && bpf_map_update_elem(u->processes_fd, &key, pm, BPF_ANY))
		err = -errno;
	free(pm);
	return err;
}

void unwind_maps__forget(struct unwind_maps *u, pid_t pid)
{
	__u32 key = pid;

	bpf_map_delete_elem(u->processes_fd, &key);
}

void unwind_maps__note_cut(struct unwind_maps *u, uint64_t dev, uint64_t inode)
{
	struct file_key key = { dev, inode };
	struct file_entry *f;

	HASH_FIND(hh, u->by_file, &key, sizeof(key), f);
	if (f)
		u->files[f->index].cut_stacks++;
}

size_t unwind_maps__files(const struct unwind_maps *u, const struct unwind_file **files)
{
	*files = u->files;
	return u->nr_files;
}
