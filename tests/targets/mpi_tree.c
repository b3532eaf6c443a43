// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MPI program whose start-up, app_init(), allocates as a library's init might: a
 * constant amount (fixed_setup), a table entry per peer (peer_table: linear in the number
 * of processes p) and a matrix of peers (peer_matrix: p rows of p entries). It records,
 * per call-tree node below app_init, what it allocated and freed, in the event order.
 * mpi_tree --truth-dir DIR   writes DIR/truth-<rank>.json
 */
#include <malloc.h>
#include <stdbool.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PEER_ENTRY 40 /* bytes of one table entry: usable 40 in glibc */
#define MATRIX_CELL 24

enum node { APP_INIT, FIXED, TABLE, MATRIX, NR_NODES };
static const char *const node_path[NR_NODES] = {
	"app_init", "app_init/fixed_setup", "app_init/peer_table", "app_init/peer_matrix",
};

static struct truth {
	long current, min, max, requested, mallocs, frees;
} truth[NR_NODES];

/* Charge a block to the node and to app_init, which holds it: nothing here allocates. */
static void note(enum node n, long usable, long requested, bool is_free)
{
	enum node both[2] = { n, APP_INIT };

	for (int i = 0; i < (n == APP_INIT ? 1 : 2); i++) {
		struct truth *t = &truth[both[i]];

		t->current += is_free ? -usable : usable;
		if (t->current > t->max)
			t->max = t->current;
		if (t->current < t->min)
			t->min = t->current;
		t->requested += requested;
		if (is_free)
			t->frees++;
		else
			t->mallocs++;
	}
}

static void *kept[4096];
static int nr_kept;

__attribute__((noinline)) void fixed_setup(void)
{
	static const size_t sizes[] = { 100, 200, 300 };
	void *blocks[3];

	for (int i = 0; i < 3; i++) {
		blocks[i] = malloc(sizes[i]);
		note(FIXED, malloc_usable_size(blocks[i]), sizes[i], false);
	}
	/* The middle one is scratch: max holds it, current does not. */
	note(FIXED, malloc_usable_size(blocks[1]), 0, true);
	free(blocks[1]);
	kept[nr_kept++] = blocks[0];
	kept[nr_kept++] = blocks[2];
}

__attribute__((noinline)) void peer_table(int peers)
{
	for (int i = 0; i < peers; i++) {
		void *entry = malloc(PEER_ENTRY);

		note(TABLE, malloc_usable_size(entry), PEER_ENTRY, false);
		kept[nr_kept++] = entry;
	}
}

__attribute__((noinline)) void peer_matrix(int peers)
{
	void **rows = malloc(peers * sizeof(void *));

	note(MATRIX, malloc_usable_size(rows), peers * sizeof(void *), false);
	for (int i = 0; i < peers; i++) {
		rows[i] = malloc(peers * MATRIX_CELL);
		note(MATRIX, malloc_usable_size(rows[i]), peers * MATRIX_CELL, false);
	}
	kept[nr_kept++] = rows;
}

__attribute__((noinline)) void app_init(int peers)
{
	void *state = malloc(64);

	note(APP_INIT, malloc_usable_size(state), 64, false);
	kept[nr_kept++] = state;
	fixed_setup();
	peer_table(peers);
	peer_matrix(peers);
}

static int write_truth(const char *path, int world_size)
{
	FILE *f = fopen(path, "w");
	void *probe = malloc(PEER_ENTRY);
	long entry_usable = malloc_usable_size(probe);

	free(probe);
	if (!f)
		return -1;
	fprintf(f, "{\"world_size\": %d, \"peer_entry_usable\": %ld, \"nodes\": [\n", world_size,
		entry_usable);
	for (int n = 0; n < NR_NODES; n++)
		fprintf(f, "%s{\"path\": \"%s\", \"current\": %ld, \"min\": %ld, \"max\": %ld, "
			   "\"requested\": %ld, \"calls\": {\"malloc\": %ld, \"free\": %ld}}\n",
			n ? "," : "", node_path[n], truth[n].current, truth[n].min, truth[n].max,
			truth[n].requested, truth[n].mallocs, truth[n].frees);
	fprintf(f, "]}\n");
	return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *dir = ".";
	char path[4096];
	int rank, size, err;

	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--truth-dir"))
			dir = argv[i + 1];
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	app_init(size);
	MPI_Barrier(MPI_COMM_WORLD);
	snprintf(path, sizeof(path), "%s/truth-%d.json", dir, rank);
	err = write_truth(path, size);
	MPI_Finalize();
	return err ? 1 : 0;
}
