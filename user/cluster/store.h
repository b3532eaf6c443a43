/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The collector's database (SQLite, WAL): agents, runs, processes, every group's latest
 * balance, and each process's time series of total current and max bytes. Batches are
 * applied inside a transaction the caller commits; a batch whose sequence number its agent
 * already stored is recognised and skipped, so each is stored exactly once.
 */
#ifndef HEAPTAP_STORE_H
#define HEAPTAP_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include "heaptap.pb-c.h"

#define STORE_SCHEMA_VERSION 7

struct store;

/* Open (creating if need be) the database at path. 0 or -errno after one logged line. */
int store__open(const char *path, bool read_only, struct store **out);
void store__close(struct store *st);

/* The agent that says hello: found by its id, else recorded. 0 or -EIO. */
struct store_agent {
	int64_t id;	  /* the database's */
	uint64_t last_seq; /* its last batch stored */
};
int store__agent_hello(struct store *st, uint64_t uid, const char *host, const char *command,
		       int pid, const char *attribution, double now, struct store_agent *out);
/* How its connection ended: "done" (goodbye) or "disconnected". 0 or -EIO. */
int store__agent_gone(struct store *st, int64_t agent, const char *state, double now);

/*
 * A transaction: batches applied inside it keep each changed group's newest figures in
 * memory; the commit writes each group once. store__flush writes them earlier, so that
 * reads through st see them. 0 or -EIO.
 */
int store__begin(struct store *st);
int store__flush(struct store *st);
int store__commit(struct store *st);
void store__rollback(struct store *st);
/* The memory held for the transaction's changed groups. */
size_t store__pending_bytes(const struct store *st);

/* A process as the collector's views name it (metrics labels). */
struct store_who {
	const char *job, *host;
	int rank, pid;
};
typedef void (*store_on_process)(void *ctx, const struct store_who *who,
				 const Heaptap__Process *p);

/*
 * Agents disconnected since before lost_before, or found "connected" by a collector that
 * just started (connected_as_of: its start): their running processes become "agent lost".
 * on_lost (may be NULL) sees each of those processes first. The number of agents marked, or
 * -EIO.
 */
typedef void (*store_on_lost)(void *ctx, const struct store_who *who);
int store__mark_lost(struct store *st, double lost_before, double connected_as_of,
		     store_on_lost on_lost, void *ctx);

/*
 * Apply a batch inside the transaction under way (its groups and statuses pending). *applied false: its agent's batch of
 * that number was stored before (a resend). on_process (may be NULL) sees each process it
 * updated. 0 or -EIO.
 */
int store__apply_batch(struct store *st, int64_t agent, const char *host,
		       const Heaptap__Batch *b, bool *applied, store_on_process on_process,
		       void *ctx);

/* The newest run's id, 0 when there is none. */
int64_t store__newest_run(struct store *st);

#endif
