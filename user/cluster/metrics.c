// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The metrics registry: what the collector last heard of each process, and its own health. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics_internal.h"

const double metrics_db_bounds[METRICS_NR_DB_BUCKETS] = METRICS_DB_BUCKETS;

struct metrics *metrics__new(void)
{
	struct metrics *m = calloc(1, sizeof(*m));
	int err;

	if (!m)
		return NULL;
	err = pthread_mutex_init(&m->lock, NULL);
	if (err) {
		free(m);
		errno = err;
		return NULL;
	}
	return m;
}

static void process_free(struct metrics_process *p)
{
	struct metrics_library *lib, *tmp;

	HASH_ITER(hh, p->libraries, lib, tmp) {
		HASH_DEL(p->libraries, lib);
		free(lib->label);
		free(lib);
	}
	free(p->key);
	free(p->labels);
	free(p);
}

void metrics__free(struct metrics *m)
{
	struct metrics_process *p, *tmp;

	if (!m)
		return;
	HASH_ITER(hh, m->processes, p, tmp) {
		HASH_DEL(m->processes, p);
		process_free(p);
	}
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/*
 * Length-prefixed, so that no job or host name, whatever its bytes, can make two processes
 * one. In buf when it fits (updates come often), else malloc'ed; NULL when out of memory.
 */
static char *key_of(const struct metrics_who *who, char *buf, size_t size)
{
	const char *job = who->job ? who->job : "", *host = who->host ? who->host : "";
	int n = snprintf(buf, size, "%zu:%s%zu:%s%d:%d", strlen(job), job, strlen(host), host,
			 who->rank, who->pid);
	char *key;

	if (n >= 0 && (size_t)n < size)
		return buf;
	if (asprintf(&key, "%zu:%s%zu:%s%d:%d", strlen(job), job, strlen(host), host, who->rank,
		     who->pid) < 0)
		return NULL;
	return key;
}

/* Called with the lock held. NULL when unknown and create is false, or out of memory. */
static struct metrics_process *process_of(struct metrics *m, const struct metrics_who *who,
					  bool create)
{
	struct metrics_process *p;
	char buf[256], *key = key_of(who, buf, sizeof(buf));

	if (!key)
		return NULL;
	HASH_FIND_STR(m->processes, key, p);
	if (p || !create)
		goto out;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto out;
	p->key = key == buf ? strdup(buf) : key;
	key = buf; /* p owns it now */
	p->labels = p->key ? metrics_process_labels(who) : NULL;
	if (!p->labels) {
		process_free(p);
		p = NULL;
		goto out;
	}
	HASH_ADD_KEYPTR(hh, m->processes, p->key, strlen(p->key), p);
out:
	if (key != buf)
		free(key);
	return p;
}

void metrics__set_process(struct metrics *m, const struct metrics_who *who, int64_t current,
			  int64_t max, const uint64_t calls[HT_NR_FUNCS])
{
	struct metrics_process *p;

	pthread_mutex_lock(&m->lock);
	p = process_of(m, who, true);
	if (p) {
		p->has_totals = true;
		p->current = current;
		p->max = max;
		memcpy(p->calls, calls, sizeof(p->calls));
	}
	pthread_mutex_unlock(&m->lock);
}

void metrics__set_library(struct metrics *m, const struct metrics_who *who, const char *library,
			  int64_t current)
{
	struct metrics_process *p;
	struct metrics_library *lib = NULL;

	pthread_mutex_lock(&m->lock);
	p = process_of(m, who, true);
	if (p)
		HASH_FIND_STR(p->libraries, library, lib);
	if (p && !lib) {
		size_t len = strlen(library);

		lib = calloc(1, sizeof(*lib) + len + 1);
		if (lib && !(lib->label = metrics_label_value(library))) {
			free(lib);
			lib = NULL;
		}
		if (lib) {
			memcpy(lib->name, library, len + 1);
			HASH_ADD(hh, p->libraries, name[0], len, lib);
			p->nr_libraries++;
		}
	}
	if (lib)
		lib->current = current;
	pthread_mutex_unlock(&m->lock);
}

void metrics__forget_process(struct metrics *m, const struct metrics_who *who)
{
	struct metrics_process *p;

	pthread_mutex_lock(&m->lock);
	p = process_of(m, who, false);
	if (p) {
		HASH_DEL(m->processes, p);
		process_free(p);
	}
	pthread_mutex_unlock(&m->lock);
}

void metrics__add(struct metrics *m, enum metrics_counter c, uint64_t n)
{
	if ((unsigned int)c >= METRICS_NR_COUNTERS)
		return;
	pthread_mutex_lock(&m->lock);
	m->counters[c] += n;
	pthread_mutex_unlock(&m->lock);
}

void metrics__without_health(struct metrics *m)
{
	pthread_mutex_lock(&m->lock);
	m->without_health = true;
	pthread_mutex_unlock(&m->lock);
}

void metrics__set_agents_connected(struct metrics *m, unsigned int n)
{
	pthread_mutex_lock(&m->lock);
	m->agents_connected = n;
	pthread_mutex_unlock(&m->lock);
}

void metrics__observe_db_write(struct metrics *m, double seconds)
{
	int i = 0;

	/* A clock that stepped back must not make the sum go down. */
	if (!(seconds >= 0))
		seconds = 0;
	while (i < METRICS_NR_DB_BUCKETS && seconds > metrics_db_bounds[i])
		i++;
	pthread_mutex_lock(&m->lock);
	m->db_buckets[i]++;
	m->db_count++;
	m->db_sum += seconds;
	pthread_mutex_unlock(&m->lock);
}
