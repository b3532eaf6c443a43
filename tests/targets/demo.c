// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The demo workload: the allocation pattern of the DLM red-black-tree benchmark, scaled
 * down (50,000 inserts of 48-byte nodes, rounds of deletes and inserts, then everything
 * freed), in a worker thread, while the main thread builds a growing log with realloc.
 *
 * demo [--truth FILE]: FILE gets what the demo knows of itself, for the tests: the most
 * nodes its tree held at once, a node's usable size, and its log's usable size at most.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	long key;
	struct node *left, *right;
	long pad[3]; /* 48 bytes, as in the benchmark */
};

/* The tree's live nodes and their most, counted by its one thread. */
static long live_nodes, most_nodes;

static struct node *insert(struct node *root, long key)
{
	struct node **link = &root;

	while (*link)
		link = key < (*link)->key ? &(*link)->left : &(*link)->right;
	*link = calloc(1, sizeof(struct node));
	if (*link) {
		(*link)->key = key;
		if (++live_nodes > most_nodes)
			most_nodes = live_nodes;
	}
	return root;
}

static struct node *remove_min(struct node *root)
{
	struct node **link = &root, *victim;

	if (!root)
		return NULL;
	while ((*link)->left)
		link = &(*link)->left;
	victim = *link;
	*link = victim->right;
	free(victim);
	live_nodes--;
	return root;
}

static void free_tree(struct node *n)
{
	if (!n)
		return;
	free_tree(n->left);
	free_tree(n->right);
	free(n);
	live_nodes--;
}

static void *tree_worker(void *arg)
{
	struct node *root = NULL;
	unsigned int seed = 42;

	(void)arg;
	for (int i = 0; i < 50000; i++)
		root = insert(root, rand_r(&seed));
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 1000; i++)
			root = remove_min(root);
		for (int i = 0; i < 1000; i++)
			root = insert(root, rand_r(&seed));
	}
	free_tree(root);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *truth = argc == 3 && !strcmp(argv[1], "--truth") ? argv[2] : NULL;
	char *log = NULL;
	size_t len = 0, log_usable = 0;
	pthread_t tree;

	pthread_create(&tree, NULL, tree_worker, NULL);
	pthread_setname_np(tree, "rbtree");
	for (int i = 0; i < 2000; i++) {
		char line[64];
		int n = snprintf(line, sizeof(line), "event %d\n", i);
		char *grown = realloc(log, len + n + 1);

		if (!grown)
			break;
		log = grown;
		if (malloc_usable_size(log) > log_usable)
			log_usable = malloc_usable_size(log);
		memcpy(log + len, line, n + 1);
		len += n;
	}
	pthread_join(tree, NULL);
	printf("demo: built a 50,000-node tree and a %zu-byte log\n", len);
	if (truth) {
		FILE *f = fopen(truth, "w");
		void *node = calloc(1, sizeof(struct node));

		if (!f || !node)
			return 1;
		fprintf(f, "{\"most_nodes\": %ld, \"node_usable\": %zu, \"log_usable\": %zu}\n",
			most_nodes, malloc_usable_size(node), log_usable);
		free(node);
		fclose(f);
	}
	free(log);
	return 0;
}
