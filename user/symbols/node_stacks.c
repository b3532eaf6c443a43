// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "node_stacks.h"
#include "strpool.h"
#include "word_hash.h"

/*
 * Files a node's stacks run through: a few hundred. Past this many, a file's frames keep
 * their addresses (its stacks stay their processes').
 */
#define NODE_MAX_FILES (1u << 16)
_Static_assert(NODE_MAX_FILES <= HT_MAX_FILE_ID, "a file's number fits a frame's key");

struct file_identity {
	uint64_t dev, inode;
};

struct file_number {
	struct file_identity file;
	uint32_t id;
	UT_hash_handle hh;
};

struct kept_answer {
	struct node_answer answer;
	UT_hash_handle hh;
};

struct node_stacks {
	pthread_mutex_t lock;
	struct file_number *by_file;
	struct file_identity *files; /* [id - 1], NODE_MAX_FILES of them */
	uint32_t nr_files;	     /* published with release: files[] below it are set */
	struct kept_answer *answers;
	size_t nr_answers;
	struct strpool names; /* the strings answers point to */
	struct stack_records models; /* the stacks they recorded, one record for many */
};

struct node_stacks *node_stacks__new(bool detailed)
{
	struct node_stacks *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->models.detailed = detailed;
	n->files = calloc(NODE_MAX_FILES, sizeof(*n->files));
	if (!n->files) {
		free(n);
		return NULL;
	}
	pthread_mutex_init(&n->lock, NULL);
	return n;
}

static void drop_answers(struct node_stacks *n)
{
	struct kept_answer *a, *next;

	HASH_ITER(hh, n->answers, a, next) {
		HASH_DEL(n->answers, a);
		free(a);
	}
	n->nr_answers = 0;
	stack_records__clear(&n->models);
}

void node_stacks__free(struct node_stacks *n)
{
	struct file_number *f, *next_file;

	if (!n)
		return;
	HASH_ITER(hh, n->by_file, f, next_file) {
		HASH_DEL(n->by_file, f);
		free(f);
	}
	drop_answers(n);
	strpool__clear(&n->names);
	pthread_mutex_destroy(&n->lock);
	free(n->files);
	free(n);
}

uint32_t node_stacks__file_id(struct node_stacks *n, uint64_t dev, uint64_t inode)
{
	struct file_identity file = { dev, inode };
	struct file_number *f;
	uint32_t id = 0;

	pthread_mutex_lock(&n->lock);
	HASH_FIND(hh, n->by_file, &file, sizeof(file), f);
	if (f) {
		id = f->id;
	} else if (n->nr_files < NODE_MAX_FILES && (f = calloc(1, sizeof(*f)))) {
		f->file = file;
		f->id = n->nr_files + 1;
		n->files[n->nr_files] = file;
		HASH_ADD(hh, n->by_file, file, sizeof(file), f);
		__atomic_store_n(&n->nr_files, f->id, __ATOMIC_RELEASE);
		id = f->id;
	}
	pthread_mutex_unlock(&n->lock);
	return id;
}

bool node_stacks__file(const struct node_stacks *n, uint32_t id, uint64_t *dev,
		       uint64_t *inode)
{
	if (id == 0 || id > __atomic_load_n(&n->nr_files, __ATOMIC_ACQUIRE))
		return false;
	*dev = n->files[id - 1].dev;
	*inode = n->files[id - 1].inode;
	return true;
}

const struct node_answer *node_stacks__find(struct node_stacks *n,
					    const struct node_answer_key *key)
{
	struct kept_answer *a;

	pthread_mutex_lock(&n->lock);
	HASH_FIND(hh, n->answers, key, sizeof(*key), a);
	pthread_mutex_unlock(&n->lock);
	return a ? &a->answer : NULL;
}

int node_stacks__publish(struct node_stacks *n, const struct node_answer *answer,
			 const struct stack_frame *frames, size_t nr)
{
	struct kept_answer *a;
	int err = 0;

	pthread_mutex_lock(&n->lock);
	HASH_FIND(hh, n->answers, &answer->key, sizeof(answer->key), a);
	if (a)
		goto out;
	a = calloc(1, sizeof(*a));
	if (!a) {
		err = -ENOMEM;
		goto out;
	}
	a->answer = *answer;
	a->answer.call.record = NULL;
	a->answer.call.library = strpool__intern(&n->names, answer->call.library);
	a->answer.call.function = strpool__intern(&n->names, answer->call.function);
	a->answer.model = frames ? stack_records__intern(&n->models, frames, nr,
							 answer->call.complete)
				 : NULL;
	if (!a->answer.call.library || !a->answer.call.function || (frames && !a->answer.model)) {
		free(a);
		err = -ENOMEM;
		goto out;
	}
	HASH_ADD(hh, n->answers, answer.key, sizeof(a->answer.key), a);
	n->nr_answers++;
out:
	pthread_mutex_unlock(&n->lock);
	return err;
}

size_t node_stacks__answers(struct node_stacks *n)
{
	size_t nr;

	pthread_mutex_lock(&n->lock);
	nr = n->nr_answers;
	pthread_mutex_unlock(&n->lock);
	return nr;
}

void node_stacks__forget_answers(struct node_stacks *n)
{
	pthread_mutex_lock(&n->lock);
	drop_answers(n);
	pthread_mutex_unlock(&n->lock);
}
